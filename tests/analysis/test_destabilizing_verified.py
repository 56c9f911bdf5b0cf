"""The destabilising values robstab reports really destabilise (checked by polynomial roots)."""

import control
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robustmb as rmb

s = control.tf("s")


def _max_real_root(coeffs):
    return float(np.max(np.roots(coeffs).real))


def test_mass_crossing_zero_is_a_pole_escaping_to_infinity():
    # 1/(m s^2 + s + 1), m in [0.25, 2]: stable for every m > 0; the margin is where
    # m reaches 0 (scaling 1.125 / 0.875 = 9/7), through a pole escaping to infinity.
    m = rmb.ureal("m", 1.0, range=(0.25, 2.0))
    res = rmb.robstab(1 / (m * s * s + s + 1))
    exact = 9.0 / 7.0
    assert res.lower <= exact <= res.upper <= exact * (1 + 1e-3)
    assert np.isinf(res.critical_frequency)
    m_bad = res.destabilizing["m"]
    assert _max_real_root([m_bad, 1.0, 1.0]) > 0  # really unstable (roots, not the LFT)
    assert "infinity" in res.reason
    # brute force: every m in the box scaled by `lower` is stable
    for mm in 1.125 + 0.875 * res.lower * np.linspace(-1, 1, 2001):
        assert _max_real_root([mm, 1.0, 1.0]) < 0


def test_tiny_damping_range_reports_a_value_on_or_beyond_the_boundary():
    # c in [0, 2e-9]: the margin is exactly 1 (c = 0 puts poles on +-j)
    c = rmb.ureal("c", 1e-9, range=(0.0, 2e-9))
    res = rmb.robstab(1 / (s * s + c * s + 1))
    assert res.lower <= 1.0 <= res.upper <= 1.0 + 1e-3
    c_bad = res.destabilizing["c"]
    assert c_bad <= 0.0  # c > 0 would be stable
    assert res.critical_frequency == pytest.approx(1.0, rel=1e-6)


def test_actuator_time_constant_reaching_zero_does_not_raise():
    # tau -> 0 makes the LFT of 1/tau ill-posed: verification must not raise
    tau = rmb.ureal("tau", 0.05, range=(0.02, 0.1))
    act = rmb.uss([[-1 / tau]], [[1 / tau]], [[1]], [[0]])
    plant = 1 / (s * s + 0.5 * s + 4)
    k = 60 * (1 + 0.5 * s) / (1 + 0.01 * s)
    res = rmb.robstab(rmb.feedback(rmb.simplify(act * plant * k), 1))
    assert res.lower <= res.upper
    if np.isfinite(res.upper):
        t_bad = res.destabilizing["tau"]
        loop = control.feedback(control.tf([1], [t_bad, 1]) * control.tf([1], [1, 0.5, 4]) * k, 1)
        assert np.max(np.real(control.poles(loop))) > 0
    # brute force inside the certified scaling: tau = 0.06 + 0.04 * lower * x
    for x in np.linspace(-1, 1, 201):
        t = 0.06 + 0.04 * res.lower * x
        loop = control.feedback(control.tf([1], [t, 1]) * control.tf([1], [1, 0.5, 4]) * k, 1)
        assert np.max(np.real(control.poles(loop))) < 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a1=st.floats(0.2, 3.0),
    a0=st.floats(0.2, 3.0),
    nom=st.floats(0.1, 2.0),
    half=st.floats(0.05, 3.0),
)
def test_reported_destabilising_value_is_unstable_or_on_the_boundary(a1, a0, nom, half):
    # s^3 + a1 s^2 + (q) s + a0 with q uncertain: Routh-Hurwitz gives the exact margin
    q = rmb.ureal("q", nom + half, range=(nom, nom + 2 * half))
    res = rmb.robstab(1 / (s**3 + a1 * s * s + q * s + a0))
    centre = nom + half
    if a1 * centre <= a0:  # unstable at the centre
        assert res.upper == 0.0 and "unstable" in res.reason
        return
    exact = (centre - a0 / a1) / half  # q crosses a0/a1: poles at +-j sqrt(a0/a1)
    assert res.lower <= exact * (1 + 1e-9)
    assert res.upper >= exact * (1 - 1e-9)
    if np.isfinite(res.upper):
        q_bad = res.destabilizing["q"]
        r = np.roots([1.0, a1, q_bad, a0])
        assert np.max(r.real) >= -1e-12 * np.max(np.abs(r))
        assert res.upper <= exact * (1 + 2e-3)
