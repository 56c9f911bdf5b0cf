"""Nonlinear closed loop of the two-link arm under a gain-scheduled controller.

References: the arm's Lagrange equations written out by hand below (sharing
no code with robustmb.multibody), the LFT substituted by ``usubs`` (a second
evaluation path of the scheduled controller), and the linear closed loop of
the LFT model (small steps must converge to it at second order).
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robustmb as rmb
from robustmb.errors import DimensionError, FreeTunableError, SignalError
from robustmb.examples import arm_step_check, two_link_arm_mechanism, two_link_arm_schedule
from robustmb.multibody import ScheduledController, simulate_scheduled_loop
from robustmb.report.arm_lpv import scheduled_pid

G, L1, M2, J2, RHO2, KP, KD = 9.81, 1.0, 2.0, 0.1, 0.5, 0.1, 0.1
NOMINAL = {"m1": 3.0, "J1": 0.2, "rho1": 0.3, "L2": 1.0, "m3": 5.0}


def lagrange_acceleration(q, v, tau, q_rest, m1, J1, rho1, L2, m3):  # noqa: N803
    """Two-link arm, angles from the upward vertical, both joints about +x (by hand).

    M(q) q'' + c(q, q') = tau + g-torque - KP (q - q_rest) - KD q'.
    """
    a = L1 * (M2 * RHO2 * L2 + m3 * L2)  # coupling coefficient of cos(q2)
    c2, s2 = np.cos(q[1]), np.sin(q[1])
    m11 = J1 + m1 * (rho1 * L1) ** 2 + J2 + M2 * (L1**2 + (RHO2 * L2) ** 2) + m3 * (L1**2 + L2**2)
    m22 = J2 + M2 * (RHO2 * L2) ** 2 + m3 * L2**2
    mass = np.array([[m11 + 2 * a * c2, m22 + a * c2], [m22 + a * c2, m22]])
    cor = np.array([-a * s2 * (2 * v[0] * v[1] + v[1] ** 2), a * s2 * v[0] ** 2])
    alpha = m1 * rho1 * L1 + (M2 + m3) * L1
    beta = M2 * RHO2 * L2 + m3 * L2
    s1, s12 = np.sin(q[0]), np.sin(q[0] + q[1])
    grav = G * np.array([alpha * s1 + beta * s12, beta * s12])
    rhs = tau + grav - KP * (q - q_rest) - KD * v - cor
    return np.linalg.solve(mass, rhs)


@pytest.fixture(scope="module")
def pid():
    return scheduled_pid()[0]


def test_forward_dynamics_equals_lagrange_equations():
    rng = np.random.default_rng(3)
    q_rest = np.radians([60.0, 100.0])
    mech = two_link_arm_mechanism(*q_rest)
    for _ in range(20):
        vals = {k: v * rng.uniform(0.8, 1.2) for k, v in NOMINAL.items()}
        q, v, tau = rng.uniform(-2, 2, 2), rng.uniform(-3, 3, 2), rng.uniform(-50, 50, 2)
        got = mech.forward_dynamics(q, v, tau, values=vals)
        ref = lagrange_acceleration(q, v, tau, q_rest, **vals)
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)


def test_scheduled_controller_matches_substitution(pid):
    ctrl = ScheduledController(pid)
    assert sorted(ctrl.names) == ["t1", "t2"]
    rng = np.random.default_rng(0)
    for th in np.radians(rng.uniform([45, 45], [90, 135], size=(10, 2))):
        sched = two_link_arm_schedule(th)
        ref = pid.usubs(sched)
        for got, want in zip(ctrl.matrices(sched), (ref.A, ref.B, ref.C, ref.D), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_clipped_schedule_holds_the_boundary(pid):
    ctrl = ScheduledController(pid)
    t1, t2 = (pid.uncertainty[k] for k in ("t1", "t2"))
    outside = {"t1": t1.range[1] + 0.7, "t2": t2.range[0] - 0.2}
    boundary = pid.usubs({"t1": t1.range[1], "t2": t2.range[0]})
    got = ctrl.matrices(outside, clip=True)
    for g, want in zip(got, (boundary.A, boundary.B, boundary.C, boundary.D), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
    beyond = pid.usubs(outside)
    np.testing.assert_allclose(ctrl.matrices(outside)[2], beyond.C, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_closed_loop_equals_independent_integration(pid):
    """Same run by solve_ivp on the hand-written equations with K from usubs."""
    start, target = np.radians([50.0, 60.0]), np.radians([80.0, 120.0])
    t = np.linspace(0.0, 1.5, 16)
    mech = two_link_arm_mechanism(*start)
    res = simulate_scheduled_loop(
        mech,
        pid,
        two_link_arm_schedule,
        target,
        (0, 1.5),
        q0=start,
        t_eval=t,
        rtol=1e-10,
        clip=False,
    )

    def hold(q):
        # static torque: zero acceleration at rest, i.e. M(q) * acceleration under zero torque
        mass_times_acc = np.linalg.solve(
            np.linalg.inv(mech.mass_matrix(q)),
            lagrange_acceleration(q, np.zeros(2), np.zeros(2), start, **NOMINAL),
        )
        return -mass_times_acc

    nk = pid.nstates

    def rhs(_t, y):
        q, v, x = y[:2], y[2:4], y[4:]
        k = pid.usubs(two_link_arm_schedule(q))
        e = target - q
        tau = hold(target) + k.C @ x + k.D @ e
        return np.concatenate(
            [v, lagrange_acceleration(q, v, tau, start, **NOMINAL), k.A @ x + k.B @ e]
        )

    ref = solve_ivp(
        rhs, (0, 1.5), np.r_[start, 0, 0, np.zeros(nk)], t_eval=t, rtol=1e-9, atol=1e-11
    )
    np.testing.assert_allclose(res.q, ref.y[:2].T, atol=1e-7)
    np.testing.assert_allclose(
        res.controller_state, ref.y[4:].T, atol=1e-6 * max(1, np.abs(ref.y[4:]).max())
    )


def test_small_steps_converge_to_the_linear_prediction(pid):
    """Deviation from the linear loop is second order in the step size."""
    dev = []
    for h in (0.5, 2.0):
        chk = arm_step_check(pid, (60.0, 90.0), (60.0 + h, 90.0 - h), t_final=5.0, n=101)
        dev.append(chk.deviation / np.radians(h))
        # the response moves by the step: the comparison is not trivially small
        assert np.max(np.abs(chk.linear_start - chk.start)) > 0.5 * np.radians(h)
    assert dev[0] < 1e-2
    ratio = dev[1] / dev[0]  # relative deviation ~ h (second-order remainder): ratio ~ 4
    assert 3.5 < ratio < 4.5


def test_large_step_reaches_the_target_and_schedules(pid):
    chk = arm_step_check(pid, (50.0, 60.0), (80.0, 110.0), t_final=8.0, n=161)
    assert np.all(np.abs(chk.final_error) < 1e-3)
    sched = chk.simulation.schedule
    assert np.ptp(sched["t2"]) > 0.5  # the controller was re-evaluated across the range
    # both frozen linear predictions settle at the target too
    np.testing.assert_allclose(chk.linear_start[-1], chk.target, atol=1e-3)
    np.testing.assert_allclose(chk.linear_target[-1], chk.target, atol=1e-3)


def test_bad_inputs(pid):
    with pytest.raises(DimensionError, match="theta2"):
        arm_step_check(pid, (60.0, 150.0), (60.0, 90.0))
    with pytest.raises(DimensionError, match="start_deg"):
        arm_step_check(pid, (60.0,), (60.0, 90.0))
    t1 = rmb.examples.two_link_arm().uncertainty["t1"]
    with pytest.raises(FreeTunableError, match="K.M0"):
        ScheduledController(rmb.tunable_surface("K", (2, 2), t1, states=1))
    with pytest.raises(SignalError, match="t2"):
        ScheduledController(pid).matrices({"t1": 0.5})
    mech = two_link_arm_mechanism(1.0, 1.5)
    with pytest.raises(DimensionError, match="feedforward"):
        simulate_scheduled_loop(mech, pid, two_link_arm_schedule, [1, 1], (0, 1), feedforward="x")
    with pytest.raises(DimensionError, match="reference"):
        simulate_scheduled_loop(mech, pid, two_link_arm_schedule, [1, 1, 1], (0, 1))
