"""Base building blocks: the ground and a floating body (forward dynamics, seed 000 Fig. 1b).

The ground imposes zero motion deviation at its ports (its frame is the
reference frame: the frame acceleration ``a``, e.g. ``a = -g`` for gravity,
only enters the equilibrium, through the ``frame_acceleration`` arguments of
the other blocks).

A floating body receives wrenches at its ports and moves freely (6 degrees of
freedom: small displacement ``dr`` and small rotation ``dphi`` of its origin O,
in its equilibrium axes).  Linearised (seed 000, eqs. 10, 14, 15)::

    dx''_O + [da; 0] = D_O^-1 sum_i tau_{C_i O}^T dW_{./B,C_i}
    da               = skew([abar]_b) dphi          # the frame acceleration seen from the body
    dm_{C_i}         = Upsilon_{C_i O} dm_O

The static map is written with a preconditioner ``M`` as
``qdd = qdd + M^-1 (sum tau^T dW - D_O (qdd + [da; 0]))``: closing the
``qdd`` loop gives the exact ``D_O^-1`` (``M = D_O`` nominal, here), and the
assembler of :class:`~robustmb.multibody.Mechanism` uses the same map with
``M`` the nominal inertia of the whole tree, whose child wrenches close it.
"""

from __future__ import annotations

import numpy as np

from .. import lft
from ..errors import IllPosedError
from . import _generic as g
from ._coordinates import close_coordinates
from .body_blocks import (
    check_body,
    check_ports,
    motion_size,
    named,
    transport,
    wrench_transport,
)
from .signals import check_name, coordinate_names, motion_names, wrench_names


def _frame_acceleration_gain(acc):
    """``d[a]_b / d[dr; dphi] = [0, skew(abar)]`` (3x6) for a 3x1 column."""
    if g.is_number(acc):
        return np.hstack([np.zeros((3, 3)), g.skew(np.asarray(acc, dtype=float).reshape(3))])
    sk = None
    for i in range(3):
        term = g.smul(acc[i : i + 1, :], g.skew(np.eye(3)[i]))
        sk = term if sk is None else sk + term
    return g.hcat(np.zeros((3, 3)), sk)


def forward_dynamics_static(body, frame_acceleration, wrench_ports, motion_ports, nm, precond):
    """Static map of a floating body on structured keys.

    Inputs ``("qdd", body)``, ``("qd", body)``, ``("q", body)`` (6 each), then
    ``("wrench", body, port)``; outputs ``("qdd", body)`` then
    ``("motion", body, port)``.  ``precond`` is a numeric nonsingular 6x6 ``M``.
    """
    aq = _frame_acceleration_gain(frame_acceleration)
    minv = np.linalg.inv(precond)
    dp = body.spatial_inertia_at((0.0, 0.0, 0.0))
    aq6 = g.vcat(aq, np.zeros((3, 6)))
    row = [np.eye(6) - g.mm(minv, dp), np.zeros((6, 6)), -g.mm(minv, dp, aq6)]
    for port in wrench_ports:
        row.append(g.mm(minv, wrench_transport(body.port(port))))
    rows = [row]
    for port in motion_ports:
        tau = transport(g.vdiff((0.0, 0.0, 0.0), body.port(port)))
        blocks_m = [[np.zeros((3, 6)), np.zeros((3, 6)), aq], [tau, None, None]]
        if nm == 21:
            blocks_m += [[None, tau, None], [None, None, tau]]
        mrow = g.block(blocks_m, [3] + [6] * (len(blocks_m) - 1), [6, 6, 6])
        rows.append([mrow] + [None] * len(wrench_ports))
    d = g.block(rows, [6] + [nm] * len(motion_ports), [18] + [6] * len(wrench_ports))
    k = body.name
    ins = [(("qdd", k), 6), (("qd", k), 6), (("q", k), 6)]
    ins += [(("wrench", k, p), 6) for p in wrench_ports]
    outs = [(("qdd", k), 6)] + [(("motion", k, p), nm) for p in motion_ports]
    return d, ins, outs


