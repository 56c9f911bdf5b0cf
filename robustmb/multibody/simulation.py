"""Simulation of the nonlinear mechanism with ``scipy.integrate.solve_ivp``.

The state is ``[q; v]``: joint coordinates and rates, and for a floating base
the inertial position of its origin, its quaternion ``(x, y, z, w)`` and its
body-axes twist.  Kinematics: ``d pos/dt = P_{b/i} v_b``, ``d quat/dt =
1/2 quat (x) [w_b; 0]``, ``d q_j/dt = v_j``; dynamics: the articulated
forward dynamics of :mod:`.dynamics`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import ArgumentError, IllPosedError, IntegrationError, warn
from .attitude import euler321_from_dcm, quaternion_rate
from .constraints import check_consistent, constrained_accelerations, constraint_terms
from .dynamics import (
    aba,
    check_wrenches,
    external_forces,
    finite_entries,
    joint_law,
    joint_transforms,
    kinetic_energy,
    potential_energy,
    system_com,
    wrench_components,
)
from .rnea_derivatives import mass_matrix
from .tree import FREE, quat_to_dcm


class _Diverged(Exception):
    """The integrator handed the dynamics a non-finite state (at time ``t``)."""

    def __init__(self, t):
        super().__init__(t)
        self.t = t


@dataclass
class SimulationResult:
    """Trajectory of a mechanism (see :meth:`Mechanism.simulate`).

    Attributes
    ----------
    t : (nt,) times
    q, v : (nt, nq), (nt, nv) coordinates and rates
    outputs : dict[str, ndarray]
        Named time histories: every coordinate and rate; for a floating base
        also its inertial position ``{base}_x, _y, _z`` and Euler angles
        3-2-1 ``{base}_phi, _theta, _psi``.
    energy : (nt,) kinetic + potential energy (gravity, joint and closure springs,
        constant inertial forces).  Constant in time only for a conservative
        mechanism: dampers, inputs, wrench inputs, joint laws, wrenches in body axes
        and constant inertial torques do work this sum does not count.
    com : (nt, 3) centre of mass of the mechanism
    constraint : (nt, m) residuals ``g(q)`` of the exact loop constraints (or None)
    sol : the ``solve_ivp`` result (dense output, events, status)
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    outputs: dict = field(default_factory=dict)
    energy: np.ndarray = None
    com: np.ndarray = None
    sol: object = None
    constraint: np.ndarray = None


def state_derivative(tree, q, v, vdot):
    """``dq/dt`` from the rates (quaternion kinematics for a floating base).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> state_derivative(tree, np.array([0.3]), np.array([0.7]), np.zeros(1))  # joint: q' = v
    array([0.7])
    """
    qd = np.empty(tree.nq)
    for i in range(tree.n):
        k, m = tree.qi[i], tree.vi[i]
        if tree.kind[i] == FREE:
            quat = q[k + 3 : k + 7]
            quat = quat / np.linalg.norm(quat)
            qd[k : k + 3] = quat_to_dcm(quat) @ v[m : m + 3]
            qd[k + 3 : k + 7] = quaternion_rate(quat, v[m + 3 : m + 6])
        else:
            qd[k] = v[m]
    return qd


def _efforts(x, what, size, names, t=None):
    """A finite float vector of ``size`` entries, else an error naming the entry (and time).

    A non-finite effort would make the integrator shrink its step for ever.
    """
    return finite_entries(x, what, size, names, t, noun="efforts")


def _input_function(tree, inputs):
    if inputs is None:
        zero = np.zeros(tree.nv)
        return lambda t, q, v: zero
    if callable(inputs):

        def fn(t, q, v):
            return _efforts(inputs(t, q, v), "inputs(t, q, v)", tree.nv, tree.effort_names, t)

        return fn
    u = _efforts(inputs, "inputs", tree.nv, tree.effort_names)
    return lambda t, q, v: u


