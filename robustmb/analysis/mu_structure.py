"""Block structures of the structured singular value (MATLAB ``mussv`` ``blk`` convention).

A structure is a list of blocks ``(r, c)``:

* ``(-r, 0)``: real repeated scalar ``delta * I_r`` (``delta`` real);
* ``(r, 0)``: complex repeated scalar ``delta * I_r``;
* ``(r, c)`` with ``r, c > 0``: complex full block ``Delta_i`` of size ``r x c``.

``Delta = blkdiag(Delta_1, ...)`` is ``(sum r) x (sum c)`` and closes the loop
``w = Delta z`` around ``z = M w``, so ``M`` is ``(sum c) x (sum r)``.  Block ``i``
reads the rows ``z_i`` of ``M`` (``c_i`` of them) and drives its columns ``w_i``
(``r_i`` of them).  This module also builds the matrices that commute with the
structure (the ``D`` scalings and the ``G`` scalings of the upper bound) and the
structured perturbations of the lower bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ..errors import DimensionError, IllPosedError, UncertainTypeError

__all__ = ["Block", "BlockStructure", "as_matrix_stack", "dagger", "hermitian_power"]

REAL = "real"
COMPLEX = "complex"
FULL = "full"


@dataclass(frozen=True)
class Block:
    """One block of an uncertainty structure.

    Attributes
    ----------
    index : int
        Position of the block in ``blk``.
    kind : {"real", "complex", "full"}
        Real repeated scalar, complex repeated scalar or complex full block.
    rows, cols : int
        Size of ``Delta_i`` (``rows == cols`` for scalar blocks).
    w : slice
        Columns of ``M`` (and rows of ``Delta``) that belong to the block.
    z : slice
        Rows of ``M`` (and columns of ``Delta``) that belong to the block.
    """

    index: int
    kind: str
    rows: int
    cols: int
    w: slice
    z: slice

    @property
    def is_scalar(self) -> bool:
        """True for repeated scalar blocks (real or complex)."""
        return self.kind != FULL

    @property
    def blk(self) -> tuple[int, int]:
        """The block in MATLAB ``mussv`` notation."""
        if self.kind == REAL:
            return (-self.rows, 0)
        if self.kind == COMPLEX:
            return (self.rows, 0)
        return (self.rows, self.cols)


class BlockStructure:
    """A parsed ``blk`` list with the index bookkeeping of every block.

    Parameters
    ----------
    blk : sequence of (int, int)
        Blocks in MATLAB ``mussv`` convention (see the module docstring).

    Attributes
    ----------
    blocks : tuple of Block
    n_z : int
        Number of rows of ``M`` (``sum c``).
    n_w : int
        Number of columns of ``M`` (``sum r``).

    Examples
    --------
    >>> s = BlockStructure([(-1, 0), (2, 0), (2, 3)])
    >>> s.n_z, s.n_w
    (6, 5)
    >>> [b.kind for b in s.blocks]
    ['real', 'complex', 'full']
    """

    def __init__(self, blk):
        rows = _parse_blk(blk)
        blocks = []
        iw = iz = 0
        for k, (r, c) in enumerate(rows):
            if c == 0:
                kind, nr, nc = (REAL, -r, -r) if r < 0 else (COMPLEX, r, r)
            else:
                kind, nr, nc = FULL, r, c
            blocks.append(Block(k, kind, nr, nc, slice(iw, iw + nr), slice(iz, iz + nc)))
            iw += nr
            iz += nc
        self.blocks = tuple(blocks)
        self.n_w = iw
        self.n_z = iz

    def __repr__(self) -> str:
        return f"BlockStructure({[b.blk for b in self.blocks]})"

    @property
    def has_real(self) -> bool:
        """True when at least one block is a real repeated scalar."""
        return any(b.kind == REAL for b in self.blocks)

    @property
    def all_real(self) -> bool:
        """True when every block is a real repeated scalar."""
        return all(b.kind == REAL for b in self.blocks)

    def check_shape(self, shape: tuple[int, ...]) -> None:
        """Raise :class:`DimensionError` unless a matrix of ``shape`` fits the structure.

        Examples
        --------
        >>> BlockStructure([(2, 3)]).check_shape((3, 2))
        >>> BlockStructure([(2, 3)]).check_shape((2, 3))
        Traceback (most recent call last):
        ...
        robustmb.errors.DimensionError: blk [(2, 3)] needs M of shape (sum c, sum r) = (3, 2) ...
        """
        n, m = shape[-2:]
        if (n, m) != (self.n_z, self.n_w):
            detail = ", ".join(
                f"block {b.index} {b.blk} reads {b.cols} row(s) and drives {b.rows} column(s)"
                for b in self.blocks
            )
            raise DimensionError(
                f"blk {[b.blk for b in self.blocks]} needs M of shape (sum c, sum r) = "
                f"({self.n_z}, {self.n_w}) but M is {n} x {m} ({detail})"
            )

    # ----------------------------------------------------------------- scalings
    def right_scaling(self, D_left: np.ndarray) -> np.ndarray:
        """The right scaling ``D_r`` (``n_w x n_w``) implied by a left scaling ``D_l``.

        Scalar blocks use the same matrix on both sides; a full block ``r x c``
        with ``D_l`` block ``d I_c`` gets ``d I_r``.  Works on stacks ``(..., n_z, n_z)``.

        Examples
        --------
        >>> s = BlockStructure([(2, 3)])
        >>> s.right_scaling(2.0 * np.eye(3)).real
        array([[2., 0.],
               [0., 2.]])
        """
        D_left = np.asarray(D_left)
        out = np.zeros(D_left.shape[:-2] + (self.n_w, self.n_w), dtype=np.result_type(D_left, 1.0))
        for b in self.blocks:
            if b.is_scalar:
                out[..., b.w, b.w] = D_left[..., b.z, b.z]
            else:
                d = D_left[..., b.z.start, b.z.start]
                idx = np.arange(b.w.start, b.w.stop)
                out[..., idx, idx] = d[..., None]
        return out

    def middle_g(self, G_left: np.ndarray) -> np.ndarray:
        """The ``n_z x n_w`` matrix that carries the real-block ``G_i`` from ``z_i`` to ``w_i``.

        Examples
        --------
        >>> s = BlockStructure([(-1, 0), (1, 2)])
        >>> s.middle_g(np.diag([3.0, 0.0, 0.0])).real
        array([[3., 0.],
               [0., 0.],
               [0., 0.]])
        """
        G_left = np.asarray(G_left)
        out = np.zeros(G_left.shape[:-2] + (self.n_z, self.n_w), dtype=np.result_type(G_left, 1.0))
        for b in self.blocks:
            if b.kind == REAL:
                out[..., b.z, b.w] = G_left[..., b.z, b.z]
        return out

    def right_g(self, G_left: np.ndarray) -> np.ndarray:
        """The ``n_w x n_w`` copy of the real-block ``G_i`` on the ``w`` side."""
        G_left = np.asarray(G_left)
        out = np.zeros(G_left.shape[:-2] + (self.n_w, self.n_w), dtype=np.result_type(G_left, 1.0))
        for b in self.blocks:
            if b.kind == REAL:
                out[..., b.w, b.w] = G_left[..., b.z, b.z]
        return out

    def scaling_violation(self, D_left: np.ndarray) -> np.ndarray:
        """Relative size of the part of ``D_l`` that does not commute with the structure.

        Zero for a valid ``D``: block diagonal, full blocks a multiple of the identity.
        Returns one number per matrix of the stack.
        """
        D_left = np.asarray(D_left)
        allowed = np.zeros(D_left.shape[-2:], dtype=bool)
        residue = np.array(D_left, dtype=complex, copy=True)
        for b in self.blocks:
            if b.is_scalar:
                allowed[b.z, b.z] = True
            else:
                blockv = D_left[..., b.z, b.z]
                d = blockv[..., 0, 0]
                residue[..., b.z, b.z] = blockv - d[..., None, None] * np.eye(b.cols)
        residue = np.where(allowed, 0.0, residue)
        scale = np.linalg.norm(D_left, axis=(-2, -1)) + np.finfo(float).tiny
        return np.linalg.norm(residue, axis=(-2, -1)) / scale

    def g_violation(self, G_left: np.ndarray) -> np.ndarray:
        """Relative size of the part of ``G`` outside the Hermitian real-block pattern."""
        G_left = np.asarray(G_left)
        allowed = np.zeros(G_left.shape[-2:], dtype=bool)
        for b in self.blocks:
            if b.kind == REAL:
                allowed[b.z, b.z] = True
        outside = np.where(allowed, 0.0, G_left)
        herm = G_left - np.conj(np.swapaxes(G_left, -1, -2))
        scale = np.linalg.norm(G_left, axis=(-2, -1)) + 1.0
        return (
            np.linalg.norm(outside, axis=(-2, -1)) + np.linalg.norm(herm, axis=(-2, -1))
        ) / scale

    # ----------------------------------------------------------- perturbations
    def delta_violation(self, delta: np.ndarray) -> tuple[float, str]:
        """Size of the part of ``Delta`` outside the structure, and a description of it.

        Checks the zero pattern, scalar blocks being ``delta * I`` and real blocks
        being real.  Returns ``(relative_violation, message)``.
        """
        delta = np.asarray(delta)
        scale = max(np.abs(delta).max(initial=0.0), np.finfo(float).tiny)
        pattern = np.zeros((self.n_w, self.n_z), dtype=bool)
        worst, what = 0.0, ""
        for b in self.blocks:
            pattern[b.w, b.z] = True
            sub = delta[b.w, b.z]
            if b.is_scalar:
                dev = np.abs(sub - sub[0, 0] * np.eye(b.rows)).max() / scale
                if dev > worst:
                    worst, what = dev, f"block {b.index} {b.blk} is not a multiple of I"
                if b.kind == REAL:
                    dev = abs(sub[0, 0].imag) / scale
                    if dev > worst:
                        worst, what = dev, f"real block {b.index} {b.blk} is not real"
        outside = np.abs(np.where(pattern, 0.0, delta)).max(initial=0.0) / scale
        if outside > worst:
            worst, what = outside, "Delta has entries outside its block-diagonal pattern"
        return worst, what

    def block_norm(self, delta: np.ndarray) -> float:
        """``max_i sigma_max(Delta_i)`` (the norm that ``mu`` measures ``Delta`` with)."""
        delta = np.asarray(delta)
        return max(float(np.linalg.norm(delta[b.w, b.z], 2)) for b in self.blocks)


def _parse_blk(blk) -> list[tuple[int, int]]:
    """Validate ``blk`` and return it as a list of integer pairs."""
    if _holds_bool(blk):
        # numpy turns True into 1: a flag given for a block size is a mistake
        raise UncertainTypeError(f"blk must hold integer block sizes, not booleans; got {blk!r}")
    try:
        arr = np.asarray(blk)
    except Exception as exc:  # pragma: no cover - numpy accepts almost anything
        raise UncertainTypeError(f"blk must be a list of (r, c) pairs, got {blk!r}") from exc
    if arr.ndim == 1 and arr.size == 2:
        arr = arr.reshape(1, 2)
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        raise DimensionError(
            f"blk must be a non-empty list of (r, c) pairs; got an array of shape {arr.shape}"
        )
    out = []
    for k, row in enumerate(arr.tolist()):
        r, c = row
        for v in (r, c):
            if not isinstance(v, Integral) and not (isinstance(v, float) and float(v).is_integer()):
                raise UncertainTypeError(f"blk block {k} {tuple(row)} has a non-integer size {v!r}")
        r, c = int(r), int(c)
        if c < 0 or r == 0 or (c > 0 and r < 0):
            raise DimensionError(
                f"blk block {k} ({r}, {c}) is not a valid block: use (-r, 0) for a real "
                "repeated scalar, (r, 0) for a complex repeated scalar and (r, c) with r, c > 0 "
                "for a complex full block"
            )
        out.append((r, c))
    return out


def _holds_bool(x) -> bool:
    if isinstance(x, bool | np.bool_):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype == bool
    if isinstance(x, list | tuple):
        return any(_holds_bool(y) for y in x)
    return False


def as_matrix_stack(M) -> tuple[np.ndarray, bool]:
    """Return ``M`` as a complex ``(nw, n, m)`` stack and whether it was a single matrix.

    Examples
    --------
    >>> S, single = as_matrix_stack([[1.0, 2.0], [3.0, 4.0]])
    >>> S.shape, single
    ((1, 2, 2), True)
    """
    try:
        arr = np.asarray(M)
    except Exception as exc:  # pragma: no cover
        raise UncertainTypeError(f"M must be an array, got {type(M).__name__}") from exc
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise UncertainTypeError(f"M must be a numeric array, got dtype {arr.dtype}")
    if arr.ndim == 2:
        stack, single = arr[None], True
    elif arr.ndim == 3:
        stack, single = arr, False
    else:
        raise DimensionError(
            f"M must be a matrix (n, m) or a frequency stack (nw, n, m); got shape {arr.shape}"
        )
    stack = stack.astype(complex)
    bad = ~np.isfinite(stack).all(axis=(-2, -1))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        where = "M" if single else f"M[{k}]"
        raise IllPosedError(f"{where} has non-finite entries (evaluated at a pole of the model?)")
    return stack, single


def dagger(X):
    """Conjugate transpose of a matrix or of every matrix of a stack."""
    return np.conj(np.swapaxes(X, -1, -2))


def hermitian_power(H, power):
    """``(I + H^2)^power`` for a Hermitian ``H`` or a stack of them.

    ``hypot`` keeps ``1 + h^2`` from overflowing for very large eigenvalues ``h``.

    Examples
    --------
    >>> round(float(hermitian_power(np.array([[3.0]]), 0.5)[0, 0].real), 12)  # sqrt(10)
    3.162277660168
    """
    w, V = np.linalg.eigh(0.5 * (H + dagger(H)))
    return (V * (np.hypot(1.0, w) ** (2 * power))[..., None, :]) @ dagger(V)
