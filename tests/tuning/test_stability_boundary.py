"""Runs whose line search is blocked by the domain's constraints (closed-loop stability,
hard goals): the step is then projected so that it keeps the active constraints from
rising (bfgs ``constraint``), and a run ending there says so.  References: closed forms,
python-control's ``linfnorm`` at the returned gains, and a Nelder-Mead search on the
closed-form responses (outside the package)."""

import warnings

import control
import numpy as np
import pytest
from test_goals_vs_references import ALPHA, TF, _loop

import robustmb as rmb
from robustmb.tuning import Margins, Rejection
from robustmb.tuning.infeasible_run import warn_infeasible
from robustmb.tuning.nonsmooth_bfgs import bfgs, project_on_constraints
from robustmb.tuning.run_record import RunRecord

# Least ||G S||_inf (d_u -> y) of the PID around 1/(s + 1)^3 with the 6 dB / 45 deg
# margins goal met: Nelder-Mead with an exact penalty on the closed-form responses
# (6000 frequencies), from (Kp, Ki, Kd) = (2, 0.5, 2): 0.18860 at Ki = 5.3e-7 (the
# infimum lies at Ki -> 0, on the stability boundary); from (3, 0.1, 3): 0.18967.
REFERENCE = 0.18967


def _closed_forms(kp, ki, kd):
    """``||G S||_inf`` by python-control and the margins goal on a dense grid."""
    s = control.tf("s")
    G = 1 / (s + 1) ** 3
    K = kp + ki / s + kd * s / (TF * s + 1)
    soft = control.linfnorm(control.ss(control.feedback(G, K)), tol=1e-10)[0]
    jw = 1j * np.concatenate(([1e-8], np.logspace(-5, 3, 20000)))
    S = 1 / (1 + (1 / (jw + 1) ** 3) * (kp + ki / jw + kd * jw / (TF * jw + 1)))
    num = np.polyadd([kd + kp * TF, kp + ki * TF, ki], np.polymul([TF, 1, 0], [1, 3, 3, 1]))
    return soft, ALPHA * np.abs(S - 0.5).max(), np.roots(num).real.max()


def test_pid_descends_along_the_stability_boundary_to_the_constrained_optimum():
    # The soft value's descent pushes Ki below 0 once the integrator's pole is at
    # -MIN_DECAY; the run used to stop there ("line search found no decrease") at
    # Ki = 2.4e-7 with soft value 0.5024 and the hard goal inactive (0.62).
    CL = _loop()
    res = rmb.systune(CL, [Rejection("d_u", "y", 1.0)], [Margins("u", 6, 45)], seed=0)
    v = res.values
    soft, hard, alpha = _closed_forms(v["C.Kp"], v["C.Ki"], v["C.Kd"])
    assert res.soft[0] == pytest.approx(soft, rel=1e-6)
    assert res.hard[0] < 1 and hard < 1 and alpha < 0
    assert res.soft[0] <= 1.01 * REFERENCE
    # It ends against both constraints (the optimum lies on them) and says so.
    msg = res.runs[0].message
    assert "stopped at the stability boundary: closed-loop pole at Re = " in msg
    assert "hard goals' bound" in msg
    assert -1e-6 < alpha <= -1e-7 * (1 - 1e-6)


def test_bfgs_reaches_an_optimum_on_the_boundary_of_its_domain():
    # min (x0 - 3)^2 + 4 (x1 - 1)^2 over x0 + x1 < 2: the optimum (1.4, 0.6), value 3.2,
    # lies on the boundary, where every unprojected step leaves the domain.
    def fun(x):
        if x[0] + x[1] >= 2:
            return np.inf, None
        return (x[0] - 3) ** 2 + 4 * (x[1] - 1) ** 2, np.array([2 * (x[0] - 3), 8 * (x[1] - 1)])

    def con(x):
        return np.array([x[0] + x[1] - 2]), np.array([[1.0, 1.0]])

    plain = bfgs(fun, np.zeros(2))
    assert plain.message == "line search found no decrease" and plain.f > 3.2 * 1.1
    run = bfgs(fun, np.zeros(2), constraint=con)
    assert run.f == pytest.approx(3.2, rel=1e-6)
    np.testing.assert_allclose(run.x, [1.4, 0.6], atol=1e-3)
    assert run.active == (0,)


