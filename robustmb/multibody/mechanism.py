"""Tree mechanisms: one description, three models (seeds 000, 001, 002).

A :class:`Mechanism` holds bodies, joints, ports and ureal parameters.  From it:

- :meth:`Mechanism.trim` and :meth:`Mechanism.linearize`: the equilibrium and the
  linearised plant as one exact LFT (seed 000, Sec. 5, Fig. 2; steps 1-2 in
  :mod:`.mechanism_trim`, step 3 in :mod:`.lft_assembly`);
- the nonlinear models (seed 001; :mod:`.nonlinear_setup`, :mod:`.nonlinear_models`);
- the exact linearisation anywhere (seed 002; :mod:`.pointwise_linearization`).

This file holds the description itself: building, topology, and the LFT entry points
(loads beyond gravity in the LFT: :mod:`.lft_loads`).
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Mapping

import numpy as np

from ..errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    NameConflictError,
    SignalError,
    UncertainTypeError,
)
from . import _generic as g
from . import nonlinear_models, nonlinear_setup, pointwise_linearization
from .bodies import RigidBody
from .joints import GROUND, Joint, WeldJoint, check_signal_names
from .lft_assembly import LinearAssembly
from .lft_loads import _closure_rotations, _numeric_equilibrium, _shifted, _with_loads
from .mechanism_trim import MechanismTrim, check_base_balance, trim_equilibrium
from .signals import POSE_COMPONENTS
from .spatial import check_rotation

__all__ = ["GROUND", "Mechanism", "MechanismTrim"]


def _point(x, what):
    """3 finite numbers as a float array, else an error naming the argument."""
    try:
        p = np.asarray(x, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        p = None
    if p is None or p.size != 3 or not np.all(np.isfinite(p)):
        raise ArgumentError(f"{what} must be 3 finite numbers, got {x!r}")
    return p


def _check_numeric_acceleration(acceleration):
    """Refuse uncertain entries of the acceleration field, naming the entry.

    The entries are read one by one (``np.asarray(..., dtype=object)`` fails on a
    1x1 uncertain expression such as ``2 * k`` standing first): the equilibrium
    geometry of a mechanism is numeric, so the field must be too.
    """
    if g.is_uncertain(acceleration):
        raise UncertainTypeError(
            f"acceleration must be 3 finite numbers, got {acceleration!r}: an uncertain "
            "acceleration field is not supported (the equilibrium geometry is numeric)"
        )
    try:
        _, entries = g.sequence_entries(acceleration, "acceleration")
    except DimensionError:
        raise SignalError(f"acceleration must be 3 finite numbers, got {acceleration!r}") from None
    for i, e in enumerate(entries):
        if g.is_uncertain(e):
            raise UncertainTypeError(
                f"acceleration must be 3 finite numbers, got {acceleration!r}: acceleration[{i}] "
                "is uncertain, and an uncertain acceleration field is not supported (the "
                "equilibrium geometry is numeric)"
            )


def _port_pairs(ports):
    """``linearize``'s ports as a list of (body, port) string pairs, else ArgumentError."""
    if isinstance(ports, str) or not isinstance(ports, list | tuple):
        raise ArgumentError(
            f"linearize: ports must be a sequence of (body name, port name) pairs, got {ports!r}"
        )
    out = []
    for item in ports:
        if not (
            isinstance(item, list | tuple)
            and len(item) == 2
            and all(isinstance(s, str) for s in item)
        ):
            raise ArgumentError(
                "linearize: each entry of ports must be a (body name, port name) pair, "
                f"got {item!r} in ports={ports!r}"
            )
        out.append(tuple(item))
    return out


