"""Rigid-body building blocks: inverse dynamics (TITOP, seed 000 Fig. 1a) and trim wrench.

A body whose motion is imposed at its parent port P and which receives wrenches
at its child ports C_i is, linearised around its equilibrium (seed 000, eqs.
14 and 16, digest Sec. 3.9)::

    dW_{B/parent,P} = sum_i tau_{C_i P}^T dW_{./B,C_i} - D_P (dx''_P + [da; 0])
    dm_{C_i}        = Upsilon_{C_i P} dm_P

with ``D_P`` the spatial mass matrix at P and ``Upsilon`` the transport of the
motion vector (``tau`` on the dual acceleration, twist and small
displacement, identity on the frame acceleration).  The equilibrium wrench
(eq. 12) is the same formula with bars and ``da -> [abar]_b``.

The static maps are built on structured signal keys so that
:class:`~robustmb.multibody.Mechanism` assembles the very same matrices;
:func:`body_block` names them (see :mod:`robustmb.multibody.signals`).
"""

from __future__ import annotations

import numpy as np

from .. import lft
from ..errors import SignalError
from . import _generic as g
from .bodies import RigidBody
from .signals import MOTION_SIZES, check_name, expand


def transport(pc):
    """``tau_PC`` (6x6) from the 3 entries of the vector P to C (numbers or uncertain)."""
    return g.block([[np.eye(3), g.skew(pc)], [None, np.eye(3)]], [3, 3], [3, 3])


def wrench_transport(pc):
    """``tau_CP^T`` (6x6): wrench at C to the same wrench at P, from the vector P to C."""
    return g.block([[np.eye(3), None], [g.skew(pc), np.eye(3)]], [3, 3], [3, 3])


