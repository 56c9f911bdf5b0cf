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
digest), the trim LFTs re-injected as gains, all interconnected by one exact
feedback (motion flows down, wrenches flow up, the algebraic loops through the
joint accelerations are eliminated exactly), then closed by the joint
integrators.  The result is an uncertain state-space model with states
``[q; q_dot]``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import control
import numpy as np

from .. import lft
from ..errors import IllPosedError, NameConflictError, SignalError
from . import _generic as g
from .bodies import RigidBody
from .joints import Joint, PrismaticJoint, RevoluteJoint, WeldJoint
from .spatial import check_rotation

GROUND = "ground"
_POSE = ("dx", "dy", "dz", "rx", "ry", "rz")
_TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")
_ACCEL = ("ax", "ay", "az", "alphax", "alphay", "alphaz")
_WRENCH = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")


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
                            "(no body may be its own ancestor)"
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
            names += [f"{self.floating_base}_{c}" for c in _POSE]
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
            p = j.dcm()
            tr.dcm[k] = g.simplified(g.mm(tr.dcm[pb], g.tr(p)))
            tr.frame_acceleration[k] = g.simplified(g.mm(p, tr.frame_acceleration[pb]))
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
            force = -g.smul(body.mass, tr.frame_acceleration[k])
            pg = tuple(_diff(c, r) for c, r in zip(body.cog, ref, strict=True))
            torque = g.mm(g.skew(pg), force)
            for cj in children[k]:
                f_c, t_c = wrench_up[cj.name]
                pc = tuple(_diff(c, r) for c, r in zip(body.port(cj.parent[1]), ref, strict=True))
                force = force + f_c
                torque = torque + t_c + g.mm(g.skew(pc), f_c)
            force, torque = g.simplified(force), g.simplified(torque)
            if j is None:
                tr.base_wrench = g.simplified(-g.vcat(force, torque))
                continue
            tr.joint_wrench[j.name] = g.vcat(force, torque)
            p = j.dcm()
            f_b, t_b = g.simplified(g.mm(g.tr(p), force)), g.mm(g.tr(p), torque)
            if isinstance(j, PrismaticJoint):
                t_b = t_b + g.smul(j.displacement, g.mm(g.skew(j.axis), f_b))
                axis_a = j.dcm() @ j.axis.reshape(3, 1)
                tr.effort[j.name] = g.simplified(-g.mm(axis_a.T, force))
            elif isinstance(j, RevoluteJoint):
                axis_a = j.orientation.T @ j.axis.reshape(3, 1)
                tr.effort[j.name] = g.simplified(-g.mm(axis_a.T, torque))
            t_b = g.simplified(t_b)
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
        parent_joint, children, order = self._topology()
        for b, p in ports:
            if b == GROUND or b not in self.bodies:
                raise SignalError(f"port output: unknown body {b!r}")
            self.bodies[b].port(p)
        tr = self._trim(parent_joint, children, order)
        asm = _Assembly(self, parent_joint, children, order, tr, list(ports))
        return asm.build(rates=rates, simplify=simplify)

    def __repr__(self):
        return (
            f"Mechanism(bodies={list(self.bodies)}, joints={list(self.joints)}, "
            f"floating_base={self.floating_base!r})"
        )


def _diff(a, b):
    """``a - b`` for scalar entries, keeping exact zeros numeric."""
    if g.is_number(b) and float(b) == 0.0:
        return a
    if g.is_number(a) and float(a) == 0.0:
        return -b
    if g.is_number(a) and g.is_number(b):
        return float(a) - float(b)
    return a - b


