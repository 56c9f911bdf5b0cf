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

import numpy as np
import scipy.linalg as sla

from ..errors import ArgumentError


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


def beam_modal_data(length, mass, ei, *, n_elements=20, n_modes=4):
    """Clamped-free modes of a uniform beam along +x, clamped at the origin P.

    Parameters
    ----------
    length, mass : float
        Beam length (m) and total mass (kg).
    ei : float or (float, float)
        Bending stiffness (N m^2) in the x-y and x-z planes.
    n_elements : int
        Number of beam elements.
    n_modes : int
        Number of lowest modes returned (over both planes).

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
    length, mass = float(length), float(mass)
    if length <= 0 or mass <= 0:
        raise ArgumentError("beam_modal_data: length and mass must be positive")
    eiy, eiz = (float(ei), float(ei)) if np.ndim(ei) == 0 else (float(ei[0]), float(ei[1]))
    if eiy <= 0 or eiz <= 0:
        raise ArgumentError("beam_modal_data: ei must be positive")
    ne = int(n_elements)
    if ne < 1:
        raise ArgumentError("beam_modal_data: n_elements must be >= 1")
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
    mf, kf = mg[np.ix_(free, free)], kg[np.ix_(free, free)]
    lam, vec = sla.eigh(kf, mf)  # M-orthonormal: vec^T M vec = I
    nm = min(int(n_modes), len(lam))
    lam, vec = lam[:nm], vec[:, :nm]
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