def _wrench_function(tree, wrenches):
    wrenches = check_wrenches(tree, wrenches, callables=True)

    def fn(t, q, v):
        return {
            n: (
                _efforts(w(t, q, v), f"wrenches[{n!r}](t, q, v)", 6, wrench_components(n), t)
                if callable(w)
                else w
            )
            for n, w in wrenches.items()
        }

    return fn


def _time_span(t_span, what="t_span"):
    """``(t0, tf)`` as two finite floats with ``tf > t0``, else an error naming ``t_span``.

    Examples
    --------
    >>> _time_span((0, 2))
    (0.0, 2.0)
    >>> try:
    ...     _time_span((0, -1))
    ... except ArgumentError as err:
    ...     print(err)
    t_span must be (t0, tf) with tf > t0 (forward in time), got (0, -1)
    """
    try:
        t0, tf = (float(x) for x in t_span)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be (t0, tf), two numbers, got {t_span!r}") from None
    if not (np.isfinite(t0) and np.isfinite(tf)):
        raise ArgumentError(f"{what} must be two finite numbers, got {t_span!r}")
    if not tf > t0:  # an empty span gives one sample; a reversed one integrates backwards
        raise ArgumentError(
            f"{what} must be (t0, tf) with tf > t0 (forward in time), got {t_span!r}"
        )
    return t0, tf


def _euler_histories(q, t, name):
    """Euler angles 3-2-1 of the unit quaternions ``q`` (nt, 4) at the times ``t``.

    They are undefined at pitch +-90 deg: those samples are NaN, with one warning
    naming their times; the others are unwrapped across the gaps.
    """
    eul = np.full((len(t), 3), np.nan)
    singular = []
    for s, (qq, ts) in enumerate(zip(q, t, strict=True)):
        try:
            eul[s] = euler321_from_dcm(quat_to_dcm(qq), what=name)
        except IllPosedError:
            singular.append(ts)
    if singular:
        shown = ", ".join(f"{x:.6g}" for x in singular[:10])
        shown += ", ..." if len(singular) > 10 else ""
        warn(
            f"simulate: the Euler angles 3-2-1 of {name} are singular (pitch +-90 deg) at "
            f"t = {shown}: those samples are NaN (the quaternion in .q is valid)",
            RuntimeWarning,
        )
    ok = np.isfinite(eul[:, 0])
    eul[ok] = np.unwrap(eul[ok], axis=0)
    return eul


def _time_points(t_eval, t_span):
    """``t_eval`` as a sorted 1-D float array inside ``t_span``, else an error naming it.

    ``None`` stays ``None`` (the solver's own steps).  scipy rejects the same inputs with
    a ``ValueError`` of its own, and lets NaN times through to a NaN sample.

    Examples
    --------
    >>> _time_points([0, 0.5, 2], (0.0, 2.0))
    array([0. , 0.5, 2. ])
    >>> try:
    ...     _time_points([0, 3], (0.0, 2.0))
    ... except ArgumentError as err:
    ...     print(err)
    t_eval must lie within t_span = (0, 2); t_eval[1] = 3
    """
    if t_eval is None:
        return None
    raw = np.asarray(t_eval)
    if raw.dtype.kind not in "iuf":  # complex parts, booleans or text would be coerced
        raise ArgumentError(f"t_eval must be an array of real times, got {t_eval!r}")
    t = raw.astype(float)
    if t.ndim != 1 or t.size == 0:
        raise ArgumentError(f"t_eval must be a non-empty 1-D array, got shape {t.shape}")
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise ArgumentError(f"t_eval must be finite; t_eval[{bad[0]}] = {t[bad[0]]}")
    out = np.flatnonzero((t < t_span[0]) | (t > t_span[1]))
    if out.size:
        raise ArgumentError(
            f"t_eval must lie within t_span = ({t_span[0]:g}, {t_span[1]:g}); "
            f"t_eval[{out[0]}] = {t[out[0]]:g}"
        )
    down = np.flatnonzero(np.diff(t) <= 0)
    if down.size:
        raise ArgumentError(
            f"t_eval must be strictly increasing; t_eval[{down[0] + 1}] = {t[down[0] + 1]:g} "
            f"follows {t[down[0]]:g}"
        )
    return t