class _Assembly:
    """Step 3: the linear blocks and their interconnection."""

    def __init__(self, mech, parent_joint, children, order, tr, ports):
        self.mech, self.parent_joint, self.children = mech, parent_joint, children
        self.order, self.tr, self.ports = order, tr, ports
        self.nm = 21 if ports else 9
        self.fixed = mech._grounded(parent_joint, order)
        self.blocks = []  # (D, input signal names, output signal names)
        self.coords = []  # (kind, owner, index, output name)
        base = mech.floating_base
        if base:
            for i, c in enumerate(_POSE):
                self.coords.append(("base", base, i, f"{base}_{c}"))
        for k in order:
            j = parent_joint.get(k)
            if j is not None and j.ndof:
                self.coords.append(("joint", j.name, 0, j.output_name))
        self.efforts = [
            parent_joint[k] for k in order if k in parent_joint and parent_joint[k].ndof
        ]

    # signal names -------------------------------------------------------------
    def _m(self, body, port):
        return [f"m|{body}|{port}|{i}" for i in range(self.nm)]

    @staticmethod
    def _vec(prefix, n):
        return [f"{prefix}|{i}" for i in range(n)]

    def _q(self, kind, owner, n=1):
        if n == 1:
            return [f"{kind}|{owner}"]
        return [f"{kind}|{owner}|{i}" for i in range(n)]

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
    def _add(self, d, ins, outs):
        self.blocks.append((d, ins, outs))

    def _motion_ports(self, k):
        """Ports of body k whose motion some block or output needs."""
        need = [cj.parent[1] for cj in self.children[k]]
        need += [p for b, p in self.ports if b == k]
        j = self.parent_joint.get(k)
        own = j.child[1] if j is not None else None  # provided by the parent joint
        return [p for p in dict.fromkeys(need) if p != own]

    def _upsilon(self, cp):
        """``Upsilon_CP`` restricted to the motion layout (CP = P - C)."""
        tau = g.block([[np.eye(3), g.skew(cp)], [None, np.eye(3)]], [3, 3], [3, 3])
        return g.bdiag(np.eye(3), *([tau] * ((self.nm - 3) // 6)))

    def _incoming_wrenches(self, k):
        """(signal names, port) of every wrench applied on body k by children and inputs."""
        out = []
        for cj in self.children[k]:
            out.append((self._vec(f"wj|{cj.name}", 6), cj.parent[1]))
        for name, (b, p) in self.mech.wrench_inputs.items():
            if b == k:
                out.append((self._vec(f"wx|{name}", 6), p))
        return out

    def _body_block(self, k):
        body = self.mech.bodies[k]
        j = self.parent_joint[k]
        ref = body.port(j.child[1])
        nm = self.nm
        wins = self._incoming_wrenches(k)
        mports = self._motion_ports(k)
        e = np.zeros((6, nm))
        e[0:3, 0:3] = np.eye(3)
        e[:, 3:9] = np.eye(6)
        dp = body.spatial_inertia_at(ref)
        w_row = [-g.mm(dp, e)]
        for _, port in wins:
            pc = tuple(_diff(c, r) for c, r in zip(body.port(port), ref, strict=True))
            w_row.append(g.block([[np.eye(3), None], [g.skew(pc), np.eye(3)]], [3, 3], [3, 3]))
        rows = [w_row]
        for port in mports:
            cp = tuple(_diff(r, c) for r, c in zip(ref, body.port(port), strict=True))
            rows.append([self._upsilon(cp)] + [None] * len(wins))
        rs = [6] + [nm] * len(mports)
        cs = [nm] + [6] * len(wins)
        d = g.block(rows, rs, cs)
        ins = self._m(k, j.child[1]) + [s for names, _ in wins for s in names]
        outs = self._vec(f"wb|{k}", 6) + [s for p in mports for s in self._m(k, p)]
        self._add(d, ins, outs)

    def _joint_block(self, j, mu):
        nm, tr = self.nm, self.tr
        a_name, a_port = j.child
        b_name, c_port = j.parent
        moving_parent = b_name != GROUND and self._moving(b_name)
        p = j.dcm()
        pm = g.bdiag(*([p] * (nm // 3)))
        p6t = g.bdiag(g.tr(p), g.tr(p))
        f_jb, t_jb = _split(tr.parent_wrench[j.name])
        ins, outs, rows_m, rows_w, rows_q = [], [], [], [], []
        rs, cs = [nm] + ([6] if moving_parent else []) + ([1] if j.ndof else []), []
        if moving_parent:
            ins += self._m(b_name, c_port)
            cs.append(nm)
        ins += self._vec(f"wb|{a_name}", 6)
        cs.append(6)
        if isinstance(j, WeldJoint):
            if moving_parent:
                rows_m.append(pm)
                rows_w.append(None)
            rows_m.append(None)
            rows_w.append(p6t)
            d = g.block([rows_m] + ([rows_w] if moving_parent else []), rs, cs)
            outs = self._m(a_name, a_port) + (self._vec(f"wj|{j.name}", 6) if moving_parent else [])
            self._add(d, ins, outs)
            return
        q, qd, qdd, u = (f"q|{j.name}", f"qd|{j.name}", f"qdd|{j.name}", f"u|{j.name}")
        ins += [u, qdd, qd, q]
        cs += [1, 1, 1, 1]
        kp, kd = j.stiffness, j.damping

        def motion_col(offset, vec):
            col = np.zeros((nm, 1))
            if offset + 6 <= nm:
                col[offset : offset + 6, 0] = vec
            return col

        if isinstance(j, RevoluteJoint):
            ra = (j.orientation.T @ j.axis).reshape(3, 1)
            rb = j.axis.reshape(3, 1)
            r6a = np.r_[np.zeros(3), ra[:, 0]]
            jj = j.inertia
            abar = tr.frame_acceleration[a_name]
            a_col = g.vcat(-g.mm(g.skew(ra[:, 0]), abar), np.zeros((nm - 3, 1)))
            x_col = motion_col(15, r6a)
            q_motion = a_col + x_col if not g.is_number(a_col) else a_col + x_col
            sel_w = np.zeros((1, nm))
            sel_w[0, 6:9] = rb[:, 0]  # r_b^T (angular acceleration of the parent)
            r6b = np.r_[np.zeros(3), rb[:, 0]].reshape(6, 1)
            stiff = g.vcat(g.mm(g.skew(rb[:, 0]), f_jb), g.mm(g.skew(rb[:, 0]), t_jb))
            if moving_parent:
                rows_m.append(pm)
                rows_w.append(g.smul(jj, -(r6b @ sel_w)))
                rows_q.append(g.smul(jj, -sel_w / mu))
            rows_m += [None, None, motion_col(3, r6a), motion_col(9, r6a), q_motion]
            rows_w += [p6t, None, g.smul(jj, -r6b), None, stiff]
            rows_q += [
                r6a.reshape(1, 6) / mu,
                np.array([[1.0 / mu]]),
                1.0 - g.smul(jj, np.array([[1.0 / mu]])),
                g.smul(kd, np.array([[-1.0 / mu]])),
                g.smul(kp, np.array([[-1.0 / mu]])),
            ]
        else:  # prismatic
            tb = j.axis.reshape(3, 1)
            t6b = np.r_[tb[:, 0], np.zeros(3)]
            t6a = np.r_[(j.dcm() @ tb)[:, 0], np.zeros(3)]
            pc = tuple(_scaled(j.displacement, -float(x)) for x in tb[:, 0])  # P to C
            ym = self._upsilon(pc)
            tau_t = g.block([[np.eye(3), g.skew(pc)], [None, np.eye(3)]], [3, 3], [3, 3]).T
            stiff = g.vcat(np.zeros((3, 1)), g.mm(g.skew(tb[:, 0]), f_jb))
            if moving_parent:
                rows_m.append(g.mm(pm, ym))
                rows_w.append(None)
                rows_q.append(None)
            rows_m += [
                None,
                None,
                pm @ motion_col(3, t6b),
                pm @ motion_col(9, t6b),
                pm @ motion_col(15, t6b),
            ]
            rows_w += [g.mm(tau_t, p6t), None, None, None, stiff]
            rows_q += [
                t6a.reshape(1, 6) / mu,
                np.array([[1.0 / mu]]),
                np.array([[1.0]]),
                g.smul(kd, np.array([[-1.0 / mu]])),
                g.smul(kp, np.array([[-1.0 / mu]])),
            ]
        rows = [rows_m] + ([rows_w] if moving_parent else []) + [rows_q]
        d = g.block(rows, rs, cs)
        outs = self._m(a_name, a_port) + (self._vec(f"wj|{j.name}", 6) if moving_parent else [])
        outs += [qdd]
        self._add(d, ins, outs)

    def _base_block(self, big_m):
        mech, nm = self.mech, self.nm
        k = mech.floating_base
        body = mech.bodies[k]
        abar = np.asarray(self.tr.frame_acceleration[k], dtype=float)
        aq = np.hstack([np.zeros((3, 3)), g.skew(abar[:, 0])])  # d[a]_b / d[dr; dphi]
        wins = self._incoming_wrenches(k)
        mports = self._motion_ports(k)
        minv = np.linalg.inv(big_m)
        origin = (0.0, 0.0, 0.0)
        dp = body.spatial_inertia_at(origin)
        aq6 = np.vstack([aq, np.zeros((3, 6))])
        row = [np.eye(6) - g.mm(minv, dp), np.zeros((6, 6)), -g.mm(minv, dp, aq6)]
        for _, port in wins:
            pc = body.port(port)
            row.append(
                g.mm(minv, g.block([[np.eye(3), None], [g.skew(pc), np.eye(3)]], [3, 3], [3, 3]))
            )
        rows = [row]
        for port in mports:
            co = tuple(_diff(0.0, c) for c in body.port(port))
            tau = g.block([[np.eye(3), g.skew(co)], [None, np.eye(3)]], [3, 3], [3, 3])
            blocks_m = [[np.zeros((3, 6)), np.zeros((3, 6)), aq]]
            blocks_m.append([tau, None, None])
            if nm == 21:
                blocks_m += [[None, tau, None], [None, None, tau]]
            mrow = g.block(blocks_m, [3] + [6] * (len(blocks_m) - 1), [6, 6, 6])
            rows.append([mrow] + [None] * len(wins))
        d = g.block(rows, [6] + [nm] * len(mports), [18] + [6] * len(wins))
        ins = (
            self._q("qdd", k, 6)
            + self._q("qd", k, 6)
            + self._q("q", k, 6)
            + [s for names, _ in wins for s in names]
        )
        outs = self._q("qdd", k, 6) + [s for p in mports for s in self._m(k, p)]
        self._add(d, ins, outs)

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
        return self._simplified(rates) if simplify else self._interconnect(rates)

    def _simplified(self, rates):
        return lft.simplify(self._interconnect(rates))

    def _interconnect(self, rates):
        mech = self.mech
        # Every scalar signal is the output of exactly one block.
        out_names = [s for _, _, outs in self.blocks for s in outs]
        index = {s: i for i, s in enumerate(out_names)}
        if len(index) != len(out_names):  # pragma: no cover - construction invariant
            raise IllPosedError("duplicate internal signal")
        qnames, qdnames, qddnames = [], [], []
        for kind, owner, i, _ in self.coords:
            n = 6 if kind == "base" else 1
            qnames += [self._q("q", owner, n)[i] if n > 1 else f"q|{owner}"]
            qdnames += [self._q("qd", owner, n)[i] if n > 1 else f"qd|{owner}"]
            qddnames += [self._q("qdd", owner, n)[i] if n > 1 else f"qdd|{owner}"]
        unames = [f"u|{j.name}" for j in self.efforts]
        for name in mech.wrench_inputs:
            unames += self._vec(f"wx|{name}", 6)
        ext = qnames + qdnames + unames
        ext_index = {s: i for i, s in enumerate(ext)}
        in_names = [s for _, ins, _ in self.blocks for s in ins]
        ny, nin, ne = len(out_names), len(in_names), len(ext)
        sel = np.zeros((nin, ny))
        rin = np.zeros((nin, ne))
        for r, s in enumerate(in_names):
            if s in index:
                sel[r, index[s]] = 1.0
            elif s in ext_index:
                rin[r, ext_index[s]] = 1.0
            else:  # pragma: no cover - construction invariant
                raise IllPosedError(f"internal signal {s!r} has no source")
        port_rows = []
        for b, p in self.ports:
            names = self._m(b, p)
            port_rows += [
                index[names[i]] if self._moving(b) else None
                for i in list(range(15, 21)) + list(range(9, 15)) + list(range(3, 9))
            ]
        lout = np.zeros((len(qddnames) + len(port_rows), ny))
        for r, s in enumerate(qddnames):
            lout[r, index[s]] = 1.0
        for r, i in enumerate(port_rows):
            if i is not None:
                lout[len(qddnames) + r, i] = 1.0
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
        return self._close_integrators(static, len(qnames), len(unames), len(port_rows), rates)

    def _close_integrators(self, static, n, nu, nports, rates):
        """States [q; qd]: q_dot = qd, qd_dot = qdd from the static map [q; qd; u] -> [qdd; y]."""
        top = np.hstack([np.eye(2 * n), np.zeros((2 * n, nu))])
        sigma = g.vcat(top, static)  # [q; qd; qdd; y_ports]
        nout = 3 * n + nports
        kint = control.ss(
            np.zeros((2 * n, 2 * n)),
            np.hstack([np.zeros((2 * n, n)), np.eye(2 * n), np.zeros((2 * n, nports))]),
            np.vstack([np.eye(2 * n), np.zeros((nu, 2 * n))]),
            np.zeros((2 * n + nu, nout)),
        )
        rows = list(range(n)) + (list(range(n, 2 * n)) if rates else []) + list(range(3 * n, nout))
        cols = list(range(2 * n, 2 * n + nu))
        if g.is_number(sigma):
            a = np.zeros((2 * n, 2 * n))
            a[:n, n:] = np.eye(n)
            a[n:, :] = sigma[2 * n : 3 * n, : 2 * n]
            b = np.vstack([np.zeros((n, nu)), sigma[2 * n : 3 * n, 2 * n :]])
            c_full = np.vstack([np.hstack([np.eye(2 * n)]), sigma[2 * n :, : 2 * n]])
            d_full = np.vstack([np.zeros((2 * n, nu)), sigma[2 * n :, 2 * n :]])
            # outputs of sigma are [q; qd; qdd; y]: q, qd are states, qdd/y rows of static
            sys = lft.uss(control.ss(a, b, c_full[rows], d_full[rows]))
        else:
            closed = lft.feedback(sigma, kint, sign=1)
            sys = closed[rows, cols]
        sys.input_names = self._input_names()
        sys.output_names = self._output_names(rates)
        return sys

    def _input_names(self):
        names = [j.input_name for j in self.efforts]
        for w in self.mech.wrench_inputs:
            names += [f"{w}_{c}" for c in _WRENCH]
        return names

    def _output_names(self, rates):
        names = [c[3] for c in self.coords]
        if rates:
            names += [f"{c[3]}_dot" if c[0] == "joint" else f"{c[3]}_dot" for c in self.coords]
        for b, p in self.ports:
            names += [f"{b}_{p}_{c}" for c in _POSE + _TWIST + _ACCEL]
        return names


def _scaled(s, c):
    """``s * c`` for a scalar entry ``s`` and a number ``c`` (exact zero kept numeric)."""
    if c == 0.0:
        return 0.0
    if g.is_number(s):
        return float(s) * c
    return s * c


def _tau_num(pc):
    t = np.eye(6)
    t[:3, 3:] = g.skew(np.asarray(pc, dtype=float))
    return t


def _split(w):
    """Force and torque rows of a 6x1 matrix."""
    if g.is_number(w):
        return w[:3], w[3:]
    return w[0:3, :], w[3:6, :]
