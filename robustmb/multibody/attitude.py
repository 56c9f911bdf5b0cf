"""Attitude of a floating base: quaternion internally, Euler angles 3-2-1 as an output.

The quaternion is ``(x, y, z, w)`` (scalar last, as scipy and Pinocchio) and
gives the DCM ``P_{b/i}`` (body axes in inertial components).  The Euler
angles ``(phi, theta, psi)`` are the 3-2-1 sequence of seed 001's
prototype: ``P_{b/i} = Rz(psi) Ry(theta) Rx(phi)``; they are singular at
``theta = +-90 deg``, where :func:`euler321_from_dcm` raises.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimensionError, IllPosedError
from .tree import quat_to_dcm


def quaternion_rate(quat, omega_body):
    """``d quat / dt`` for body angular velocity ``omega_body`` (body axes).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.attitude import quaternion_rate
    >>> quaternion_rate(np.array([0, 0, 0, 1.0]), np.array([0, 0, 2.0])) + 0.0
    array([0., 0., 1., 0.])
    """
    x, y, z, w = quat
    p, q, r = omega_body
    return 0.5 * np.array(
        [
            w * p + y * r - z * q,
            w * q + z * p - x * r,
            w * r + x * q - y * p,
            -x * p - y * q - z * r,
        ]
    )


def dcm_from_quaternion(quat):
    """``P_{b/i}`` of a quaternion ``(x, y, z, w)`` (normalised here).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.attitude import dcm_from_quaternion
    >>> s = np.sqrt(0.5)
    >>> np.round(dcm_from_quaternion([0, 0, s, s]) @ [1.0, 0, 0], 12) + 0.0
    array([0., 1., 0.])
    """
    q = np.asarray(quat, dtype=float).reshape(-1)
    if q.size != 4 or not np.all(np.isfinite(q)) or np.linalg.norm(q) == 0:
        raise DimensionError(f"a quaternion has 4 finite entries, not all zero; got {quat!r}")
    return quat_to_dcm(q / np.linalg.norm(q))


#: Default tolerance of :func:`quaternion_from_dcm` on ``|R^T R - I|`` and ``|det R - 1|``:
#: rounding of a rotation computed in double precision, with room for long products.
ROTATION_ROUNDING = 4096 * np.finfo(float).eps


def quaternion_from_dcm(dcm, *, what="dcm", tol=ROTATION_ROUNDING):
    """Unit quaternion ``(x, y, z, w)`` with ``w >= 0`` of a rotation matrix.

    Parameters
    ----------
    dcm : (3, 3) array_like
        A proper rotation: orthonormal (``max |R^T R - I| <= tol``) with
        determinant +1 (``|det R - 1| <= tol``).  Anything else (a reflection,
        a scaled or rounded matrix) has no unit quaternion and raises.
    what : str
        Name of the argument, for the error message.
    tol : float
        Tolerance of the two tests, by default about 1e-12 (``4096 eps``):
        the rounding of computed rotations, not that of typed-in tables.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.attitude import quaternion_from_dcm, dcm_from_quaternion
    >>> R = dcm_from_quaternion([0.1, -0.2, 0.3, 0.9])
    >>> bool(np.allclose(dcm_from_quaternion(quaternion_from_dcm(R)), R))
    True
    """
    try:
        r = np.asarray(dcm, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be a 3x3 numeric rotation matrix") from None
    if r.shape != (3, 3):
        raise DimensionError(f"{what} must be a 3x3 rotation matrix, got shape {r.shape}")
    if not np.all(np.isfinite(r)):
        raise ArgumentError(f"{what} must be finite")
    dev = float(np.abs(r.T @ r - np.eye(3)).max())
    det = float(np.linalg.det(r))
    if dev > tol or abs(det - 1.0) > tol:
        raise ArgumentError(
            f"{what} must be a proper rotation (orthonormal, det +1, to {tol:.1e}): "
            f"max |R^T R - I| = {dev:.3g}, det = {det:.6g}"
        )
    tr = np.trace(r)
    cands = np.array([1 + 2 * r[0, 0] - tr, 1 + 2 * r[1, 1] - tr, 1 + 2 * r[2, 2] - tr, 1 + tr])
    k = int(np.argmax(cands))  # the largest component gives a well-conditioned division
    s = 2.0 * np.sqrt(cands[k])
    if k == 3:
        q = [(r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s, s / 4]
    elif k == 0:
        q = [s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s, (r[2, 1] - r[1, 2]) / s]
    elif k == 1:
        q = [(r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s, (r[0, 2] - r[2, 0]) / s]
    else:
        q = [(r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4, (r[1, 0] - r[0, 1]) / s]
    q = np.array(q)
    q /= np.linalg.norm(q)  # a unit quaternion for a matrix orthonormal only to tol
    return q if q[3] >= 0 else -q


def dcm_from_euler321(phi, theta, psi):
    """``P_{b/i} = Rz(psi) Ry(theta) Rx(phi)``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.attitude import dcm_from_euler321
    >>> np.round(dcm_from_euler321(0, 0, np.pi / 2) @ [1.0, 0, 0], 12)
    array([0., 1., 0.])
    """
    cf, sf, ct, st, cp, sp = (
        np.cos(phi),
        np.sin(phi),
        np.cos(theta),
        np.sin(theta),
        np.cos(psi),
        np.sin(psi),
    )
    rz = np.array([[cp, -sp, 0], [sp, cp, 0], [0, 0, 1.0]])
    ry = np.array([[ct, 0, st], [0, 1.0, 0], [-st, 0, ct]])
    rx = np.array([[1.0, 0, 0], [0, cf, -sf], [0, sf, cf]])
    return rz @ ry @ rx


def euler321_from_dcm(dcm, *, tol=1e-6, what="attitude"):
    """Euler angles ``(phi, theta, psi)`` (3-2-1) of ``P_{b/i}``; error near ``theta = +-90 deg``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.attitude import dcm_from_euler321, euler321_from_dcm
    >>> np.round(euler321_from_dcm(dcm_from_euler321(0.1, -0.2, 0.3)), 12)
    array([ 0.1, -0.2,  0.3])
    """
    r = np.asarray(dcm, dtype=float)
    ct = np.hypot(r[0, 0], r[1, 0])
    if ct < tol:
        raise IllPosedError(
            f"{what}: Euler angles 3-2-1 are singular at pitch +-90 deg (cos(theta) = {ct:.2g}); "
            "use the quaternion or the DCM"
        )
    return np.array(
        [np.arctan2(r[2, 1], r[2, 2]), np.arctan2(-r[2, 0], ct), np.arctan2(r[1, 0], r[0, 0])]
    )
