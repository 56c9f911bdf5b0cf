"""Tree mechanisms: trim and linearisation as one exact LFT (seed 000, Sec. 5, Fig. 2).

:meth:`Mechanism.trim` runs the paper's steps 1 and 2 in LFT arithmetic:

1. geometry at equilibrium, base to leaves: each body's DCM ``P_{k/i}``, the
   reference-frame acceleration in body axes ``abar_k = P_{k/i}^T a`` and the
   position of its origin;
2. equilibrium wrenches, leaves to base: ``Wbar_{k/parent,P} = sum tau^T Wbar_child
   - D_P [abar_k; 0]`` (eq. 12), the trim efforts ``Tbar = -r6^T Wbar_{A/J}``
   (eq. 21) and, for a floating base, the wrench that holds it.

:meth:`Mechanism.linearize` runs step 3: one static block per body
(inverse dynamics, Fig. 1a) and per joint (eqs. 22-23 as corrected in the
digest) -- the same maps as the public blocks of :mod:`.body_blocks`,
:mod:`.joint_blocks` and :mod:`.base_blocks` --, the trim LFTs re-injected as
gains, all interconnected by one exact feedback (motion flows down, wrenches
flow up, the algebraic loops through the joint accelerations are eliminated
exactly), then closed by the joint integrators.  The result is an uncertain
state-space model with states ``[q; q_dot]``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .. import lft
from ..errors import DimensionError, IllPosedError, NameConflictError, SignalError
from . import _generic as g
from ._coordinates import close_coordinates
from .base_blocks import forward_dynamics_static
from .bodies import RigidBody
from .body_blocks import inverse_dynamics_static, trim_wrench_pair
from .joint_blocks import frame_acceleration_in_child, joint_static, joint_trim_pair
from .joints import Joint, PrismaticJoint, RevoluteJoint, WeldJoint
from .signals import MOTION_COMPONENTS, POSE_COMPONENTS, WRENCH_COMPONENTS
from .spatial import check_rotation

GROUND = "ground"


@dataclass
class MechanismTrim:
    """Equilibrium quantities, each a number array or an uncertain matrix.

    Attributes
    ----------
    dcm : dict[str, matrix]
        ``P_{k/i}`` (3x3) of each body: its axes in inertial components.
    frame_acceleration : dict[str, matrix]
        ``[abar]_k`` (3x1): the reference-frame acceleration in body axes.
    origin : dict[str, matrix]
        Inertial position (3x1) of each body's origin.
    joint_wrench : dict[str, matrix]
        ``Wbar_{A/J,P}`` (6x1): wrench of the child on the joint, child axes, at the child port.
    parent_wrench : dict[str, matrix]
        ``Wbar_{J/B,C}`` (6x1): wrench of the joint on the parent, parent axes, at the parent port.
    effort : dict[str, matrix]
        Trim torque or force (1x1) of each actuated joint.
    base_wrench : matrix or None
        Wrench (6x1, base axes, at the base origin) that holds a floating base.
    """

    dcm: dict = field(default_factory=dict)
    frame_acceleration: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    joint_wrench: dict = field(default_factory=dict)
    parent_wrench: dict = field(default_factory=dict)
    effort: dict = field(default_factory=dict)
    base_wrench: object = None


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
        equilibrium axes).  Without it the tree hangs from the ground.
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
        a = np.asarray(acceleration, dtype=float).reshape(-1)
        if a.size != 3 or not np.all(np.isfinite(a)):
            raise SignalError(f"acceleration must be 3 finite numbers, got {acceleration!r}")
        self.acceleration = a.reshape(3, 1)
        self.floating_base = floating_base
        self.base_orientation = (
            np.eye(3)
            if base_orientation is None
            else check_rotation(base_orientation, "base_orientation")
        )
        self.base_position = np.asarray(base_position, dtype=float).reshape(3, 1)
        self.ground_ports = {"O": (0.0, 0.0, 0.0)}
        for name, pos in (ground_ports or {}).items():
            self.ground_ports[name] = tuple(np.asarray(pos, dtype=float).reshape(3))
        self.bodies: dict[str, RigidBody] = {}
        self.joints: dict[str, Joint] = {}
        self.wrench_inputs: dict[str, tuple[str, str]] = {}

    # ------------------------------------------------------------------ building
    def add_body(self, body):
        """Add a :class:`RigidBody` (its name must be new)."""
        if not isinstance(body, RigidBody):
            raise SignalError(f"add_body expects a RigidBody, got {type(body).__name__}")
        if body.name in self.bodies or body.name == GROUND:
            raise NameConflictError(f"a body named {body.name!r} already exists")
        self.bodies[body.name] = body

    def add_joint(self, joint):
        """Add a joint; a body can be the child of one joint only (tree)."""
        if not isinstance(joint, Joint):
            raise SignalError(f"add_joint expects a joint, got {type(joint).__name__}")
        if joint.name in self.joints:
            raise NameConflictError(f"a joint named {joint.name!r} already exists")
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
        """Names of the generalised coordinates (base first, then joints base to leaves)."""
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
        parent_joint, children, order = self._topology()
        return self._trim(parent_joint, children, order)

    def _trim(self, parent_joint, children, order):
        tr = MechanismTrim()
        a = self.acceleration
        tr.dcm[GROUND], tr.frame_acceleration[GROUND] = np.eye(3), a
        tr.origin[GROUND] = np.zeros((3, 1))
        if self.floating_base:
            b = self.floating_base
            tr.dcm[b] = self.base_orientation
            tr.frame_acceleration[b] = self.base_orientation.T @ a
            tr.origin[b] = self.base_position
        for k in order:  # step 1: forward recurrence
            j = parent_joint.get(k)
            if j is None:
                continue
            pb = j.parent[0]
            tr.dcm[k] = g.simplified(g.mm(tr.dcm[pb], g.tr(j.dcm())))
            tr.frame_acceleration[k] = frame_acceleration_in_child(j, tr.frame_acceleration[pb])
            c = g.column(self._port(*j.parent))
            if isinstance(j, PrismaticJoint):
                c = c + g.smul(j.displacement, j.axis.reshape(3, 1))
            point = tr.origin[pb] + g.mm(tr.dcm[pb], c)
            tr.origin[k] = g.simplified(point - g.mm(tr.dcm[k], g.column(self._port(*j.child))))
        wrench_up = {}
        for k in reversed(order):  # step 2: backward recurrence
            body = self.bodies[k]
            j = parent_joint.get(k)
            ref = body.port(j.child[1]) if j is not None else (0.0, 0.0, 0.0)
            loads = [(body.port(cj.parent[1]), *wrench_up[cj.name]) for cj in children[k]]
            force, torque = trim_wrench_pair(body, ref, tr.frame_acceleration[k], loads)
            if j is None:
                tr.base_wrench = g.simplified(-g.vcat(force, torque))
                continue
            tr.joint_wrench[j.name] = g.vcat(force, torque)
            f_b, t_b, effort = joint_trim_pair(j, force, torque)
            if effort is not None:
                tr.effort[j.name] = effort
            wrench_up[j.name] = (f_b, t_b)
            tr.parent_wrench[j.name] = g.vcat(f_b, t_b)
        return tr

    # ------------------------------------------------------------------ step 3
    def linearize(self, *, rates=False, ports=(), simplify=True):
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

        Returns
        -------
        UncertainSystem
            States ``[q; q_dot]``; inputs: the joint efforts (their ``input_name``)
            then 6 per wrench input; outputs: the coordinates (joint
            ``output_name``; a floating base gives ``base_dx ... base_rz``), then
            the rates and port outputs that were asked for.

        Examples
        --------
        See :class:`Mechanism`.
        """
        if not self.joints and self.floating_base is None:
            raise DimensionError(
                f"linearize: the mechanism has no joints (bodies: {list(self.bodies)}); add "
                "joints with add_joint() or a floating base before linearising"
            )
        parent_joint, children, order = self._topology()
        for b, p in ports:
            if b == GROUND or b not in self.bodies:
                raise SignalError(f"port output: unknown body {b!r}")
            self.bodies[b].port(p)
        tr = self._trim(parent_joint, children, order)
        asm = _Assembly(self, parent_joint, children, order, tr, list(ports))
        return asm.build(rates=rates, simplify=simplify)

    # ------------------------------------------------------------------ nonlinear models
    def add_applied_wrench(self, name, body, port, wrench, *, frame="inertial"):
        """A constant wrench ``[F; T]`` applied on ``body`` at ``port`` in the nonlinear models.

        ``frame="inertial"``: components fixed in the inertial frame (e.g. a
        buoyancy force), the application point moving with the body;
        ``frame="body"``: components turning with the body.  Entries may be ureals.

        Examples
        --------
        >>> from robustmb.multibody import Mechanism, RigidBody
        >>> mech = Mechanism(floating_base="b")
        >>> mech.add_body(RigidBody("b", mass=1.0, inertia=1.0, ports={"c": [0, 0, 1]}))
        >>> mech.add_applied_wrench("lift", "b", "c", [0, 0, 9.81, 0, 0, 0])
        >>> sorted(mech.applied_wrenches)
        ['lift']
        """
        if frame not in ("inertial", "body"):
            raise SignalError(f"applied wrench {name!r}: frame must be 'inertial' or 'body'")
        if name in getattr(self, "applied_wrenches", {}) or name in self.wrench_inputs:
            raise NameConflictError(f"a wrench named {name!r} already exists")
        if body not in self.bodies:
            raise SignalError(f"applied wrench {name!r}: unknown body {body!r}")
        self.bodies[body].port(port)
        w = list(np.asarray(wrench, dtype=object).reshape(-1))
        if len(w) != 6:
            raise SignalError(f"applied wrench {name!r} needs 6 components, got {len(w)}")
        w = [g.check_scalar(e, f"applied wrench {name!r}[{i}]") for i, e in enumerate(w)]
        if not hasattr(self, "applied_wrenches"):
            self.applied_wrenches = {}
        self.applied_wrenches[name] = (body, port, w, frame)

    def add_loop_closure(
        self,
        name,
        a,
        b,
        *,
        stiffness,
        damping=0.0,
        rotational_stiffness=0.0,
        rotational_damping=0.0,
    ):
        """Close a kinematic loop with a spring-damper between two ports (seed 001, Fig. 14).

        Build the chain as a tree (open it at one connection), then tie the two
        ends ``a = (body, port)`` and ``b = (body, port)`` (either may be the
        ground).  A penalty closure: ``F = k (p_b - p_a) + d (v_b - v_a)`` on ``a``,
        the opposite on ``b``, and optionally a rotational spring-damper on the
        relative attitude of the two bodies (rotation vector).  Used by the
        nonlinear models; a stiff closure makes the ODE stiff (``method="Radau"``).

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
        ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
        >>> mech.add_loop_closure("pin", ("bar", "tip"), ("ground", "O"), stiffness=100.0)
        >>> mech.inverse_dynamics([0.0], [0.0], [0.0])   # the spring is along the bar
        array([0.])
        """
        for end in (a, b):
            if not (isinstance(end, tuple | list) and len(end) == 2):
                raise SignalError(
                    f"loop closure {name!r}: ends are (body, port) pairs, got {end!r}"
                )
            self._port(*end)
        closures = self.__dict__.setdefault("loop_closures", {})
        if name in closures:
            raise NameConflictError(f"a loop closure named {name!r} already exists")
        gains = [
            g.check_scalar(x, f"loop closure {name!r}: {what}")
            for x, what in (
                (stiffness, "stiffness"),
                (damping, "damping"),
                (rotational_stiffness, "rotational_stiffness"),
                (rotational_damping, "rotational_damping"),
            )
        ]
        closures[name] = (tuple(a), tuple(b), gains)

    def add_loop_constraint(self, name, a, b, *, components=("x", "y", "z"), baumgarte=(0.0, 0.0)):
        """Close a kinematic loop exactly: a holonomic constraint between two ports.

        Build the chain as a tree (open it at one connection), then require that
        the chosen ``components`` of the position of port ``b = (body, port)``
        relative to port ``a``, in the axes of ``a``'s body, vanish (either end
        may be the ground).  ``("x", "y")`` is the pin of a loop moving in the
        x-y plane of ``a``, ``("x", "y", "z")`` a spherical joint.  The nonlinear
        models then solve for the constraint forces (Lagrange multipliers):
        :meth:`forward_dynamics` and :meth:`simulate` follow the constraint
        exactly (index reduced to accelerations, optional Baumgarte
        stabilisation ``(alpha, beta)``: ``g'' + 2 alpha g' + beta^2 g = 0``) and
        :meth:`linearize_at` returns the linearisation on the constraint manifold.
        Start from consistent coordinates (:meth:`assemble`).

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism(ground_ports={"B": [1.0, 0, 0]})
        >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
        ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
        >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
        >>> mech.forward_dynamics([0.0], [0.0], [1.0])   # a bar pinned at both ends
        array([0.])
        """
        for end in (a, b):
            if not (isinstance(end, tuple | list) and len(end) == 2):
                raise SignalError(
                    f"loop constraint {name!r}: ends are (body, port) pairs, got {end!r}"
                )
            self._port(*end)
        sel = []
        for c in components:
            if c not in ("x", "y", "z") or c in "".join(map(str, sel)):
                raise SignalError(
                    f"loop constraint {name!r}: components are distinct axes among "
                    f"'x', 'y', 'z', got {components!r}"
                )
            sel.append(c)
        if not sel:
            raise SignalError(f"loop constraint {name!r}: give at least one component")
        ab = [float(x) for x in baumgarte]
        if len(ab) != 2 or not all(np.isfinite(ab)) or min(ab) < 0:
            raise SignalError(
                f"loop constraint {name!r}: baumgarte is (alpha, beta), two numbers >= 0"
            )
        cons = self.__dict__.setdefault("loop_constraints", {})
        if name in cons or name in getattr(self, "loop_closures", {}):
            raise NameConflictError(f"a loop closure named {name!r} already exists")
        cons[name] = (tuple(a), tuple(b), ["xyz".index(c) for c in sel], tuple(ab))

    def assemble(self, q, v=None, *, fixed=(), values=None):
        """Coordinates (and rates) on the loop constraints, nearest to the given ones.

        Gauss-Newton with minimum-norm steps; ``fixed`` names coordinates held at
        their given values (e.g. a crank angle).

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism(ground_ports={"B": [0.0, 1.0, 0]})
        >>> mech.add_body(RigidBody("bar", mass=1.0, inertia=0.1,
        ...                         ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1]))
        >>> mech.add_loop_constraint("pin", ("bar", "tip"), ("ground", "B"), components="xy")
        >>> bool(np.isclose(mech.assemble([1.2])[0], np.pi / 2))   # the bar points at B
        True
        """
        from .constraints import assemble

        tree = self.rigid_tree(values)
        names = tree.coordinate_names()
        idx = []
        for name in fixed:
            if name not in names:
                raise SignalError(f"assemble: unknown coordinate {name!r} (coordinates: {names})")
            idx.append(names.index(name))
        q = tree.check_state(q)
        if v is not None:
            v = tree.check_rates(v)
        return assemble(tree, q, v, fixed=idx)

    def add_joint_law(self, joint, law):
        """A nonlinear joint law: effort ``law(q, q_dot)`` on the child, added to spring and damper.

        Used by the nonlinear models (``forward_dynamics``, ``simulate``,
        ``linearize_at`` -- which differentiates it by a complex step when the
        callable accepts complex numbers, by central differences otherwise); the
        LFT of :meth:`linearize` only knows the joint's stiffness and damping.

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> mech.add_joint_law("J", lambda q, qd: -3.0 * q**3)     # hardening spring
        >>> mech.forward_dynamics([1.0], [0.0], [0.0])              # -3 / (m l^2)
        array([-1.5])
        """
        if joint not in self.joints or not self.joints[joint].ndof:
            raise SignalError(
                f"add_joint_law: {joint!r} is not a revolute or prismatic joint of this mechanism"
            )
        if not callable(law):
            raise SignalError(f"add_joint_law: the law of joint {joint!r} must be callable")
        self.__dict__.setdefault("joint_laws", {})[joint] = law

    def rigid_tree(self, values=None):
        """The numeric tree of the nonlinear models (see :mod:`robustmb.multibody.tree`)."""
        from .tree import compile_tree

        # bodies and joints are only ever added, so counts identify the structure
        key = (
            len(self.bodies),
            len(self.joints),
            len(self.wrench_inputs),
            len(getattr(self, "applied_wrenches", {})),
            tuple(getattr(self, "joint_laws", {}).items()),
            len(getattr(self, "loop_closures", {})),
            len(getattr(self, "loop_constraints", {})),
            self.floating_base,
            self.acceleration.tobytes(),
            tuple(sorted((values or {}).items())),
        )
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
                q[k + 3 : k + 7] = quaternion_from_dcm(self.base_orientation)
            else:
                q[k] = tree.q_eq[i]
        return q

    def _effort_names(self, tree):
        names = []
        for i in range(tree.n):
            if tree.kind[i] == 0:
                names += [f"{tree.names[i]}_{c}" for c in WRENCH_COMPONENTS]
            else:
                names.append(self.joints[tree.names[i]].input_name)
        return names

    def inverse_dynamics(self, q, v, a, *, values=None, wrenches=None):
        """Efforts that give the accelerations ``a`` at ``(q, v)`` (recursive Newton-Euler).

        Parameters
        ----------
        q, v, a : arrays
            Coordinates, rates and accelerations in the order of
            :meth:`rigid_tree` (floating base first: position, quaternion
            ``(x, y, z, w)``; twist in body axes; then the joints base to leaves).
        values : dict, optional
            ``{ureal name: value}``; omitted parameters take their nominal.
        wrenches : dict, optional
            Values (6, body axes) of the wrench inputs declared with
            :meth:`add_wrench_input`.

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
        from .dynamics import external_forces, joint_law, joint_transforms, rnea

        tree = self.rigid_tree(values)
        q, v = tree.check_state(q, v)
        a = tree.check_rates(a, "a")
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
        from .dynamics import aba, external_forces, joint_law, joint_transforms

        tree = self.rigid_tree(values)
        q, v = tree.check_state(q, v)
        tau = tree.check_rates(tau, "tau")
        if tree.bare:  # no springs, dampers, laws or loads
            qdd = aba(tree, q, v, tau, None)
        else:
            # the transforms of the tree are only needed by closures and inertial loads
            xs, rw = joint_transforms(tree, q) if tree.needs_transforms else (None, None)
            fext = external_forces(tree, q, rw, wrenches, v, xs)
            qdd = aba(tree, q, v, tau + joint_law(tree, q, v), fext)
        if tree.constraints:  # exact loop constraints: add the constraint forces
            from .constraints import constrained_accelerations
            from .dynamics import crba

            qdd = constrained_accelerations(tree, q, v, qdd, crba(tree, q))[0]
        return qdd

    def hybrid_dynamics(self, q, v, tau, imposed, *, values=None, wrenches=None):
        """Mixed forward/inverse dynamics: some joint accelerations imposed, the rest free.

        Parameters
        ----------
        q, v, tau : as :meth:`forward_dynamics` (the entries of ``tau`` at imposed
            joints are ignored)
        imposed : dict
            ``{joint name: acceleration}`` of the joints in joint-inverse mode
            (seed 001's two modes of a joint block; e.g. a locked joint: 0).

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
        from .dynamics import external_forces, hybrid, joint_law, joint_transforms

        tree = self.rigid_tree(values)
        if tree.constraints:
            raise IllPosedError(
                "hybrid_dynamics: not available with exact loop constraints "
                f"({', '.join(c[0] for c in tree.constraints)}); use forward_dynamics"
            )
        q, v = tree.check_state(q, v)
        tau = tree.check_rates(tau, "tau")
        node_of = {tree.names[i]: i for i in range(tree.n) if tree.kind[i] != 0}
        imp = {}
        for name, acc in dict(imposed).items():
            if name not in node_of:
                raise SignalError(
                    f"hybrid_dynamics: {name!r} is not a revolute or prismatic joint "
                    f"(joints: {sorted(node_of)})"
                )
            imp[node_of[name]] = float(acc)
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
        from .dynamics import crba

        tree = self.rigid_tree(values)
        return crba(tree, tree.check_state(q))

    def simulate(self, t_span, q0, v0, *, inputs=None, values=None, wrenches=None, **options):
        """Simulate the nonlinear mechanism with ``scipy.integrate.solve_ivp``.

        Parameters
        ----------
        t_span : (t0, tf)
        q0, v0 : initial coordinates and rates (see :meth:`inverse_dynamics`)
        inputs : None, array or callable ``f(t, q, v) -> efforts``
        values : dict, optional
        wrenches : dict, optional
            Wrench inputs: 6 numbers or a callable ``f(t, q, v)`` each.
        **options
            Passed to ``solve_ivp`` (defaults: DOP853, rtol = atol = 1e-10,
            dense output); ``events``, ``t_eval``, ``max_step`` work as there.

        Returns
        -------
        SimulationResult
            ``.t, .q, .v, .outputs`` (named), ``.energy``, ``.com``, ``.sol``.
            A floating base adds its inertial position and Euler angles 3-2-1 to
            the outputs; a trajectory through pitch +-90 deg raises
            ``IllPosedError`` there (use the quaternion in ``.q`` instead).

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

    def linearize_at(
        self,
        q0,
        v0,
        *,
        a0=None,
        tau0=None,
        values=None,
        wrenches=None,
        uncertain=False,
        independent=None,
    ):
        """Exact linearisation of the nonlinear mechanism at any point (seed 002).

        Parameters
        ----------
        q0, v0 : reference coordinates and rates
        a0 : reference accelerations, optional
        tau0 : reference efforts, optional (default: zero; ``a0`` then follows
            from the forward dynamics; give ``a0`` or ``tau0``, not both unless
            they agree)
        values, wrenches : as :meth:`inverse_dynamics`
        uncertain : bool
            Keep the ureals not given in ``values`` -- masses, inertias, rotor
            inertias, springs and dampers -- uncertain: the reference is then
            fixed kinematically (``a0``, computed at the nominal values when only
            ``tau0`` is given) and the result is an exact LFT
            (:class:`~robustmb.multibody.inertial_lft.UncertainLinearization`:
            ``.M, .P1, .P2, .tau0`` uncertain matrices, ``.ss`` an uncertain
            system; each parameter occurs as often as the rank of its coefficient).
        independent : list of str, optional
            With exact loop constraints (:meth:`add_loop_constraint`): the
            coordinates that parametrise the constrained motion (default: chosen
            by a pivoted QR of the constraint null space).  The result is then a
            :class:`~robustmb.multibody.constraints.ConstrainedLinearization` on
            the constraint manifold, states ``[dz; dz']``.

        Returns
        -------
        Linearization
            ``.M, .P1, .P2, .P3`` (``M dq'' = P1 dq' + P2 dq + P3 du``) and
            ``.ss`` with states ``[dq; dv]`` (tangent coordinates: a floating
            base gives ``{base}_dx ... _rz``, small displacement and rotation in
            body axes), inputs the efforts then the wrench inputs, outputs the
            states.

        Examples
        --------
        >>> import numpy as np
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
        >>> mech = Mechanism(acceleration=gravity(9.81))
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> lin = mech.linearize_at([0.0], [0.0])
        >>> lin.M, lin.P2                      # m l^2 and -m g l
        (array([[2.]]), array([[-19.62]]))
        """
        from .dynamics import aba, external_forces, joint_law, joint_transforms, rnea
        from .linearization import linearize_tree

        if uncertain:
            from .inertial_lft import uncertain_linearization

            if getattr(self, "loop_constraints", None):
                raise IllPosedError(
                    "linearize_at: uncertain=True is not available with exact loop constraints"
                )

            return uncertain_linearization(self, q0, v0, a0, tau0, values, wrenches)
        tree = self.rigid_tree(values)
        q0, v0 = tree.check_state(q0, v0, "v0")
        if tree.constraints:
            return self._linearize_constrained(tree, q0, v0, a0, tau0, wrenches, independent)
        if a0 is not None:
            a0 = tree.check_state(q0, a0, "a0")[1]
        if tau0 is not None:
            tau0 = tree.check_state(q0, tau0, "tau0")[1]

        def forward(q, v, tau):
            xs, rw = joint_transforms(tree, q)
            f = external_forces(tree, q, rw, wrenches, v, xs)
            return aba(tree, q, v, tau + joint_law(tree, q, v), f, xs, rw)

        def inverse(q, v, a):
            xs, rw = joint_transforms(tree, q)
            f = external_forces(tree, q, rw, wrenches, v, xs)
            return rnea(tree, q, v, a, f, xs, rw) - joint_law(tree, q, v)

        return linearize_tree(
            tree, q0, v0, a0, tau0, wrenches, self._effort_names(tree), forward, inverse
        )

    def _linearize_constrained(self, tree, q0, v0, a0, tau0, wrenches, independent):
        from .constraints import linearize_constrained
        from .dynamics import aba, external_forces, joint_law, joint_transforms, rnea
        from .linearization import linearize_tree

        if a0 is not None:
            raise IllPosedError(
                "linearize_at: with exact loop constraints give tau0 (the accelerations "
                "follow from the constraints)"
            )
        tau0 = np.zeros(tree.nv) if tau0 is None else tree.check_rates(tau0, "tau0")

        def forward(q, v, tau):
            xs, rw = joint_transforms(tree, q)
            f = external_forces(tree, q, rw, wrenches, v, xs)
            return aba(tree, q, v, tau + joint_law(tree, q, v), f)

        def inverse(q, v, a):
            xs, rw = joint_transforms(tree, q)
            f = external_forces(tree, q, rw, wrenches, v, xs)
            return rnea(tree, q, v, a, f, xs, rw) - joint_law(tree, q, v)

        def lin_free(a):
            return linearize_tree(
                tree,
                q0,
                v0,
                a,
                tau0 if a is None else None,
                wrenches,
                self._effort_names(tree),
                forward,
                inverse,
            )

        return linearize_constrained(tree, q0, v0, tau0, lin_free, independent)

    def __repr__(self):
        return (
            f"Mechanism(bodies={list(self.bodies)}, joints={list(self.joints)}, "
            f"floating_base={self.floating_base!r})"
        )


class _Assembly:
    """Step 3: the linear blocks and their interconnection.

    The blocks are the static maps of :mod:`.body_blocks`, :mod:`.joint_blocks`
    and :mod:`.base_blocks` on structured signal keys; the joint and base
    acceleration loops use the nominal inertia they move as preconditioner.
    """

    def __init__(self, mech, parent_joint, children, order, tr, ports):
        self.mech, self.parent_joint, self.children = mech, parent_joint, children
        self.order, self.tr, self.ports = order, tr, ports
        self.nm = 21 if ports else 9
        self.fixed = mech._grounded(parent_joint, order)
        self.blocks = []  # (D, inputs, outputs); inputs/outputs: lists of (key, size)
        self.coords = []  # (kind, owner, index, output name)
        base = mech.floating_base
        if base:
            for i, c in enumerate(POSE_COMPONENTS):
                self.coords.append(("base", base, i, f"{base}_{c}"))
        for k in order:
            j = parent_joint.get(k)
            if j is not None and j.ndof:
                self.coords.append(("joint", j.name, 0, j.output_name))
        self.efforts = [
            parent_joint[k] for k in order if k in parent_joint and parent_joint[k].ndof
        ]

    def _moving(self, body):
        return body not in self.fixed

    # nominal composite inertias for the loop preconditioners ------------------
    def _composites(self):
        comp = {}
        for k in reversed(self.order):
            body = self.mech.bodies[k]
            j = self.parent_joint.get(k)
            ref = body.port(j.child[1]) if j is not None else (0.0, 0.0, 0.0)
            ref_n = np.array([g.nominal(e)[0, 0] for e in ref])
            total = body.nominal_spatial_inertia_at(ref)
            for cj in self.children[k]:
                child = comp[cj.name]
                c_n = np.array([g.nominal(e)[0, 0] for e in body.port(cj.parent[1])])
                tcp = _tau_num(ref_n - c_n)  # motion at C from motion at P
                total = total + tcp.T @ child @ tcp
            if j is None:
                comp[k] = total
                continue
            p6 = np.kron(np.eye(2), g.nominal(j.dcm()))
            if isinstance(j, RevoluteJoint):
                ra = j.orientation.T @ j.axis
                r6 = np.r_[np.zeros(3), ra]
                total = total + float(g.nominal(j.inertia)[0, 0]) * np.outer(r6, r6)
                comp[j.name] = p6.T @ total @ p6
                comp[("mu", j.name)] = float(r6 @ total @ r6)
            elif isinstance(j, PrismaticJoint):
                x = float(g.nominal(j.displacement)[0, 0])
                t = _tau_num(-x * j.axis)
                comp[j.name] = t.T @ p6.T @ total @ p6 @ t
                ta = np.r_[j.dcm() @ j.axis, np.zeros(3)]
                comp[("mu", j.name)] = float(ta @ total @ ta)
            else:
                comp[j.name] = p6.T @ total @ p6
        return comp

    # blocks ---------------------------------------------------------------------
    def _motion_ports(self, k):
        """Ports of body k whose motion some block or output needs."""
        need = [cj.parent[1] for cj in self.children[k]]
        need += [p for b, p in self.ports if b == k]
        j = self.parent_joint.get(k)
        own = j.child[1] if j is not None else None  # provided by the parent joint
        return [p for p in dict.fromkeys(need) if p != own]

    def _wrench_ports(self, k):
        """Ports of body k where children or external inputs apply wrenches."""
        need = [cj.parent[1] for cj in self.children[k]]
        need += [p for b, p in self.mech.wrench_inputs.values() if b == k]
        return list(dict.fromkeys(need))

    def _body_block(self, k):
        body = self.mech.bodies[k]
        parent_port = self.parent_joint[k].child[1]
        self.blocks.append(
            inverse_dynamics_static(
                body, parent_port, self._wrench_ports(k), self._motion_ports(k), self.nm
            )
        )

    def _joint_block(self, j, mu):
        b_name = j.parent[0]
        self.blocks.append(
            joint_static(
                j,
                nm=self.nm,
                mu=mu,
                child_acceleration=self.tr.frame_acceleration[j.child[0]],
                parent_wrench=self.tr.parent_wrench[j.name],
                moving_parent=b_name != GROUND and self._moving(b_name),
            )
        )

    def _base_block(self, big_m):
        k = self.mech.floating_base
        self.blocks.append(
            forward_dynamics_static(
                self.mech.bodies[k],
                self.tr.frame_acceleration[k],
                self._wrench_ports(k),
                self._motion_ports(k),
                self.nm,
                big_m,
            )
        )

    # interconnection -------------------------------------------------------------
    def build(self, *, rates, simplify):
        mech = self.mech
        comp = self._composites()
        scale = max([1.0] + [abs(v) for key, v in comp.items() if isinstance(key, tuple)])
        for k in self.order:
            j = self.parent_joint.get(k)
            if j is None:
                continue
            if j.ndof:
                mu = comp[("mu", j.name)]
                if not mu > 1e-12 * scale:
                    raise IllPosedError(
                        f"joint {j.name!r}: the bodies it moves have no inertia along its "
                        "axis, so the mass matrix is singular"
                    )
                self._joint_block(j, mu)
            elif self._moving(k):
                self._joint_block(j, 1.0)
            if self._moving(k):
                self._body_block(k)
        if mech.floating_base:
            big_m = comp[mech.floating_base]
            if np.linalg.matrix_rank(big_m) < 6:
                raise IllPosedError(
                    f"floating base {mech.floating_base!r}: the total spatial "
                    "inertia is singular (a free body needs mass and inertia)"
                )
            self._base_block(big_m)
        sys = self._interconnect(rates)
        return lft.simplify(sys) if simplify else sys

    def _coordinate_signals(self, kind):
        out = []
        for ckind, owner, i, _ in self.coords:
            out.append(((kind, owner), i if ckind == "base" else 0))
        return out

    def _interconnect(self, rates):
        mech = self.mech
        out_sig = [(key, i) for _, _, outs in self.blocks for key, n in outs for i in range(n)]
        in_sig = [(key, i) for _, ins, _ in self.blocks for key, n in ins for i in range(n)]
        index = {}
        for r, s in enumerate(out_sig):
            index.setdefault(s, []).append(r)
        for s, rows in index.items():  # wrenches at one port add up; nothing else may repeat
            if len(rows) > 1 and s[0][0] != "wrench":  # pragma: no cover - invariant
                raise IllPosedError(f"duplicate internal signal {s!r}")
        qsig, qdsig = self._coordinate_signals("q"), self._coordinate_signals("qd")
        usig = [(("effort", j.name), 0) for j in self.efforts]
        for name, (b, p) in mech.wrench_inputs.items():
            usig += [(("wrench", b, p), i, name) for i in range(6)]
        ext = qsig + qdsig + usig
        ext_rows = {}
        for e, s in enumerate(ext):
            ext_rows.setdefault(s[:2], []).append(e)
        ny, nin, ne = len(out_sig), len(in_sig), len(ext)
        sel = np.zeros((nin, ny))
        rin = np.zeros((nin, ne))
        for r, s in enumerate(in_sig):
            sel[r, index.get(s, [])] = 1.0
            rin[r, ext_rows.get(s, [])] = 1.0
            if s not in index and s not in ext_rows:  # pragma: no cover - invariant
                raise IllPosedError(f"internal signal {s!r} has no source")
        port_rows = []
        for b, p in self.ports:
            key = ("motion", b, p)
            port_rows += [
                index[(key, i)][0] if self._moving(b) else None
                for i in list(range(15, 21)) + list(range(9, 15)) + list(range(3, 9))
            ]
        qddsig = self._coordinate_signals("qdd")
        lout = np.zeros((len(qddsig) + len(port_rows), ny))
        for r, s in enumerate(qddsig):
            lout[r, index[s][0]] = 1.0
        for r, i in enumerate(port_rows):
            if i is not None:
                lout[len(qddsig) + r, i] = 1.0
        dbig = g.bdiag(*[d for d, _, _ in self.blocks])
        nominal_loop = np.eye(ny) - g.nominal(dbig) @ sel
        if np.linalg.cond(nominal_loop) > 1e12:
            raise IllPosedError(
                "the mass matrix is singular at the nominal parameters (coordinates "
                f"{[c[3] for c in self.coords]})"
            )
        if g.is_number(dbig):
            static = lout @ np.linalg.solve(nominal_loop, dbig @ rin)
        else:
            static = g.mm(lout, lft.feedback(dbig, sel, sign=1), rin)
        sys = close_coordinates(static, len(qsig), len(usig), len(port_rows), rates=rates)
        sys.input_names = self._input_names()
        sys.output_names = self._output_names(rates)
        return sys

    def _input_names(self):
        names = [j.input_name for j in self.efforts]
        for w in self.mech.wrench_inputs:
            names += [f"{w}_{c}" for c in WRENCH_COMPONENTS]
        return names

    def _output_names(self, rates):
        names = [c[3] for c in self.coords]
        if rates:
            names += [f"{c[3]}_dot" for c in self.coords]
        for b, p in self.ports:
            names += [f"{b}_{p}_{c}" for c in MOTION_COMPONENTS[15:21] + MOTION_COMPONENTS[9:15]]
            names += [f"{b}_{p}_{c}" for c in MOTION_COMPONENTS[3:9]]
        return names


def _tau_num(pc):
    t = np.eye(6)
    t[:3, 3:] = g.skew(np.asarray(pc, dtype=float))
    return t
