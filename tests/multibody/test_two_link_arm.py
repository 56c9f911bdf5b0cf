"""rmb.examples.two_link_arm against the closed form of the paper's arm (digest App. A)."""

import numpy as np
import pytest
from mechanism_specs import frequency_response

from robustmb import examples


def closed_form(th1, th2, m1=3.0, j1=0.2, rho1=0.3, l2=1.0, m3=5.0):
    """M, K (angles from the upward vertical) and trim torques; Table 1 otherwise."""
    g, l1, m2, j2, rho2, kp = 9.81, 1.0, 2.0, 0.1, 0.5, 0.1
    alpha = g * (m1 * rho1 * l1 + (m2 + m3) * l1)
    beta = g * (m2 * rho2 * l2 + m3 * l2)
    c2 = np.cos(th2)
    m11 = (
        j1
        + m1 * rho1**2 * l1**2
        + j2
        + m2 * (l1**2 + rho2**2 * l2**2 + 2 * l1 * rho2 * l2 * c2)
        + m3 * (l1**2 + l2**2 + 2 * l1 * l2 * c2)
    )
    m12 = j2 + m2 * (rho2**2 * l2**2 + l1 * rho2 * l2 * c2) + m3 * (l2**2 + l1 * l2 * c2)
    m22 = j2 + m2 * rho2**2 * l2**2 + m3 * l2**2
    # potential V = alpha cos th1 + beta cos(th1 + th2)
    c1, c12 = np.cos(th1), np.cos(th1 + th2)
    k = -np.array([[alpha * c1 + beta * c12, beta * c12], [beta * c12, beta * c12]])
    trim = -np.array([alpha * np.sin(th1) + beta * np.sin(th1 + th2), beta * np.sin(th1 + th2)])
    return np.array([[m11, m12], [m12, m22]]), k + kp * np.eye(2), trim


def second_order(sys):
    """M, D, K of (M s^2 + D s + K)^-1 from three evaluations."""
    h = {s: np.linalg.inv(frequency_response(sys, s)) for s in (0.0, 1.0, -1.0)}
    k = h[0.0].real
    return ((h[1.0] + h[-1.0]) / 2 - k).real, ((h[1.0] - h[-1.0]) / 2).real, k


@pytest.fixture(scope="module")
def arm():
    return examples.two_link_arm()


def test_api_contract(arm):
    assert arm.input_names == ["T1", "T2"]
    assert arm.output_names == ["theta1", "theta2"]
    assert set(arm.blocks) == {"m1", "J1", "rho1", "L2", "m3", "t1", "t2"}
    assert arm.nstates == 4
    t1, t2 = arm.uncertainty["t1"], arm.uncertainty["t2"]
    assert np.allclose(t1.range, np.tan(np.radians([45.0, 90.0]) / 2))
    assert np.allclose(t2.range, np.tan(np.radians([45.0, 135.0]) / 2))
    for name in ("m1", "J1", "rho1", "L2", "m3"):
        el = arm.uncertainty[name]
        assert np.allclose(el.range, [0.8 * el.nominal, 1.2 * el.nominal])
    fixed = examples.two_link_arm(0.5, 0.3, uncertain=False)
    assert fixed.blocks == {}
    half = examples.two_link_arm(None, 0.3)
    assert "t2" not in half.blocks and "t1" in half.blocks


def test_paper_numbers_at_70_30():
    # Digest App. A: M at (70 deg, 30 deg) with Table 1 nominal values
    sys = examples.two_link_arm(np.radians(70), np.radians(30), uncertain=False).nominal()
    m, d, k = second_order(sys)
    assert np.allclose(m, [[23.4623, 10.7962], [10.7962, 5.6]], atol=1e-4)
    assert np.allclose(d, 0.1 * np.eye(2), atol=1e-12)
    # angles from the upward vertical: K_grav is minus the table's "downward" column
    assert np.allclose(
        k - 0.1 * np.eye(2), -np.array([[16.2853, -10.2209], [-10.2209, -10.2209]]), atol=1e-4
    )


def test_lft_equals_closed_form_over_samples(arm):
    rng = np.random.default_rng(2021)
    for _ in range(6):
        th1 = np.radians(rng.uniform(45, 90))
        th2 = np.radians(rng.uniform(45, 135))
        p = {n: rng.uniform(*arm.uncertainty[n].range) for n in ("m1", "J1", "rho1", "L2", "m3")}
        sys = arm.usubs({"t1": np.tan(th1 / 2), "t2": np.tan(th2 / 2), **p})
        m, d, k = second_order(sys)
        m_ref, k_ref, _ = closed_form(th1, th2, p["m1"], p["J1"], p["rho1"], p["L2"], p["m3"])
        assert np.abs(m - m_ref).max() <= 1e-9 * np.abs(m_ref).max()
        assert np.abs(k - k_ref).max() <= 1e-9 * np.abs(k_ref).max()
        assert np.allclose(d, 0.1 * np.eye(2), atol=1e-9)


def test_trim_torques_follow_angles_and_parameters():
    mech = examples.two_link_arm_mechanism()
    trim = mech.trim()
    rng = np.random.default_rng(4)
    for _ in range(4):
        th1, th2 = np.radians(rng.uniform(45, 90)), np.radians(rng.uniform(45, 135))
        vals = {
            "t1": np.tan(th1 / 2),
            "t2": np.tan(th2 / 2),
            "m1": rng.uniform(2.4, 3.6),
            "rho1": rng.uniform(0.24, 0.36),
            "L2": rng.uniform(0.8, 1.2),
            "m3": rng.uniform(4, 6),
        }
        _, _, trim_ref = closed_form(
            th1, th2, vals["m1"], 0.2, vals["rho1"], vals["L2"], vals["m3"]
        )
        for i, j in enumerate(("J1", "J2")):
            e = trim.effort[j]
            got = e.usubs({k: v for k, v in vals.items() if k in e.blocks})
            assert np.isclose(float(got[0, 0]), trim_ref[i], rtol=1e-10)