def floating_body_block(
    body,
    *,
    frame_acceleration=(0.0, 0.0, 0.0),
    wrench_ports=None,
    motion_ports=None,
    full_motion=True,
):
    """Linearised forward-dynamics model of a free rigid body (seed 000, Fig. 1b).

    The wrenches applied at the body's ports are inputs; the motion of its
    ports and the coordinates of its origin are outputs.  It is the floating
    (6-DOF) base of a mechanism: connect the wrench outputs of child joints to
    its wrench inputs.  States: ``[dr; dphi; dr'; dphi']`` of the origin.

    Parameters
    ----------
    body : RigidBody
        Mass, inertia, centre of mass and ports may be ``ureal``; the spatial
        inverse ``D_O^-1`` is carried exactly.
    frame_acceleration : 3 entries or 3x1 uncertain matrix
        ``[abar]_b``: equilibrium acceleration of the reference frame in body
        axes; a free body held by a constant body-fixed thrust ``F`` through
        its centre of mass has ``abar = F / m`` (its rotation ``dphi`` then
        turns the apparent frame acceleration, ``da = skew(abar) dphi``).
    wrench_ports, motion_ports : sequence of str, optional
        Ports with a wrench input, ports with a motion output (default: all
        ports, in the order they were declared).
    full_motion : bool
        21-entry motion vectors (default) or the 9 accelerations.

    Returns
    -------
    UncertainSystem
        Inputs ``{body}_{C}_Fx ... _Tz`` per wrench port (wrench applied on the
        body, body axes); outputs ``{body}_dx ... {body}_rz`` (coordinates)
        then ``{body}_{C}_*`` (motion) per motion port.

    Raises
    ------
    IllPosedError
        When the nominal spatial inertia is singular (zero mass or an
        inertia that is not positive definite).
    SignalError
        A port that does not belong to the body.

    Examples
    --------
    A free body: its inertial acceleration at the origin is ``D_O^-1`` times the wrench.

    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import RigidBody, floating_body_block
    >>> m = rmb.ureal("m", 4.0, percent=25)
    >>> sat = RigidBody("sat", mass=m, inertia=[1.0, 2.0, 3.0], ports={"O": [0, 0, 0]})
    >>> S = floating_body_block(sat, full_motion=False)
    >>> S.nstates, S.input_names[0], S.output_names[9]
    (12, 'sat_O_Fx', 'sat_O_ax')
    >>> acc = S.usubs({"m": 5.0}).D[9:15, :]      # [ax..alphaz] from [Fx..Tz]
    >>> bool(np.allclose(acc, np.diag([0.2, 0.2, 0.2, 1.0, 0.5, 1 / 3])))
    True
    """
    check_body(body)
    wrench_ports = check_ports(
        body, list(body.ports) if wrench_ports is None else wrench_ports, "wrench_ports"
    )
    motion_ports = check_ports(
        body, list(body.ports) if motion_ports is None else motion_ports, "motion_ports"
    )
    nm = motion_size(full_motion)
    acc = g.column_of(frame_acceleration, 3, "frame_acceleration")
    d0 = body.nominal_spatial_inertia_at((0.0, 0.0, 0.0))
    if np.linalg.matrix_rank(d0) < 6:
        raise IllPosedError(
            f"floating body {body.name!r}: its spatial inertia is singular at the nominal "
            "parameters (a free body needs a positive mass and a positive definite inertia)"
        )
    d, ins, outs = forward_dynamics_static(body, acc, wrench_ports, motion_ports, nm, d0)
    ny, nin = g.shape(d)
    sel = np.zeros((nin, ny))
    sel[:6, :6] = np.eye(6)  # the acceleration loop: qdd_in = qdd_out gives D_O^-1 exactly
    if g.is_number(d):
        closed = np.linalg.solve(np.eye(ny) - d @ sel, d)
    else:
        closed = lft.feedback(d, sel, sign=1)
    nw = 6 * len(wrench_ports)
    cols = list(range(12, 18)) + list(range(6, 12)) + list(range(18, 18 + nw))  # [q; qd; W]
    static = closed[:, cols]
    sys = close_coordinates(static, 6, nw, nm * len(motion_ports), rates=False)
    if sys.blocks:
        sys = lft.simplify(sys)
    sys.input_names = [s for p in wrench_ports for s in wrench_names(body.name, p)]
    sys.output_names = coordinate_names(body.name) + [
        s for p in motion_ports for s in motion_names(body.name, p, nm == 21)
    ]
    sys.name = body.name
    return sys


def ground_block(ports=("O",), *, full_motion=True):
    """The ground: zero motion deviation at its ports (TITOP base of a fixed mechanism).

    Parameters
    ----------
    ports : sequence of str
        Ground points that joints hang from (their names only matter).
    full_motion : bool
        21-entry motion vectors (default) or the 9 accelerations.

    Returns
    -------
    UncertainMatrix
        A zero map named ``"ground"``: inputs ``ground_{port}_Fx ... _Tz``
        (the wrench the mechanism applies on the ground), outputs
        ``ground_{port}_*`` (motion).

    Examples
    --------
    >>> from robustmb.multibody import ground_block
    >>> G = ground_block()
    >>> G.shape, G.output_names[0], G.input_names[0]
    ((21, 6), 'ground_O_frame_ax', 'ground_O_Fx')
    """
    if isinstance(ports, str):
        ports = [ports]
    ports = [check_name(p, "ground port") for p in ports]
    nm = motion_size(full_motion)
    d = np.zeros((nm * len(ports), 6 * len(ports)))
    ins = [(("wrench", "ground", p), 6) for p in ports]
    outs = [(("motion", "ground", p), nm) for p in ports]
    return named(d, ins, outs, "ground")
