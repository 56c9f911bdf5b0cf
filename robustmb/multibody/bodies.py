"""Rigid bodies and uniform acceleration fields.

A body has a frame ``R_k`` with reference point (origin) ``O_k``; its centre
of mass and its ports are given in ``R_k`` components relative to ``O_k``.
Every physical parameter may be a number or a ``ureal`` (or an expression of
ureals, e.g. ``rho * L``); an inertia may also be an uncertain matrix.  Masses
and inertias are checked over the whole box of their ureals
(:func:`check_nonnegative`, :func:`check_inertia` and :mod:`.parameter_box`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from .. import lft
from ..errors import (
    ArgumentError,
    DimensionError,
    NonphysicalInertiaWarning,
    SignalError,
    warn,
)
from . import _generic as g
from .parameter_box import rounding_tolerance, semidefinite_samples


def gravity(g_magnitude=9.81, direction=(0.0, 0.0, -1.0)):
    """Uniform acceleration ``a`` of the reference frame that models gravity: ``a = -g``.

    The mechanism equations are written in a frame accelerating with ``a``
    relative to an inertial frame (seed 000, Def. 2.1); a gravity field ``g``
    is the same as ``a = -g``.

    Parameters
    ----------
    g_magnitude : float
        Non-negative: the field ``g = g_magnitude * direction / |direction|``
        (a negative magnitude, a z component written as for MATLAB's gravity
        vector, is refused rather than turned into a field pointing up).
    direction : 3 numbers
        Direction of the field (default down, ``-z``).

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
    if g_magnitude < 0:  # gravity(-9.81), read as a z component, would point up
        raise DimensionError(
            f"gravity: g_magnitude must be non-negative, got {g_magnitude!r}; the field "
            "points along direction (default (0, 0, -1), down)"
        )
    return -float(g_magnitude) * d / n + 0.0  # + 0.0 turns -0.0 into 0.0


