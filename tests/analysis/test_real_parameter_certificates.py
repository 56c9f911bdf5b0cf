"""Certificates for real-parameter loops: intervals that cover, margins that are tight.

Reference loop: two carts joined by a spring, force on the first, position of the
second measured, three lead stages ``100 ((s + 1) / (0.001 s + 1))^3``; masses and
stiffness 1 +- 20 % (the classic noncollocated benchmark of the MATLAB Robust
Control Toolbox example "Getting Reliable Estimates of Robustness Margins").  The
brute-force checks below share no code with robustmb: the closed-loop
characteristic polynomial is written out by hand and its roots taken by NumPy.
"""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.frequency_intervals import (
    Multiplier,
    _interval_between,
    certified_interval,
    multiplier_from_certificate,
)
from robustmb.analysis.mussv import mussv_stack
from robustmb.analysis.uncertain_problem import uncertain_problem


def max_real_pole(m1, m2, k):
    """Max real root part of (m1 m2 s^4 + k (m1 + m2) s^2)(1e-3 s + 1)^3 + 100 k (s + 1)^3."""
    den_c = np.poly1d([1e-3, 1.0]) ** 3
    num_c = 100.0 * np.poly1d([1.0, 1.0]) ** 3
    den_p = np.poly1d([m1 * m2, 0.0, k * (m1 + m2), 0.0, 0.0])
    return float(np.max(np.roots((den_p * den_c + k * num_c).coeffs).real))


def _box_max_real_pole(scale, n=9):
    t = np.linspace(-1.0, 1.0, n) * 0.2 * scale
    return max(max_real_pole(1 + a, 1 + b, 1 + c) for a in t for b in t for c in t)


def _phi_max(m11, mult, beta, w):
    """lambda_max of the frequency-domain inequality, from (jwI - A)^-1 written out here."""
    a, b, c, d = m11
    out = []
    for wk in w:
        m = c @ np.linalg.solve(1j * wk * np.eye(a.shape[0]) - a, b) + d
        if mult.left is not None:
            m = mult.left @ m @ np.linalg.inv(mult.right)
        stack = np.vstack([m, np.eye(m.shape[1])])
        phi = stack.conj().T @ mult.pi(beta) @ stack
        out.append(np.linalg.eigvalsh(0.5 * (phi + phi.conj().T))[-1])
    return np.array(out)


def test_real_mu_certificate_covers_the_interval_where_its_inequality_holds():
    # At 70 rad/s the D,G certificate's inequality holds on about [51.4, 94.8] rad/s;
    # the unscaled, unbalanced pencil used to lose both crossings (a zero-width interval).
    m11 = uncertain_problem(rmb.examples.two_carts_loop()).m11
    blk = [(-1, 0)] * 3
    level, w0 = 0.3468, 70.0
    res = mussv_stack(freqresp(m11, np.array([w0])), blk, lower=False, target=level / 1.001)
    mult = multiplier_from_certificate(blk, res.upper[0], res.D[0], res.G[0])
    lo, hi = certified_interval(m11, mult, level, w0, lambda w: freqresp(m11, np.asarray(w)))
    # brute force: the sign changes of the inequality on a dense grid
    grid = np.linspace(40.0, 110.0, 7001)
    neg = _phi_max(m11, mult, level, grid) < 0
    inside = grid[neg]
    assert lo == pytest.approx(inside.min(), abs=0.02) and hi == pytest.approx(
        inside.max(), abs=0.02
    )
    # sound on a grid of its own: the ends are the crossings to rounding accuracy
    assert np.all(_phi_max(m11, mult, level, np.linspace(lo, hi, 2001)[1:-1]) < 0)
    assert np.all(_phi_max(m11, mult, level, np.array([lo, hi])) < 1e-8)


@pytest.mark.parametrize("shift", [1 - 1e-6, 1 + 1e-6])
def test_interval_ends_hold_when_the_pencil_misplaces_a_crossing(shift):
    """Closed forms: ``|1 / (jw + 1)| <= 1/2`` exactly for ``w >= sqrt(3)`` and
    ``|jw / (jw + 1)| <= 1/2`` for ``w <= 1/sqrt(3)``.  The candidate crossing is handed
    over off by 1e-6 relative (the pencil's eigenvalue error on an ill-conditioned
    certificate exceeds the 1e-9 edge margin); on the wrong side the end used to fall
    back to the segment's first probe, clipped to ``w0`` (3 instead of 1.73)."""
    one, zero = np.eye(1), np.zeros((1, 1))
    mult = Multiplier(one, zero, one)
    for d, w0, true_end, side in ((zero, 3.0, np.sqrt(3.0), 0), (one, 0.1, 3**-0.5, 1)):
        sysdata = (-one, one, -one if d[0, 0] else one, d)

        def evaluate(w, sysdata=sysdata):
            return freqresp(sysdata, np.asarray(w))

        got = _interval_between(np.array([true_end * shift]), mult, 0.5, w0, evaluate, d, 3)
        end = got[side]
        # sound: the end lies inside the true interval ...
        assert (end >= true_end) if side == 0 else (end <= true_end)
        # ... and is the crossing to the accuracy of the candidate or of the bisection
        assert end == pytest.approx(true_end, rel=2e-6)
        assert got[1 - side] == (np.inf if side == 0 else 0.0)


@pytest.mark.slow
def test_two_cart_margin_is_tight_and_sound():
    res = rmb.robstab(rmb.examples.two_carts_loop())
    assert res.certified
    assert res.upper / res.lower - 1 < 5e-3
    # sound: nothing unstable inside lower x the box (dense grid, hand-written polynomial)
    assert _box_max_real_pole(res.lower) < 0
    # realised: the destabilising values put a closed-loop root on the axis or beyond
    v = res.destabilizing
    assert max_real_pole(v["m1"], v["m2"], v["k"]) > -1e-6
    assert _box_max_real_pole(res.upper * 1.001) > 0


def test_relaxing_real_parameters_is_reported_with_its_cost():
    from robustmb.analysis.mu_sweep import certified_mu_peak

    problem = uncertain_problem(rmb.examples.two_carts_loop())
    full = certified_mu_peak(problem.m11, problem.blk, lower=False)
    assert full.covered and full.relaxed == [] and full.real_level == full.upper
    # with two refinement rounds the second one relaxes: it must say where and how much
    short = certified_mu_peak(problem.m11, problem.blk, lower=False, max_rounds=2)
    assert short.covered and len(short.relaxed) > 0
    assert short.real_level < short.upper
    # the relaxed level is still an upper bound (>= the realised peak 1 / 2.8864)
    assert short.upper >= 1 / 2.8864 and full.upper >= 1 / 2.8864
