"""Spatial algebra of the TITOP/Newton-Euler framework (Kassarian et al., seed 000, Sec. 2).

Conventions (6-vectors are ``[translational; rotational]``):

- ``skew(u) @ v == cross(u, v)``;
- the kinematic model ``tau_PC = [[I, skew(PC)], [0, I]]`` uses the vector
  from P to C; it moves a twist from C to P (``x'_P = tau_PC x'_C``) and its
  transpose moves a wrench from P to C (``W_C = tau_PC^T W_P``);
- ``D_P = tau_BP^T diag(m I, J_B) tau_BP`` is the spatial mass matrix of a
  body at point P (B is the centre of mass, ``BP`` the vector from B to P);
- a DCM ``P_{a/b}`` has the axes of frame a as columns in frame b, so
  ``[X]_b = P_{a/b} [X]_a``.

Every function accepts numbers and, where stated, uncertain scalars.
"""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError
from . import _generic as g


def skew(u):
    """Skew-symmetric cross-product matrix.

    Parameters
    ----------
    u : array_like, 3 entries
        Numbers or uncertain scalars (``ureal`` or expressions).

    Returns
    -------
    ndarray or UncertainMatrix
        ``S`` with ``S @ v == cross(u, v)``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import skew
    >>> skew([1.0, 2.0, 3.0]) @ np.array([4.0, 5.0, 6.0])
    array([-3.,  6., -3.])
    """
    return g.skew(g.vector3(u, "skew argument"))


def kinematic_model(pc):
    """The kinematic model ``tau_PC`` (6x6) from the vector ``PC`` (P to C).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import kinematic_model
    >>> T = kinematic_model([0.0, 1.0, 0.0])
    >>> T @ np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])   # v_P = v_C + PC x w
    array([1., 0., 0., 0., 0., 1.])
    """
    s = g.skew(g.vector3(pc, "PC"))
    return g.block([[np.eye(3), s], [None, np.eye(3)]], [3, 3], [3, 3])


def transport_twist(twist_c, pc):
    """Twist at P from the twist at C of the same rigid body: ``tau_PC @ twist_C``.

    Examples
    --------
    >>> from robustmb.multibody import transport_twist
    >>> transport_twist([0, 0, 0, 0, 0, 2.0], [1.0, 0, 0]).ravel()   # PC x omega
    array([ 0., -2.,  0.,  0.,  0.,  2.])
    """
    return kinematic_model(pc) @ _six(twist_c, "twist")


def transport_wrench(wrench_p, pc):
    """Wrench at C from the wrench at P: ``tau_PC^T @ W_P`` (``T_C = T_P + CP x F``).

    Examples
    --------
    >>> from robustmb.multibody import transport_wrench
    >>> transport_wrench([0, 0, -1.0, 0, 0, 0], [1.0, 0, 0]).ravel()
    array([ 0.,  0., -1.,  0., -1.,  0.])
    """
    return kinematic_model(pc).T @ _six(wrench_p, "wrench")


def spatial_inertia(mass, inertia, bp):
    """Spatial mass matrix ``D_P`` (6x6) of a rigid body at point P.

    Parameters
    ----------
    mass : float or ureal
    inertia : 3x3 array_like
        Inertia tensor at the centre of mass B (entries may be uncertain).
    bp : 3 entries
        Vector from B to P.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import spatial_inertia
    >>> D = spatial_inertia(2.0, np.eye(3), [0.0, 0.0, 1.0])
    >>> D[3:, 3:]    # Huygens-Steiner: J + m (|BP|^2 I - BP BP^T)
    array([[3., 0., 0.],
           [0., 3., 0.],
           [0., 0., 1.]])
    """
    m = g.check_scalar(mass, "mass")
    tau = kinematic_model(bp)
    dg = g.bdiag(g.smul(m, np.eye(3)), g.matrix(inertia))
    return g.mm(g.tr(tau), dg, tau)


def rotation_matrix(axis, angle):
    """Active rotation ``exp(angle * skew(axis))`` (Rodrigues), numeric.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody import rotation_matrix
    >>> np.round(rotation_matrix([0, 0, 1], np.pi / 2) @ [1.0, 0, 0], 12)
    array([0., 1., 0.])
    """
    r = unit_axis(axis, "axis")
    given = angle
    ok = not isinstance(angle, bool | np.bool_) and np.ndim(angle) == 0 and np.isrealobj(angle)
    try:
        angle = float(angle) if ok else np.nan
    except (TypeError, ValueError):
        angle = np.nan
    if not np.isfinite(angle):
        raise DimensionError(f"rotation_matrix: angle must be a finite real number, got {given!r}")
    s = g.skew(r)
    return np.eye(3) + np.sin(angle) * s + (1.0 - np.cos(angle)) * (s @ s)


def unit_axis(axis, what: str):
    """A numeric axis normalised to unit length; a zero or non-finite axis is an error."""
    try:
        r = np.asarray(axis, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        r = None  # a string such as "x", or uncertain entries: not a numeric axis
    if r is None or r.size != 3 or not np.all(np.isfinite(r)):
        raise DimensionError(f"{what} must be 3 finite numbers, got {axis!r}")
    n = np.linalg.norm(r)
    if n < 1e-12:
        raise DimensionError(f"{what} has zero length: a joint axis needs a direction")
    return r / n


def check_rotation(mat, what: str):
    """A numeric 3x3 proper orthogonal matrix, else an error naming ``what``."""
    r = np.asarray(mat, dtype=float)
    if r.shape != (3, 3) or not np.all(np.isfinite(r)):
        raise DimensionError(f"{what} must be a finite 3x3 matrix")
    if np.abs(r.T @ r - np.eye(3)).max() > 1e-9 or np.linalg.det(r) < 0:
        raise DimensionError(f"{what} must be a rotation matrix (orthonormal, det +1)")
    return r


def _six(v, what):
    x = np.asarray(v, dtype=float).reshape(-1, 1)
    if x.shape[0] != 6:
        raise DimensionError(f"a {what} has 6 components, got {x.shape[0]}")
    return x
