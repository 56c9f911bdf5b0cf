"""Jacobians of parallel mechanisms: struts, point sensors, and frame changes.

Conventions (planar): coordinates ``q = [x, y, theta]`` of a frame {O} attached to the
moving body, ``theta`` counter-clockwise positive, wrench ``[Fx, Fy, Mz]``. Spatial:
``q = [x, y, z, theta_x, theta_y, theta_z]`` (small rotations), wrench ``[F, M]``.

A line element ``i`` (strut, spring, actuator, or single-axis sensor) is attached to the
body at point ``b_i`` (coordinates in {O}) with unit direction ``s_i``. Its row of the
Jacobian is

* planar: ``[s_x, s_y, b_x s_y - b_y s_x]``;
* spatial: ``[s^T, (b x s)^T]``,

so that the elongation (or the measured displacement along ``s_i``) is ``L = J q`` for
small motion and the actuator forces ``tau`` produce the wrench ``F = J^T tau`` at the
origin of {O}. A point sensor measuring along axis ``a`` at point ``p`` uses the same row
formula with ``(p, a)``.
"""

from __future__ import annotations

import numpy as np

from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "skew",
    "unskew",
    "normalize_directions",
    "line_jacobian",
    "planar_jacobian",
    "spatial_jacobian",
    "point_sensor_jacobian",
    "frame_translation",
]


def skew(v) -> np.ndarray:
    """Cross-product matrix ``[v]x`` with ``[v]x @ w = v x w``.

    Examples
    --------
    >>> import numpy as np
    >>> skew([1.0, 2.0, 3.0]) @ np.array([0.0, 0.0, 1.0])
    array([ 2., -1.,  0.])
    """
    v = np.asarray(v, dtype=float)
    if v.shape != (3,):
        raise DimensionError(f"skew expects a 3-vector, got shape {v.shape}")
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def unskew(S, *, atol=1e-9) -> np.ndarray:
    """Vector ``v`` of a skew-symmetric matrix ``S = [v]x``.

    Raises
    ------
    ArgumentError
        When ``S`` is not skew-symmetric within ``atol`` (relative to its size) or has a
        non-finite entry.

    Examples
    --------
    >>> unskew(skew([1.0, -2.0, 1.0]))
    array([ 1., -2.,  1.])
    """
    S = np.asarray(S, dtype=float)
    if S.shape != (3, 3):
        raise DimensionError(f"unskew expects a 3x3 matrix, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ArgumentError("unskew: S has a non-finite entry")
    scale = max(1.0, float(np.abs(S).max()))
    if np.abs(S + S.T).max() > atol * scale:
        raise ArgumentError(
            f"unskew: S is not skew-symmetric (max |S + S^T| = {np.abs(S + S.T).max():.3g})"
        )
    return np.array([S[2, 1], S[0, 2], S[1, 0]])


def _points_and_directions(points, directions, what="element"):
    b = np.atleast_2d(np.asarray(points, dtype=float))
    s = np.atleast_2d(np.asarray(directions, dtype=float))
    if b.shape != s.shape:
        raise DimensionError(
            f"{what} points have shape {b.shape} but directions have shape {s.shape}"
        )
    if b.shape[1] not in (2, 3):
        raise DimensionError(
            f"{what} coordinates must be 2-D (planar) or 3-D (spatial), got {b.shape[1]}"
        )
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(s))):
        raise ArgumentError(f"{what} geometry contains non-finite numbers")
    return b, normalize_directions(s, what=what)


def normalize_directions(directions, *, what="element") -> np.ndarray:
    """Return unit direction vectors (rows).

    Raises
    ------
    ArgumentError
        For a zero or non-finite direction (names its index).

    Examples
    --------
    >>> normalize_directions([[3.0, 4.0]])
    array([[0.6, 0.8]])
    """
    s = np.atleast_2d(np.asarray(directions, dtype=float))
    bad = np.flatnonzero(~np.all(np.isfinite(s), axis=1))
    if bad.size:
        raise ArgumentError(f"{what} direction(s) {bad.tolist()} have non-finite entries")
    n = np.linalg.norm(s, axis=1)
    bad = np.flatnonzero(n <= 1e-300)
    if bad.size:
        raise ArgumentError(f"{what} direction(s) {bad.tolist()} have zero length")
    return s / n[:, None]