class RigidBody:
    """A rigid body with any number of ports.

    Parameters
    ----------
    name : str
    mass : float, ureal or expression of ureals
        Non-negative at every point of the box of its ureals.
    inertia : scalar, 3 entries or 3x3 entries
        Inertia tensor at the centre of mass in body axes: a scalar means
        ``J * I3``, three entries the diagonal.  Each entry is a number, a ureal
        or an expression (``m * L * L / 12``); an uncertain matrix (``umat``) of
        shape 1x1, 3x1 or 3x3 is read entry by entry.  The tensor must be
        positive semidefinite on the whole box of its ureals: checked at the
        nominal and at every vertex of the box, which is exact when the entries
        are affine in each ureal by the structure of their LFT (e.g. ``Jxy`` off
        the diagonal, ``m * L``; :func:`~.parameter_box.multi_affine`);
        otherwise, or beyond 10 ureals, it is proved (or refuted at a point of
        the box) with the structured singular value; only when that is
        inconclusive is the box sampled, and a
        :class:`~robustmb.errors.RobustMBWarning` says that the check is not a
        proof (:mod:`.parameter_box`).  Principal moments that break the
        triangle inequality of a real body, ``I1 + I2 >= I3`` for some ordering
        (:func:`check_triangle_inequality`), give a
        :class:`~robustmb.errors.NonphysicalInertiaWarning` naming the body and
        the moments; the data are kept, as Simscape and Pinocchio keep them,
        so that published data sets that break it (the balloon of seed 001,
        moments 3, 5, 17 kg m^2) stay reproducible.  An uncertain tensor is
        checked at its nominal value only, since a box of independently
        uncertain moments may hold non-physical corners that are harmless (and
        conservative) for a robustness analysis.
    cog : 3 entries
        Centre of mass in body coordinates.
    ports : dict[str, 3 entries]
        Named points of the body (joint points, wrench application points,
        measured points) in body coordinates.
    allow_nonphysical_inertia : bool, keyword-only
        Keep principal moments that break the triangle inequality without the
        warning (default False: warn).  For published data sets that do so, e.g.
        the balloon of :func:`robustmb.examples.balloon_gondola`; positive
        semidefiniteness is required in any case.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.multibody import RigidBody
    >>> L = rmb.ureal("L", 1.0, percent=20)
    >>> link = RigidBody("link", mass=2.0, inertia=0.1, cog=[0, 0.5 * L, 0],
    ...                  ports={"base": [0, 0, 0], "tip": [0, L, 0]})
    >>> sorted(link.ports)
    ['base', 'tip']
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     plate = RigidBody("plate", mass=1.0, inertia=[1.0, 1.0, 5.0])
    >>> print(str(caught[0].message).split(";")[0])  # doctest: +ELLIPSIS
    body 'plate': inertia has principal moments [1. 1. 5.] that break ...: 1 + 1 < 5 (by 3, trace 7)
    """

    def __init__(
        self,
        name,
        mass,
        inertia=0.0,
        cog=(0.0, 0.0, 0.0),
        ports=None,
        *,
        allow_nonphysical_inertia=False,
    ):
        if not isinstance(name, str) or not name:
            raise SignalError(f"a body needs a non-empty name, got {name!r}")
        self.name = name
        self.mass = g.check_scalar(mass, f"body {name!r}: mass")
        check_nonnegative(self.mass, f"body {name!r}: mass")
        if not isinstance(allow_nonphysical_inertia, bool):
            raise ArgumentError(
                f"body {name!r}: allow_nonphysical_inertia must be True or False, "
                f"got {allow_nonphysical_inertia!r}"
            )
        self.inertia = _inertia_entries(inertia, name)
        #: Whether the triangle inequality of the moments is waived (for values substituted later).
        self.allow_nonphysical_inertia = allow_nonphysical_inertia
        if not allow_nonphysical_inertia:
            j0 = np.array([[g.nominal(e)[0, 0] for e in row] for row in self.inertia])
            uncertain = not all(g.is_number(e) for row in self.inertia for e in row)
            try:
                check_triangle_inequality(
                    j0, f"body {name!r}: inertia", " (at the nominal)" if uncertain else ""
                )
            except DimensionError as err:
                warn(str(err), NonphysicalInertiaWarning)
        self.cog = g.vector3(cog, f"body {name!r}: cog")
        self.ports = {}
        if ports is not None and not isinstance(ports, Mapping):
            raise SignalError(
                f"body {name!r}: ports must be a mapping {{port name: 3 entries}}, "
                f"got {type(ports).__name__}"
            )
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
    tree = _nested(inertia, what)
    if not isinstance(tree, list):
        d = [g.check_scalar(tree, what)] * 3
        labels = [what] * 3
    elif len(tree) == 3 and not any(isinstance(e, list) for e in tree):
        d = [g.check_scalar(e, f"{what}[{i}]") for i, e in enumerate(tree)]
        labels = [f"{what}[{i}]" for i in range(3)]
    else:
        d = None
    if d is not None:
        # a diagonal inertia is semidefinite iff each entry is >= 0 on the box
        for label, e in dict(zip(labels, d, strict=True)).items():  # a scalar: once
            check_nonnegative(e, label, "(positive semidefinite inertia)")
        return [[d[i] if i == k else 0.0 for k in range(3)] for i in range(3)]
    if not (len(tree) == 3 and all(isinstance(r, list) and len(r) == 3 for r in tree)):
        raise DimensionError(
            f"{what} must be a scalar, 3 entries or 3x3, got shape {_shape_of(tree)}"
        )
    if any(isinstance(e, list) for r in tree for e in r):
        raise DimensionError(
            f"{what} must be a scalar, 3 entries or 3x3, got shape {_shape_of(tree)}"
        )
    out = [[g.check_scalar(tree[i][k], f"{what}[{i},{k}]") for k in range(3)] for i in range(3)]
    samples, exact, description = semidefinite_samples(out)
    # values evaluated from an LFT carry rounding of the tensor's size over the box (a
    # point-mass vertex is compared with the rest); numbers are checked exactly
    scale = None
    if not all(g.is_number(e) for r in out for e in r):
        scale = max(float(np.abs(num).max()) for _, num in samples)
    for where, num in samples:
        check_inertia(num, what, where, scale=scale)
    if not exact:
        warn(f"{what}: positive semidefiniteness is not proved on the box: {description}")
    return out


