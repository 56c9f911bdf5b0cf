"""Nonlinear closed loop of a mechanism under a gain-scheduled controller ``K(s, sigma(q))``.

The controller is an LFT in its scheduling parameters (for example a tuned
:func:`robustmb.tunable_surface` with the plant's ``ureal`` scheduling
elements); at every instant it is evaluated at the parameters computed from
the *measured* coordinates, ``sigma = schedule(q)``, so the simulation checks
a frozen-parameter (LPV) design on the nonlinear equations of motion:

    M(q) q'' = tau + (gravity, Coriolis, joint springs and dampers)
    x_K' = A_K(sigma) x_K + B_K(sigma) e,   u = C_K(sigma) x_K + D_K(sigma) e
    e = q_ref(t) - q,   tau = tau_ff + u

with ``tau_ff`` the static torque holding the mechanism at rest at the
reference (``feedforward="reference"``) or at the initial configuration
(``feedforward="initial"``: the controller alone moves the mechanism, as in a
design ``delta tau = K delta e`` around the initial equilibrium).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Real

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import (
    ArgumentError,
    DimensionError,
    FreeTunableError,
    IntegrationError,
    SignalError,
)
from .dynamics import finite_entries
from .simulation import _Diverged, _solver_options, _time_points, _time_span

FEEDFORWARDS = ("reference", "initial")


class ScheduledController:
    """Fast numeric evaluation of an LFT controller ``Fu(M, Delta(sigma))``.

    Parameters
    ----------
    controller : UncertainSystem or control.StateSpace
        Its uncertain elements are the scheduling parameters (real); a certain
        model is accepted and never changes.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, range=(1.0, 3.0))
    >>> K = rmb.uss([[-k]], [[1.0]], [[k]], [[0.0]])
    >>> a, b, c, d = ScheduledController(K).matrices({"k": 3.0})
    >>> float(a[0, 0]), float(c[0, 0])
    (-3.0, 3.0)
    """

    def __init__(self, controller):
        from ..lft.data import lftdata
        from ..lft.model import as_model

        model = as_model(controller)
        if model.tunables:
            raise FreeTunableError(
                f"controller: free tunable parameters {sorted(model.tunables)}; substitute "
                "the tuned values first (e.g. result.values of systune)"
            )
        m, blocks = lftdata(model)
        self.nu, self.ny = model.shape[1], model.shape[0]
        self.input_names, self.output_names = model.input_names, model.output_names
        self.names = []
        self._center, self._half, self._reps = [], [], []
        for name, kind, reps, _shape in blocks:
            el = model.uncertainty[name]
            if kind != "real":
                raise DimensionError(
                    f"controller: scheduling element {name!r} is {kind}; only real "
                    "parameters can be scheduled"
                )
            self.names.append(name)
            self._center.append(el.center)
            self._half.append(el.half_width)
            self._reps.append(reps)
        if model.is_system:
            a, b, c, d = (np.asarray(x, dtype=float) for x in (m.A, m.B, m.C, m.D))
        else:
            a, b, c, d = np.zeros((0, 0)), np.zeros((0, m.shape[1])), np.zeros((m.shape[0], 0)), m
        nw = sum(self._reps)
        self.nx = a.shape[0]
        self._a, self._bw, self._bu = a, b[:, :nw], b[:, nw:]
        self._cz, self._cy = c[:nw], c[nw:]
        self._dzw, self._dzu = d[:nw, :nw], d[:nw, nw:]
        self._dyw, self._dyu = d[nw:, :nw], d[nw:, nw:]
        self._nw = nw

    def delta(self, values, *, clip=False):
        """Diagonal of the normalised ``Delta`` for ``{name: value}`` (physical units).

        ``clip=True`` holds values outside an element's range at its boundary.
        """
        out = np.empty(self._nw)
        i = 0
        for name, c, h, r in zip(self.names, self._center, self._half, self._reps, strict=True):
            if name not in values:
                raise SignalError(
                    f"controller: no value for the scheduling element {name!r} "
                    f"(given: {sorted(values)})"
                )
            out[i : i + r] = (float(values[name]) - c) / h
            i += r
        return np.clip(out, -1.0, 1.0) if clip else out

    def matrices(self, values, *, clip=False):
        """``(A, B, C, D)`` of the controller frozen at the scheduling ``values``.

        ``clip=True``: scheduling values outside their ranges are held at the
        nearest boundary (the controller is only designed on the ranges).
        """
        a, bu, cy, dyu = self._a, self._bu, self._cy, self._dyu
        if not self._nw:
            return a, bu, cy, dyu
        dl = self.delta(values, clip=clip)
        # w = Delta z, z = Cz x + Dzw w + Dzu u  =>  w = (I - Delta Dzw)^-1 Delta (Cz x + Dzu u)
        lhs = np.eye(self._nw) - dl[:, None] * self._dzw
        rhs = dl[:, None] * np.hstack([self._cz, self._dzu])
        w = np.linalg.solve(lhs, rhs)
        wx, wu = w[:, : self.nx], w[:, self.nx :]
        return (
            a + self._bw @ wx,
            bu + self._bw @ wu,
            cy + self._dyw @ wx,
            dyu + self._dyw @ wu,
        )


@dataclass
class ScheduledLoopResult:
    """Trajectory of :func:`simulate_scheduled_loop`.

    Attributes
    ----------
    t : (nt,) times
    q, v : (nt, n) coordinates and rates
    reference : (nt, n) reference coordinates
    error : (nt, n) ``reference - q``
    tau : (nt, n) applied efforts (feedforward + controller)
    controller_state : (nt, nK)
    schedule : dict of (nt,) arrays, the scheduling parameters along the run
    sol : the ``solve_ivp`` result
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    reference: np.ndarray
    error: np.ndarray
    tau: np.ndarray
    controller_state: np.ndarray
    schedule: dict = field(default_factory=dict)
    sol: object = None


