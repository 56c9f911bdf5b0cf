"""Analytical n-port model of a rigid body (seed 003, Eqs. 7-10).

A rigid body B (mass ``m``, inertia ``J_G`` at its centre of mass G) carries
appendages at ports ``P_1 .. P_n`` and an external wrench at G.  The inverse
model (Eq. 9) maps the wrenches applied ON B to the acceleration twists::

    [x''_P1; ..; x''_Pn; x''_G] = T D_G^-1 T^T [W_1; ..; W_n; W_ext],
    T = [tau_P1G; ..; tau_PnG; I6]

With a parent port (Eq. 10) that port is inverted: its input is the
acceleration twist imposed by the parent and its output the wrench B applies
to the parent (minus the wrench the parent applies to B).
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, SignalError
from ..lft.model import UncertainMatrix
from ..lft.realization import make_realization
from .flexible_body import (
    ACCELERATION_COMPONENTS,
    _vector3,
    check_titop_inertia,
    numeric_array,
    warn_nonphysical_inertia,
)
from .signals import WRENCH_COMPONENTS, check_name
from .spatial import kinematic_model


def _rigid_mass_at_com(mass, inertia, what, allow_nonphysical_inertia):
    m = numeric_array(mass, f"{what}: mass")
    if m.shape != () or not np.isfinite(m) or m <= 0:
        raise ArgumentError(f"{what}: mass must be a positive number, got {mass}")
    # the inverse model solves with D_G: the inertia must be definite, and the matrix
    # used is the one given (a non-symmetric one is refused, not symmetrised)
    j = check_titop_inertia(inertia, f"{what}: inertia", definite=True)
    warn_nonphysical_inertia(j, f"{what}: inertia", allow_nonphysical_inertia)
    d = np.zeros((6, 6))
    d[:3, :3] = float(m) * np.eye(3)
    d[3:, 3:] = j
    return d


#: Port names taken by the centre-of-mass signals (``{name}_G_*``, ``{name}_G_ext_*``).
_RESERVED_PORTS = ("G", "G_ext")


def rigid_nport(name, mass, inertia, ports, *, parent=None, allow_nonphysical_inertia=False):
    """Static n-port TITOP model of a rigid body (Eq. 9, or Eq. 10 with ``parent``).

    Parameters
    ----------
    name : str
        Body name, used in the signal names.
    mass : float
        A positive number (the block is numeric: only the modal frequencies of
        a FlexibleBody and the tau of a revolute_frame_block may be uncertain).
    inertia : (3, 3) array_like
        Inertia at the centre of mass G (body axes), symmetric positive
        definite.
    ports : dict
        Port name -> vector from G to the port (3 numbers, body axes).  The
        external wrench is applied at G (signal names ``{name}_G_ext_*``,
        accelerations ``{name}_G_*``), so ``"G"`` and ``"G_ext"`` are not
        port names.
    parent : str, optional
        Port through which the body hangs on its parent (Eq. 10).
    allow_nonphysical_inertia : bool, optional
        Keep principal moments that break the triangle inequality without the
        :class:`~robustmb.errors.NonphysicalInertiaWarning` (default False:
        warn and keep the data, as :class:`~robustmb.multibody.RigidBody`).

    Returns
    -------
    UncertainMatrix
        Inputs: ``{name}_{port}_Fx..Tz`` (wrench ON B at each port, in the
        order of ``ports``), then ``{name}_G_ext_Fx..Tz``; for the parent port
        the input is ``{name}_{parent}_ax..alphaz`` instead.  Outputs:
        ``{name}_{port}_ax..alphaz`` then ``{name}_G_ax..alphaz``; for the
        parent port ``{name}_{parent}_to_parent_Fx..Tz``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import rigid_nport
    >>> X = rigid_nport("hub", 2.0, np.eye(3), {"P1": [1.0, 0, 0]})
    >>> X.shape
    (12, 12)
    >>> float(X.nominal()[8, 2])       # z force at G -> z acceleration at G: 1/m
    0.5
    """
    check_name(name, "body name")
    what = f"rigid_nport {name!r}"
    dg = _rigid_mass_at_com(mass, inertia, what, allow_nonphysical_inertia)
    if not isinstance(ports, dict):
        raise ArgumentError(f"{what}: ports must be a dict name -> vector from G")
    names = list(ports)
    taus = []
    for p in names:
        check_name(p, "port name")
        if p in _RESERVED_PORTS:
            raise SignalError(
                f"{what}: port {p!r} would share its signal names with the centre of mass "
                f"({name}_G_* accelerations, {name}_G_ext_* wrench); the names "
                f"{list(_RESERVED_PORTS)} are reserved, rename the port"
            )
        v = _vector3(ports[p], f"{what}: port {p!r}")
        taus.append(kinematic_model(-v))  # tau_{P G}: from the vector P to G
    t = np.vstack(taus + [np.eye(6)])
    big = t @ np.linalg.solve(dg, t.T)
    ins = [f"{name}_{p}_{c}" for p in names + ["G_ext"] for c in WRENCH_COMPONENTS]
    outs = [f"{name}_{p}_{c}" for p in names + ["G"] for c in ACCELERATION_COMPONENTS]
    if parent is not None:
        if parent not in ports:
            raise SignalError(f"{what}: parent port {parent!r} is not among the ports {names}")
        k = names.index(parent)
        s = slice(6 * k, 6 * k + 6)
        tg1 = np.linalg.inv(taus[k])  # tau_{G P1}
        # Eq. 10: W_{B/A1} = tau_GP1^T [-D_G tau_GP1 x''_P1 + sum_k tau_PkG^T W_k + W_ext].
        rest = np.ones(len(ins), dtype=bool)
        rest[s] = False
        big = big.copy()
        row_w = np.zeros((6, len(ins)))
        row_w[:, s] = -tg1.T @ dg @ tg1
        row_w[:, rest] = tg1.T @ t.T[:, rest]
        # Accelerations elsewhere: rigid transport of the imposed x''_P1.
        col = t @ tg1
        big[:, s] = col
        big[:, rest] = 0.0
        big[s, :] = row_w
        ins[s] = [f"{name}_{parent}_{c}" for c in ACCELERATION_COMPONENTS]
        outs[s] = [f"{name}_{parent}_to_parent_{c}" for c in WRENCH_COMPONENTS]
    n = big.shape[0]
    real = make_realization(np.zeros((0, 0)), np.zeros((0, n)), np.zeros((n, 0)), big, {})
    return UncertainMatrix(real, input_names=ins, output_names=outs, name=name)


def rigid_titop(name, mass, inertia, com, child, *, allow_nonphysical_inertia=False):
    """Rigid two-port TITOP (the flexible body with no modes), static.

    Inputs ``[W_C; x''_P]``, outputs ``[x''_C; W_P]`` with
    ``D = [[0, tau_CP], [tau_CP^T, -D_P]]`` (signal names as
    :meth:`FlexibleBody.titop`).  ``mass`` is a positive number and
    ``inertia`` (at the centre of mass) a symmetric positive semidefinite
    3x3 matrix; ``com`` and ``child`` are vectors from the parent port P.
    Principal moments that break the triangle inequality give a
    :class:`~robustmb.errors.NonphysicalInertiaWarning` unless
    ``allow_nonphysical_inertia`` (keyword) is True; the data are kept.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import rigid_titop
    >>> R = rigid_titop("link", 1.0, np.eye(3), [0.5, 0, 0], [1.0, 0, 0])
    >>> R.shape
    (12, 12)
    """
    from .flexible_body import FlexibleBody

    what = f"rigid_titop {name!r}"
    m = numeric_array(mass, f"{what}: mass")
    if m.shape != () or not np.isfinite(m) or m <= 0:
        raise ArgumentError(f"{what}: mass must be a positive number, got {mass}")
    j = check_titop_inertia(inertia, f"{what}: inertia")
    warn_nonphysical_inertia(j, f"{what}: inertia", allow_nonphysical_inertia)
    body = FlexibleBody(
        name,
        mass,
        inertia,
        com,
        np.zeros((0, 6)),
        [],
        0.0,
        mode_shapes=np.zeros((6, 0)),
        child=child,
        allow_nonphysical_inertia=True,  # checked above, under this block's name
    )
    sys = body.titop()
    real = sys._real
    return UncertainMatrix(
        real, input_names=sys.input_names, output_names=sys.output_names, name=name
    )