def check_nonnegative(x, what, note=""):
    """Raise unless the scalar ``x`` (number, ureal or expression) is ``>= 0`` on its box.

    A number is checked as such; an uncertain ``x`` at its nominal and at every
    vertex of the box of its ureals, which is exact when ``x`` is affine in each
    ureal; otherwise it is proved positive on the box, or refuted at a point of
    it, with the structured singular value (see :mod:`.parameter_box`), and only
    when that is inconclusive is the box sampled, with a
    :class:`~robustmb.errors.RobustMBWarning` saying what was checked.  A value is
    negative when below ``-16 eps`` times the largest ``|x|`` met (its rounding,
    :func:`~robustmb.multibody.parameter_box.rounding_tolerance`): ``m L^2 / 12`` with
    a range of ``m`` reaching 0 is accepted, ``-1e-9`` times its size is not.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(-0.5, 3.0))
    >>> check_nonnegative(k + 0.5, "body 'b': mass")
    >>> try:
    ...     check_nonnegative(2.0 * k, "body 'b': mass")
    ... except DimensionError as err:
    ...     print(str(err).replace(" of the box of its ureals", ""))
    body 'b': mass must be non-negative, got -1.0 (at the vertex {'k': -0.5})
    """
    samples, exact, description = semidefinite_samples(x)
    # an exact zero evaluated from the LFT comes out as rounding noise (-1e-18)
    tol = rounding_tolerance(samples)
    for where, v in samples:
        val = float(v.reshape(-1)[0])
        if val < -tol:
            sep = f" {note}" if note else ""
            raise DimensionError(f"{what} must be non-negative{sep}, got {val}{where}")
    if not exact:
        warn(f"{what}: non-negativity is not proved on the box: {description}")


def _nested(x, what):
    """Nested lists of scalar entries (numbers or uncertain scalars) from any array-like."""
    if isinstance(x, lft.UncertainModel):
        if x.nstates or getattr(x, "is_system", False):
            raise DimensionError(f"{what} must be static, got a system with {x.nstates} states")
        rows, cols = x.shape
        if (rows, cols) == (1, 1):
            return x
        if rows == 1 or cols == 1:
            return [x[i, 0] if cols == 1 else x[0, i] for i in range(max(rows, cols))]
        return [[x[i, k] for k in range(cols)] for i in range(rows)]
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return x.item() if x.dtype == object else x[()]
        return [_nested(e, what) for e in x]
    if isinstance(x, list | tuple):
        return [_nested(e, what) for e in x]
    if isinstance(x, str | bytes | dict | set):
        raise DimensionError(f"{what} must be numbers or ureal expressions, got {x!r}")
    return x


def _shape_of(tree):
    if not isinstance(tree, list):
        return ()
    inner = {_shape_of(e) for e in tree}
    if len(inner) == 1:
        return (len(tree), *inner.pop())
    return (len(tree), "ragged")


