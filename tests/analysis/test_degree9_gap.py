"""robstab on the degree-9 (9 real coefficients at +-3 %) and degree-7 (+-5 %) interval
polynomials.

Reference: Kharitonov's theorem (the box scaled by ``t`` is stable iff its four
Kharitonov polynomials are Hurwitz; the boxes are nested), bisected with
``numpy.roots`` only -- no robustmb code (``benchmarks/bench_real_parameters.py``'s
``kharitonov_margin``, which the problem-set table uses too).  Acceptance of issue
11: gap <= 0.5 % (<= 1 % above 8 parameters), and the certificate is never false (lower <= exact
<= upper).
"""

import numpy as np
import pytest
from _scripts import load_script

import robustmb as rmb

# the problem set's loop builder and Kharitonov reference (numpy.roots only)
BENCH = load_script("benchmarks", "bench_real_parameters.py", name="bench_real_parameters")
ROOTS = [-1, -1.5, -2, -2.5, -3, -0.5 + 1j, -0.5 - 1j, -1 + 2j, -1 - 2j]
PERCENT = 3.0
# the problem set's degree-7 loop (7 real coefficients at +-5 %)
ROOTS7 = [-0.5 + 1j, -0.5 - 1j, -1, -1.5, -2 + 2j, -2 - 2j, -3]


def _loop():
    """Companion-form loop ``s^9 + a_8 s^8 + ... + a_0``, each ``a_i`` a ``ureal``."""
    return BENCH.interval_polynomial_loop(ROOTS, PERCENT)


def _kharitonov_margin(coeffs):
    return BENCH.kharitonov_margin(coeffs, PERCENT)


def test_kharitonov_reference():
    """The reference itself: stable just inside the margin, a vertex unstable just past it."""
    _, coeffs = _loop()
    exact = _kharitonov_margin(coeffs)
    assert 1.3 < exact < 1.33  # 1.31406, as recorded in benchmarks/RESULTS.md (d)
    c = np.asarray(coeffs)
    r = np.abs(c) * PERCENT / 100.0
    worst = -np.inf
    for pat in [(-1, -1, 1, 1), (1, 1, -1, -1), (-1, 1, 1, -1), (1, -1, -1, 1)]:
        sign = np.array([pat[i % 4] for i in range(len(c))])
        poly = np.concatenate([[1.0], (c + 1.001 * exact * sign * r)[::-1]])
        worst = max(worst, np.max(np.roots(poly).real))
    assert worst > 0


def test_the_search_finds_the_kharitonov_vertex():
    """The box corners are enumerated up to 12 elements: the direct search's crossing on
    the degree-7 and degree-9 loops is the Kharitonov vertex, i.e. the exact margin."""
    from robustmb.analysis import robust_stability
    from robustmb.analysis.uncertain_problem import uncertain_problem

    for roots, percent in [(ROOTS7, 5.0), (ROOTS, PERCENT)]:
        loop, coeffs = BENCH.interval_polynomial_loop(roots, percent)
        exact = BENCH.kharitonov_margin(coeffs, percent)
        alpha, _ = robust_stability._parameter_search(uncertain_problem(loop), 20.0)
        assert alpha == pytest.approx(exact, rel=1e-9)


@pytest.mark.slow
def test_degree7_gap_within_half_a_percent():
    loop, coeffs = BENCH.interval_polynomial_loop(ROOTS7, 5.0)
    exact = BENCH.kharitonov_margin(coeffs, 5.0)
    res = rmb.robstab(loop, sensitivity=False)
    assert res.lower <= exact <= res.upper
    assert res.upper / res.lower - 1 <= 0.005


@pytest.mark.slow
def test_degree9_gap_within_one_percent():
    loop, coeffs = _loop()
    exact = _kharitonov_margin(coeffs)
    res = rmb.robstab(loop, sensitivity=False)
    assert res.lower <= exact <= res.upper
    assert res.upper / res.lower - 1 <= 0.01
