"""hinfnorm / h2norm against SLICOT, scipy and high-precision arithmetic.

Random stable systems are handed to robustmb in a badly scaled state basis
(``T A T^-1`` with ``T`` diagonal over several decades) while the references are
computed on the original, well-conditioned realisation (the norms do not depend on
the basis): SLICOT AB13DD / AB13BD through slycot, a dense frequency grid, and the
scipy Lyapunov solution.  Stiff systems are referenced to mpmath (40 digits),
since SLICOT itself loses digits on them.
"""

import control
import numpy as np
import pytest
from _soundness_brute import (
    freqresp,
    grid_peak,
    lyapunov_h2,
    mp_h2,
    mp_peak,
    slicot_h2,
    slicot_hinf,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robustmb as rmb


def _random_stable(rng, n, m, p, dt):
    a = rng.standard_normal((n, n))
    if dt:
        a *= rng.uniform(0.3, 0.95) / max(np.max(np.abs(np.linalg.eigvals(a))), 1e-9)
    else:
        a -= (np.max(np.linalg.eigvals(a).real) + rng.uniform(0.05, 2.0)) * np.eye(n)
    return a, rng.standard_normal((n, m)), rng.standard_normal((p, n)), rng.standard_normal((p, m))


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    n=st.integers(1, 6),
    m=st.integers(1, 3),
    p=st.integers(1, 3),
    seed=st.integers(0, 2**16),
    dt=st.sampled_from([0.0, 0.1]),
    decades=st.sampled_from([0.0, 4.0, 8.0]),
)
def test_norms_match_references_in_any_state_basis(n, m, p, seed, dt, decades):
    rng = np.random.default_rng(seed)
    a, b, c, d = _random_stable(rng, n, m, p, dt)
    t = np.diag(10.0 ** rng.uniform(-decades / 2, decades / 2, n))
    ti = np.linalg.inv(t)
    sysx = control.ss(t @ a @ ti, t @ b, c @ ti, d, *([dt] if dt else []))
    gamma, fpeak = rmb.hinfnorm(sysx)
    low, _ = grid_peak(a, b, c, d, dt)
    ref = max(slicot_hinf(a, b, c, d, dt)[0], low)  # SLICOT can miss a peak
    assert gamma >= low * (1 - 1e-8), (gamma, low)
    assert gamma == pytest.approx(ref, rel=1e-6)
    # the reported peak frequency achieves the norm
    if np.isinf(fpeak):  # the supremum is approached as omega -> infinity: |D|
        g_at = np.linalg.norm(d, 2)
    else:
        g_at = np.linalg.norm(freqresp(a, b, c, d, [fpeak], dt)[0], 2)
    assert g_at == pytest.approx(gamma, rel=1e-6)
    if dt:
        ref2 = slicot_h2(a, b, c, d, dt)
    else:
        sysx = control.ss(t @ a @ ti, t @ b, c @ ti, 0 * d)
        ref2 = slicot_h2(a, b, c, 0 * d)
        assert lyapunov_h2(a, b, c) == pytest.approx(ref2, rel=1e-6)
    assert rmb.h2norm(sysx) == pytest.approx(ref2, rel=1e-6)


def _chain():
    """1 g and 1 kg joined by 1e8 N/m, wall spring 1 N/m and damper 1e-3 N s/m on the 1 kg."""
    m1, m2, k, c12, kw, cw = 1e-3, 1.0, 1e8, 1.0, 1.0, 1e-3
    a = np.array(
        [
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [-k / m1, k / m1, -c12 / m1, c12 / m1],
            [k / m2, -(k + kw) / m2, c12 / m2, -(c12 + cw) / m2],
        ]
    )
    b = np.array([[0.0], [0.0], [1 / m1], [0.0]])
    c = np.array([[0.0, 1.0, 0.0, 0.0]])
    return a, b, c, np.zeros((1, 1))


def test_stiff_chain_hinfnorm_reproducer():
    a, b, c, d = _chain()
    assert np.max(np.linalg.eigvals(a).real) < -4e-4  # stable: slow mode Re = -5e-4
    ref = mp_peak(a, b, c, d, 0.9995)  # 1000.50000...
    gamma, _ = rmb.hinfnorm(control.ss(a, b, c, d))
    assert gamma == pytest.approx(ref, rel=1e-6)


def test_stiff_chain_h2norm_reproducer():
    a, b, c, d = _chain()
    ref = mp_h2(a, b, c)  # sqrt(500) = 22.36068 (SLICOT AB13BD: 22.476)
    assert rmb.h2norm(control.ss(a, b, c, d)) == pytest.approx(ref, rel=1e-6)


def test_resonator_h2norm_in_scaled_basis_reproducer():
    a = np.array([[0.0, 1.0], [-1.0, -0.2]])
    b = np.array([[0.0], [1.0]])
    c = np.array([[1.0, 0.0]])
    ref = mp_h2(a, b, c)  # 1 / sqrt(4 * 0.1) = 1.5811
    assert ref == pytest.approx(np.sqrt(2.5), rel=1e-12)
    t = np.diag([1e3, 1e-3])
    ti = np.linalg.inv(t)
    assert rmb.h2norm(control.ss(t @ a @ ti, t @ b, c @ ti, 0)) == pytest.approx(ref, rel=1e-6)


@pytest.mark.parametrize(
    "gain",
    [
        1e-150,
        1e-100,
        1e100,
        pytest.param(
            1e150,
        ),
    ],
)
def test_norms_of_extreme_gains(gain):
    # g / (s + 1): peak gain g at omega = 0, H2 norm g / sqrt(2)
    sys = control.ss(-1.0, 1.0, gain, 0.0)
    assert rmb.hinfnorm(sys)[0] == pytest.approx(gain, rel=1e-8)
    assert rmb.h2norm(sys) == pytest.approx(gain / np.sqrt(2), rel=1e-8)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
@given(
    n=st.integers(1, 8),
    m=st.integers(1, 3),
    p=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    dt=st.sampled_from([0.0, 0.1, 1.0]),
    decades=st.sampled_from([0.0, 4.0, 8.0]),
)
def test_norms_match_references_campaign(n, m, p, seed, dt, decades):
    test_norms_match_references_in_any_state_basis.hypothesis.inner_test(n, m, p, seed, dt, decades)


# Minimal cases found by the campaign above (8-decade diagonal state basis).
@pytest.mark.parametrize(
    ("seed", "dt"),
    [
        pytest.param(
            39,
            0.0,
            id="h2norm-zero",
        ),
        pytest.param(
            3133223,
            0.0,
            id="hinfnorm-continuous",
        ),
        pytest.param(
            3133223,
            0.1,
            id="hinfnorm-discrete",
        ),
    ],
)
def test_norms_in_an_eight_decade_basis_reproducer(seed, dt):
    test_norms_match_references_in_any_state_basis.hypothesis.inner_test(3, 1, 1, seed, dt, 8.0)
