"""Joint building blocks: revolute, prismatic and weld (seed 000 eqs. 22-23, digest Sec. 3.9).

A joint connects a parent body B (at its port C) to a child body A (at its
port P).  Linearised around the equilibrium, with ``P = P_{b/a}`` the DCM from
parent to child components, a revolute joint of axis ``r`` gives::

    dm_A     = diag(P, ...) dm_B + columns of dtheta'', dtheta', dtheta (axis r)
               + [-skew(r_a) abar_a dtheta; 0...]            # the turned frame acceleration
    dW_{J/B} = P6^T dW_A + diag(skew(r_b), skew(r_b)) Wbar_{J/B} dtheta
               - [0; J r_b (r_b^T dalpha_B + dtheta'')]
    J dtheta'' = dT + r6_a^T dW_A - J r_b^T dalpha_B - K dtheta - C dtheta'

(prismatic: the same with a sliding axis and the transport over the
displacement).  The acceleration equation is solved by a loop: the block
outputs ``q_ddot = q_ddot + (dT - K q - C q' + r6^T dW_A - J(...)) / scale``
and its input of the same name must be fed by that output.  Through the
child bodies, whose wrench ``dW_A`` depends on ``q_ddot``, the loop is
eliminated exactly whatever the non-zero ``scale``, also when the joint has no
inertia of its own (``J = 0``).  The equilibrium enters through the frame
acceleration of the parent and the equilibrium wrench of the child
(:func:`child_frame_acceleration`, :func:`body_trim_wrench`, :func:`joint_trim`).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import DimensionError, SignalError
from . import _generic as g
from ._coordinates import integrate_coordinates
from .body_blocks import motion_size, motion_transport, named, transport
from .joints import Joint, PrismaticJoint, RevoluteJoint, WeldJoint
from .signals import check_name


def _scaled(s, c):
    """``s * c`` for a scalar entry ``s`` and a number ``c`` (exact zero kept numeric)."""
    if c == 0.0:
        return 0.0
    if g.is_number(s):
        return float(s) * c
    return s * c


def joint_static(j, *, nm, mu, child_acceleration, parent_wrench, moving_parent):
    """Static map of a joint on structured keys.

    Inputs: ``("motion", parent, C)`` (when the parent moves),
    ``("reaction", child, P)``, then for an actuated joint ``("effort", j)``,
    ``("qdd", j)``, ``("qd", j)``, ``("q", j)``.  Outputs: ``("motion", child,
    P)``, ``("wrench", parent, C)`` (when the parent moves), then ``("qdd", j)``.
    ``child_acceleration`` is ``[abar]_a`` (3x1) and ``parent_wrench``
    ``Wbar_{J/B,C}`` (6x1, parent axes); both are unused by a weld.
    """
    a_name, a_port = j.child
    b_name, c_port = j.parent
    p = j.dcm()
    pm = g.bdiag(*([p] * (nm // 3)))
    p6t = g.bdiag(g.tr(p), g.tr(p))
    ins, cs, rs = [], [], [nm] + ([6] if moving_parent else [])
    if moving_parent:
        ins.append((("motion", b_name, c_port), nm))
        cs.append(nm)
    ins.append((("reaction", a_name, a_port), 6))
    cs.append(6)
    outs = [(("motion", a_name, a_port), nm)]
    if moving_parent:
        outs.append((("wrench", b_name, c_port), 6))
    rows_m, rows_w, rows_q = [], [], []
    if isinstance(j, WeldJoint):
        if moving_parent:
            rows_m.append(pm)
            rows_w.append(None)
        rows_m.append(None)
        rows_w.append(p6t)
        d = g.block([rows_m] + ([rows_w] if moving_parent else []), rs, cs)
        return d, ins, outs
    f_jb, t_jb = g.split_wrench(parent_wrench)
    ins += [((kind, j.name), 1) for kind in ("effort", "qdd", "qd", "q")]
    cs += [1, 1, 1, 1]
    outs.append((("qdd", j.name), 1))
    rs.append(1)
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
        # dq moves the frame acceleration (turned frame) and the child's small rotation
        q_motion = g.vcat(
            -g.mm(g.skew(ra[:, 0]), child_acceleration), np.zeros((nm - 3, 1))
        ) + motion_col(15, r6a)
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
        stiff = g.vcat(np.zeros((3, 1)), g.mm(g.skew(tb[:, 0]), f_jb))
        if moving_parent:
            rows_m.append(g.mm(pm, motion_transport(pc, nm)))
            rows_w.append(None)
            rows_q.append(None)
        rows_m += [
            None,
            None,
            pm @ motion_col(3, t6b),
            pm @ motion_col(9, t6b),
            pm @ motion_col(15, t6b),
        ]
        rows_w += [g.mm(transport(pc).T, p6t), None, None, None, stiff]
        rows_q += [
            t6a.reshape(1, 6) / mu,
            np.array([[1.0 / mu]]),
            np.array([[1.0]]),
            g.smul(kd, np.array([[-1.0 / mu]])),
            g.smul(kp, np.array([[-1.0 / mu]])),
        ]
    rows = [rows_m] + ([rows_w] if moving_parent else []) + [rows_q]
    return g.block(rows, rs, cs), ins, outs


def joint_trim_pair(j, force, torque):
    """Equilibrium ``(force, torque)`` on the parent (parent axes, at C) and trim effort.

    ``force``, ``torque`` are ``Wbar_{A/J,P}`` (child axes): eq. 21 of seed 000.
    """
    p = j.dcm()
    f_b, t_b = g.simplified(g.mm(g.tr(p), force)), g.mm(g.tr(p), torque)
    effort = None
    if isinstance(j, PrismaticJoint):
        t_b = t_b + g.smul(j.displacement, g.mm(g.skew(j.axis), f_b))
        axis_a = j.dcm() @ j.axis.reshape(3, 1)
        effort = g.simplified(-g.mm(axis_a.T, force))
    elif isinstance(j, RevoluteJoint):
        axis_a = j.orientation.T @ j.axis.reshape(3, 1)
        effort = g.simplified(-g.mm(axis_a.T, torque))
    return f_b, g.simplified(t_b), effort


def frame_acceleration_in_child(j, acc):
    """``P_{b/a} acc`` for a 3x1 column (no checks; see :func:`child_frame_acceleration`)."""
    return g.simplified(g.mm(j.dcm(), acc))


def _check_joint(joint):
    if not isinstance(joint, Joint):
        raise SignalError(f"expected a joint, got {type(joint).__name__}")
    check_name(joint.name, "joint name")
    for body, port in (joint.parent, joint.child):
        check_name(body, f"joint {joint.name!r}: body name")
        check_name(port, f"joint {joint.name!r}: port name")
    if joint.ndof:
        check_name(joint.input_name, f"joint {joint.name!r}: input_name")
        check_name(joint.output_name, f"joint {joint.name!r}: output_name")
    return joint


def child_frame_acceleration(joint, parent_frame_acceleration):
    """``[abar]_a = P_{b/a} [abar]_b``: the frame acceleration in the child's axes.

    Parameters
    ----------
    joint : RevoluteJoint, PrismaticJoint or WeldJoint
    parent_frame_acceleration : 3 entries or 3x1 uncertain matrix
        In the parent's axes (for a joint on the ground: ``a``, e.g. ``gravity()``).

    Returns
    -------
    ndarray or UncertainMatrix (3x1); an LFT of the joint's tangent parameter
    when its angle is scheduled.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import RevoluteJoint, child_frame_acceleration, gravity
    >>> j = RevoluteJoint("J", ("ground", "O"), ("B", "P"), [1, 0, 0], angle=np.pi / 2)
    >>> np.round(child_frame_acceleration(j, gravity(9.81)).ravel(), 12)
    array([0.  , 9.81, 0.  ])
    """
    _check_joint(joint)
    acc = g.column_of(parent_frame_acceleration, 3, "parent_frame_acceleration")
    return frame_acceleration_in_child(joint, acc)


def joint_trim(joint, trim_wrench):
    """Equilibrium of a joint: the wrench it applies on its parent and its trim effort.

    Parameters
    ----------
    joint : RevoluteJoint, PrismaticJoint or WeldJoint
    trim_wrench : 6 entries or 6x1 uncertain matrix
        ``Wbar_{A/J,P}``: equilibrium wrench of the child body on the joint
        (child axes, torque about the child port), e.g. from :func:`body_trim_wrench`.

    Returns
    -------
    parent_wrench : ndarray or UncertainMatrix (6x1)
        ``Wbar_{J/B,C}`` (eq. 21): applied on the parent at its port, parent axes.
    effort : ndarray or UncertainMatrix (1x1), or None for a weld
        Torque (force) that holds the equilibrium, ``-r6^T Wbar_{A/J}``.

    Examples
    --------
    >>> from robustmb.multibody import RevoluteJoint, RigidBody, body_trim_wrench
    >>> from robustmb.multibody import gravity, joint_trim
    >>> rod = RigidBody("rod", mass=1.0, cog=[0, 0.5, 0], ports={"P": [0, 0, 0]})
    >>> j = RevoluteJoint("J", ("ground", "O"), ("rod", "P"), [1, 0, 0])
    >>> _, torque = joint_trim(j, body_trim_wrench(rod, "P", gravity(9.81)))
    >>> float(torque[0, 0])                                # m g l / 2
    4.905
    """
    _check_joint(joint)
    f, t = g.split_wrench(g.column_of(trim_wrench, 6, "trim_wrench"))
    f_b, t_b, effort = joint_trim_pair(joint, f, t)
    return g.vcat(f_b, t_b), effort


def joint_block(
    joint,
    *,
    frame_acceleration=(0.0, 0.0, 0.0),
    trim_wrench=None,
    full_motion=True,
    scale=1.0,
    parent_fixed=False,
):
    """Linearised model of a revolute, prismatic or weld joint (seed 000 eqs. 22-23).

    Parameters
    ----------
    joint : RevoluteJoint, PrismaticJoint or WeldJoint
        Its stiffness, damping, rotor inertia (possibly zero) and displacement
        may be ``ureal``; a scheduled angle enters through ``tan_half`` /
        ``tan_quarter``.
    frame_acceleration : 3 entries or 3x1 uncertain matrix
        ``[abar]_b``: equilibrium frame acceleration in the parent's axes (a
        joint on the ground: ``a``, e.g. :func:`gravity`).  Unused by a weld.
    trim_wrench : 6 entries or 6x1 uncertain matrix, optional
        ``Wbar_{A/J,P}``: equilibrium wrench of the child on the joint (child
        axes), from :func:`body_trim_wrench` of the child or
        :attr:`MechanismTrim.joint_wrench`; default zero.  It gives the
        joint's geometric stiffness.  Unused by a weld.
    full_motion : bool
        21-entry motion vectors (default) or the 9 accelerations.
    scale : float
        Non-zero scaling of the acceleration loop (see the module notes);
        the model does not depend on it.  The inertia the joint moves about
        its axis (nominal) gives the best-conditioned loop.
    parent_fixed : bool
        The parent does not move (the ground): no parent motion input and no
        wrench output.

    Returns
    -------
    UncertainMatrix (weld) or UncertainSystem (actuated joint, states ``[q; q_dot]``)
        Inputs: ``{parent}_{C}_*`` (motion, unless ``parent_fixed``),
        ``{child}_{P}_to_parent_Fx ... _Tz`` (wrench of the child on the
        joint), then the effort ``input_name`` and ``output_name + "_ddot"``.
        Outputs: ``{child}_{P}_*`` (motion), ``{parent}_{C}_Fx ... _Tz``
        (wrench applied on the parent, unless ``parent_fixed``), then
        ``output_name + "_ddot"``, ``output_name`` and ``output_name + "_dot"``.
        Connect the ``_ddot`` output to the input of the same name.  The
        block's ``name`` is the joint's name.

    Raises
    ------
    SignalError
        A name containing ``.``, or something that is not a joint.
    DimensionError
        ``scale`` zero or not finite; trim arguments of the wrong size.

    Examples
    --------
    A pendulum hanging from the ground (uncertain point mass, gravity): its
    stiffness ``m g l`` comes from the child's equilibrium wrench.

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import (RevoluteJoint, RigidBody, body_block, body_trim_wrench,
    ...     child_frame_acceleration, gravity, ground_block, joint_block)
    >>> m = rmb.ureal("m", 2.0, percent=20)
    >>> a = gravity(9.81)
    >>> bob = RigidBody("bob", mass=m, ports={"P": [0, 0, 1.0]})
    >>> J = RevoluteJoint("J", ("ground", "O"), ("bob", "P"), [1, 0, 0],
    ...                   input_name="T", output_name="theta")
    >>> W = body_trim_wrench(bob, "P", child_frame_acceleration(J, a))
    >>> blocks = [ground_block(), joint_block(J, frame_acceleration=a, trim_wrench=W),
    ...           body_block(bob, "P")]
    >>> G = rmb.connect(blocks, inputs=["T"], outputs=["theta"], ignore_outputs=["theta_dot"])
    >>> k = 1.0 / G.usubs({"m": 2.4}).dcgain()
    >>> bool(np.isclose(k, 2.4 * 9.81))
    True
    """
    _check_joint(joint)
    if isinstance(scale, bool) or not isinstance(scale, numbers.Real):
        raise DimensionError(f"joint {joint.name!r}: scale must be a non-zero number")
    if not np.isfinite(scale) or scale == 0.0:
        raise DimensionError(f"joint {joint.name!r}: scale must be non-zero and finite")
    nm = motion_size(full_motion)
    child_acc, parent_wrench = None, None
    if not isinstance(joint, WeldJoint):
        acc = g.column_of(frame_acceleration, 3, "frame_acceleration")
        child_acc = child_frame_acceleration(joint, acc)
        w = np.zeros((6, 1)) if trim_wrench is None else trim_wrench
        parent_wrench, _ = joint_trim(joint, w)
    d, ins, outs = joint_static(
        joint,
        nm=nm,
        mu=float(scale),
        child_acceleration=child_acc,
        parent_wrench=parent_wrench,
        moving_parent=not parent_fixed,
    )
    if isinstance(joint, WeldJoint):
        return named(d, ins, outs, joint.name)
    offset, cols = 0, {}
    for key, n in ins:
        cols[key[0]] = offset
        offset += n
    sys = integrate_coordinates(d, [cols["q"]], [cols["qd"]], [cols["qdd"]])
    keep = [(key, n) for key, n in ins if key[0] not in ("q", "qd")]
    outs = outs + [(("q", joint.name), 1), (("qd", joint.name), 1)]
    return named(sys, keep, outs, joint.name, joint, system=True)
