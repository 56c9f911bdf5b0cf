"""Nonlinear check of a gain-scheduled controller of the two-link arm (seed 000).

A step between two configurations is simulated on the arm's nonlinear
equations of motion (:func:`~robustmb.examples.two_link_arm_mechanism`, the
multibody simulator, independent of the LFT), with ``K(s, tau)`` evaluated at
the *measured* configuration, and compared with the linear (frozen-parameter)
predictions of the LFT model at the start and at the target configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from ..errors import ArgumentError, DimensionError
from .arm import TWO_LINK_ARM_ANGLE_RANGES, two_link_arm, two_link_arm_mechanism


def two_link_arm_schedule(q):
    """Scheduling parameters ``{"t1": tan(q1/2), "t2": tan(q2/2)}`` of the arm at ``q``.

    Examples
    --------
    >>> import numpy as np
    >>> s = two_link_arm_schedule(np.radians([90.0, 45.0]))
    >>> round(s["t1"], 12), round(s["t2"], 6)
    (1.0, 0.414214)
    """
    q = np.asarray(q, dtype=float)
    return {"t1": float(np.tan(q[0] / 2)), "t2": float(np.tan(q[1] / 2))}


def _in_range(deg, what):
    deg = np.asarray(deg, dtype=float).reshape(-1)
    if deg.shape != (2,):
        raise DimensionError(f"{what}: expected (theta1, theta2) in degrees, got {deg.shape}")
    for k, key in enumerate(("theta1", "theta2")):
        lo, hi = TWO_LINK_ARM_ANGLE_RANGES[key]
        if not lo <= deg[k] <= hi:
            raise DimensionError(
                f"{what}: {key} = {deg[k]:g} deg lies outside the scheduling range [{lo:g}, {hi:g}]"
            )
    return np.radians(deg)


@dataclass
class ArmStepCheck:
    """Result of :func:`arm_step_check` (angles in radians).

    Attributes
    ----------
    t : (nt,) times
    nonlinear : (nt, 2) angles of the nonlinear closed loop
    linear_start, linear_target : (nt, 2)
        Linear predictions: the frozen LTI loop at the start (and at the target)
        configuration, driven by the same step.
    torque : (nt, 2) torques of the nonlinear run
    start, target : (2,) configurations
    simulation : ScheduledLoopResult
    """

    t: np.ndarray
    nonlinear: np.ndarray
    linear_start: np.ndarray
    linear_target: np.ndarray
    torque: np.ndarray
    start: np.ndarray
    target: np.ndarray
    simulation: object

    @property
    def deviation(self) -> float:
        """Largest ``|nonlinear - linear_start|`` (rad) over time and joints."""
        return float(np.max(np.abs(self.nonlinear - self.linear_start)))

    @property
    def final_error(self) -> np.ndarray:
        """``target - nonlinear`` at the last time (rad)."""
        return self.target - self.nonlinear[-1]


def _linear_step(theta, controller, schedule_of, step, t, values, feedforward):
    """Angles of the frozen LTI loop at ``theta`` for the reference step ``step``."""
    import control

    from ..multibody.scheduled_loop import ScheduledController

    plant = two_link_arm(*theta)
    full = {name: el.nominal for name, el in plant.uncertainty.items()}
    full.update(values)
    plant = plant.usubs(full)
    ctrl = controller if isinstance(controller, ScheduledController) else None
    ctrl = ctrl or ScheduledController(controller)
    a, b, c, d = ctrl.matrices(schedule_of(theta))
    ksys = control.ss(a, b, c, d) if a.size else control.ss([], [], [], d)
    # torque = feedforward + K (r - theta); the static holding torque of the
    # reference is, linearised, the plant's static stiffness G(0)^-1 times r.
    ff = np.linalg.inv(plant.dcgain()) if feedforward == "reference" else np.zeros((2, 2))
    inner = control.feedback(plant, ksys)  # (I + G K)^-1 G
    loop = inner * (ksys + control.ss([], [], [], ff))
    resp = control.forced_response(loop, t, np.outer(step, np.ones_like(t)))
    return np.asarray(resp.outputs).T


def _horizon(t_final, n):
    """``t_final`` a finite positive float and ``n`` an integer >= 2, else an error naming it.

    Examples
    --------
    >>> _horizon(4, 41)
    (4.0, 41)
    """
    if isinstance(t_final, bool) or not isinstance(t_final, Real | np.generic):
        raise ArgumentError(f"arm_step_check: t_final must be a number, got {t_final!r}")
    if not (np.isfinite(t_final) and t_final > 0):
        raise ArgumentError(f"arm_step_check: t_final must be finite and > 0, got {t_final!r}")
    if isinstance(n, bool) or not isinstance(n, Integral | np.integer) or n < 2:
        raise ArgumentError(
            f"arm_step_check: n (the number of output times) must be an integer >= 2, got {n!r}"
        )
    return float(t_final), int(n)


def arm_step_check(
    controller,
    start_deg,
    target_deg,
    *,
    t_final=10.0,
    n=501,
    values=None,
    feedforward="reference",
    **options,
):
    """Step of the nonlinear two-link arm under ``K(s, tau(theta))`` vs the linear predictions.

    The arm starts at rest at ``start_deg`` (its joint springs relaxed there);
    at ``t = 0`` the reference jumps to ``target_deg``.  The torque is the
    controller's output (``K`` frozen at the measured angles' ``t1, t2``) plus
    the static holding torque of the reference (``feedforward="reference"``)
    or of the start (``"initial"``).

    Parameters
    ----------
    controller : UncertainSystem
        ``K(s, tau)`` from errors ``e1, e2`` to torques, scheduled by ``t1, t2``
        (e.g. :func:`robustmb.report.arm_lpv.surface_controller`).
    start_deg, target_deg : (float, float)
        Configurations in degrees, inside the scheduling ranges.
    t_final : float
        End of the run (s), finite and > 0.
    n : int
        Number of output times (at least 2, from 0 to ``t_final``).
    values : dict, optional
        Physical parameters (m1, J1, rho1, L2, m3); default nominal.
    feedforward : {"reference", "initial"}
    **options
        Passed to :func:`robustmb.multibody.simulate_scheduled_loop`.

    Returns
    -------
    ArmStepCheck

    Examples
    --------
    >>> from robustmb.report.arm_lpv import scheduled_pid
    >>> K, _ = scheduled_pid()
    >>> chk = arm_step_check(K, (60.0, 90.0), (60.2, 90.2), t_final=4.0, n=41)
    >>> bool(chk.deviation < 1e-4)       # a 0.2 deg step: linear to 1e-4 rad
    True
    """
    from ..multibody.scheduled_loop import ScheduledController, simulate_scheduled_loop

    start = _in_range(start_deg, "start_deg")
    target = _in_range(target_deg, "target_deg")
    t_final, n = _horizon(t_final, n)
    values = dict(values or {})
    mech = two_link_arm_mechanism(*start)
    ctrl = ScheduledController(controller)
    t = np.linspace(0.0, t_final, n)
    sim = simulate_scheduled_loop(
        mech,
        ctrl,
        two_link_arm_schedule,
        target,
        (0.0, float(t_final)),
        q0=start,
        values=values or None,
        feedforward=feedforward,
        t_eval=t,
        **options,
    )
    step = target - start
    lin_a = start + _linear_step(start, ctrl, two_link_arm_schedule, step, t, values, feedforward)
    lin_b = start + _linear_step(target, ctrl, two_link_arm_schedule, step, t, values, feedforward)
    return ArmStepCheck(t, sim.q, lin_a, lin_b, sim.tau, start, target, sim)