def simulate_scheduled_loop(
    mech,
    controller,
    schedule,
    reference,
    t_span,
    *,
    q0=None,
    values=None,
    feedforward="reference",
    clip=True,
    t_eval=None,
    **options,
):
    """Simulate a mechanism in closed loop with a gain-scheduled controller.

    The controller takes the coordinate errors ``e = reference - q`` and returns
    efforts (one per coordinate, in the order of ``mech.coordinates()``,
    breadth-first from the base); it is frozen at
    ``schedule(q)`` of the measured ``q`` at every instant.  The mechanism starts
    at rest at ``q0`` with zero controller state.

    Parameters
    ----------
    mech : Mechanism
        Fully actuated, one effort per coordinate (no floating base).
    controller : UncertainSystem or control.StateSpace
        ``K(s, sigma)``: an LFT whose elements are the scheduling parameters.
    schedule : callable
        ``schedule(q) -> {name: value}`` for every element of ``controller``.
    reference : array_like or callable
        Constant reference coordinates (a step at ``t = 0``) or ``f(t) -> q_ref``.
    t_span : (t0, tf)
    q0 : array_like, optional
        Initial coordinates (default: the mechanism's equilibrium coordinates).
    values : dict, optional
        Values of the mechanism's uncertain parameters (default: nominal).
    feedforward : {"reference", "initial"}
        Static holding effort added to the controller's output: at the current
        reference, or constant at ``q0``.
    clip : bool
        Hold scheduling values that leave their ranges at the boundary (default);
        ``False`` extrapolates the controller.
    t_eval : array_like, optional
    **options
        Passed to ``solve_ivp`` (defaults: ``method="LSODA"``, ``rtol=1e-8``,
        ``atol=1e-10``); an unknown name (a misspelt ``rtoll``) is refused.

    Returns
    -------
    ScheduledLoopResult

    Raises
    ------
    ArgumentError
        If an integrator option is unknown or invalid (names it), if ``t_span`` is
        not two finite numbers with ``tf > t0``, or ``q0``, the
        reference or a scheduling value returned by ``schedule`` is not finite
        (names it, and the time).
    DimensionError
        If ``q0`` or the reference has the wrong length, or the controller the
        wrong size.
    IntegrationError
        If the integration stops before ``tf`` (gives the time reached and why,
        e.g. a closed loop whose state escapes to infinity).

    Examples
    --------
    A pendulum under a PD gain scheduled by its angle, moved from 0.2 to 0.4 rad:

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0],
    ...                              angle=0.2))
    >>> c = rmb.ureal("c", 0.5, range=(0.0, 1.0))     # c = cos(q)
    >>> K = rmb.uss([[-10.0]], [[10.0]], [[-40.0 * (1 + c)]], [[60.0 + 50.0 * c]])
    >>> res = simulate_scheduled_loop(mech, K, lambda q: {"c": np.cos(q[0])}, [0.4], (0, 8))
    >>> round(float(res.q[-1, 0]), 4)
    0.4
    """
    from .tree import FREE

    if feedforward not in FEEDFORWARDS:
        raise DimensionError(f"feedforward must be one of {FEEDFORWARDS}, got {feedforward!r}")
    tree = mech.rigid_tree(values)
    if np.any(np.asarray(tree.kind) == FREE):
        raise DimensionError("simulate_scheduled_loop: a floating base is not fully actuated")
    n = tree.nq
    ctrl = controller if isinstance(controller, ScheduledController) else None
    ctrl = ctrl or ScheduledController(controller)
    if (ctrl.nu, ctrl.ny) != (n, n):
        raise DimensionError(
            f"controller: expected {n} inputs (errors) and {n} outputs (efforts), got "
            f"{ctrl.nu} inputs and {ctrl.ny} outputs"
        )
    if not callable(schedule):
        raise DimensionError("schedule must be a callable q -> {name: value}")
    t_span = _time_span(t_span)
    t_eval = _time_points(t_eval, t_span)
    q_start = (
        mech.equilibrium_coordinates(values=values)
        if q0 is None
        else tree.check_state(q0, what_q="q0")
    )
    coordinates = tree.coordinate_names
    if callable(reference):

        def ref(t):
            return finite_entries(reference(t), "reference(t)", n, coordinates, t)

    else:
        r_const = finite_entries(reference, "reference", n, coordinates)

        def ref(t):
            return r_const

    def scheduled(t, q):
        sigma = schedule(q)
        for name in ctrl.names:  # a NaN would reach the efforts unnamed
            x = sigma.get(name) if isinstance(sigma, Mapping) else None
            if x is not None and not (isinstance(x, Real | np.generic) and np.isfinite(x)):
                raise ArgumentError(
                    f"schedule(q)[{name!r}] = {x!r} is not a finite real number at "
                    f"t = {t:.6g} (q = {np.asarray(q).tolist()})"
                )
        return sigma

    zero = np.zeros(n)

    def holding(q):
        return mech.inverse_dynamics(q, zero, zero, values=values)

    tau_initial = holding(q_start)
    nk = ctrl.nx

    def efforts(t, q, xk):
        r = ref(t)
        a, b, c, d = ctrl.matrices(scheduled(t, q), clip=clip)
        e = r - q
        ff = holding(r) if feedforward == "reference" else tau_initial
        return ff + c @ xk + d @ e, a @ xk + b @ e, r, e

    def rhs(t, y):
        if not np.isfinite(y).all():  # escaped: the dynamics of NaN would blame an argument
            raise _Diverged(t)
        q, v, xk = y[:n], y[n : 2 * n], y[2 * n :]
        tau, dxk, _, _ = efforts(t, q, xk)
        return np.concatenate([v, mech.forward_dynamics(q, v, tau, values=values), dxk])

    opts = {"method": "LSODA", "rtol": 1e-8, "atol": 1e-10}
    opts.update(options)
    _solver_options(opts, "simulate_scheduled_loop", n_states=2 * n + nk)
    y0 = np.concatenate([q_start, zero, np.zeros(nk)])
    where = f"simulate_scheduled_loop: the integration from t = {t_span[0]:.6g} to {t_span[1]:.6g}"
    try:
        sol = solve_ivp(rhs, t_span, y0, t_eval=t_eval, **opts)
    except _Diverged as stop:
        raise IntegrationError(
            f"{where} stopped at t = {stop.t:.6g}: the state is not finite there "
            "(the closed loop escapes)"
        ) from None
    if not sol.success:  # a trajectory that stops short must not pass for a whole one
        raise IntegrationError(f"{where} stopped at t = {sol.t[-1]:.6g}: {sol.message}")
    y = sol.y.T
    q, v, xk = y[:, :n], y[:, n : 2 * n], y[:, 2 * n :]
    parts = [efforts(t, qi, xi) for t, qi, xi in zip(sol.t, q, xk, strict=True)]
    sched = [scheduled(t, qi) for t, qi in zip(sol.t, q, strict=True)]
    return ScheduledLoopResult(
        t=sol.t,
        q=q,
        v=v,
        reference=np.array([p[2] for p in parts]),
        error=np.array([p[3] for p in parts]),
        tau=np.array([p[0] for p in parts]),
        controller_state=xk,
        schedule={k: np.array([s[k] for s in sched]) for k in ctrl.names},
        sol=sol,
    )
