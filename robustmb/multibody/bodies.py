"""Rigid bodies and uniform acceleration fields.

A body has a frame ``R_k`` with reference point (origin) ``O_k``; its centre
of mass and its ports are given in ``R_k`` components relative to ``O_k``.
Every physical parameter may be a number or a ``ureal`` (or an expression of
ureals, e.g. ``rho * L``).
"""

from __future__ import annotations

import numbers

import numpy as np

from .. import lft
from ..errors import DimensionError, SignalError
from . import _generic as g


def gravity(g_magnitude=9.81, direction=(0.0, 0.0, -1.0)):
    """Uniform acceleration ``a`` of the reference frame that models gravity: ``a = -g``.

    The mechanism equations are written in a frame accelerating with ``a``
    relative to an inertial frame (seed 000, Def. 2.1); a gravity field ``g``
    is the same as ``a = -g``.

    Examples
    --------
    >>> from robustmb.multibody import gravity
    >>> gravity(9.81)
    array([0.  , 0.  , 9.81])
    """
    d = np.asarray(direction, dtype=float)
    if d.shape != (3,):
        raise DimensionError(f"gravity: direction must be a 3-vector, got shape {d.shape}")
    n = np.linalg.norm(d)
    if n == 0 or not np.isfinite(n):
        raise DimensionError("gravity direction must be a non-zero finite 3-vector")
    if isinstance(g_magnitude, bool) or not isinstance(g_magnitude, numbers.Real):
        raise DimensionError(f"gravity: g_magnitude must be a real number, got {g_magnitude!r}")
    if not np.isfinite(g_magnitude):
        raise DimensionError(f"gravity: g_magnitude must be finite, got {g_magnitude!r}")
    return -float(g_magnitude) * d / n + 0.0  # + 0.0 turns -0.0 into 0.0


class RigidBody:
    """A rigid body with any number of ports.

    Parameters
    ----------
    name : str
    mass : float or ureal
    inertia : float, 3 entries or 3x3 entries
        Inertia tensor at the centre of mass in body axes: a scalar means
        ``J * I3``, three entries the diagonal.
    cog : 3 entries
        Centre of mass in body coordinates.
    ports : dict[str, 3 entries]
        Named points of the body (joint points, wrench application points,
        measured points) in body coordinates.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.multibody import RigidBody
    >>> L = rmb.ureal("L", 1.0, percent=20)
    >>> link = RigidBody("link", mass=2.0, inertia=0.1, cog=[0, 0.5 * L, 0],
    ...                  ports={"base": [0, 0, 0], "tip": [0, L, 0]})
    >>> sorted(link.ports)
    ['base', 'tip']
    """

    def __init__(self, name, mass, inertia=0.0, cog=(0.0, 0.0, 0.0), ports=None):
        if not isinstance(name, str) or not name:
            raise SignalError(f"a body needs a non-empty name, got {name!r}")
        self.name = name
        self.mass = g.check_scalar(mass, f"body {name!r}: mass")
        for where, m in _corners(self.mass):
            if m < 0:
                raise DimensionError(f"body {name!r}: mass must be non-negative, got {m}{where}")
        self.inertia = _inertia_entries(inertia, name)
        self.cog = g.vector3(cog, f"body {name!r}: cog")
        self.ports = {}
        for pname, pos in (ports or {}).items():
            if not isinstance(pname, str) or not pname:
                raise SignalError(f"body {name!r}: port names must be non-empty strings")
            self.ports[pname] = g.vector3(pos, f"body {name!r}: port {pname!r}")

    def port(self, port_name):
        """Coordinates of a port; raises naming the body if it has no such port."""
        try:
            return self.ports[port_name]
        except KeyError:
            raise SignalError(
                f"port {port_name!r} does not belong to body {self.name!r} "
                f"(its ports: {sorted(self.ports)})"
            ) from None

    def spatial_inertia_at(self, point):
        """``D_P`` at a point given by its body coordinates (3 entries)."""
        bp = tuple(_sub(p, c) for p, c in zip(point, self.cog, strict=True))
        tau = g.block([[np.eye(3), g.skew(bp)], [None, np.eye(3)]], [3, 3], [3, 3])
        dg = g.bdiag(g.smul(self.mass, np.eye(3)), g.matrix(self.inertia))
        return g.mm(tau.T, dg, tau)

    def nominal_spatial_inertia_at(self, point):
        """Numeric ``D_P`` with every parameter at its nominal value."""
        return g.nominal(self.spatial_inertia_at(point))

    def __repr__(self):
        return f"RigidBody({self.name!r}, ports={sorted(self.ports)})"