def line_jacobian(points, directions, origin=None) -> np.ndarray:
    """Jacobian of line elements (struts, springs, actuators, single-axis sensors).

    Parameters
    ----------
    points : array_like ``(n, 2)`` or ``(n, 3)``
        Attachment points on the moving body, in the reference frame (usually {M} at the
        centre of mass).
    directions : array_like, same shape
        Line directions (normalised here).
    origin : array_like, optional
        Origin of the frame {O} in which the Jacobian is expressed, in reference-frame
        coordinates (axes stay parallel). Default: the reference origin.

    Returns
    -------
    numpy.ndarray
        ``(n, 3)`` planar or ``(n, 6)`` spatial.

    Examples
    --------
    >>> line_jacobian([[-0.5, -0.85]], [[1.0, 0.0]])
    array([[1.  , 0.  , 0.85]])
    >>> line_jacobian([[-0.5, -0.85]], [[1.0, 0.0]], origin=[0.0, -0.85])
    array([[1., 0., 0.]])
    """
    b, s = _points_and_directions(points, directions)
    if origin is not None:
        o = np.asarray(origin, dtype=float)
        if o.shape != (b.shape[1],):
            raise DimensionError(f"origin must have {b.shape[1]} coordinates, got shape {o.shape}")
        b = b - o
    if b.shape[1] == 2:
        arm = b[:, 0] * s[:, 1] - b[:, 1] * s[:, 0]
        return np.column_stack([s, arm]) + 0.0  # "+ 0.0" turns -0.0 into 0.0
    return np.hstack([s, np.cross(b, s)]) + 0.0


def planar_jacobian(points, directions, origin=None) -> np.ndarray:
    """Planar strut Jacobian, rows ``[s_x, s_y, b_x s_y - b_y s_x]``.

    See :func:`line_jacobian`; this variant insists on 2-D coordinates.

    Examples
    --------
    >>> planar_jacobian([[-0.5, -0.85], [0.5, -0.85]], [[0, 1], [0, 1]])
    array([[ 0. ,  1. , -0.5],
           [ 0. ,  1. ,  0.5]])
    """
    b = np.atleast_2d(np.asarray(points, dtype=float))
    if b.shape[1] != 2:
        raise DimensionError(f"planar_jacobian needs 2-D points, got {b.shape[1]} coordinates")
    return line_jacobian(points, directions, origin)


def spatial_jacobian(points, directions, origin=None) -> np.ndarray:
    """Spatial strut Jacobian, rows ``[s^T, (b x s)^T]``.

    Examples
    --------
    >>> spatial_jacobian([[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    array([[1., 0., 0., 0., 1., 0.]])
    """
    b = np.atleast_2d(np.asarray(points, dtype=float))
    if b.shape[1] != 3:
        raise DimensionError(f"spatial_jacobian needs 3-D points, got {b.shape[1]} coordinates")
    return line_jacobian(points, directions, origin)


def point_sensor_jacobian(points, axes=None, origin=None) -> np.ndarray:
    """Rows mapping the body motion to point measurements.

    Parameters
    ----------
    points : array_like ``(k, 2)`` or ``(k, 3)``
        Sensor locations.
    axes : array_like, optional
        Measurement axes, one per point. Default: every point measures along all axes of
        the frame (x, y for planar; x, y, z for spatial), giving 2 or 3 rows per point in
        the order point 1 (x, y[, z]), point 2 (...), ...
    origin : array_like, optional
        Origin of the frame {O}, as in :func:`line_jacobian`.

    Returns
    -------
    numpy.ndarray
        For a planar biaxial sensor at ``p`` the rows are ``[1, 0, -p_y]`` and
        ``[0, 1, p_x]``.

    Examples
    --------
    >>> point_sensor_jacobian([[0.0, 0.85]])
    array([[ 1.  ,  0.  , -0.85],
           [ 0.  ,  1.  ,  0.  ]])
    """
    p = np.atleast_2d(np.asarray(points, dtype=float))
    d = p.shape[1]
    if d not in (2, 3):
        raise DimensionError(f"sensor coordinates must be 2-D or 3-D, got {d}")
    if axes is None:
        pts = np.repeat(p, d, axis=0)
        ax = np.tile(np.eye(d), (p.shape[0], 1))
    else:
        pts, ax = p, axes
    return line_jacobian(pts, ax, origin)


def frame_translation(offset) -> np.ndarray:
    """Matrix ``T`` with ``q_M = T q_O`` for a frame {O} at ``offset`` from {M}.

    Both frames are attached to the same rigid body with parallel axes; ``offset`` is
    the position of the origin of {O} in {M}. Jacobians transform as
    ``J_O = J_M T`` and mass/stiffness matrices as ``X_O = T^T X_M T``.

    Examples
    --------
    >>> frame_translation([0.0, -0.85])
    array([[ 1.  ,  0.  , -0.85],
           [ 0.  ,  1.  ,  0.  ],
           [ 0.  ,  0.  ,  1.  ]])
    """
    o = np.asarray(offset, dtype=float)
    if o.shape == (2,):
        # velocity of the CoM = v_O + omega x (M - O) = v_O + omega z x (-o)
        return np.array([[1.0, 0.0, o[1]], [0.0, 1.0, -o[0]], [0.0, 0.0, 1.0]]) + 0.0
    if o.shape == (3,):
        T = np.eye(6)
        T[:3, 3:] = skew(o)  # v_M = v_O + w x (-o) = v_O + [o]x w
        return T
    raise DimensionError(f"offset must have 2 or 3 coordinates, got shape {o.shape}")
