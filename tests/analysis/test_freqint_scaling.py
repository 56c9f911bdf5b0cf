"""Whole-axis and band mu certificates of scaled models: amplitude, time and state scalings.

``mu(c M) = c mu(M)``, a time scaling ``s -> a s`` only multiplies the frequencies by
``a``, and a similarity of the states changes nothing: the certified bounds must follow.
The references are brute force sharing no code with the package: for the structure of a
real scalar ``d1`` and a complex scalar ``d2``, ``det(I - M diag(d1, d2)) = 0`` gives
``d2`` as a function of ``d1``, so ``mu(M) = 1 / min_d1 max(|d1|, |d2(d1)|)``, an exact
1-D sweep of the real parameter (here on a dense grid, which can only underestimate mu).
"""

import numpy as np
import pytest

from robustmb.analysis.frequency_band import band_mu_peak
from robustmb.analysis.mu_sweep import certified_mu_peak

BLK = [(-1, 0), (1, 1)]


def first_order(w0=1.0):
    """``M(s)``: two first-order modes at ``w0`` and ``2 w0``, 2 x 2 with a feedthrough."""
    a = np.diag([-w0, -2 * w0])
    b = np.array([[w0, w0], [2 * w0, 0.0]])
    c = np.array([[0.3, 0.2], [0.4, 0.1]])
    d = np.array([[0.0, 0.1], [0.2, 0.5]])
    return a, b, c, d


def brute_mu(data, w):
    """``mu`` of ``M(jw)`` for each ``w`` by the 1-D sweep of the real scalar (numpy only)."""
    a, b, c, d = data
    d1 = np.linspace(-4.0, 4.0, 400001)
    out = []
    for x in np.atleast_1d(w):
        m = c @ np.linalg.solve(1j * x * np.eye(a.shape[0]) - a, b) + d
        det = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            d2 = np.abs((1 - m[0, 0] * d1) / (m[1, 1] - det * d1))
        r = np.nanmin(np.maximum(np.abs(d1), d2))
        out.append(1.0 / r)
    return np.array(out)


@pytest.fixture(scope="module")
def brute_peak():
    w = np.concatenate([[0.0], np.geomspace(1e-3, 1e3, 400)])
    return float(np.max(brute_mu(first_order(), w)))


@pytest.mark.parametrize("amp", [1e-13, 1e-16])
def test_small_model_keeps_a_relative_level(amp, brute_peak):
    # The level was max bound * (1 + rel_gap) + 1e-12 (absolute): 1e-13 M was certified
    # at 11.27e-13 against a peak of 1.267e-13, 1e-16 M 10^4 times above its peak.
    a, b, c, d = first_order()
    peak = certified_mu_peak((a, b, amp * c, amp * d), BLK)
    assert peak.covered
    assert peak.upper >= amp * brute_peak  # sound
    assert peak.upper <= amp * brute_peak * (1 + 3e-3)  # and as tight as for M itself


@pytest.mark.slow
def test_small_model_band_level_is_relative():
    a, b, c, d = first_order()
    band = (0.1, 10.0)
    ref = float(np.max(brute_mu(first_order(), np.geomspace(*band, 2000))))
    amp = 1e-14
    peak = band_mu_peak((a, b, amp * c, amp * d), BLK, 0.0, band)
    assert peak.covered
    assert amp * ref <= peak.upper <= amp * ref * (1 + 3e-3)


@pytest.mark.parametrize("a_scale", [1e-6, 1e6])
def test_time_and_state_scaled_model_keeps_its_bound(a_scale, brute_peak):
    # exact scalings of the same M: time by a_scale, states by 1e-6 and 1e6
    a, b, c, d = first_order(a_scale)
    t = np.diag([1e-6, 1e6])
    ti = np.diag([1e6, 1e-6])
    peak = certified_mu_peak((ti @ a @ t, ti @ b, c @ t, d), BLK)
    assert peak.covered
    assert brute_peak <= peak.upper <= brute_peak * (1 + 3e-3)


def test_completion_of_time_scaled_evidence():
    # complete_frequency_certificate optimised and placed its new points in rad/s, on
    # the model as given, while the check runs in the model's own frequency unit: the
    # evidence of the spacecraft loop time-scaled by 1e6 completed from none of its
    # points (gaps such as (2.4e4, inf) rad/s); at a = 1 it completes from most.
    import sys
    from pathlib import Path

    import robustmb as rmb
    from robustmb.analysis.frequency_certificate import complete_frequency_certificate
    from robustmb.analysis.uncertain_problem import uncertain_problem

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_frequency_scaling import gain, loop, stable

    a = 1e6
    T = loop(a)
    res = rmb.wcgain(T)
    problem = uncertain_problem(T)
    ny, nu = problem.model.shape
    blk = problem.blk + [(nu, ny)]
    data = problem.performance(res.upper)
    w_all, x_all = res.mu.omega, res.mu.scalings
    covered = 0
    for k in (len(w_all) // 4, len(w_all) // 2):
        w, x, chk = complete_frequency_certificate(
            data, blk, 1.0, w_all[k : k + 1], x_all[k : k + 1]
        )
        covered += chk.covered
        assert np.all(w >= 0) and x.shape == (w.size, x_all.shape[1])
    assert covered == 2
    # what it proves (worst gain below res.upper) against brute force over the box's
    # vertices and centre (the worst case is a vertex) on a dense grid of w / a
    nu = np.geomspace(1e-3, 1e2, 20001)
    corners = [(0.0, 0.0, 0.0)] + [(i, j, k) for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)]
    brute = max(gain(1.0, nu, *p).max() for p in corners if stable(*p))
    assert brute <= res.upper


