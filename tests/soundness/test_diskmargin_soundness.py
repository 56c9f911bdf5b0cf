"""diskmargin against brute force: exact SISO margins and sampled multiloop perturbations.

For a loop ``L = (A, B, C, D)`` under unit negative feedback, the disk margin with
skew ``sigma`` is ``1 / ||S + (sigma - 1)/2 I||_inf`` (``S = (I + L)^-1``), computed
here on a numpy realisation of ``S`` with SLICOT AB13DD.  Every member of the
certified disk is a gain/phase factor ``f = (1 + (1 - sigma) delta / 2) / (1 - (1 +
sigma) delta / 2)`` with ``|delta| < alpha``; the closed loop with ``L diag(f)`` is
formed in numpy and must be stable for real factors inside the gain margin, phase
factors inside the phase margin and sampled complex factors inside the disk.
"""

import control
import numpy as np
import pytest
from _soundness_brute import grid_peak, slicot_hinf, unstable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robustmb as rmb


def _factor(delta, sigma):
    return (1 + (1 - sigma) / 2 * delta) / (1 - (1 + sigma) / 2 * delta)


def _closed_loop_a(a, b, c, d, f):
    """State matrix of ``feedback(L diag(f), I)``."""
    fm = np.diag(np.atleast_1d(f).astype(complex))
    k = np.linalg.solve(np.eye(d.shape[0]) + d @ fm, np.eye(d.shape[0]))
    return a - b @ fm @ k @ c


def _sensitivity(a, b, c, d):
    k = np.linalg.inv(np.eye(d.shape[0]) + d)
    return a - b @ k @ c, b @ k, -k @ c, k


def _loop(rng, n, m, dt):
    a = rng.standard_normal((n, n))
    if dt:
        a *= rng.uniform(0.3, 0.9) / max(np.max(np.abs(np.linalg.eigvals(a))), 1e-9)
    else:
        a -= (np.max(np.linalg.eigvals(a).real) + rng.uniform(0.1, 1.5)) * np.eye(n)
    b = rng.standard_normal((n, m))
    c = rng.standard_normal((m, n)) * rng.uniform(0.3, 2.0)
    d = rng.standard_normal((m, m)) * 0.1
    return a, b, c, d


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    n=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    sigma=st.sampled_from([0.0, -0.5, 0.5, 1.0]),
    dt=st.sampled_from([0.0, 0.05]),
)
def test_siso_disk_margin_is_exact_and_its_disk_is_stable(n, seed, sigma, dt):
    rng = np.random.default_rng(seed)
    a, b, c, d = _loop(rng, n, 1, dt)
    res = rmb.diskmargin(control.ss(a, b, c, d, *([dt] if dt else [])), skew=sigma)
    sa, sb, sc, sd = _sensitivity(a, b, c, d)
    if unstable(sa, dt, rtol=0.0):
        assert res.lower == 0.0
        return
    # SLICOT AB13DD can miss the peak (seed 2912688833, sigma = -0.999: 0.22346 at
    # 7.26 rad/s against 0.22377 at 10.2 rad/s on the grid): take the larger of the two
    sd2 = sd + (sigma - 1) / 2 * np.eye(1)
    peak = max(slicot_hinf(sa, sb, sc, sd2, dt)[0], grid_peak(sa, sb, sc, sd2, dt)[0])
    exact = 1.0 / peak
    assert res.lower <= exact * (1 + 1e-6)
    assert res.upper >= exact * (1 - 1e-5)
    # members of the certified disk keep the loop stable
    alpha = res.lower * (1 - 1e-6)
    lo, hi = res.gain_margin
    # an infinite gain margin: every gain above 1 is claimed, large ones sampled
    above = np.linspace(1, hi, 8)[1:] if np.isfinite(hi) else np.geomspace(1, 1e6, 8)[1:]
    gains = np.concatenate([np.linspace(lo, 1, 8)[:-1], above]) * (1 - 1e-6) + 1e-6
    phases = np.deg2rad(res.phase_margin * (1 - 1e-6)) * np.array([-1.0, -0.5, 0.5, 1.0])
    deltas = alpha * np.exp(2j * np.pi * rng.uniform(size=16))
    for f in [*gains, *np.exp(1j * phases), *_factor(deltas, sigma)]:
        if not np.isfinite(f):
            continue
        assert not unstable(_closed_loop_a(a, b, c, d, f), dt), (f, res)
    # the worst perturbation puts a pole on the boundary: I + L(s) f singular
    f = res.worst_perturbation[0]
    s = np.exp(1j * res.frequency * dt) if dt else 1j * res.frequency
    if np.isfinite(res.frequency):
        lval = c @ np.linalg.solve(s * np.eye(n) - a, b) + d
        assert abs(1 + f * lval[0, 0]) <= 1e-6 * (1 + abs(f * lval[0, 0]))


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 4), seed=st.integers(0, 2**16), sigma=st.sampled_from([0.0, 0.5]))
def test_multiloop_disk_margin_certificate(n, seed, sigma):
    rng = np.random.default_rng(seed)
    a, b, c, d = _loop(rng, n, 2, 0.0)
    res = rmb.diskmargin(control.ss(a, b, c, d), skew=sigma)
    sa = _sensitivity(a, b, c, d)[0]
    if unstable(sa, rtol=0.0):
        assert res.lower == 0.0
        return
    assert res.lower <= res.upper * (1 + 1e-6)
    # independent perturbations of both channels inside the certified disk: stable
    alpha = res.lower * (1 - 1e-6)
    for _ in range(100):
        delta = alpha * np.sqrt(rng.uniform(size=2)) * np.exp(2j * np.pi * rng.uniform(size=2))
        if rng.uniform() < 0.5:
            delta = alpha * np.exp(2j * np.pi * rng.uniform(size=2))
        assert not unstable(_closed_loop_a(a, b, c, d, _factor(delta, sigma))), (delta, res)
    # the reported worst perturbation, of size upper, makes I + L(jw) diag(f) singular
    f = res.worst_perturbation
    if f.size and np.isfinite(res.frequency):
        s = 1j * res.frequency
        lval = c @ np.linalg.solve(s * np.eye(n) - a, b) + d
        smin = np.linalg.svd(np.eye(2) + lval @ np.diag(f), compute_uv=False)[-1]
        assert smin <= 1e-6 * (1 + np.linalg.norm(lval, 2) * np.max(np.abs(f)))
        size = np.max(np.abs((f - 1) / ((1 - sigma) / 2 + (1 + sigma) / 2 * f)))
        assert size == pytest.approx(res.upper, rel=1e-5)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(
    n=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    sigma=st.sampled_from([0.0, -0.5, 0.5, 1.0, -1.0 + 1e-3]),
    dt=st.sampled_from([0.0, 0.05]),
)
def test_siso_disk_margin_campaign(n, seed, sigma, dt):
    test_siso_disk_margin_is_exact_and_its_disk_is_stable.hypothesis.inner_test(n, seed, sigma, dt)