def motion_transport(cp, nm):
    """``Upsilon_CP`` restricted to a motion vector of ``nm`` entries (vector C to P)."""
    return g.bdiag(np.eye(3), *([transport(cp)] * ((nm - 3) // 6)))


def inverse_dynamics_static(body, parent_port, wrench_ports, motion_ports, nm):
    """Static map of an inverse-dynamics body on structured keys.

    Returns ``(D, inputs, outputs)`` where inputs and outputs are lists of
    ``(key, size)``: inputs ``("motion", body, parent_port)`` then
    ``("wrench", body, port)`` per wrench port; outputs
    ``("reaction", body, parent_port)`` then ``("motion", body, port)`` per
    motion port.
    """
    ref = body.port(parent_port)
    e = np.zeros((6, nm))  # dx''_P + [da; 0]
    e[0:3, 0:3] = np.eye(3)
    e[:, 3:9] = np.eye(6)
    w_row = [-g.mm(body.spatial_inertia_at(ref), e)]
    for port in wrench_ports:
        w_row.append(wrench_transport(g.vdiff(body.port(port), ref)))
    rows = [w_row]
    for port in motion_ports:
        rows.append(
            [motion_transport(g.vdiff(ref, body.port(port)), nm)] + [None] * len(wrench_ports)
        )
    d = g.block(rows, [6] + [nm] * len(motion_ports), [nm] + [6] * len(wrench_ports))
    ins = [(("motion", body.name, parent_port), nm)]
    ins += [(("wrench", body.name, p), 6) for p in wrench_ports]
    outs = [(("reaction", body.name, parent_port), 6)]
    outs += [(("motion", body.name, p), nm) for p in motion_ports]
    return d, ins, outs


def trim_wrench_pair(body, ref, frame_acceleration, children):
    """Equilibrium wrench ``(force, torque)`` of a body on its support at point ``ref``.

    ``children`` lists ``(port coordinates, force, torque)`` of the wrenches
    applied on the body at its ports (body axes); eq. 12 of seed 000 plus the
    transported child wrenches.
    """
    force = -g.smul(body.mass, frame_acceleration)
    torque = g.mm(g.skew(g.vdiff(body.cog, ref)), force)
    for point, f_c, t_c in children:
        force = force + f_c
        torque = torque + t_c + g.mm(g.skew(g.vdiff(point, ref)), f_c)
    return g.simplified(force), g.simplified(torque)


def named(d, ins, outs, name, joint=None, *, system=False):
    """An uncertain matrix (or system) with the public names of structured keys."""
    m = d if isinstance(d, lft.UncertainModel) else lft.umat(d)
    if system and not m.is_system:
        m = lft.uss(m)
    if m.blocks:
        m = lft.simplify(m)
    m.input_names = [s for key, n in ins for s in expand(key, n, joint)]
    m.output_names = [s for key, n in outs for s in expand(key, n, joint)]
    m.name = name
    return m


def motion_size(full_motion):
    """21 (accelerations, twist and displacement) or 9 (accelerations only)."""
    return MOTION_SIZES[1] if full_motion else MOTION_SIZES[0]


def check_body(body, what="body"):
    """A :class:`RigidBody` with a usable name, else a clear error."""
    if not isinstance(body, RigidBody):
        raise SignalError(f"{what} must be a RigidBody, got {type(body).__name__}")
    check_name(body.name, "body name")
    return body


def check_ports(body, ports, what):
    """Port names of ``body`` (each must exist and have a usable name)."""
    if isinstance(ports, str):
        ports = [ports]
    out = []
    for p in ports:
        check_name(p, f"{what} of body {body.name!r}")
        body.port(p)
        out.append(p)
    if len(set(out)) != len(out):
        raise SignalError(f"{what} of body {body.name!r} repeats a port: {out}")
    return out


def body_block(body, parent_port, *, child_ports=None, full_motion=True):
    """Linearised inverse-dynamics model of a rigid body (TITOP, seed 000 Fig. 1a).

    The motion is imposed at ``parent_port``; wrenches are applied at the
    child ports.  The block has no state::

        dW_{B/parent,P} = sum_i tau_{C_i P}^T dW_{./B,C_i} - D_P (dx''_P + [da; 0])
        dm_{C_i}        = Upsilon_{C_i P} dm_P

    Parameters
    ----------
    body : RigidBody
        Its mass, inertia, centre of mass and ports may be ``ureal``.
    parent_port : str
        Port where the motion enters and the wrench on the parent leaves.
    child_ports : sequence of str, optional
        Ports that receive wrenches and give their motion (default: every
        other port of the body, in the order they were declared).
    full_motion : bool
        Exchange the full 21-entry motion vector (frame acceleration, dual
        acceleration, twist, small displacement); ``False`` keeps the 9
        accelerations, enough to assemble a plant whose outputs are joint
        coordinates.

    Returns
    -------
    UncertainMatrix
        Inputs: ``{body}_{parent_port}_*`` (motion), then ``{body}_{C}_Fx ...
        _Tz`` per child port (wrench applied on the body).  Outputs:
        ``{body}_{parent_port}_to_parent_Fx ... _Tz`` (wrench of the body on
        its parent), then ``{body}_{C}_*`` (motion) per child port.  The
        block's ``name`` is the body's name.  Naming scheme:
        :mod:`robustmb.multibody.signals`.

    Raises
    ------
    SignalError
        A port that does not belong to the body, or a name with ``.``.

    Examples
    --------
    A point mass 1 m below its port: the force it needs follows its uncertain mass.

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import RigidBody, body_block
    >>> m = rmb.ureal("m", 2.0, percent=10)
    >>> bob = RigidBody("bob", mass=m, ports={"P": [0, 0, 1.0]})
    >>> B = body_block(bob, "P", full_motion=False)
    >>> B.input_names[3], B.output_names[0]
    ('bob_P_ax', 'bob_P_to_parent_Fx')
    >>> D = B.usubs({"m": 2.2})          # -D_P from the acceleration at P
    >>> bool(np.allclose(-D[:3, 3:6], 2.2 * np.eye(3)))
    True
    """
    check_body(body)
    check_ports(body, [parent_port], "parent_port")
    if child_ports is None:
        child_ports = [p for p in body.ports if p != parent_port]
    child_ports = check_ports(body, child_ports, "child_ports")
    nm = motion_size(full_motion)
    d, ins, outs = inverse_dynamics_static(body, parent_port, child_ports, child_ports, nm)
    return named(d, ins, outs, body.name)


def body_trim_wrench(body, parent_port, frame_acceleration, child_wrenches=None):
    """Equilibrium wrench of a body on its parent (seed 000, eq. 12 and Fig. 2 step 2).

    ``Wbar_{B/parent,P} = sum_i tau_{C_i P}^T Wbar_{./B,C_i} - D_P [abar_b; 0]``:
    what a joint at ``parent_port`` must carry at equilibrium (body axes,
    torque about the port).  It depends on the mass, centre of mass and port
    positions, not on the inertia.

    Parameters
    ----------
    body : RigidBody
    parent_port : str or None
        Port where the body hangs from its parent; ``None`` takes the body origin.
    frame_acceleration : 3 entries or 3x1 uncertain matrix
        ``[abar]_b``: acceleration of the reference frame in body axes (a
        gravity field ``g`` is ``a = -g``; see :func:`child_frame_acceleration`).
    child_wrenches : dict[str, 6x1] or sequence of (port, 6x1), optional
        Equilibrium wrenches applied on the body at its ports (body axes,
        torque about the port), e.g. the first value of :func:`joint_trim`
        of a child joint, or a constant thrust.

    Returns
    -------
    ndarray or UncertainMatrix (6x1)

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import RigidBody, body_trim_wrench, gravity
    >>> rod = RigidBody("rod", mass=2.0, cog=[0, 0.5, 0], ports={"P": [0, 0, 0]})
    >>> body_trim_wrench(rod, "P", gravity(10.0)).ravel() + 0.0   # weight, its moment about P
    array([  0.,   0., -20., -10.,   0.,   0.])
    """
    check_body(body)
    ref = (0.0, 0.0, 0.0) if parent_port is None else body.port(parent_port)
    acc = g.column_of(frame_acceleration, 3, "frame_acceleration")
    if isinstance(child_wrenches, dict):
        child_wrenches = list(child_wrenches.items())
    children = []
    for port, w in child_wrenches or ():
        f_c, t_c = g.split_wrench(g.column_of(w, 6, f"wrench at port {port!r}"))
        children.append((body.port(port), f_c, t_c))
    force, torque = trim_wrench_pair(body, ref, acc, children)
    return g.vcat(force, torque)