# The integrators of scipy.integrate.solve_ivp, by name.
_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")

# The options of solve_ivp and of its solvers that a simulation can pass on.  Left out:
# ``vectorized`` and ``args`` (the right-hand side is built here, one state at a time).
_OPTIONS = (
    "method",
    "t_eval",
    "dense_output",
    "events",
    "rtol",
    "atol",
    "first_step",
    "max_step",
    "min_step",
    "jac",
    "jac_sparsity",
    "lband",
    "uband",
)


def _solver_options(options, what="simulate", n_states=None):
    """Check the integrator options ``simulate`` knows, so scipy's own messages never surface.

    Names outside :data:`_OPTIONS` are refused (scipy would only warn that a misspelt
    ``rtoll`` has no effect, and run with its default); ``method``: a name in
    :data:`_METHODS` or an ``OdeSolver`` subclass; ``rtol``, ``atol``, ``first_step``:
    positive and finite (``atol`` may be one per state, ``n_states`` of them);
    ``max_step``: positive (``inf``, scipy's default, is allowed); ``events``: a
    callable or a list of them; ``dense_output``: a bool.

    Examples
    --------
    >>> _solver_options({"method": "Radau", "rtol": 1e-8})
    >>> try:
    ...     _solver_options({"max_step": -1})
    ... except ArgumentError as exc:
    ...     print(exc)
    simulate: max_step must be positive, got -1.0
    >>> try:
    ...     _solver_options({"rtoll": 1e-6})
    ... except ArgumentError as exc:
    ...     print(str(exc).split(";")[0])
    simulate: unknown integrator option(s) ['rtoll']
    """
    from scipy.integrate import OdeSolver

    from ..lft.arguments import real_number

    unknown = sorted(str(k) for k in options if k not in _OPTIONS)
    if unknown:
        raise ArgumentError(
            f"{what}: unknown integrator option(s) {unknown}; the options passed on to "
            f"scipy's solve_ivp are {list(_OPTIONS)} (the state is integrated one point "
            "at a time, so vectorized and args do not apply)"
        )
    method = options.get("method", "DOP853")
    if not (
        (isinstance(method, str) and method in _METHODS)
        or (isinstance(method, type) and issubclass(method, OdeSolver))
    ):
        raise ArgumentError(
            f"{what}: method must be one of {_METHODS} or an OdeSolver class, got {method!r}"
        )
    for name in ("rtol", "first_step"):
        if options.get(name) is not None:
            real_number(options[name], name, what, positive=True)
    if options.get("max_step") is not None:
        real_number(options["max_step"], "max_step", what, positive=True, finite=False)
    if options.get("atol") is not None:
        atol = options["atol"]
        if np.ndim(atol) == 0:
            real_number(atol, "atol", what, positive=True)
        else:
            arr = _floats_of(atol, "atol", what)
            if not (np.all(np.isfinite(arr)) and np.all(arr > 0)):
                raise ArgumentError(f"{what}: atol must be positive and finite, got {atol!r}")
            if n_states is not None and arr.shape != (n_states,):
                raise ArgumentError(
                    f"{what}: atol must be one number or one per state ({n_states}: the "
                    f"coordinates, then the rates), got shape {arr.shape}"
                )
    events = options.get("events")
    if events is not None and not (
        callable(events)
        or (isinstance(events, list | tuple) and events and all(map(callable, events)))
    ):
        raise ArgumentError(
            f"{what}: events must be a callable f(t, y) or a list of them, got {events!r}"
        )
    dense = options.get("dense_output", False)
    if not isinstance(dense, bool | np.bool_):
        raise ArgumentError(f"{what}: dense_output must be True or False, got {dense!r}")


def _floats_of(x, name, what="simulate"):
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what}: {name} must be real numbers, got {x!r}") from None


