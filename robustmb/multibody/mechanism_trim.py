"""Equilibrium of a tree mechanism in LFT arithmetic (seed 000, Sec. 5, steps 1 and 2).

1. geometry at equilibrium, base to leaves: each body's DCM ``P_{k/i}``, the
   reference-frame acceleration in body axes ``abar_k = P_{k/i}^T a`` and the
   position of its origin;
2. equilibrium wrenches, leaves to base: ``Wbar_{k/parent,P} = sum tau^T Wbar_child
   - D_P [abar_k; 0]`` (eq. 12), the trim efforts ``Tbar = -r6^T Wbar_{A/J}``
   (eq. 21) and, for a floating base, the wrench that holds it.

Used by :meth:`~robustmb.multibody.Mechanism.trim` and
:meth:`~robustmb.multibody.Mechanism.linearize`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ArgumentError, IllPosedError
from . import _generic as g
from .body_blocks import trim_wrench_pair
from .joint_blocks import frame_acceleration_in_child, joint_trim_pair
from .joints import GROUND, PrismaticJoint
from .parameter_box import box_samples


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
    closure_force : dict[str, matrix]
        Force (3x1, inertial axes) of each compliant loop closure on its end ``a``
        at equilibrium, ``k (p_b - p_a)`` (the opposite acts on ``b``).
    """

    dcm: dict = field(default_factory=dict)
    frame_acceleration: dict = field(default_factory=dict)
    origin: dict = field(default_factory=dict)
    joint_wrench: dict = field(default_factory=dict)
    parent_wrench: dict = field(default_factory=dict)
    effort: dict = field(default_factory=dict)
    base_wrench: object = None
    closure_force: dict = field(default_factory=dict)


def trim_equilibrium(mech, parent_joint, children, order, applied=(), closures=()):
    """Steps 1 and 2 of seed 000: geometry base to leaves, then wrenches leaves to base.

    Parameters
    ----------
    mech : Mechanism
    parent_joint, children, order
        The mechanism's topology (``mech._topology()``): the joint above each body, the
        joints below it, and the bodies from the base to the leaves.
    applied : sequence of (body, port, wrench, frame)
        Constant wrenches ``[F; T]`` (6 entries, numbers or ureals) on a body at a
        port, in inertial axes (``frame="inertial"``) or body axes (``"body"``):
        part of each body's equilibrium load.
    closures : sequence of (name, (body_a, port_a), (body_b, port_b), stiffness)
        Compliant loop closures: the spring force ``k (p_b - p_a)`` acts on ``a``
        and its opposite on ``b`` (either may be the ground).

    Returns
    -------
    MechanismTrim

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81))
    >>> mech.add_body(RigidBody("rod", mass=2.0, cog=[0, 0.5, 0], ports={"P": [0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0]))
    >>> tr = trim_equilibrium(mech, *mech._topology())
    >>> float(tr.effort["J"][0, 0])     # horizontal rod: m g l/2
    9.81
    """
    tr = MechanismTrim()
    a = mech.acceleration
    tr.dcm[GROUND], tr.frame_acceleration[GROUND] = np.eye(3), a
    tr.origin[GROUND] = np.zeros((3, 1))
    if mech.floating_base:
        b = mech.floating_base
        tr.dcm[b] = mech.base_orientation
        tr.frame_acceleration[b] = mech.base_orientation.T @ a
        tr.origin[b] = mech.base_position
    for k in order:  # step 1: forward recurrence
        j = parent_joint.get(k)
        if j is None:
            continue
        pb = j.parent[0]
        tr.dcm[k] = g.simplified(g.mm(tr.dcm[pb], g.tr(j.dcm())))
        tr.frame_acceleration[k] = frame_acceleration_in_child(j, tr.frame_acceleration[pb])
        c = g.column(mech._port(*j.parent))
        if isinstance(j, PrismaticJoint):
            c = c + g.smul(j.displacement, j.axis.reshape(3, 1))
        point = tr.origin[pb] + g.mm(tr.dcm[pb], c)
        tr.origin[k] = g.simplified(point - g.mm(tr.dcm[k], g.column(mech._port(*j.child))))
    loads_on = {}
    for name, a, b, stiffness in closures:  # spring preloads, from the geometry of step 1
        ends = [port_position(mech, tr, *a), port_position(mech, tr, *b)]
        force = g.simplified(g.smul(stiffness, ends[1] - ends[0]))
        tr.closure_force[name] = force
        for (body, port), sign in ((a, 1.0), (b, -1.0)):
            if body != GROUND:
                f_b = g.simplified(g.smul(sign, g.mm(g.tr(tr.dcm[body]), force)))
                loads_on.setdefault(body, []).append((port, f_b, np.zeros((3, 1))))
    wrench_up = {}
    for k in reversed(order):  # step 2: backward recurrence
        body = mech.bodies[k]
        j = parent_joint.get(k)
        ref = body.port(j.child[1]) if j is not None else (0.0, 0.0, 0.0)
        loads = [(body.port(cj.parent[1]), *wrench_up[cj.name]) for cj in children[k]]
        loads += [
            (body.port(port), *applied_in_body_axes(tr.dcm[k], w, frame))
            for b, port, w, frame in applied
            if b == k
        ]
        loads += [(body.port(port), f_b, t_b) for port, f_b, t_b in loads_on.get(k, [])]
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


