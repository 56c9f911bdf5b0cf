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
from ..errors import DimensionError, UncertainTypeError


def is_number(x) -> bool:
    """True for a real number or a numeric numpy array (no uncertainty)."""
    if isinstance(x, numbers.Real | np.generic):
        return True
    return isinstance(x, np.ndarray) and x.dtype != object


def is_uncertain(x) -> bool:
    """True for uncertain elements and uncertain objects."""
    return isinstance(x, lft.UncertainElement | lft.UncertainModel | lft.UncertainRational)


def check_scalar(x, what: str):
    """Accept a real number or an uncertain scalar; raise naming ``what`` otherwise."""
    if isinstance(x, bool):
        raise UncertainTypeError(f"{what} must be a number or a ureal, got {x!r}")
    if isinstance(x, numbers.Real | np.generic):
        if not np.isfinite(float(x)):
            raise DimensionError(f"{what} must be finite, got {x!r}")
        return float(x)
    if isinstance(x, lft.UncertainElement):
        if x.kind != "real":
            raise UncertainTypeError(
                f"{what}: only real parameters (ureal) are allowed, "
                f"got the {x.kind} element {x.name!r}"
            )
        return x
    if isinstance(x, lft.UncertainModel | lft.UncertainRational):
        m = lft.umat(x) if isinstance(x, lft.UncertainModel) else x
        shape = lft.umat(m).shape if isinstance(m, lft.UncertainRational) else m.shape
        if shape != (1, 1):
            raise DimensionError(f"{what} must be a scalar, got an object of shape {shape}")
        return x
    raise UncertainTypeError(f"{what} must be a number or a ureal, got {type(x).__name__}")


def vector3(v, what: str):
    """Three scalar entries (numbers or uncertain scalars) as a tuple."""
    if isinstance(v, lft.UncertainModel):
        raise UncertainTypeError(
            f"{what}: give the three entries as a sequence "
            "(numbers or ureal expressions), not one uncertain matrix"
        )
    try:
        entries = list(np.asarray(v, dtype=object).reshape(-1))
    except Exception as exc:  # pragma: no cover - numpy raises various errors
        raise DimensionError(f"{what} must have 3 entries") from exc
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
    """An ``n``-entry column (n x 1): numbers, uncertain scalars or an uncertain matrix."""
    if isinstance(x, lft.UncertainModel):
        if x.shape == (1, n):
            x = x.T
        if x.shape != (n, 1) or x.nstates:
            raise DimensionError(f"{what} must be {n}x1, got an object of shape {x.shape}")
        return x
    arr = np.asarray(x, dtype=object).reshape(-1)
    if arr.size != n:
        raise DimensionError(f"{what} must have {n} entries, got {arr.size}")
    entries = [check_scalar(e, f"{what}[{i}]") for i, e in enumerate(arr)]
    return matrix([[e] for e in entries])