def _sub(a, b):
    if g.is_number(b) and float(b) == 0.0:
        return a
    if g.is_number(a) and float(a) == 0.0:
        return -b
    return a - b


def _inertia_entries(inertia, name):
    what = f"body {name!r}: inertia"
    arr = np.asarray(inertia, dtype=object)
    if arr.ndim == 0:
        d = [g.check_scalar(inertia, what)] * 3
        labels = [what] * 3
    elif arr.shape == (3,):
        d = [g.check_scalar(e, f"{what}[{i}]") for i, e in enumerate(arr)]
        labels = [f"{what}[{i}]" for i in range(3)]
    else:
        d = None
    if d is not None:
        # a diagonal inertia is semidefinite iff each entry is >= 0: exact at the range ends
        for label, e in zip(labels, d, strict=True):
            for where, v in _corners(e):
                if v < 0:
                    raise DimensionError(
                        f"{label} must be non-negative (positive semidefinite inertia), "
                        f"got {v}{where}"
                    )
        return [[d[i] if i == k else 0.0 for k in range(3)] for i in range(3)]
    if arr.shape != (3, 3):
        raise DimensionError(f"{what} must be a scalar, 3 entries or 3x3, got shape {arr.shape}")
    out = [[g.check_scalar(arr[i, k], f"{what}[{i},{k}]") for k in range(3)] for i in range(3)]
    num = np.array([[float(g.nominal(e)[0, 0]) for e in row] for row in out])
    if np.abs(num - num.T).max() > 1e-9 * max(1.0, np.abs(num).max()):
        raise DimensionError(f"{what} must be symmetric")
    check_inertia(num, what, "" if all(g.is_number(e) for r in out for e in r) else " (nominal)")
    return out


def check_inertia(num, what, where=""):
    """Raise unless the numeric 3x3 inertia ``num`` is positive semidefinite.

    Only a negative eigenvalue is refused: principal moments that break the
    triangle inequality are kept (some published data sets do so).  A diagonal
    ``num`` is checked exactly; otherwise an eigenvalue down to ``-16 eps``
    times the largest ``|eigenvalue|`` is taken for rounding.  A zero inertia
    (point mass) is semidefinite.

    Examples
    --------
    >>> check_inertia(np.diag([5.0, 3.0, 17.0]), "inertia")     # no triangle check
    >>> try:
    ...     check_inertia(np.diag([1.0, 1.0, -1.0]), "body 'b': inertia")
    ... except DimensionError as err:
    ...     print(str(err).split(",")[0])
    body 'b': inertia must be positive semidefinite
    >>> check_inertia(np.zeros((3, 3)), "inertia")             # a point mass
    """
    num = 0.5 * (num + num.T)
    eig = np.linalg.eigvalsh(num)
    # a diagonal inertia is checked exactly, as its 3 entries are; otherwise the rounding
    # of a semidefinite matrix (rotated, shifted) leaves eigenvalues of order eps * |J|,
    # relative to the body's own scale (a small body's J is not compared with 1)
    off = num - np.diag(np.diag(num))
    tol = 0.0 if not off.any() else 16.0 * np.finfo(float).eps * float(np.abs(eig).max())
    if eig[0] < -tol:
        raise DimensionError(
            f"{what} must be positive semidefinite{where}, its eigenvalues are {eig}"
        )


def _corners(x):
    """Values of a scalar parameter at which its sign can be checked exactly.

    A number: itself; a ureal: its nominal and its range ends; an expression
    of ureals: its nominal only (its extreme values need not be at the ends).
    """
    if g.is_number(x):
        return [("", float(x))]
    out = [(" (nominal)", float(g.nominal(x)[0, 0]))]
    if isinstance(x, lft.UncertainElement):
        lo, hi = x.range
        out += [(f" (ureal {x.name!r} at the end of its range)", v) for v in (lo, hi)]
    return out
