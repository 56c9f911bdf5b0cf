"""Clamped-free modal data of a uniform beam from a small finite-element model.

When a structure's FE data are not available (seed 003 publishes them for two
structures only), a beam clamped at P (the origin) along +x, bending in the
x-y and x-z planes, gives consistent modal data for :class:`FlexibleBody`:
Euler-Bernoulli (Hermite cubic) elements with the consistent mass matrix,
clamped-free modes normalised to unit modal mass, participation factors at P
``L = Phi_f^T M R`` (``R`` the nodal motion of a rigid acceleration twist of
P) and mode shapes at the free end C.  Axial and torsional motion are rigid.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla

from ..errors import ArgumentError, DimensionError
from ._generic import numeric_value, sequence_entries


def _element_matrices(le, rho_a, ei):
    m = (
        rho_a
        * le
        / 420.0
        * np.array(
            [
                [156, 22 * le, 54, -13 * le],
                [22 * le, 4 * le**2, 13 * le, -3 * le**2],
                [54, 13 * le, 156, -22 * le],
                [-13 * le, -3 * le**2, -22 * le, 4 * le**2],
            ]
        )
    )
    k = (
        ei
        / le**3
        * np.array(
            [
                [12, 6 * le, -12, 6 * le],
                [6 * le, 4 * le**2, -6 * le, 2 * le**2],
                [-12, -6 * le, 12, -6 * le],
                [6 * le, 2 * le**2, -6 * le, 4 * le**2],
            ]
        )
    )
    return m, k


def _positive(x, what, entry=""):
    """``x`` as a positive finite float; ``entry`` ends the messages (e.g. ``" (entry 1)"``).

    The modes are computed numerically, so ureals and their expressions are refused.
    """
    why = "the modes are computed numerically (uncertain parameters are not supported)"
    v = numeric_value(x, f"beam_modal_data: {what}", why=why, suffix=entry)
    if not np.isfinite(v) or v <= 0:
        raise ArgumentError(
            f"beam_modal_data: {what} must be finite and positive, got {x!r}{entry}"
        )
    return v


def _bending_stiffnesses(ei):
    """The x-y and x-z bending stiffnesses from one value or two.

    Read entry by entry: ``np.asarray(ei, dtype=object)`` iterates an uncertain
    expression (it has a length) and fails with a bare ``TypeError``.
    """
    try:
        shape, entries = sequence_entries(ei, "beam_modal_data: ei")
    except DimensionError as err:
        raise ArgumentError(str(err)) from None
    if shape not in ((), (2,)):
        raise ArgumentError(
            "beam_modal_data: ei must be one bending stiffness or two (x-y and x-z planes), "
            f"got shape {shape}"
        )
    if shape == ():
        v = _positive(entries[0], "ei")
        return v, v
    return tuple(
        _positive(e, "ei", f" (entry {i}, the {plane} plane)")
        for i, (e, plane) in enumerate(zip(entries, ("x-y", "x-z"), strict=True))
    )


def _count(x, what):
    ok = isinstance(x, numbers.Integral) or (isinstance(x, numbers.Real) and float(x).is_integer())
    if isinstance(x, bool) or not ok or int(x) < 1:
        raise ArgumentError(f"beam_modal_data: {what} must be a positive integer, got {x!r}")
    return int(x)


def beam_modal_data(length, mass, ei, *, n_elements=20, n_modes=4):
    """Clamped-free modes of a uniform beam along +x, clamped at the origin P.

    Parameters
    ----------
    length, mass : float
        Beam length (m) and total mass (kg).
    ei : float or (float, float)
        Bending stiffness (N m^2) in the x-y and x-z planes.
    n_elements : int
        Number of beam elements (a positive integer).
    n_modes : int
        Number of lowest modes returned over both planes (a positive integer;
        at most the ``4 n_elements`` modes of the mesh are returned).

    Notes
    -----
    The two bending planes are uncoupled, so each mode bends in one plane:
    its participation and tip shape have ``y, alpha_z`` entries (x-y plane)
    or ``z, alpha_y`` entries (x-z plane) only.  With equal stiffnesses the
    modes come in pairs of equal frequency, one per plane, listed x-y first;
    an odd ``n_modes`` therefore keeps the x-y mode of the last pair and
    drops its x-z twin, which leaves the two planes with different numbers
    of modes (ask for an even count to model both planes alike).

    Returns
    -------
    dict
        ``frequencies`` (rad/s, ascending), ``participation`` (n x 6, at P),
        ``mode_shapes`` (6 x n, at the free end C = (length, 0, 0)),
        ``rigid_fe`` (6x6 ``R^T M R``: the FE model's rigid mass at P).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.beam_modes import beam_modal_data
    >>> d = beam_modal_data(2.0, 4.0, 50.0, n_modes=2)
    >>> w_exact = 1.8751041**2 * np.sqrt(50.0 / (2.0 * 2.0**4))   # Euler-Bernoulli
    >>> bool(abs(d["frequencies"][0] / w_exact - 1) < 1e-6)
    True
    """
    length = _positive(length, "length")
    mass = _positive(mass, "mass")
    eiy, eiz = _bending_stiffnesses(ei)
    ne = _count(n_elements, "n_elements")
    n_modes = _count(n_modes, "n_modes")
    le, rho_a = length / ne, mass / length
    nn = ne + 1
    # DOF per node: v, dv/dx (x-y plane), w, dw/dx (x-z plane)
    ndof = 4 * nn
    mg, kg = np.zeros((ndof, ndof)), np.zeros((ndof, ndof))
    for plane, eip in ((0, eiy), (2, eiz)):
        me, ke = _element_matrices(le, rho_a, eip)
        for e in range(ne):
            idx = [4 * e + plane, 4 * e + plane + 1, 4 * (e + 1) + plane, 4 * (e + 1) + plane + 1]
            mg[np.ix_(idx, idx)] += me
            kg[np.ix_(idx, idx)] += ke
    # Rigid motion of P (acceleration twist [a; alpha]) at node x:
    # v = a_y + x alpha_z, v' = alpha_z;  w = a_z - x alpha_y, w' = -alpha_y.
    r = np.zeros((ndof, 6))
    for i in range(nn):
        x = i * le
        r[4 * i, [1, 5]] = [1.0, x]
        r[4 * i + 1, 5] = 1.0
        r[4 * i + 2, [2, 4]] = [1.0, -x]
        r[4 * i + 3, 4] = -1.0
    free = np.arange(4, ndof)  # node 0 clamped
    # The planes are uncoupled: solving each on its own gives modes that bend in one plane
    # (with equal stiffnesses a joint solve would return arbitrary mixtures of a pair).
    lams, vecs = [], []
    for plane in (0, 2):
        dofs = np.array([4 * i + plane + k for i in range(1, nn) for k in (0, 1)])
        lp, vp = sla.eigh(kg[np.ix_(dofs, dofs)], mg[np.ix_(dofs, dofs)])  # M-orthonormal
        full = np.zeros((ndof, lp.size))
        full[dofs] = vp
        lams.append(lp)
        vecs.append(full[free])
    lam, vec = np.concatenate(lams), np.hstack(vecs)
    order = np.argsort(lam, kind="stable")  # equal frequencies: the x-y mode first
    nm = min(n_modes, len(lam))
    lam, vec = lam[order[:nm]], vec[:, order[:nm]]
    # sign: tip displacement positive, for reproducible data
    tip = vec[-4, :] + vec[-2, :]
    vec = vec * np.where(tip < 0, -1.0, 1.0)
    participation = vec.T @ mg[np.ix_(free, np.arange(ndof))] @ r
    t = vec[-4:, :]  # tip node: v, v', w, w'
    phi = np.zeros((6, nm))
    phi[1], phi[2] = t[0], t[2]
    phi[4], phi[5] = -t[3], t[1]
    return {
        "frequencies": np.sqrt(lam),
        "participation": participation,
        "mode_shapes": phi,
        "rigid_fe": r.T @ mg @ r,
    }