def check_inertia(num, what, where="", scale=None):
    """Raise unless the numeric 3x3 inertia ``num`` is symmetric and positive semidefinite.

    Only a negative eigenvalue is refused here: the triangle inequality of the
    principal moments is :func:`check_triangle_inequality`'s.  Symmetry is
    required up to ``1e-9`` times the tensor's size (``scale``, default the largest
    ``|entry|`` of ``num``; no absolute floor, so a small body is held to the same
    relative standard); the tensor is never symmetrised silently.  A diagonal
    ``num`` is checked on its entries, each down to ``-16 eps`` times ``scale``
    when one is given (the rounding of values evaluated over a box of ureals) and
    exactly otherwise; a full one also allows an eigenvalue down to ``-16 eps``
    times the largest ``|eigenvalue|``.  A zero inertia (point mass) is semidefinite.

    Parameters
    ----------
    num : (3, 3) array
    what, where : str
        Name of the tensor and of the point where it was evaluated, for the error.
    scale : float, optional
        Size of the tensor over the box of its ureals (largest ``|entry|`` met).

    Examples
    --------
    >>> check_inertia(np.diag([5.0, 3.0, 17.0]), "inertia")  # see check_triangle_inequality
    >>> try:
    ...     check_inertia(np.diag([1.0, 1.0, -1.0]), "body 'b': inertia")
    ... except DimensionError as err:
    ...     print(str(err).split(",")[0])
    body 'b': inertia must be positive semidefinite
    >>> check_inertia(np.zeros((3, 3)), "inertia")             # a point mass
    >>> try:
    ...     check_inertia(np.diag([1e-6] * 3) + np.diag([5e-10] * 2, 1), "inertia")
    ... except DimensionError as err:
    ...     print(str(err).split(" (")[0])
    inertia must be symmetric
    """
    num = np.asarray(num, dtype=float)
    size = float(np.abs(num).max())
    ref = size if scale is None else max(float(scale), size)
    asym = float(np.abs(num - num.T).max())
    if asym > 1e-9 * ref:
        raise DimensionError(
            f"{what} must be symmetric{where} (largest |J - J^T| = {asym:.3g}, "
            f"largest |J| = {ref:.3g})"
        )
    eig = np.linalg.eigvalsh(num)
    # rounding: values evaluated over a box carry a few eps of the tensor's size, and a
    # rotated or shifted semidefinite matrix eigenvalues of order eps * |J|, relative to
    # the body's own scale (a small body's J is not compared with 1)
    off = num - np.diag(np.diag(num))
    tol = 0.0 if scale is None else 16.0 * np.finfo(float).eps * float(scale)
    if off.any():
        tol = max(tol, 16.0 * np.finfo(float).eps * float(np.abs(eig).max()))
    if eig[0] < -tol:
        raise DimensionError(
            f"{what} must be positive semidefinite{where}, its eigenvalues are {eig}"
        )


def check_triangle_inequality(num, what, where=""):
    """Raise unless the principal moments of the numeric 3x3 inertia ``num`` are those of a body.

    The moments ``I1, I2, I3`` of a rigid body (at any point) satisfy
    ``I1 + I2 >= I3`` for every ordering: with ``s_k`` the second moment of the
    mass along principal axis ``k``, ``I1 + I2 - I3 = 2 s_3 >= 0``.  Equivalently
    ``trace(J) / 2 * I - J`` is positive semidefinite (Wensing, Kim and Slotine,
    IEEE RA-L 2018, physical consistency of inertial parameters).  A planar
    body (``I3 = I1 + I2``) is on the boundary and kept; the largest moment may
    exceed the sum of the other two by ``16 eps`` times the trace (rounding).
    ``num`` is assumed symmetric positive semidefinite (:func:`check_inertia`).

    Parameters
    ----------
    num : (3, 3) array
    what, where : str
        Name of the tensor and of the point where it was evaluated, for the error.

    Examples
    --------
    >>> check_triangle_inequality(np.diag([0.5, 0.5, 1.0]), "inertia")  # a thin disc
    >>> try:
    ...     check_triangle_inequality(np.diag([1.0, 1.0, 5.0]), "body 'b': inertia")
    ... except DimensionError as err:
    ...     print(str(err).split(";")[0])  # doctest: +ELLIPSIS
    body 'b': inertia has principal moments [1. 1. 5.] that break the ... 1 + 1 < 5 (by 3, trace 7)
    """
    num = np.asarray(num, dtype=float)
    moments = np.linalg.eigvalsh(0.5 * (num + num.T))
    trace = float(np.trace(num))
    excess = float(moments[2] - moments[1] - moments[0])
    if excess > 16.0 * np.finfo(float).eps * abs(trace):
        raise DimensionError(
            f"{what} has principal moments {moments} that break the triangle inequality: "
            f"{moments[0]:.6g} + {moments[1]:.6g} < {moments[2]:.6g}{where} (by {excess:.3g}, "
            f"trace {trace:.6g}); a rigid body has I1 + I2 >= I3 for every ordering of its "
            "principal moments"
        )