def two_mode_model(seed):
    """Two lightly damped modes (0.3 and 3 rad/s, damping 0.025), random 2 x 2 channels."""
    rng = np.random.default_rng(seed)
    a = np.zeros((4, 4))
    for i, w in enumerate((0.3, 3.0)):
        a[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[0.0, w], [-w, -0.05 * w]]
    b, c = rng.standard_normal((4, 2)), rng.standard_normal((2, 4))
    return a, b, c, 0.2 * rng.standard_normal((2, 2))


def real_mu_two_scalars(m):
    """Exact ``mu`` of a complex 2 x 2 ``m`` for two real scalars (numpy only).

    ``det(I - m diag(d1, d2)) = 0`` gives ``d2 = (1 - m11 d1) / (m22 - det(m) d1)``,
    which must be real: ``Im[(1 - m11 d1) conj(m22 - det(m) d1)] = 0``, a real quadratic
    in ``d1``.  Single-parameter solutions (``d2 = 0`` or ``d1 = 0``) need a real
    ``m11`` or ``m22``.  Not used where ``m`` is real (every ``d1`` then solves).
    """
    m11, m22 = m[0, 0], m[1, 1]
    det = m11 * m22 - m[0, 1] * m[1, 0]
    best = np.inf
    for mm in (m11, m22):
        if mm.imag == 0 and mm.real != 0:
            best = min(best, abs(1.0 / mm.real))
    c0, c1, c2 = np.conj(m22), -np.conj(det) - m11 * np.conj(m22), m11 * np.conj(det)
    roots = np.roots([c2.imag, c1.imag, c0.imag])
    for x in roots[np.abs(roots.imag) <= 1e-9 * np.maximum(1.0, np.abs(roots))].real:
        den = m22 - det * x
        if den != 0:
            best = min(best, max(abs(x), abs((1 - m11 * x) / den)))
    return 1.0 / best if np.isfinite(best) else 0.0


@pytest.mark.parametrize("seed", [1, 4])
@pytest.mark.parametrize(("a_scale", "channel"), [(1.0, 1.0), (1e-6, 1e8), (1e6, 1e-8)])
def test_real_mu_peak_of_scaled_models_is_sound(seed, a_scale, channel):
    # Two real scalars: mu is nonzero only where a real solution exists (a real-mu peak
    # next to lightly damped modes).  Time scaling by a and block channel scaling P M P^-1
    # (P = diag(p, 1/p)) leave mu unchanged; the bound must stay above the exact mu on a
    # dense grid and be the same as for the unscaled model.
    blk = [(-1, 0), (-1, 0)]
    a, b, c, d = two_mode_model(seed)
    w = np.geomspace(1e-3, 1e3, 20001)
    ms = np.array([c @ np.linalg.solve(1j * x * np.eye(4) - a, b) + d for x in w])
    brute = max(real_mu_two_scalars(m) for m in ms)
    p = np.array([channel, 1.0 / channel])
    data = (a_scale * a, a_scale * b / p[None, :], p[:, None] * c, p[:, None] * d / p[None, :])
    peak = certified_mu_peak(data, blk)
    ref = certified_mu_peak((a, b, c, d), blk)
    assert peak.covered and ref.covered
    assert peak.upper >= brute
    assert peak.upper == pytest.approx(ref.upper, rel=1e-5)
    assert peak.lower <= peak.upper


@pytest.mark.parametrize("channel", [1e7, 1e-7])
def test_interval_of_a_widely_scaled_diagonal_certificate_is_sound(channel):
    # certified_interval on P M P^-1 (P = diag(p, 1/p)) without the sweep's frame: the
    # certificates' D spans 1e14, and a D with cond(D) >= 1e12 was folded into the
    # multiplier, whose pencil then lost a pair of crossings: at 2.29 rad/s a certificate
    # claimed mu <= 9.30 on (0.416, inf) while the exact mu reaches 9.96 at 2.99 rad/s.
    from robustmb.analysis.frequency_intervals import (
        certified_interval,
        multiplier_from_certificate,
    )
    from robustmb.analysis.mu_sweep import balanced_response_function
    from robustmb.analysis.mussv import mussv_stack

    blk = [(-1, 0), (-1, 0)]
    a, b, c, d = two_mode_model(0)
    p = np.array([channel, 1.0 / channel])
    data = (a, b / p[None, :], p[:, None] * c, p[:, None] * d / p[None, :])
    respond = balanced_response_function(*data)
    w = np.geomspace(1e-2, 1e2, 40)
    res = mussv_stack(respond(w), blk, lower=False)
    level = 1.02 * res.upper.max()
    checked = 0
    for k in range(w.size):
        mult = multiplier_from_certificate(blk, res.upper[k], res.D[k], res.G[k])
        iv = certified_interval(data, mult, level, w[k], respond)
        if iv is None:
            continue
        ww = np.geomspace(max(iv[0], 1e-4), min(iv[1], 1e4), 1500)
        mus = [real_mu_two_scalars(m) for m in respond(ww)]
        assert max(mus) <= level, (w[k], iv)
        checked += 1
    assert checked >= 20
