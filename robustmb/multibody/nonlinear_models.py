"""The nonlinear models of a mechanism (seed 001): inverse, forward and hybrid dynamics,
mass matrix and simulation, all on the numeric tree compiled from the one description.

These functions are the methods of :class:`~robustmb.multibody.Mechanism` of the
same names (bound in :mod:`.mechanism`); ``self`` is the mechanism.  The
recursions live in :mod:`.tree`, :mod:`.dynamics`, :mod:`.articulated`,
:mod:`.constraints` and :mod:`.simulation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real

import numpy as np

from ..errors import ArgumentError, DimensionError, SignalError


def _structure_key(self):
    """What identifies the mechanism's structure: parts are only ever added, so their
    counts do (with the joint laws, the base and the acceleration field)."""
    return (
        len(self.bodies),
        len(self.joints),
        len(self.wrench_inputs),
        len(getattr(self, "applied_wrenches", {})),
        tuple(getattr(self, "joint_laws", {}).items()),
        len(getattr(self, "loop_closures", {})),
        len(getattr(self, "loop_constraints", {})),
        self.floating_base,
        self.acceleration.tobytes(),
    )


def check_values(self, values, what="values"):
    """``values`` as a dict ``{element name: float}``, checked against the mechanism.

    A misspelt name would silently leave its parameter at the nominal value, so
    every name must be an uncertain element of the mechanism.

    Raises
    ------
    ArgumentError
        If ``values`` is not a mapping, or a value is not a finite real number.
    SignalError
        If a name is not an uncertain element of the mechanism (lists the known ones).

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.multibody import Mechanism, RigidBody
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=rmb.ureal("m", 2.0, percent=20)))
    >>> check_values(mech, {"m": 2.2})
    {'m': 2.2}
    >>> try:
    ...     check_values(mech, {"M": 2.2})
    ... except SignalError as err:
    ...     print(err)
    values: 'M' is not an uncertain element of the mechanism (its elements: ['m'])
    """
    from .inertial_lft import affine_parameters

    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise ArgumentError(
            f"{what} must be a mapping {{element name: number}}, got {type(values).__name__}"
        )
    # the elements only change when parts are added: keep them per structure
    key = _structure_key(self)
    cached = self.__dict__.get("_element_names")
    if cached is None or cached[0] != key:
        allowed, other = affine_parameters(self)
        cached = (key, sorted(set(allowed) | set(other)))
        self.__dict__["_element_names"] = cached
    known = cached[1]
    out = {}
    for name, x in values.items():
        if name not in known:
            raise SignalError(
                f"{what}: {name!r} is not an uncertain element of the mechanism "
                + (f"(its elements: {known})" if known else "(it has none)")
            )
        if isinstance(x, bool) or not isinstance(x, Real | np.generic) or not np.isfinite(x):
            raise ArgumentError(f"{what}[{name!r}] must be a finite real number, got {x!r}")
        out[name] = float(x)
    return out


def rigid_tree(self, values=None):
    """The numeric tree of the nonlinear models (see :mod:`robustmb.multibody.tree`).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> tree.n, tree.nv, tree.coordinate_names()
    (1, 1, ['J_q'])
    """
    from .tree import compile_tree

    values = check_values(self, values)
    key = (*_structure_key(self), tuple(sorted(values.items())))
    cache = self.__dict__.setdefault("_tree_cache", {})
    if key not in cache:  # compiling evaluates every parameter: keep the last few trees
        if len(cache) > 8:
            cache.pop(next(iter(cache)))
        cache[key] = compile_tree(self, values)
    return cache[key]


def equilibrium_coordinates(self, *, values=None):
    """Coordinates ``q`` of the equilibrium that :meth:`linearize` is built around.

    Joint angles and displacements of the joints' definitions and, for a
    floating base, its ``base_position`` and the quaternion of
    ``base_orientation`` -- the reference to give :meth:`linearize_at`.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0], angle=0.4))
    >>> mech.equilibrium_coordinates()
    array([0.4])
    """
    from .attitude import quaternion_from_dcm

    tree = self.rigid_tree(values)
    q = np.zeros(tree.nq)
    for i in range(tree.n):
        k = tree.qi[i]
        if tree.kind[i] == 0:
            q[k : k + 3] = self.base_position.reshape(3)
            # base_orientation was checked as a rotation to 1e-9 when the mechanism was made
            q[k + 3 : k + 7] = quaternion_from_dcm(
                self.base_orientation, what="base_orientation", tol=1e-9
            )
        else:
            q[k] = tree.q_eq[i]
    return q


def effort_names(self, tree):
    """Names of the efforts in the order of :meth:`Mechanism.coordinates` (breadth-first
    from the base; a floating base: its 6 wrench components).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> effort_names(mech, mech.rigid_tree())
    ['J_effort']
    """
    return tree.effort_names()


def inverse_dynamics(self, q, v, a, *, values=None, wrenches=None):
    """Efforts that give the accelerations ``a`` at ``(q, v)`` (recursive Newton-Euler).

    Parameters
    ----------
    q, v, a : arrays
        Coordinates, rates and accelerations in the order of
        :meth:`coordinates` (breadth-first from the base, not the order of
        ``add_joint``): a floating base first (position, quaternion
        ``(x, y, z, w)``; twist in body axes), then the joints.
    values : dict, optional
        ``{ureal name: value}``; omitted parameters take their nominal; a name
        that is not an uncertain element of the mechanism raises ``SignalError``.
    wrenches : dict, optional
        Values (6 finite numbers, body axes) of the wrench inputs declared with
        :meth:`add_wrench_input`; a name not declared raises ``SignalError``.

    Returns
    -------
    ndarray
        Joint efforts (and, for a floating base, the wrench on it at its
        origin in body axes) with ``M a + h(q, v) = efforts`` -- joint
        springs and dampers are part of ``h``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("rod", mass=1.0, cog=[0, 0.5, 0], ports={"P": [0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0]))
    >>> mech.inverse_dynamics([0.0], [0.0], [0.0]).round(6)   # horizontal rod: m g l/2
    array([4.905])
    """
    from .dynamics import check_wrenches, external_forces, joint_law, joint_transforms, rnea

    tree = self.rigid_tree(values)
    q, v = tree.check_state(q, v)
    a = tree.check_rates(a, "a", accelerations=True)
    wrenches = check_wrenches(tree, wrenches)
    xs, rw = joint_transforms(tree, q)
    fext = external_forces(tree, q, rw, wrenches, v, xs)
    return rnea(tree, q, v, a, fext, xs, rw) - joint_law(tree, q, v)


def forward_dynamics(self, q, v, tau, *, values=None, wrenches=None):
    """Accelerations under the efforts ``tau`` (TITOP loop condensed, O(n)).

    Same arguments as :meth:`inverse_dynamics`, with ``tau`` the efforts.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mech.forward_dynamics([0.3], [0.0], [0.0]).round(6)   # -g sin(q) / l
    array([-2.899053])
    """
    from .dynamics import aba, check_wrenches, external_forces, joint_law, joint_transforms

    tree = self.rigid_tree(values)
    q, v = tree.check_state(q, v)
    tau = tree.check_rates(tau, "tau", efforts=True)
    wrenches = check_wrenches(tree, wrenches)
    if tree.bare:  # no springs, dampers, laws or loads
        qdd = aba(tree, q, v, tau, None)
    else:
        # the transforms of the tree are only needed by closures and inertial loads
        xs, rw = joint_transforms(tree, q) if tree.needs_transforms else (None, None)
        fext = external_forces(tree, q, rw, wrenches, v, xs)
        qdd = aba(tree, q, v, tau + joint_law(tree, q, v), fext)
    if tree.constraints:  # exact loop constraints: add the constraint forces
        from .constraints import constrained_accelerations
        from .rnea_derivatives import mass_matrix

        qdd = constrained_accelerations(tree, q, v, qdd, mass_matrix(tree, q))[0]
    return qdd


def _imposed_acceleration(name, acc):
    """One imposed joint acceleration as a finite float (a nan would spread silently)."""
    arr = np.asarray(acc)
    if arr.dtype.kind not in "iuf":
        raise ArgumentError(
            f"hybrid_dynamics: imposed[{name!r}] must be a real number, got {acc!r}"
        )
    if arr.size != 1:
        raise DimensionError(
            f"hybrid_dynamics: imposed[{name!r}] must be one acceleration (the joint has "
            f"one degree of freedom), got shape {arr.shape}"
        )
    value = float(arr.reshape(()))
    if not np.isfinite(value):
        raise ArgumentError(f"hybrid_dynamics: imposed[{name!r}] = {value} is not finite")
    return value


def hybrid_dynamics(self, q, v, tau, imposed, *, values=None, wrenches=None):
    """Mixed forward/inverse dynamics: some joint accelerations imposed, the rest free.

    Parameters
    ----------
    q, v, tau : as :meth:`forward_dynamics` (the entries of ``tau`` at imposed
        joints are ignored)
    imposed : dict
        ``{joint name: acceleration}`` of the joints in joint-inverse mode
        (seed 001's two modes of a joint block; e.g. a locked joint: 0).
        With exact loop constraints the imposed accelerations must respect
        them (else ``IllPosedError``); the free joints then follow the
        constraints (:func:`~robustmb.multibody.constraints.constrained_hybrid`).

    Returns
    -------
    (ndarray, ndarray)
        All accelerations and all efforts: the free joints' accelerations
        under ``tau``, and the efforts the imposed joints need.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> a, tau = mech.hybrid_dynamics([0.5], [0.0], [0.0], {"J": 0.0})
    >>> tau.round(6)        # holding torque m g l sin(q)
    array([4.703165])
    """
    from .dynamics import check_wrenches, external_forces, hybrid, joint_law, joint_transforms

    tree = self.rigid_tree(values)
    q, v = tree.check_state(q, v)
    tau = tree.check_rates(tau, "tau", efforts=True)
    wrenches = check_wrenches(tree, wrenches)
    node_of = {tree.names[i]: i for i in range(tree.n) if tree.kind[i] != 0}
    if not isinstance(imposed, Mapping):
        raise ArgumentError(
            "hybrid_dynamics: imposed must be a dict {joint name: acceleration}, "
            f"got {type(imposed).__name__}"
        )
    imp = {}
    for name, acc in imposed.items():
        if name not in node_of:
            raise SignalError(
                f"hybrid_dynamics: {name!r} is not a revolute or prismatic joint "
                f"(joints: {sorted(node_of)})"
            )
        imp[node_of[name]] = _imposed_acceleration(name, acc)
    if tree.constraints:  # exact loop constraints: a KKT system on the free joints
        from .constraints import constrained_hybrid
        from .dynamics import rnea
        from .rnea_derivatives import mass_matrix

        xs, rw = joint_transforms(tree, q)
        fext = external_forces(tree, q, rw, wrenches, v, xs)
        bias = rnea(tree, q, v, np.zeros(tree.nv), fext, xs, rw) - joint_law(tree, q, v)
        by_rate = {tree.vi[i]: acc for i, acc in imp.items()}
        return constrained_hybrid(
            tree, q, v, tau, by_rate, bias, mass_matrix(tree, q), names=sorted(imposed)
        )
    xs, rw = joint_transforms(tree, q) if tree.needs_transforms else (None, None)
    fext = external_forces(tree, q, rw, wrenches, v, xs)
    law = joint_law(tree, q, v)
    qdd, tau_all = hybrid(tree, q, v, tau + law, imp, fext, xs)
    return qdd, tau_all - law


def mass_matrix(self, q, *, values=None):
    """Joint-space mass matrix at ``q`` (composite rigid bodies).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> mech.mass_matrix([0.7])      # m l^2
    array([[2.]])
    """
    from .rnea_derivatives import mass_matrix

    tree = self.rigid_tree(values)
    return mass_matrix(tree, tree.check_state(q))


def simulate(self, t_span, q0, v0, *, inputs=None, values=None, wrenches=None, **options):
    """Simulate the nonlinear mechanism with ``scipy.integrate.solve_ivp``.

    Parameters
    ----------
    t_span : (t0, tf)
        Two finite numbers with ``tf > t0``.
    q0, v0 : initial coordinates and rates (see :meth:`inverse_dynamics`)
    inputs : None, array or callable ``f(t, q, v) -> efforts``
    values : dict, optional
    wrenches : dict, optional
        Wrench inputs declared with :meth:`add_wrench_input`: 6 numbers or a
        callable ``f(t, q, v)`` each.
    **options
        Passed to ``solve_ivp`` (defaults: DOP853, rtol = atol = 1e-10,
        dense output); ``method``, ``t_eval``, ``dense_output``, ``events``,
        ``rtol``, ``atol``, ``first_step``, ``max_step`` and the solvers' ``min_step``,
        ``jac``, ``jac_sparsity``, ``lband``, ``uband`` work as there.  Any other name
        (a misspelt ``rtoll``, ``vectorized``, ``args``) is refused.

    Returns
    -------
    SimulationResult
        ``.t, .q, .v, .outputs`` (named), ``.energy``, ``.com``, ``.sol``.
        A floating base adds its inertial position and Euler angles 3-2-1
        (unwrapped) to the outputs; they are undefined at pitch +-90 deg, so
        samples there are NaN, with one ``RuntimeWarning`` naming their times
        (the quaternion in ``.q`` stays valid).

    Raises
    ------
    IntegrationError
        If ``solve_ivp`` stops before the end of ``t_span`` (the message gives
        the time reached and the solver's reason), e.g. at a finite escape time
        or where the state stops being finite.
    ArgumentError
        If an integrator option is unknown or invalid (names it), if ``q0`` or
        ``v0`` is not finite (names the entry), an input, a wrench
        or a joint law (:meth:`add_joint_law`) is not finite (names the effort
        or the joint, and the time), or ``t_span`` is not two finite numbers
        with ``tf > t0``.
    SignalError
        If a name of ``wrenches`` is not a declared wrench input.
    DimensionError
        If ``q0``, ``v0``, an input or a wrench has the wrong length, or ``q0``
        holds a zero quaternion (names its coordinates).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=1.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0],
    ...                              output_name="theta"))
    >>> res = mech.simulate((0, 2), [1.0], [0.0])
    >>> bool(np.ptp(res.energy) < 1e-8), res.outputs["theta"][0]
    (True, np.float64(1.0))
    """
    from .simulation import simulate_tree

    tree = self.rigid_tree(values)
    return simulate_tree(tree, t_span, q0, v0, inputs=inputs, wrenches=wrenches, **options)