class Mechanism:
    """A tree of rigid bodies and joints under a uniform acceleration field.

    Parameters
    ----------
    acceleration : 3 numbers
        Acceleration ``a`` of the reference frame in inertial axes; gravity ``g``
        is ``a = -g`` (see :func:`gravity`).
    floating_base : str, optional
        Name of a body that floats freely (6 degrees of freedom, coordinates:
        small displacement of its origin and small rotation, in its own
        equilibrium axes).  Without it the tree hangs from the ground.  Nothing
        holds it: under an acceleration field its loads must be balanced by
        applied wrenches for :meth:`linearize` (see its ``base_wrench``).
    base_orientation : 3x3, optional
        Equilibrium DCM of the floating base (its axes in inertial components).
    base_position : 3 numbers
        Equilibrium position of the floating base origin.
    ground_ports : dict[str, 3 numbers], optional
        Points of the ground (inertial frame); ``"O"`` (the origin) always exists.

    Examples
    --------
    A pendulum with an uncertain point mass; its gravity stiffness follows the mass.

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> m = rmb.ureal("m", 2.0, percent=20)
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=m, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0],
    ...                              angle=0.0, input_name="T", output_name="theta"))
    >>> G = mech.linearize()
    >>> G.input_names, G.output_names
    (['T'], ['theta'])
    >>> k = 1.0 / G.usubs({"m": 2.4}).dcgain()     # hanging: stiffness m g l
    >>> bool(np.isclose(k, 2.4 * 9.81))
    True
    """

    def __init__(
        self,
        *,
        acceleration=(0.0, 0.0, 0.0),
        floating_base=None,
        base_orientation=None,
        base_position=(0.0, 0.0, 0.0),
        ground_ports=None,
    ):
        _check_numeric_acceleration(acceleration)
        try:
            a = np.asarray(acceleration, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            a = np.array([np.nan])
        if a.size != 3 or not np.all(np.isfinite(a)):
            raise SignalError(f"acceleration must be 3 finite numbers, got {acceleration!r}")
        self.acceleration = a.reshape(3, 1)
        self.floating_base = floating_base
        self.base_orientation = (
            np.eye(3)
            if base_orientation is None
            else check_rotation(base_orientation, "base_orientation")
        )
        self.base_position = _point(base_position, "base_position").reshape(3, 1)
        self.ground_ports = {"O": (0.0, 0.0, 0.0)}
        if ground_ports is not None and not isinstance(ground_ports, Mapping):
            raise ArgumentError(
                "ground_ports must be a mapping {port name: 3 numbers}, "
                f"got {type(ground_ports).__name__}"
            )
        for name, pos in (ground_ports or {}).items():
            self.ground_ports[name] = tuple(_point(pos, f"ground_ports[{name!r}]"))
        self.bodies: dict[str, RigidBody] = {}
        self.joints: dict[str, Joint] = {}
        self.wrench_inputs: dict[str, tuple[str, str]] = {}

    # ------------------------------------------------------------------ building
    def add_body(self, body):
        """Add a :class:`RigidBody` (its name must be new).

        Examples
        --------
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> list(mech.bodies)
        ['bob']
        """
        if not isinstance(body, RigidBody):
            raise SignalError(f"add_body expects a RigidBody, got {type(body).__name__}")
        if body.name in self.bodies or body.name == GROUND:
            raise NameConflictError(f"a body named {body.name!r} already exists")
        self.bodies[body.name] = body

    def add_joint(self, joint):
        """Add a joint; a body can be the child of one joint only (tree).

        Examples
        --------
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> list(mech.joints)
        ['J']
        """
        if not isinstance(joint, Joint):
            raise SignalError(f"add_joint expects a joint, got {type(joint).__name__}")
        if joint.name in self.joints:
            raise NameConflictError(f"a joint named {joint.name!r} already exists")
        check_signal_names(list(self.joints.values()) + [joint])
        for other in self.joints.values():
            if other.child[0] == joint.child[0]:
                raise IllPosedError(
                    f"body {joint.child[0]!r} is attached twice (joints {other.name!r} and "
                    f"{joint.name!r}): a tree mechanism gives each body one parent joint"
                )
        self.joints[joint.name] = joint

    def add_wrench_input(self, name, body, port):
        """Declare an external wrench input on ``body`` at ``port`` (6 inputs, body axes).

        The inputs are named ``name_Fx, name_Fy, name_Fz, name_Tx, name_Ty, name_Tz``;
        the wrench is applied *on* the body and its components follow the body.

        Examples
        --------
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> mech.add_wrench_input("push", "bob", "P")
        >>> mech.linearize().input_names
        ['J_effort', 'push_Fx', 'push_Fy', 'push_Fz', 'push_Tx', 'push_Ty', 'push_Tz']
        """
        if name in self.wrench_inputs:
            raise NameConflictError(f"a wrench input named {name!r} already exists")
        self.wrench_inputs[name] = (body, port)

    # ------------------------------------------------------------------ topology
    def _port(self, body, port):
        if body == GROUND:
            if port not in self.ground_ports:
                raise SignalError(
                    f"port {port!r} does not belong to the ground "
                    f"(its ports: {sorted(self.ground_ports)})"
                )
            return self.ground_ports[port]
        if body not in self.bodies:
            raise SignalError(f"unknown body {body!r}")
        return self.bodies[body].port(port)

    def _topology(self):
        """Parent joints, child lists and a base-to-leaves order; validates the tree."""
        if self.floating_base is not None and self.floating_base not in self.bodies:
            raise SignalError(f"floating_base {self.floating_base!r} is not a body")
        parent_joint, children = {}, {GROUND: []}
        for k in self.bodies:
            children[k] = []
        for j in self.joints.values():
            pb, cb = j.parent[0], j.child[0]
            self._port(*j.parent)
            self._port(*j.child)
            if cb == GROUND:
                raise IllPosedError(f"joint {j.name!r}: the ground cannot be a child")
            if cb == self.floating_base:
                raise IllPosedError(
                    f"joint {j.name!r}: the floating base {cb!r} cannot be the child of a joint"
                )
            if pb == cb:
                raise IllPosedError(f"joint {j.name!r} connects body {cb!r} to itself")
            parent_joint[cb] = j
            children[pb].append(j)
        for name, (b, p) in self.wrench_inputs.items():
            if b == GROUND:
                raise SignalError(f"wrench input {name!r}: cannot act on the ground")
            self._port(b, p)
        roots = [GROUND] + ([self.floating_base] if self.floating_base else [])
        order, seen = [], set(roots)
        queue = deque(roots)
        while queue:
            k = queue.popleft()
            if k != GROUND:
                order.append(k)
            for j in children[k]:
                c = j.child[0]
                seen.add(c)
                queue.append(c)
        missing = [k for k in self.bodies if k not in seen]
        if missing:
            for k in missing:  # walk up: a repeated body is a closed kinematic chain
                path, cur = [k], k
                while cur in parent_joint:
                    cur = parent_joint[cur].parent[0]
                    if cur in path:
                        loop = path[path.index(cur) :] + [cur]
                        raise IllPosedError(
                            "kinematic loop " + " -> ".join(loop) + ": a tree is required "
                            "(no body may be its own ancestor); open the loop at one joint and "
                            "close it with add_loop_closure"
                        )
                    path.append(cur)
            raise IllPosedError(
                f"bodies {missing} are not connected to the ground or to the floating base"
            )
        return parent_joint, children, order

    def _grounded(self, parent_joint, order):
        """Bodies welded (directly or through welds) to the ground: they do not move."""
        fixed = set()
        for k in order:
            j = parent_joint.get(k)
            if (
                j is not None
                and isinstance(j, WeldJoint)
                and (j.parent[0] == GROUND or j.parent[0] in fixed)
            ):
                fixed.add(k)
        return fixed

    def coordinates(self):
        """Names of the generalised coordinates: the base first, then the joints
        breadth-first from the base (not in the order of ``add_joint``).

        Every ``q``, ``v``, effort and linearised state of the mechanism follows this
        order (a floating base: 6 tangent coordinates here and in :meth:`linearize`;
        position and quaternion in the nonlinear models' ``q``).

        Examples
        --------
        A second pendulum hung from the ground comes before the link that hangs
        from the first one, although it was added last.

        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> for k in ("a", "b", "c"):
        ...     mech.add_body(RigidBody(k, mass=1.0, ports={"P": [0, 0, 0], "T": [0, 0, -1]}))
        >>> mech.add_joint(RevoluteJoint("J1", ("ground", "O"), ("a", "P"), [1, 0, 0]))
        >>> mech.add_joint(RevoluteJoint("J2", ("a", "T"), ("b", "P"), [1, 0, 0]))
        >>> mech.add_joint(RevoluteJoint("J3", ("ground", "O"), ("c", "P"), [1, 0, 0]))
        >>> mech.coordinates()
        ['J1_q', 'J3_q', 'J2_q']
        """
        parent_joint, _, order = self._topology()
        names = []
        if self.floating_base:
            names += [f"{self.floating_base}_{c}" for c in POSE_COMPONENTS]
        names += [
            parent_joint[k].output_name for k in order if k in parent_joint and parent_joint[k].ndof
        ]
        return names

    # ------------------------------------------------------------------ steps 1-2
    def trim(self):
        """Equilibrium geometry, wrenches and efforts as (uncertain) matrices.

        Returns
        -------
        MechanismTrim
            Applied wrenches and compliant closures are part of the loads; a joint
            law (:meth:`add_joint_law`) takes its share of the load: the trim effort
            is the one the actuator adds to ``law(q_eq, 0)``.

        Raises
        ------
        IllPosedError
            If the mechanism has exact loop constraints, a rotational closure spring
            not at rest at equilibrium, or a joint law at an uncertain equilibrium
            coordinate: the trim does not model them (use :meth:`linearize_at`).

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
        >>> mech = Mechanism(acceleration=gravity(9.81))
        >>> mech.add_body(RigidBody("rod", mass=1.0, cog=[0, 0.5, 0], ports={"P": [0, 0, 0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0]))
        >>> float(mech.trim().effort["J"][0, 0])     # horizontal rod: m g l/2
        4.905
        """
        mech, law_efforts, applied, closures, _, tr = self._lft_trim("trim")
        for name, e0 in law_efforts.items():  # the law holds part of the load
            tr.effort[name] = g.simplified(tr.effort[name] - e0)
        return tr

    def _lft_trim(self, method):
        """:meth:`_lft_mechanism`, its topology and its trim with the applied wrenches and
        the closures' springs: ``(mech, law_efforts, applied, closures, topology, trim)``."""
        mech, law_efforts, applied, closures = self._lft_mechanism(method)
        topology = mech._topology()
        springs = [(n, a, b, gains[0]) for n, a, b, gains in closures]
        tr = trim_equilibrium(mech, *topology, applied, springs)
        _closure_rotations(tr, topology[0], closures, method)
        return mech, law_efforts, applied, closures, topology, tr

    def _lft_mechanism(self, method):
        """The mechanism the LFT is built from, the joint laws' efforts at equilibrium,
        the applied wrenches ``(body, port, wrench, frame)`` and the compliant
        closures ``(name, a, b, gains)``.

        A joint law ``law(q, q_dot)`` enters the linearised plant as a spring
        ``-d law / dq`` and a damper ``-d law / d q_dot`` at the equilibrium
        ``(q_eq, 0)``, added to the joint's own, and its effort ``law(q_eq, 0)``
        relieves the trim effort.  This needs a numeric ``q_eq``: a law at an
        uncertain equilibrium angle is not an LFT of the ureals.  Applied wrenches
        and compliant closures enter the trim and :meth:`linearize`
        (:func:`_with_loads`).  Exact loop constraints raise rather than being
        dropped: they need the nonlinear models (:meth:`linearize_at`).
        """
        from .dynamics import law_derivatives

        items = [f"loop constraint {name!r}" for name in getattr(self, "loop_constraints", {})]
        laws = getattr(self, "joint_laws", {})
        for name in laws:
            if _numeric_equilibrium(self.joints[name]) is None:
                items.append(f"joint law on {name!r} (its equilibrium coordinate is uncertain)")
        if items:
            raise IllPosedError(
                f"{method}: the LFT of the mechanism does not model {', '.join(items)}; "
                "its equilibrium and linearised plant would be wrong -- use "
                "linearize_at(q0, v0, ...) (the exact linearisation of the nonlinear model, "
                "uncertain=True keeps inertial parameters) instead"
            )
        applied = list(getattr(self, "applied_wrenches", {}).values())
        closures = [
            (n, a, b, gains) for n, (a, b, gains) in getattr(self, "loop_closures", {}).items()
        ]
        if not laws:
            return self, {}, applied, closures
        mech = copy.copy(self)
        mech.joints = dict(self.joints)
        mech.__dict__["joint_laws"] = {}
        mech.__dict__.pop("_tree_cache", None)
        efforts = {}
        for name, law in laws.items():
            j = self.joints[name]
            qe = _numeric_equilibrium(j)
            e0 = law(qe, 0.0)
            dq, dv = law_derivatives(law, qe, 0.0)
            values = np.array([e0, dq, dv]).astype(complex).ravel()
            if values.size != 3 or not np.all(np.isfinite(values)) or np.any(values.imag):
                raise IllPosedError(
                    f"{method}: the joint law on {name!r} gives at its equilibrium "
                    f"q = {qe} an effort {e0!r} and derivatives {dq!r}, {dv!r}; "
                    "they must be finite real numbers"
                )
            e0, dq, dv = values.real
            jc = copy.copy(j)
            jc.stiffness = _shifted(j.stiffness, -dq)
            jc.damping = _shifted(j.damping, -dv)
            mech.joints[name] = jc
            efforts[name] = e0
        return mech, efforts, applied, closures

    # ------------------------------------------------------------------ step 3
    def linearize(self, *, rates=False, ports=(), simplify=True, base_wrench=None):
        """Linearised plant around the (parameter-dependent) equilibrium, as one exact LFT.

        Parameters
        ----------
        rates : bool
            Also output the coordinate rates (``<output_name>_dot``).
        ports : sequence of (body, port)
            Also output each port's small displacement and rotation, twist and
            dual acceleration in the body's equilibrium axes (18 outputs named
            ``body_port_dx ... body_port_alphaz``).
        simplify : bool
            Apply :func:`robustmb.simplify` to the result.
        base_wrench : {None, "body"}
            How a floating base that is not balanced at equilibrium is held.
            ``None`` (default): it must be balanced -- the weight and the applied
            loads leave no residual base wrench (:attr:`MechanismTrim.base_wrench`
            zero at the nominal and over the box of the ureals), else
            :class:`~robustmb.errors.IllPosedError`.  ``"body"``: the residual is
            provided by a wrench constant in the base's own axes, the choice of
            ``linearize_at(q0, v0, a0=zeros)`` (a wrench fixed in inertial axes
            instead is an :meth:`add_applied_wrench` with ``frame="inertial"``).

        Returns
        -------
        UncertainSystem
            States ``[q; q_dot]``; inputs: the joint efforts (their ``input_name``)
            then 6 per wrench input; outputs: the coordinates (joint
            ``output_name``; a floating base gives ``base_dx ... base_rz``) in the
            order of :meth:`coordinates` (breadth-first from the base), then
            the rates and port outputs that were asked for.

        Notes
        -----
        Constant applied wrenches (:meth:`add_applied_wrench`) and compliant loop
        closures (:meth:`add_loop_closure`) enter the trim as loads and the LFT by
        their first-order terms, closed as a feedback on internal port signals.
        A joint law ``law(q, q_dot)`` (:meth:`add_joint_law`) enters as the spring
        ``-d law / dq`` and the damper ``-d law / d q_dot`` at ``(q_eq, 0)``, added
        to the joint's (complex step when the law accepts complex numbers, central
        differences otherwise, as in :meth:`linearize_at`).

        Raises
        ------
        IllPosedError
            If the mechanism has exact loop constraints (:meth:`add_loop_constraint`),
            a rotational closure spring not at rest at equilibrium, or a joint law
            (:meth:`add_joint_law`) at an uncertain equilibrium coordinate: the LFT
            does not model them; :meth:`linearize_at` linearises the nonlinear model
            that does.  Also if a floating base needs a holding wrench that
            ``base_wrench`` does not specify (it names the residual wrench).
        NameConflictError
            If two signals (joint inputs, outputs, rates, wrench inputs, base
            coordinates) share a name.
        ArgumentError
            If ``ports`` is not a sequence of (body name, port name) pairs.

        Examples
        --------
        A 2 kg bob hanging 1 m below its pivot: poles ``+-j sqrt(g / l)``, static gain
        ``1 / (m g l)`` from the joint torque to the angle.

        >>> import control
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
        >>> mech = Mechanism(acceleration=gravity(9.81))
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> G = mech.linearize().nominal()
        >>> np.sort_complex(np.linalg.eigvals(G.A)).round(6), round(9.81**0.5, 6)
        (array([0.-3.132092j, 0.+3.132092j]), 3.132092)
        >>> round(float(control.dcgain(G)) * 2.0 * 9.81, 12)
        1.0
        """
        if not self.joints and self.floating_base is None:
            raise DimensionError(
                f"linearize: the mechanism has no joints (bodies: {list(self.bodies)}); add "
                "joints with add_joint() or a floating base before linearising"
            )
        ports = _port_pairs(ports)
        others = {}
        if self.floating_base:
            for c in POSE_COMPONENTS:
                others[f"{self.floating_base}_{c}"] = "a coordinate of the floating base"
        for w in self.wrench_inputs:
            for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz"):
                others[f"{w}_{c}"] = f"an input of the wrench input {w!r}"
        check_signal_names(self.joints.values(), others)
        mech, _, applied, closures, topology, tr = self._lft_trim("linearize")
        check_base_balance(mech, tr, "linearize", base_wrench)
        for b, p in ports:
            if b == GROUND or b not in self.bodies:
                raise SignalError(f"port output: unknown body {b!r}")
            self.bodies[b].port(p)
        if not applied and not closures:
            asm = LinearAssembly(mech, *topology, tr, list(ports))
            return asm.build(rates=rates, simplify=simplify)
        return _with_loads(mech, topology, tr, applied, closures, list(ports), rates, simplify)

    # ------------------------------------------------------------------ nonlinear models
    # Defined with their documentation one file per concept and bound here:
    # what the description adds (.nonlinear_setup), the models (.nonlinear_models)
    # and the linearisation anywhere (.pointwise_linearization).
    add_applied_wrench = nonlinear_setup.add_applied_wrench
    add_loop_closure = nonlinear_setup.add_loop_closure
    add_loop_constraint = nonlinear_setup.add_loop_constraint
    assemble = nonlinear_setup.assemble
    add_joint_law = nonlinear_setup.add_joint_law
    rigid_tree = nonlinear_models.rigid_tree
    equilibrium_coordinates = nonlinear_models.equilibrium_coordinates
    inverse_dynamics = nonlinear_models.inverse_dynamics
    forward_dynamics = nonlinear_models.forward_dynamics
    hybrid_dynamics = nonlinear_models.hybrid_dynamics
    mass_matrix = nonlinear_models.mass_matrix
    simulate = nonlinear_models.simulate
    linearize_at = pointwise_linearization.linearize_at

    def __repr__(self):
        return (
            f"Mechanism(bodies={list(self.bodies)}, joints={list(self.joints)}, "
            f"floating_base={self.floating_base!r})"
        )