def test_bfgs_follows_two_active_constraints_to_the_corner():
    # min x0 + x1 over x0 > 0, x1 > 0 (both constraints active at the infimum 0): every
    # step of the plain run leaves the domain once one coordinate is near 0.
    def fun(x):
        if np.any(x <= 0):
            return np.inf, None
        return float(x.sum()), np.ones(2)

    def con(x):
        return -x, -np.eye(2)

    plain = bfgs(fun, np.array([1.0, 2.0]))
    run = bfgs(fun, np.array([1.0, 2.0]), constraint=con)
    assert plain.f > 0.5 and plain.message == "line search found no decrease"
    assert run.f < 1e-6 and np.all(run.x > 0) and set(run.active) == {0, 1}


def test_projected_step_solves_the_constrained_model():
    # min 1/2 s' B s - (B d)' s s.t. a s <= 0, checked against its KKT conditions.
    rng = np.random.default_rng(1)
    m = rng.standard_normal((4, 4))
    h = m @ m.T + 0.5 * np.eye(4)
    d = rng.standard_normal(4)
    a = rng.standard_normal((2, 4))
    a[0] = a[0] if a[0] @ d > 0 else -a[0]
    s = project_on_constraints(d, h, a)
    assert np.all(a @ s <= 1e-10)
    # stationarity: B (d - s) = a' l with l >= 0 and l_i = 0 where a_i s < 0
    lam, *_ = np.linalg.lstsq(a.T, np.linalg.solve(h, d - s), rcond=None)
    np.testing.assert_allclose(a.T @ lam, np.linalg.solve(h, d - s), atol=1e-8)
    assert np.all(lam >= -1e-8)
    assert np.all(np.abs(lam * (a @ s)) <= 1e-8)


def test_infeasible_soft_objective_without_hard_goals_is_named():
    class Term:
        label = "soft"

        def evaluate(self, x, gradient=False):
            return np.inf, None

    class Problem:
        loops, hard, soft = [], [], [Term()]

    rec = RunRecord(np.zeros(1), np.zeros(1), np.inf, feasible=False, message="infeasible start")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        warn_infeasible("systune", Problem(), rec)
    text = str(w[0].message)
    assert "( >= 1)" not in text and "hard goals" not in text
    assert "no run reached a finite soft objective" in text and "infeasible start" in text


def test_discrete_pid_descends_along_the_unit_circle_bound():
    # The same loop sampled at dt = 0.05 (zero-order hold, forward-Euler PID): the run
    # used to stop at Ki = 4e-6 with soft value 0.546 ("line search found no decrease").
    dt = 0.05
    CL = _loop(dt=dt)
    res = rmb.systune(CL, [Rejection("d_u", "y", 1.0)], [Margins("u", 6, 45)], seed=0)
    v = res.values
    s = control.tf("s")
    G = control.c2d(control.ss(1 / (s + 1) ** 3), dt, "zoh")
    z = control.tf([1, 0], [1], dt)
    C = v["C.Kp"] + v["C.Ki"] * dt / (z - 1) + v["C.Kd"] / (TF + dt / (z - 1))
    T = control.feedback(G, C)
    assert np.max(np.abs(control.poles(T))) < 1
    assert res.soft[0] == pytest.approx(control.linfnorm(control.ss(T), tol=1e-10)[0], rel=1e-6)
    zz = np.exp(1j * np.linspace(1e-6, np.pi, 20000))
    S = 1 / (1 + G(zz) * C(zz))
    assert res.hard[0] < 1 and ALPHA * np.abs(S - 0.5).max() < 1
    # half a sample of delay costs a few percent on the continuous optimum
    assert res.soft[0] <= 1.05 * REFERENCE
    assert "stopped at the stability boundary: closed-loop pole modulus - 1 = " in (
        res.runs[0].message
    )