def applied_in_body_axes(dcm, wrench, frame):
    """Force and torque (3x1 each) of a constant wrench in the axes of a body of DCM ``dcm``.

    Examples
    --------
    A force along inertial ``z`` seen from a body whose ``y`` axis points along ``z``.

    >>> dcm = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
    >>> f, t = applied_in_body_axes(dcm, [0, 0, 1.0, 0, 0, 0], "inertial")
    >>> f.ravel(), applied_in_body_axes(dcm, [0, 0, 1.0, 0, 0, 0], "body")[0].ravel()
    (array([0., 1., 0.]), array([0., 0., 1.]))
    """
    force, torque = g.column(wrench[:3]), g.column(wrench[3:])
    if frame == "body":
        return force, torque
    return g.simplified(g.mm(g.tr(dcm), force)), g.simplified(g.mm(g.tr(dcm), torque))


def port_position(mech, tr, body, port):
    """Inertial position (3x1) of a port at equilibrium (the ground's ports included).

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, RevoluteJoint
    >>> mech = Mechanism()
    >>> mech.add_body(RigidBody("bar", mass=1.0, ports={"P": [0, 0, 0], "tip": [1.0, 0, 0]}))
    >>> mech.add_joint(RevoluteJoint("J", ("ground", "O"), ("bar", "P"), [0, 0, 1],
    ...                              angle=np.pi / 2))
    >>> tr = trim_equilibrium(mech, *mech._topology())
    >>> np.round(port_position(mech, tr, "bar", "tip").ravel(), 12) + 0.0
    array([0., 1., 0.])
    """
    if body == GROUND:
        return np.asarray(mech.ground_ports[port], dtype=float).reshape(3, 1)
    return g.simplified(
        tr.origin[body] + g.mm(tr.dcm[body], g.column(mech.bodies[body].port(port)))
    )


def check_base_balance(mech, tr, method, base_wrench=None):
    """Refuse a floating base that something unmodelled has to hold at equilibrium.

    The trim's ``base_wrench`` is what must act on a floating base for it to stay
    at rest: zero when the applied wrenches balance the loads (a buoyancy, a
    thrust) or with no acceleration field.  A nonzero residual has no unique
    linearisation: it depends on how that holding wrench turns when the base
    rotates.  ``base_wrench="body"`` states the choice of a wrench constant in
    the base's axes (as ``linearize_at(q0, v0, a0=zeros)`` does with its
    inverse-dynamics effort); otherwise the residual raises.

    The residual is checked at the nominal and over the box of its ureals
    (:func:`~robustmb.multibody.parameter_box.box_samples`), relative to the
    loads' scale ``(sum m |a| + sum |applied|) (1 + extent)``.

    Examples
    --------
    >>> from robustmb.multibody import Mechanism, RigidBody, gravity
    >>> mech = Mechanism(acceleration=gravity(9.81), floating_base="sat")
    >>> mech.add_body(RigidBody("sat", mass=2.0, inertia=0.1))
    >>> tr = trim_equilibrium(mech, *mech._topology())
    >>> try:
    ...     check_base_balance(mech, tr, "linearize")
    ... except IllPosedError as err:
    ...     print(str(err)[:86])
    linearize: the floating base 'sat' is not at rest without a holding wrench: its weight
    >>> check_base_balance(mech, tr, "linearize", base_wrench="body")   # explicit choice
    """
    if base_wrench not in (None, "body"):
        raise ArgumentError(f"{method}: base_wrench must be None or 'body', got {base_wrench!r}")
    if not mech.floating_base or tr.base_wrench is None or base_wrench == "body":
        return
    if g.is_number(tr.base_wrench) and not np.any(tr.base_wrench):
        return
    tol = 1e-9 * _load_scale(mech, tr)
    for where, value in box_samples(tr.base_wrench)[0]:
        if np.abs(value).max() > tol:
            w = np.round(value.ravel(), 6) + 0.0
            raise IllPosedError(
                f"{method}: the floating base {mech.floating_base!r} is not at rest without a "
                f"holding wrench: its weight and the applied loads leave the residual wrench "
                f"[F; T] = {w.tolist()} (base axes, at its origin){where} that nothing in the "
                "model provides.  Balance it with "
                "add_applied_wrench (a buoyancy, a thrust), linearise a free base with zero "
                "acceleration field, or pass base_wrench='body' to hold the base with this "
                "wrench fixed in its own axes"
            )


def _load_scale(mech, tr):
    """``(sum m |a| + sum |applied| + sum |closure forces|) (1 + extent)`` at the nominal."""
    acc = float(np.linalg.norm(mech.acceleration))
    load = sum(abs(float(g.nominal(b.mass)[0, 0])) for b in mech.bodies.values()) * acc
    for *_, w, _frame in getattr(mech, "applied_wrenches", {}).values():
        load += sum(abs(float(g.nominal(e)[0, 0])) for e in w)
    for f in tr.closure_force.values():
        load += float(np.abs(g.nominal(f)).sum())
    extent = 0.0
    for name, origin in tr.origin.items():
        extent = max(extent, float(np.linalg.norm(g.nominal(origin))))
        if name in mech.bodies:
            body = mech.bodies[name]
            for pos in [body.cog, *body.ports.values()]:
                p = np.array([float(g.nominal(e)[0, 0]) for e in pos])
                extent = max(extent, float(np.linalg.norm(p)))
    return max(load, np.finfo(float).tiny) * (1.0 + extent)
