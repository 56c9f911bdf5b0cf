"""A mechanism compiled to numbers: the rigid tree of the nonlinear models.

:func:`compile_tree` turns a :class:`~robustmb.multibody.Mechanism` (numbers
or ``ureal`` parameters, substituted by ``values`` or taken at their nominal)
into a :class:`RigidTree`: one *node* per degree-of-freedom group -- the
floating base (6 dof) and each revolute or prismatic joint (1 dof) -- in the
order of the linear model, :meth:`~robustmb.multibody.Mechanism.coordinates`
(breadth-first from the base, not the order of ``add_joint``).  Welded bodies
are merged into the node that carries them, rotor inertias into the child of
their joint.

Conventions (those of the linear TITOP blocks, so the three models agree):

- a node's frame is its child body's frame (origin ``O``, body axes);
- ``R_i(q)`` holds the node's axes in its parent node's components and
  ``p_i(q)`` its origin: a revolute joint gives ``R = Rot(r, q) R0`` and
  ``p = C - R P_a``; a prismatic one ``R = R0`` and ``p = C + q t - R0 P_a``
  (``C``: parent port, ``P_a``: child port, ``R0 = P_{a/b}(0)``);
- 6-vectors are ``[translational; rotational]``; a twist is taken at the node
  origin in node axes; the joint motion subspace ``S`` is constant in the node
  frame (``[P_a x r_a; r_a]`` revolute, ``[t_a; 0]`` prismatic);
- a floating base has ``q = [position of its origin (inertial); quaternion
  (x, y, z, w) of its axes]`` and ``v =`` its twist at the origin in body axes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .. import lft
from ..errors import ArgumentError, DimensionError, IllPosedError, NonphysicalInertiaWarning, warn
from . import _generic as g
from .bodies import check_inertia, check_triangle_inequality
from .joints import GROUND, RevoluteJoint, WeldJoint
from .signals import WRENCH_COMPONENTS

FREE, REVOLUTE, PRISMATIC = 0, 1, 2


def value_of(x, values):
    """Number of a parameter (number, ureal or expression) with ``values`` substituted.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(0.0, 2.0))
    >>> value_of(k, {"k": 1.5}), value_of(k, {}), value_of(3, {})
    (1.5, 1.0, 3.0)
    """
    if g.is_number(x):
        return float(x)
    if isinstance(x, lft.UncertainElement):
        return float(values.get(x.name, x.nominal))
    m = lft.umat(x) if not isinstance(x, lft.UncertainModel) else x
    subs = {n: values.get(n, el.nominal) for n, (el, _) in m._real.blocks.items()}
    return float(np.asarray(m.usubs(subs), dtype=float).reshape(-1)[0])


def _vec(v, values):
    return np.array([value_of(e, values) for e in v], dtype=float)


def skew3(u):
    """Cross-product matrix; works for any dtype (complex steps included).

    Examples
    --------
    >>> skew3([1.0, 2.0, 3.0]) @ [4.0, 5.0, 6.0], np.cross([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])
    (array([-3.,  6., -3.]), array([-3.,  6., -3.]))
    """
    a, b, c = np.asarray(u).tolist()
    return np.array([[0.0 * a, -c, b], [c, 0.0 * a, -a], [-b, a, 0.0 * a]])


def spatial_inertia_at_origin(mass, inertia_com, com):
    """``D_O`` of a body at its origin, body axes, from its mass, CoM inertia and CoM position.

    Examples
    --------
    Parallel axes: 2 kg with its CoM 1 m along z adds 2 kg m^2 about x and y.

    >>> d = spatial_inertia_at_origin(2.0, np.diag([0.1, 0.2, 0.3]), [0.0, 0.0, 1.0])
    >>> np.diag(d[3:, 3:]), d[:3, 4] + 0.0
    (array([2.1, 2.2, 0.3]), array([2., 0., 0.]))
    """
    c = skew3(com)
    d = np.zeros((6, 6))
    d[:3, :3] = mass * np.eye(3)
    d[:3, 3:] = -mass * c
    d[3:, :3] = mass * c
    d[3:, 3:] = inertia_com - mass * c @ c
    return d


def motion_transform(r, p):
    """``X`` (6x6): twist at a parent origin, parent axes -> twist at a frame (R=r, origin p).

    Examples
    --------
    A unit spin about z seen at ``p = (1, 0, 0)``: the point moves at 1 m/s along y.

    >>> motion_transform(np.eye(3), np.array([1.0, 0.0, 0.0])) @ [0, 0, 0, 0, 0, 1.0]
    array([0., 1., 0., 0., 0., 1.])
    """
    x = np.zeros((6, 6), dtype=np.result_type(r, p))
    rt = r.T
    x[:3, :3] = rt
    x[:3, 3:] = -rt @ skew3(p)
    x[3:, 3:] = rt
    return x


def quat_to_dcm(quat):
    """DCM ``P_{b/i}`` of a unit quaternion ``(x, y, z, w)``.

    Examples
    --------
    >>> s = np.sqrt(0.5)
    >>> np.allclose(quat_to_dcm((0.0, 0.0, s, s)), rodrigues([0.0, 0.0, 1.0], np.pi / 2))
    True
    """
    x, y, z, w = quat
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def rodrigues(axis, angle):
    """``Rot(axis, angle)`` for a unit axis; any dtype.

    Examples
    --------
    >>> rodrigues([0.0, 0.0, 1.0], np.pi / 2).round(12) + 0.0   # a quarter turn about z
    array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]])
    """
    s = skew3(axis)
    return np.eye(3) + np.sin(angle) * s + (1.0 - np.cos(angle)) * (s @ s)


@dataclass
class RigidTree:
    """Numeric tree of a mechanism (see the module docstring for conventions).

    Attributes
    ----------
    kind, parent : per-node joint type (``FREE``, ``REVOLUTE``, ``PRISMATIC``)
        and parent node index (``-1``: the ground).
    names : per-node joint (or base body) name.
    port_c, axis, r0, port_a : the joint's parent port and axis (parent node
        axes), ``P_{a/b}(0)`` and child port (child axes).
    S : (n, 6) motion subspaces of the 1-dof nodes (node axes).
    inertia : (n, 6, 6) spatial inertia of each node at its origin.
    qi, vi : first index of each node in ``q`` and ``v``.
    placement : body -> (node, R, p): the body frame in its node frame.
    effort_inputs : 1-dof node -> the name of its joint's effort input.
    """

    kind: list = field(default_factory=list)
    parent: list = field(default_factory=list)
    names: list = field(default_factory=list)
    port_c: list = field(default_factory=list)
    axis: list = field(default_factory=list)
    r0: list = field(default_factory=list)
    port_a: list = field(default_factory=list)
    S: np.ndarray = None
    inertia: np.ndarray = None
    q_eq: np.ndarray = None
    stiffness: np.ndarray = None
    damping: np.ndarray = None
    qi: list = field(default_factory=list)
    vi: list = field(default_factory=list)
    nq: int = 0
    nv: int = 0
    gravity: np.ndarray = None
    floating: bool = False
    placement: dict = field(default_factory=dict)
    masses: dict = field(default_factory=dict)
    coms: dict = field(default_factory=dict)
    body_inertia: dict = field(default_factory=dict)
    joint_names: list = field(default_factory=list)
    effort_inputs: dict = field(default_factory=dict)
    children: list = field(default_factory=list)
    node_body: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    laws: list = field(default_factory=list)
    closures: list = field(default_factory=list)
    constraints: list = field(default_factory=list)
    baumgarte: tuple = (np.zeros(0), np.zeros(0))

    @property
    def n(self):
        return len(self.kind)

    def check_rates(self, v, what="v", efforts=False, accelerations=False):
        """A float array of ``nv`` finite entries, else an error naming the entry.

        ``efforts``: ``v`` holds efforts (entries named by :meth:`effort_names`);
        ``accelerations``: ``v`` holds the rates' derivatives (named ``d(rate)/dt``).
        """
        v = _floats(v, what)
        if efforts:
            names, kind = self.effort_names, "efforts"
        elif accelerations:
            names, kind = self._acceleration_names, "accelerations"
        else:
            names, kind = self.rate_names, "rates"
        if v.size != self.nv:
            raise DimensionError(
                f"{what} has {v.size} entries, the mechanism has {self.nv} "
                f"{kind} ({', '.join(names())})"
            )
        _finite(v, what, names)
        return v

    def _acceleration_names(self):
        return [f"d({n})/dt" for n in self.rate_names()]

    def check_state(self, q, v=None, what_v="v", what_q="q"):
        """Float arrays of the right length and finite, else an error naming the entry."""
        q = _floats(q, what_q)
        if q.size != self.nq:
            raise DimensionError(
                f"{what_q} has {q.size} entries, the mechanism has {self.nq} coordinates "
                f"({', '.join(self.coordinate_names())})"
            )
        _finite(q, what_q, self.coordinate_names)
        for i in range(self.n):
            if self.kind[i] != FREE:
                continue
            k = self.qi[i]
            # the attitude is the quaternion's direction: it needs a non-zero length
            # (as computed where it is normalised)
            if not np.sqrt(np.sum(q[k + 3 : k + 7] ** 2)) > 0.0:
                names = self.coordinate_names()[k + 3 : k + 7]
                raise DimensionError(
                    f"{what_q}[{k + 3}:{k + 7}] ({', '.join(names)}): the quaternion of the "
                    f"floating base {self.names[i]!r} is zero, it has no attitude"
                )
        if v is None:
            return q
        return q, self.check_rates(v, what_v)

    def coordinate_names(self):
        out = []
        for i in range(self.n):
            if self.kind[i] == FREE:
                b = self.names[i]
                out += [f"{b}_{c}" for c in ("x", "y", "z", "qx", "qy", "qz", "qw")]
            else:
                out.append(self.joint_names[i])
        return out

    def rate_names(self):
        out = []
        for i in range(self.n):
            if self.kind[i] == FREE:
                b = self.names[i]
                out += [f"{b}_{c}" for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
            else:
                out.append(f"{self.joint_names[i]}_dot")
        return out

    def effort_names(self):
        out = []
        for i in range(self.n):
            if self.kind[i] == FREE:
                out += [f"{self.names[i]}_{c}" for c in WRENCH_COMPONENTS]
            else:
                out.append(self.effort_inputs.get(i, f"{self.names[i]}_effort"))
        return out

    def tangent_names(self):
        out = []
        for i in range(self.n):
            if self.kind[i] == FREE:
                out += [f"{self.names[i]}_{c}" for c in ("dx", "dy", "dz", "rx", "ry", "rz")]
            else:
                out.append(self.joint_names[i])
        return out

    # ------------------------------------------------------------------ kinematics
    def joint_placement(self, i, q):
        """``(R_i, p_i)`` of node i in its parent node frame (any dtype of ``q``).

        Examples
        --------
        The bob (pivot 1 m above its origin) turned a quarter turn about x.

        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> tree = mech.rigid_tree()
        >>> r, p = tree.joint_placement(0, np.array([np.pi / 2]))
        >>> r.round(12) + 0.0, p.round(12) + 0.0
        (array([[ 1.,  0.,  0.],
               [ 0.,  0., -1.],
               [ 0.,  1.,  0.]]), array([0., 1., 0.]))
        """
        k = self.kind[i]
        if k == FREE:
            qq = q[self.qi[i] : self.qi[i] + 7]
            quat = qq[3:7] / np.sqrt(np.sum(qq[3:7] ** 2))
            return quat_to_dcm(quat), qq[:3]
        x = q[self.qi[i]]
        if k == REVOLUTE:
            r = rodrigues(self.axis[i], x) @ self.r0[i]
            return r, self.port_c[i] - r @ self.port_a[i]
        r = self.r0[i]
        return r, self.port_c[i] + x * self.axis[i] - r @ self.port_a[i]

    def world_poses(self, q):
        """Orientation ``P_{k/i}`` and origin of every node in the inertial frame.

        Examples
        --------
        >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
        >>> mech = Mechanism()
        >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
        >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
        >>> tree = mech.rigid_tree()
        >>> rw, pw = tree.world_poses(np.array([np.pi / 2]))
        >>> pw[0].round(12) + 0.0
        array([0., 1., 0.])
        """
        rw, pw = [], []
        for i in range(self.n):
            r, p = self.joint_placement(i, q)
            j = self.parent[i]
            if j < 0:
                rw.append(r)
                pw.append(p)
            else:
                rw.append(rw[j] @ r)
                pw.append(pw[j] + rw[j] @ p)
        return rw, pw

    def body_pose(self, body, rw, pw):
        """Orientation and origin of a body from the node poses."""
        node, rb, pb = self.placement[body]
        if node < 0:
            return rb, pb
        return rw[node] @ rb, pw[node] + rw[node] @ pb


def _floats(x, what):
    """``x`` as a 1-D float array (a scalar is one entry), else an error naming the argument.

    Complex entries are refused, not cast (the imaginary part would be dropped), and so
    are 2-D arrays (flattening a matrix would read it as a state vector).
    """
    try:
        arr = np.asarray(x)
        if arr.dtype.kind not in "biufc":
            arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be an array of real numbers, got {x!r}") from None
    if arr.dtype.kind == "c":
        raise ArgumentError(f"{what} must hold real numbers, got a complex array")
    if arr.ndim > 1:
        raise DimensionError(f"{what} must be a 1-D array, got shape {arr.shape}")
    return arr.astype(float).reshape(-1)


def _finite(x, what, names):
    """``names``: a callable giving the entry names, only called on failure.

    A non-finite entry is a bad value of the right shape: ``ArgumentError``."""
    if np.isfinite(x).all():
        return
    bad = np.flatnonzero(~np.isfinite(x))
    names = names()
    if bad.size:
        raise ArgumentError(f"{what}[{bad[0]}] ({names[bad[0]]}) is not finite: {x[bad[0]]}")


def compile_tree(mech, values=None):
    """Numeric :class:`RigidTree` of a mechanism with ``values`` substituted.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> from robustmb.multibody.tree import compile_tree
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> t = compile_tree(mech)
    >>> t.nq, t.nv, t.S[0].tolist()
    (1, 1, [0.0, 1.0, 0.0, 1.0, 0.0, 0.0])
    """
    if values is not None and not isinstance(values, Mapping):
        raise ArgumentError(
            f"values must be a mapping {{element name: number}}, got {type(values).__name__}"
        )
    values = dict(values or {})
    parent_joint, children, order = mech._topology()
    tree = RigidTree()
    tree.gravity = -mech.acceleration.reshape(3).astype(float)
    tree.floating = mech.floating_base is not None
    node_of = {GROUND: -1}
    place = {GROUND: (-1, np.eye(3), np.zeros(3))}

    def body_data(k):
        b = mech.bodies[k]
        m = value_of(b.mass, values)
        jc = np.array([[value_of(e, values) for e in row] for row in b.inertia])
        com = _vec(b.cog, values)
        if values and (m < 0 or not np.isfinite(m)):
            raise DimensionError(
                f"body {k!r}: mass is {m} with values {values}; a mass must be non-negative"
            )
        if values:
            check_inertia(jc, f"body {k!r}: inertia", f" (with values {values})")
            # substituted moments may leave the set the nominal was checked in
            if not getattr(b, "allow_nonphysical_inertia", True):
                try:
                    check_triangle_inequality(
                        jc, f"body {k!r}: inertia", f" (with values {values})"
                    )
                except DimensionError as err:
                    warn(str(err), NonphysicalInertiaWarning)
        tree.masses[k], tree.coms[k], tree.body_inertia[k] = m, com, jc
        return spatial_inertia_at_origin(m, jc, com)

    def port_of(body, port):
        if body == GROUND:
            return np.asarray(mech.ground_ports[port], dtype=float)
        return _vec(mech.bodies[body].port(port), values)

    inertias = []

    def new_node(kind, par, name, jname, c=None, axis=None, r0=None, pa=None):
        tree.kind.append(kind)
        tree.parent.append(par)
        tree.names.append(name)
        tree.joint_names.append(jname)
        tree.port_c.append(c)
        tree.axis.append(axis)
        tree.r0.append(r0)
        tree.port_a.append(pa)
        tree.qi.append(tree.nq)
        tree.vi.append(tree.nv)
        tree.nq += 7 if kind == FREE else 1
        tree.nv += 6 if kind == FREE else 1
        inertias.append(np.zeros((6, 6)))
        return len(tree.kind) - 1

    def add_inertia(node, d_body, rb, pb):
        if node < 0:
            return
        x = motion_transform(rb, pb)  # node twist -> body twist
        inertias[node] += x.T @ d_body @ x

    s_list, q_eq, stiff, damp = [], [], [], []
    if tree.floating:
        b = mech.floating_base
        i = new_node(FREE, -1, b, b)
        node_of[b] = i
        tree.node_body[i] = b
        place[b] = (i, np.eye(3), np.zeros(3))
        add_inertia(i, body_data(b), np.eye(3), np.zeros(3))
        s_list.append(np.zeros(6))
        q_eq.append(0.0)
        stiff.append(0.0)
        damp.append(0.0)
    for k in order:
        j = parent_joint.get(k)
        if j is None:
            continue
        pnode, rb, pb = place[j.parent[0]]
        c = rb @ port_of(*j.parent) + pb
        r0 = rb @ j.orientation
        pa = port_of(*j.child)
        if isinstance(j, WeldJoint):
            rk = r0
            place[k] = (pnode, rk, c - rk @ pa)
            add_inertia(pnode, body_data(k), rk, c - rk @ pa)
            continue
        axis = rb @ j.axis
        kind = REVOLUTE if isinstance(j, RevoluteJoint) else PRISMATIC
        i = new_node(kind, pnode, k, j.output_name, c, axis, r0, pa)
        tree.joint_names[i] = j.output_name
        tree.effort_inputs[i] = j.input_name
        place[k] = (i, np.eye(3), np.zeros(3))
        add_inertia(i, body_data(k), np.eye(3), np.zeros(3))
        a_local = r0.T @ axis
        if kind == REVOLUTE:
            s_list.append(np.r_[np.cross(pa, a_local), a_local])
            jr = value_of(j.inertia, values)
            inertias[i][3:, 3:] += jr * np.outer(a_local, a_local)
            if j.tan_half is not None:
                qe = 2.0 * np.arctan(value_of(j.tan_half, values))
            elif j.tan_quarter is not None:
                qe = 4.0 * np.arctan(value_of(j.tan_quarter, values))
            else:
                qe = float(j.angle)
        else:
            s_list.append(np.r_[a_local, np.zeros(3)])
            qe = value_of(j.displacement, values)
        q_eq.append(qe)
        stiff.append(value_of(j.stiffness, values))
        damp.append(value_of(j.damping, values))
        tree.names[i] = j.name
        tree.node_body[i] = k
    for k in mech.bodies:
        if k not in place:  # pragma: no cover - _topology guarantees it
            raise IllPosedError(f"body {k!r} is not connected")
    tree.placement = {k: v for k, v in place.items() if k != GROUND}
    tree.S = np.array(s_list) if s_list else np.zeros((0, 6))
    tree.inertia = np.array(inertias) if inertias else np.zeros((0, 6, 6))
    tree.q_eq = np.array(q_eq)
    tree.stiffness = np.array(stiff)
    tree.damping = np.array(damp)
    for name, (b, p) in mech.wrench_inputs.items():
        node, rb, pb = tree.placement[b]
        tree.inputs.append((name, node, rb, rb @ port_of(b, p) + pb))
    for name, (b, p, w, frame) in getattr(mech, "applied_wrenches", {}).items():
        node, rb, pb = tree.placement[b]
        wv = np.array([value_of(e, values) for e in w])
        tree.loads.append((name, node, rb, rb @ port_of(b, p) + pb, wv, frame))
    node_of_joint = {tree.names[i]: i for i in range(tree.n) if tree.kind[i] != FREE}
    tree.laws = [
        (tree.qi[node_of_joint[j]], tree.vi[node_of_joint[j]], fn)
        for j, fn in getattr(mech, "joint_laws", {}).items()
    ]
    for name, (a, b, gains) in getattr(mech, "loop_closures", {}).items():
        ends = []
        for body, port in (a, b):
            node, rb, pb = place[body]
            ends.append((node, rb, rb @ port_of(body, port) + pb))
        tree.closures.append((name, ends, *(value_of(x, values) for x in gains)))
    alphas, betas = [], []
    for name, (a, b, sel, (alpha, beta), rot, rel) in getattr(mech, "loop_constraints", {}).items():
        ends = []
        for body, port in (a, b):
            node, rb, pb = place[body]
            ends.append((node, rb, rb @ port_of(body, port) + pb))
        # b's end carries the rest attitude: its aligned axes R_b rel^T
        ends[1] = (ends[1][0], ends[1][1] @ rel.T, ends[1][2])
        tree.constraints.append((name, ends[0], ends[1], list(sel), list(rot)))
        alphas += [alpha] * (len(sel) + len(rot))
        betas += [beta] * (len(sel) + len(rot))
    tree.baumgarte = (np.array(alphas), np.array(betas))
    _precompute_transforms(tree)
    tree.children = [[c for c in range(tree.n) if tree.parent[c] == i] for i in range(tree.n)]
    tree.body_node = {k: v[0] for k, v in tree.placement.items()}
    return tree


def _precompute_transforms(tree):
    """Constant factors of every joint placement, so all of them are formed at once.

    Revolute: ``R = R0 + sin q K R0 + (1 - cos q) K^2 R0`` (Rodrigues, ``K = skew(r)``)
    and ``p = C - R P_a``; prismatic: ``R = R0``, ``p = C + q t - R0 P_a``.
    """
    n = tree.n
    r0 = np.tile(np.eye(3), (n, 1, 1))
    kr0, k2r0 = np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
    c, t_axis = np.zeros((n, 3)), np.zeros((n, 3))
    qidx = np.zeros(n, dtype=int)
    for i in range(n):
        qidx[i] = tree.qi[i]
        if tree.kind[i] == FREE:
            continue
        r0[i] = tree.r0[i]
        c[i] = tree.port_c[i]
        if tree.kind[i] == REVOLUTE:
            k = skew3(tree.axis[i])
            kr0[i], k2r0[i] = k @ tree.r0[i], k @ k @ tree.r0[i]
        else:
            t_axis[i] = tree.axis[i]
    pa = np.array([np.zeros(3) if x is None else x for x in tree.port_a]).reshape(n, 3)
    tree.batch = {
        "qidx": qidx,
        "revolute": np.array([k == REVOLUTE for k in tree.kind]),
        "free": [i for i in range(n) if tree.kind[i] == FREE],
        "r0": r0,
        "kr0": kr0,
        "k2r0": k2r0,
        "c_r0pa": c - np.einsum("nij,nj->ni", r0, pa),
        "kr0pa": np.einsum("nij,nj->ni", kr0, pa),
        "k2r0pa": np.einsum("nij,nj->ni", k2r0, pa),
        "t": t_axis,
    }
    one = [i for i in range(n) if tree.kind[i] != FREE]
    tree.batch.update(
        law_q=np.array([tree.qi[i] for i in one], dtype=int),
        law_v=np.array([tree.vi[i] for i in one], dtype=int),
        law_k=tree.stiffness[one],
        law_d=tree.damping[one],
        law_q_eq=tree.q_eq[one],
    )
    # nothing acts on the bodies but gravity and the efforts: forward dynamics can skip
    # the joint laws and external loads (wrench inputs given at a call are checked there)
    tree.bare = not (
        np.any(tree.stiffness[one])
        or np.any(tree.damping[one])
        or tree.laws
        or tree.loads
        or tree.closures
        or tree.inputs
    )
    # the local pose as a 4 x 4 matrix is affine in (1, sin q, 1 - cos q, q_prismatic)
    hb = np.zeros((n, 4, 4, 4))
    hb[:, 0, :3, :3], hb[:, 0, :3, 3], hb[:, 0, 3, 3] = r0, tree.batch["c_r0pa"], 1.0
    hb[:, 1, :3, :3], hb[:, 1, :3, 3] = kr0, -tree.batch["kr0pa"]
    hb[:, 2, :3, :3], hb[:, 2, :3, 3] = k2r0, -tree.batch["k2r0pa"]
    hb[:, 3, :3, 3] = t_axis
    tree.batch["h_basis"] = hb.reshape(n, 4, 16)
    tree.s_rows = list(tree.S)
    tree.inertia_rows = list(tree.inertia)
    tree.inertia_scale = max(1.0, float(np.abs(tree.inertia).max())) if n else 1.0
    tree.has_inertial_loads = any(fr == "inertial" for *_, fr in tree.loads)
    tree.needs_transforms = tree.has_inertial_loads or bool(tree.closures)


def batch_placements(tree, q):
    """All ``(R_i, p_i)`` at once: arrays (n, 3, 3) and (n, 3); any dtype of ``q``.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> q = np.array([0.4])
    >>> r, p = batch_placements(tree, q)
    >>> r0, p0 = tree.joint_placement(0, q)
    >>> bool(np.allclose(r[0], r0) and np.allclose(p[0], p0))
    True
    """
    b = tree.batch
    x = q[b["qidx"]] if tree.n else np.zeros(0)
    rev = b["revolute"]
    s = np.where(rev, np.sin(x), 0.0)
    c1 = np.where(rev, 1.0 - np.cos(x), 0.0)
    r = b["r0"] + s[:, None, None] * b["kr0"] + c1[:, None, None] * b["k2r0"]
    p = b["c_r0pa"] - s[:, None] * b["kr0pa"] - c1[:, None] * b["k2r0pa"]
    p = p + np.where(rev, 0.0, x)[:, None] * b["t"]
    for i in b["free"]:
        k = tree.qi[i]
        quat = q[k + 3 : k + 7] / np.sqrt(np.sum(q[k + 3 : k + 7] ** 2))
        r = r.astype(np.result_type(r, quat))
        p = p.astype(np.result_type(p, q))
        r[i] = quat_to_dcm(quat)
        p[i] = q[k : k + 3]
    return r, p


def batch_homogeneous(tree, q, sentinel=False):
    """All local poses as homogeneous matrices ``[[R_i, p_i], [0, 1]]``: (n, 4, 4), real ``q``.

    ``sentinel``: append an identity (n + 1, 4, 4) -- the ground of the prefix products.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> h = batch_homogeneous(tree, np.array([0.4]), sentinel=True)
    >>> r0, p0 = tree.joint_placement(0, np.array([0.4]))
    >>> h.shape, bool(np.allclose(h[0, :3, :3], r0) and np.allclose(h[0, :3, 3], p0))
    ((2, 4, 4), True)
    """
    b = tree.batch
    x = q[b["qidx"]]
    rev = b["revolute"]
    coef = np.empty((tree.n, 4))
    coef[:, 0] = 1.0
    coef[:, 1] = np.where(rev, np.sin(x), 0.0)
    coef[:, 2] = np.where(rev, 1.0 - np.cos(x), 0.0)
    coef[:, 3] = np.where(rev, 0.0, x)
    h = np.einsum("nk,nkj->nj", coef, b["h_basis"]).reshape(tree.n, 4, 4)
    if sentinel:
        h = np.concatenate([h, np.eye(4)[None]])
    for i in b["free"]:
        k = tree.qi[i]
        quat = q[k + 3 : k + 7] / np.sqrt(np.sum(q[k + 3 : k + 7] ** 2))
        h[i, :3, :3], h[i, :3, 3] = quat_to_dcm(quat), q[k : k + 3]
    return h


def batch_motion_transforms(r, p):
    """``X_i`` of :func:`motion_transform` for all nodes at once: (n, 6, 6).

    Examples
    --------
    >>> r = np.stack([np.eye(3), rodrigues([0.0, 0.0, 1.0], 0.3)])
    >>> p = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.5]])
    >>> x = batch_motion_transforms(r, p)
    >>> bool(np.allclose(x[1], motion_transform(r[1], p[1])))
    True
    """
    n = r.shape[0]
    rt = np.swapaxes(r, 1, 2)
    sk = np.zeros((n, 3, 3), dtype=p.dtype)
    sk[:, 0, 1], sk[:, 0, 2], sk[:, 1, 2] = -p[:, 2], p[:, 1], -p[:, 0]
    sk[:, 1, 0], sk[:, 2, 0], sk[:, 2, 1] = p[:, 2], -p[:, 1], p[:, 0]
    x = np.zeros((n, 6, 6), dtype=np.result_type(r, p))
    x[:, :3, :3] = rt
    x[:, 3:, 3:] = rt
    x[:, :3, 3:] = -rt @ sk
    return x


def joint_transforms(tree, q):
    """``X_i`` (parent twist -> node twist) of every node, formed at once, and the world
    orientations ``P_{i/inertial}`` when a load needs them (else ``None``).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> xs, rw = joint_transforms(tree, np.array([0.4]))
    >>> xs.shape, rw is None       # no gravity nor wrench inputs: no world orientations
    ((1, 6, 6), True)
    """
    r, p = batch_placements(tree, q)
    xs = batch_motion_transforms(r, p)
    if not tree.has_inertial_loads:
        return xs, None
    rw = []
    for i in range(tree.n):
        j = tree.parent[i]
        rw.append(r[i] if j < 0 else rw[j] @ r[i])
    return xs, rw


def generalized_forces(tree, xs, fext):
    """Generalised efforts of node wrenches: the backward pass of inverse dynamics.

    Each node's wrench (node axes) is projected on its joint's motion subspace and
    carried to its parent through the joint transform ``xs[i]``.  The efforts take
    the wrenches' dtype (complex for complex-step derivatives).

    Examples
    --------
    A unit torque about the joint axis is a unit effort.

    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bob", mass=2.0, ports={"P": [0, 0, 1.0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0]))
    >>> tree = mech.rigid_tree()
    >>> xs, _ = joint_transforms(tree, np.array([0.4]))
    >>> generalized_forces(tree, xs, [np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0])])
    array([1.])
    """
    f = [np.array(fext[i], copy=True) for i in range(tree.n)]
    tau = np.zeros(tree.nv, dtype=np.result_type(float, *f))
    for i in reversed(range(tree.n)):
        k = tree.vi[i]
        if tree.kind[i] == FREE:
            tau[k : k + 6] = f[i]
        else:
            tau[k] = tree.S[i] @ f[i]
        j = tree.parent[i]
        if j >= 0:
            f[j] = f[j] + xs[i].T @ f[i]
    return tau