def simulate_tree(tree, t_span, q0, v0, *, inputs=None, wrenches=None, **options):
    """Integrate the tree (see :meth:`Mechanism.simulate`).

    Examples
    --------
    A small swing of the hanging bob reverses after half a period ``pi sqrt(l / g)``.

    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> res = simulate_tree(tree, (0.0, np.pi / np.sqrt(9.81)), [0.01], [0.0])
    >>> bool(abs(res.q[-1, 0] + 0.01) < 1e-6)
    True
    """
    t_span = _time_span(t_span)
    _solver_options(options, n_states=tree.nq + tree.nv)
    if "t_eval" in options:
        options["t_eval"] = _time_points(options["t_eval"], t_span)
    q0, v0 = tree.check_state(q0, v0, "v0", what_q="q0")
    check_consistent(tree, q0, v0)
    u_fn = _input_function(tree, inputs)
    w_fn = _wrench_function(tree, wrenches)
    nq = tree.nq

    def rhs(t, y):
        if not np.isfinite(y).all():  # escaped: the dynamics of NaN would blame a body
            raise _Diverged(t)
        q, v = y[:nq], y[nq:]
        xs, rw = joint_transforms(tree, q)
        try:
            law = joint_law(tree, q, v)
        except ArgumentError as err:  # keep the law's own exception as the cause
            raise ArgumentError(f"{err} (at t = {t:.6g})") from err.__cause__
        tau = u_fn(t, q, v) + law
        fext = external_forces(tree, q, rw, w_fn(t, q, v), v, xs)
        a = aba(tree, q, v, tau, fext, xs, rw)
        if tree.constraints:
            a = constrained_accelerations(tree, q, v, a, mass_matrix(tree, q))[0]
        return np.concatenate([state_derivative(tree, q, v, a), a])

    options.setdefault("method", "DOP853")
    options.setdefault("rtol", 1e-10)
    options.setdefault("atol", 1e-10)
    options.setdefault("dense_output", True)
    try:
        sol = solve_ivp(rhs, t_span, np.concatenate([q0, v0]), **options)
    except _Diverged as stop:
        raise IntegrationError(
            f"simulate: the integration from t = {t_span[0]:.6g} to {t_span[1]:.6g} stopped "
            f"at t = {stop.t:.6g}: the state is not finite there (the solution escapes)"
        ) from None
    if sol.status < 0:  # a trajectory that stops short must not pass for a whole one
        raise IntegrationError(
            f"simulate: the integration from t = {t_span[0]:.6g} to {t_span[1]:.6g} stopped "
            f"at t = {sol.t[-1]:.6g}: {sol.message}"
        )
    q, v = sol.y[:nq].T.copy(), sol.y[nq:].T.copy()
    for i in range(tree.n):  # report unit quaternions
        if tree.kind[i] == FREE:
            k = tree.qi[i]
            q[:, k + 3 : k + 7] /= np.linalg.norm(q[:, k + 3 : k + 7], axis=1, keepdims=True)
    res = SimulationResult(t=sol.t, q=q, v=v, sol=sol)
    for c, name in enumerate(tree.coordinate_names()):
        res.outputs[name] = q[:, c]
    for c, name in enumerate(tree.rate_names()):
        res.outputs[name] = v[:, c]
    for i in range(tree.n):
        if tree.kind[i] == FREE:
            b, k = tree.names[i], tree.qi[i]
            for c, ax in enumerate("xyz"):
                res.outputs[f"{b}_{ax}"] = q[:, k + c]
            eul = _euler_histories(q[:, k + 3 : k + 7], sol.t, f"floating base {b!r}")
            for c, ax in enumerate(("phi", "theta", "psi")):
                res.outputs[f"{b}_{ax}"] = eul[:, c]
    res.energy = np.array(
        [
            kinetic_energy(tree, qq, vv) + potential_energy(tree, qq)
            for qq, vv in zip(q, v, strict=True)
        ]
    )
    if tree.constraints:
        res.constraint = np.array(
            [constraint_terms(tree, qq, vv)[0] for qq, vv in zip(q, v, strict=True)]
        )
    res.com = np.array([system_com(tree, qq) for qq in q]).reshape(-1, 3)
    return res
