"""Direction cosine matrices as exact LFTs of ``t = tan(theta/2)`` or ``tan(theta/4)``.

With ``S = skew(r)`` the Cayley transform gives the active rotation about the
unit axis ``r`` by ``theta = 2 atan(t)``::

    Rot(r, theta) = (I + t S)(I - t S)^-1 = Fu([[J2, E^T], [2 E J2, I3]], t I2)

where ``E = [e1 e2]`` is an orthonormal basis of the plane normal to ``r`` with
``e1 x e2 = r`` and ``J2 = [[0, -1], [1, 0]]`` (seed 000, digest Sec. 4.2):
two occurrences of ``t``.  ``tan(theta/4)`` covers the full turn with two such
factors in series (four occurrences).  The passive rotation (``Rot(r, -theta)``)
changes the signs of ``J2`` and ``2 E J2``.
"""

from __future__ import annotations

import numpy as np

from .. import lft
from ..errors import UncertainTypeError
from .spatial import unit_axis

_J2 = np.array([[0.0, -1.0], [1.0, 0.0]])


def _plane_basis(r):
    # Any unit vector not parallel to r gives e1; e2 = r x e1 closes a right-handed triad.
    trial = np.eye(3)[int(np.argmin(np.abs(r)))]
    e1 = np.cross(trial, r)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(r, e1)
    return np.column_stack([e1, e2])


def rotation_lft_coefficients(axis, *, passive=False):
    """The 5x5 matrix ``M`` with ``Rot = Fu(M, t I2)`` (``t = tan(theta/2)``).

    Parameters
    ----------
    axis : 3 numbers
        Rotation axis (normalised here).
    passive : bool
        ``True`` gives ``Rot(axis, -theta)``, the change of components from a
        frame to the frame rotated by ``theta``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.multibody.dcm import rotation_lft_coefficients
    >>> M = rotation_lft_coefficients([0, 0, 1])
    >>> t = np.tan(np.pi / 4)                     # theta = 90 deg
    >>> R = M[2:, 2:] + M[2:, :2] @ (t * np.linalg.inv(np.eye(2) - M[:2, :2] * t)) @ M[:2, 2:]
    >>> np.round(R @ [1.0, 0.0, 0.0], 12)
    array([0., 1., 0.])
    """
    r = unit_axis(axis, "rotation axis")
    e = _plane_basis(r)
    j = -_J2 if passive else _J2
    return np.block([[j, e.T], [2.0 * e @ j, np.eye(3)]])


def rotation_lft(axis, t, *, quarter=False, passive=False):
    """Rotation matrix about ``axis`` as an exact LFT of a tangent parameter.

    Parameters
    ----------
    axis : 3 numbers
    t : ureal or number
        ``tan(theta/2)`` (2 occurrences), or ``tan(theta/4)`` when
        ``quarter=True`` (4 occurrences, valid for ``|theta| < 360 deg``).
    quarter : bool
    passive : bool
        See :func:`rotation_lft_coefficients`.

    Returns
    -------
    UncertainMatrix (3x3), or ndarray when ``t`` is a number.

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> from robustmb.multibody import rotation_lft, rotation_matrix
    >>> t = rmb.ureal("t", 0.5, range=(0.0, 1.0))
    >>> R = rotation_lft([1, 1, 0], t)
    >>> R.blocks
    {'t': 2}
    >>> th = 2 * np.arctan(0.8)
    >>> bool(np.allclose(R.usubs({"t": 0.8}), rotation_matrix([1, 1, 0], th)))
    True
    """
    m = rotation_lft_coefficients(axis, passive=passive)
    if isinstance(t, lft.UncertainElement | lft.UncertainModel):
        half = lft.lft_upper(m, t * np.eye(2))
    elif np.isscalar(t) and np.isfinite(float(t)):
        tt = float(t)
        half = m[2:, 2:] + m[2:, :2] @ np.linalg.solve(np.eye(2) - tt * m[:2, :2], tt * m[:2, 2:])
    else:
        raise UncertainTypeError(f"the tangent parameter must be a number or a ureal, got {t!r}")
    return half @ half if quarter else half
