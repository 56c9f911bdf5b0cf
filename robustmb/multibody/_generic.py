"""Arithmetic that works on plain numbers and on uncertain LFT objects alike.

The multibody generator writes every equation once with these helpers.  When
all operands are numbers they return ``numpy`` arrays (fast, and handy for
checks); as soon as one operand is an uncertain element or object they return
exact LFT objects of :mod:`robustmb.lft`.  Vectors are 3x1 columns throughout.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg as sla

from .. import lft
from ..errors import ArgumentError, DimensionError, UncertainTypeError


def is_number(x) -> bool:
    """True for a real number or a numeric numpy array (no uncertainty)."""
    if isinstance(x, numbers.Real | np.generic):
        return True
    return isinstance(x, np.ndarray) and x.dtype != object


def is_uncertain(x) -> bool:
    """True for uncertain elements and uncertain objects."""
    return isinstance(x, lft.UncertainElement | lft.UncertainModel | lft.UncertainRational)


def _real_elements_only(elements, what):
    """Refuse a complex or dynamic element among ``elements``, naming ``what``."""
    for el in elements:
        if el.kind != "real":
            raise UncertainTypeError(
                f"{what}: only real parameters (ureal) are allowed, "
                f"got the {el.kind} element {el.name!r}"
            )


def numeric_value(x, what, *, why, suffix=""):
    """``x`` as a float for a model computed numerically (finiteness left to the caller).

    ``what`` starts the messages (e.g. ``"balloon_gondola: k"``), ``suffix`` follows the
    value shown (e.g. ``" (entry 1)"``), ``why`` says why uncertain values are refused.
    Raises :class:`~robustmb.errors.ArgumentError` for an uncertain value, a boolean or a
    value that is not a number.

    Examples
    --------
    >>> numeric_value(2, "f: a", why="numeric")
    2.0
    """
    if is_uncertain(x):
        raise ArgumentError(f"{what} must be a number, got {x!r}{suffix}: {why}")
    if isinstance(x, bool | np.bool_):
        raise ArgumentError(f"{what} must be a number, got {x!r}{suffix}")
    try:
        return float(x)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what} must be a number, got {x!r}{suffix}") from None


def check_scalar(x, what: str):
    """Accept a real number or a static real uncertain scalar; raise naming ``what`` otherwise.

    An uncertain scalar is a ``ureal`` or a 1x1 expression of ureals (``2 * k``,
    ``rho * L``): it must have no states and contain real parameters only.
    """
    if isinstance(x, bool | np.bool_):
        raise UncertainTypeError(f"{what} must be a number or a ureal, got {x!r}")
    if isinstance(x, numbers.Real):
        if not np.isfinite(float(x)):
            raise DimensionError(f"{what} must be finite, got {x!r}")
        return float(x)
    if isinstance(x, lft.UncertainElement):
        _real_elements_only([x], what)
        return x
    if isinstance(x, lft.UncertainRational):
        raise UncertainTypeError(
            f"{what} must be static (a number, a ureal or an expression of ureals), "
            "got a transfer function"
        )
    if isinstance(x, lft.UncertainModel):
        if x.shape != (1, 1):
            raise DimensionError(f"{what} must be a scalar, got an object of shape {x.shape}")
        _real_elements_only(x.uncertainty.values(), what)
        if x.nstates or getattr(x, "is_system", False):
            states = f"with {x.nstates} states" if x.nstates else "(a uss without states)"
            raise UncertainTypeError(
                f"{what} must be static (a number, a ureal or an expression of ureals), "
                f"got a system {states}"
            )
        return x
    raise UncertainTypeError(f"{what} must be a number or a ureal, got {type(x).__name__}")


def sequence_entries(v, what: str):
    """Shape and flat list of the entries of a (nested) sequence, read one by one.

    Lists, tuples, ranges and arrays are sequences; anything else (a number, a
    ureal, a 1x1 uncertain expression) is one entry.  ``np.asarray(v,
    dtype=object)`` cannot be used: it iterates an uncertain expression (it has
    a length) and fails, or splits it, depending on where it stands in ``v``.
    Entries are not checked (see :func:`check_scalar`).

    Raises
    ------
    DimensionError
        For rows of different lengths (naming ``what``).

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0)
    >>> shape, entries = sequence_entries([2 * k, 0, 0], "cog")
    >>> shape, len(entries)
    ((3,), 3)
    """
    if isinstance(v, np.ndarray):
        if v.dtype != object:
            return v.shape, list(v.reshape(-1))
        if v.ndim == 0:
            return sequence_entries(v.item(), what)
        items = list(v)
    elif isinstance(v, list | tuple | range):
        items = list(v)
    else:
        return (), [v]
    shapes, flat = [], []
    for e in items:
        shape_e, entries_e = sequence_entries(e, what)
        shapes.append(shape_e)
        flat.extend(entries_e)
    if len(set(shapes)) > 1:
        raise DimensionError(
            f"{what} must be a rectangular array of entries, got rows of shapes "
            f"{sorted(set(shapes))}"
        )
    return (len(items), *(shapes[0] if shapes else ())), flat


def vector3(v, what: str):
    """Three scalar entries (numbers or uncertain scalars) as a tuple.

    Each entry is a number, a ``ureal`` or a static 1x1 expression of ureals,
    checked by :func:`check_scalar` under the name ``what[i]``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0)
    >>> cog = vector3([2 * k, 0, 0], "cog")
    >>> cog[1:], cog[0].shape
    ((0.0, 0.0), (1, 1))
    """
    if isinstance(v, lft.UncertainModel | lft.UncertainRational):
        raise UncertainTypeError(
            f"{what}: give the three entries as a sequence "
            "(numbers or ureal expressions), not one uncertain matrix"
        )
    _, entries = sequence_entries(v, what)
    if len(entries) != 3:
        raise DimensionError(f"{what} must have 3 entries, got {len(entries)}")
    return tuple(check_scalar(e, f"{what}[{i}]") for i, e in enumerate(entries))


def matrix(entries):
    """A 2-D array-like of numbers and uncertain scalars as ndarray or umat."""
    if is_uncertain(entries):
        return lft.umat(entries) if not isinstance(entries, lft.UncertainModel) else entries
    arr = _object_array(entries)
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if all(is_number(e) for e in arr.flat):
        return arr.astype(float)
    return lft.umat([[e for e in row] for row in arr])


def _object_array(entries):
    """``entries`` as an object array; uncertain scalars stay entries.

    ``np.asarray(..., dtype=object)`` would try to iterate an uncertain matrix
    entry (it has ``__len__``) and fail, so nested lists are filled by hand.
    """
    if isinstance(entries, np.ndarray):
        return entries.astype(object) if entries.dtype != object else entries
    if isinstance(entries, list | tuple) and any(
        isinstance(e, list | tuple | np.ndarray) for e in entries
    ):
        rows = [list(r) if isinstance(r, list | tuple | np.ndarray) else [r] for r in entries]
        ncols = {len(r) for r in rows}
        if len(ncols) != 1:
            raise DimensionError(f"rows of different lengths {sorted(ncols)}")
        arr = np.empty((len(rows), ncols.pop()), dtype=object)
        for i, r in enumerate(rows):
            for k, e in enumerate(r):
                arr[i, k] = e
        return arr
    if isinstance(entries, list | tuple):
        arr = np.empty(len(entries), dtype=object)
        for i, e in enumerate(entries):
            arr[i] = e
        return arr
    arr = np.empty((), dtype=object)
    arr[()] = entries
    return arr


def column(v):
    """Three entries as a 3x1 column."""
    return matrix([[e] for e in v])


def mm(*xs):
    """Matrix product ``x1 @ x2 @ ...``."""
    out = xs[0]
    for x in xs[1:]:
        out = out @ x
    return out


def smul(s, x):
    """Scalar ``s`` (number or uncertain scalar) times matrix ``x``."""
    if is_number(s):
        return float(s) * x
    if is_number(x) and not np.any(x):
        return np.zeros(np.shape(x))
    return s * x


def tr(x):
    """Transpose."""
    return x.T


def hcat(*xs):
    """Horizontal concatenation."""
    if all(is_number(x) for x in xs):
        return np.hstack([np.atleast_2d(x) for x in xs])
    return lft.hstack(*xs)


def vcat(*xs):
    """Vertical concatenation."""
    if all(is_number(x) for x in xs):
        return np.vstack([np.atleast_2d(x) for x in xs])
    return lft.vstack(*xs)


def bdiag(*xs):
    """Block-diagonal concatenation."""
    if all(is_number(x) for x in xs):
        return sla.block_diag(*[np.atleast_2d(x) for x in xs])
    return lft.block_diag(*xs)


def block(rows, row_sizes, col_sizes):
    """Assemble a block matrix; ``None`` entries are zero blocks of the given sizes."""
    built = []
    for i, row in enumerate(rows):
        pieces = [
            np.zeros((row_sizes[i], col_sizes[j])) if x is None else x for j, x in enumerate(row)
        ]
        built.append(hcat(*pieces))
    return vcat(*built)


def shape(x):
    """Shape of an array or an uncertain object."""
    if is_number(x):
        return np.shape(np.atleast_2d(x))
    return lft.umat(x).shape if not isinstance(x, lft.UncertainModel) else x.shape


def nominal(x):
    """Nominal value as float ndarray (scalars give 1x1 arrays)."""
    if is_number(x):
        return np.atleast_2d(np.asarray(x, dtype=float))
    if isinstance(x, lft.UncertainElement):
        return np.array([[float(x.nominal)]])
    return np.atleast_2d(
        np.asarray(
            lft.umat(x).nominal() if not isinstance(x, lft.UncertainModel) else x.nominal(),
            dtype=float,
        )
    )


def simplified(x):
    """``simplify`` for uncertain objects; numbers pass through."""
    if is_number(x):
        return x
    return lft.simplify(lft.umat(x) if not isinstance(x, lft.UncertainModel) else x)


def occurrences(x) -> dict[str, int]:
    """Occurrences of each element (empty for numbers)."""
    if is_number(x):
        return {}
    m = x if isinstance(x, lft.UncertainModel) else lft.umat(x)
    return dict(m.blocks)


def skew(v):
    """Skew matrix ``sk(v)`` with ``sk(v) @ w = v x w``.

    ``v`` is a numeric 3-vector or a sequence of three scalars (numbers or
    uncertain scalars): each uncertain entry then appears twice.
    """
    if is_number(v) and np.size(v) == 3:
        x, y, z = np.asarray(v, dtype=float).reshape(3)
        return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    x, y, z = v
    if all(is_number(e) for e in (x, y, z)):
        return skew(np.array([x, y, z], dtype=float))
    return matrix([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def diff(a, b):
    """``a - b`` for scalar entries, keeping exact zeros numeric (no needless occurrences)."""
    if is_number(b) and float(b) == 0.0:
        return a
    if is_number(a) and float(a) == 0.0:
        return -b
    if is_number(a) and is_number(b):
        return float(a) - float(b)
    return a - b


def vdiff(u, v):
    """Entry-wise ``u - v`` of two 3-entry sequences (see :func:`diff`)."""
    return tuple(diff(a, b) for a, b in zip(u, v, strict=True))


def split_wrench(w):
    """Force and torque rows (3x1 each) of a 6x1 matrix."""
    if is_number(w):
        w = np.asarray(w, dtype=float).reshape(6, 1)
        return w[:3], w[3:]
    return w[0:3, :], w[3:6, :]


def column_of(x, n, what: str):
    """An ``n``-entry column (n x 1): numbers, uncertain scalars or an uncertain matrix.

    A sequence is read entry by entry (:func:`sequence_entries`), each entry a
    number, a ``ureal`` or a static 1x1 expression of ureals (:func:`check_scalar`,
    named ``what[i]``); a static n x 1 or 1 x n uncertain matrix is taken whole.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 9.81, percent=1)
    >>> column_of([0, 0, 2 * a], 3, "frame_acceleration").shape
    (3, 1)
    """
    if isinstance(x, lft.UncertainModel):
        if x.shape == (1, n):
            x = x.T
        if x.shape != (n, 1) or x.nstates:
            raise DimensionError(f"{what} must be {n}x1, got an object of shape {x.shape}")
        _real_elements_only(x.uncertainty.values(), what)
        return x
    _, entries = sequence_entries(x, what)
    if len(entries) != n:
        raise DimensionError(f"{what} must have {n} entries, got {len(entries)}")
    entries = [check_scalar(e, f"{what}[{i}]") for i, e in enumerate(entries)]
    return matrix([[e] for e in entries])
