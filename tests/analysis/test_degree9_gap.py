"""robstab on the degree-9 interval polynomial (9 real coefficients at +-3 %).

Reference: Kharitonov's theorem (the box scaled by ``t`` is stable iff its four
Kharitonov polynomials are Hurwitz; the boxes are nested), bisected with
``numpy.roots`` only -- no robustmb code.  Acceptance of issue 11: gap <= 1 % above
8 parameters, and the certificate is never false (lower <= exact <= upper).
"""

import control
import numpy as np
import pytest

import robustmb as rmb

ROOTS = [-1, -1.5, -2, -2.5, -3, -0.5 + 1j, -0.5 - 1j, -1 + 2j, -1 - 2j]
PERCENT = 3.0


def _loop():
    """Companion-form loop ``s^9 + a_8 s^8 + ... + a_0``, each ``a_i`` a ``ureal``."""
    coeffs = np.real(np.poly(ROOTS))[::-1][:-1]  # a_0 .. a_8
    n = len(coeffs)
    b = np.zeros((n, 1))
    b[-1, 0] = 1.0
    chain = rmb.uss(control.ss(np.diag(np.ones(n - 1), 1), b, np.eye(n), np.zeros((n, 1))))
    gain = None
    for i, c in enumerate(coeffs):
        row = np.zeros((1, n))
        row[0, i] = 1.0
        term = rmb.ureal(f"a{i}", float(c), percent=PERCENT) * rmb.uss(control.ss([], [], [], row))
        gain = term if gain is None else gain + term
    return rmb.feedback(chain, gain), coeffs


def _kharitonov_margin(coeffs, tol=1e-12):
    c = np.asarray(coeffs, float)
    r = np.abs(c) * PERCENT / 100.0
    patterns = [(-1, -1, 1, 1), (1, 1, -1, -1), (-1, 1, 1, -1), (1, -1, -1, 1)]

    def stable(t):
        for pat in patterns:
            sign = np.array([pat[i % 4] for i in range(len(c))])
            poly = np.concatenate([[1.0], (c + t * sign * r)[::-1]])
            if np.max(np.roots(poly).real) >= 0:
                return False
        return True

    lo, hi = 0.0, 1.0
    while stable(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if stable(mid) else (lo, mid)
    return hi


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


@pytest.mark.slow
def test_degree9_gap_within_one_percent():
    loop, coeffs = _loop()
    exact = _kharitonov_margin(coeffs)
    res = rmb.robstab(loop, sensitivity=False)
    assert res.lower <= exact <= res.upper
    assert res.upper / res.lower - 1 <= 0.01
