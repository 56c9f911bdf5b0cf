"""``C (sI - A)^{-1} B`` by LU with partial pivoting, point by point: dense, or banded after
a bandwidth-reducing permutation for sparse ``A`` (chains of bodies).

Used by :mod:`robustmb.analysis.freqresp` where its modal or Schur sums lose their relative
accuracy, and by :mod:`robustmb.analysis.model_family`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph

# Complex numbers held by one block of frequencies (bounds the working memory to ~32 MB).
_BLOCK_ELEMENTS = 2**21
# Fewest states for which an LU solve looks for a band (below, dense LU costs no more).
_BANDED_MIN_STATES = 40


def _direct_response(A, B, C, points: np.ndarray, *, terms: bool = False):
    """``C (sI - A)^{-1} B`` by one LU solve (partial pivoting) per point, in blocks of points.

    LU with partial pivoting is componentwise backward stable when its growth is small:
    the computed ``x`` solves ``(sI - A + E) x = B`` with ``|E| <= c n eps |L||U|``, close to
    ``c n eps (|s| I + |A|)``.  A perturbation of the entries of ``A`` relative to their
    size keeps the zeros of ``A``, so a response that is small because of the
    realisation's structure (``C A^k B = 0`` in a companion or chain form: a high relative
    degree far above the bandwidth) keeps its relative accuracy, where an orthogonal or
    modal decomposition, whose error is ``eps ||A||`` in norm, leaves only an absolute one.
    The relative error is about ``eps`` times the componentwise condition number
    ``|y| (|s| I + |A|) |x| / |C x|`` (``y = C (sI - A)^{-1}``): ``~3e-15`` for a
    6th-order Butterworth filter in companion form up to ``1e6`` rad/s (``|G| ~ 1e-36``).
    A point on a pole (exactly singular pencil) gives ``inf``.  ``A, B, C`` are one
    model's matrices, or stacks ``(K, n, n)``, ``(K, n, m)``, ``(K, p, n)``: model ``k`` at
    ``points[k]``.  With ``terms``, also returns ``max |C| |x|`` at each point (the size of
    the terms of the product ``C x``, whose rounding LU does not remove).
    """
    n, m = B.shape[-2:]
    p = C.shape[-2]
    if A.ndim == 2:  # one model for every point
        A, B, C = (np.broadcast_to(X, (points.size, *X.shape)) for X in (A, B, C))
    out = np.empty((points.size, p, m), dtype=complex)
    sizes = np.empty(points.size)
    block = max(1, _BLOCK_ELEMENTS // (n * n))
    eye = np.eye(n)
    for start in range(0, points.size, block):
        rows = slice(start, start + block)
        s = points[rows]
        pencil = s[:, None, None] * eye - A[rows]
        on_pole = []
        try:
            with np.errstate(all="ignore"):
                X = np.linalg.solve(pencil, B[rows])
        except np.linalg.LinAlgError:  # exactly singular at a point on a pole
            X = np.zeros((s.size, n, m), dtype=complex)
            for k in range(s.size):
                try:
                    X[k] = np.linalg.solve(pencil[k], B[start + k])
                except np.linalg.LinAlgError:
                    on_pole.append(k)
        out[rows] = C[rows] @ X
        if terms:
            with np.errstate(all="ignore"):
                sizes[rows] = np.max(np.abs(C[rows]) @ np.abs(X), axis=(1, 2), initial=0.0)
        # a point on a pole is inf outright (C @ inf would give nan where C has zeros)
        out[start + np.asarray(on_pole, dtype=int)] = np.inf
    return (out, sizes) if terms else out


def _sparse_for_lu(A, B, C):
    """Whether ``A`` has the zeros that make an LU solve beat the modal sum near its poles,
    and the band plan of :func:`_band_plan` when one was built.

    At least half of the entries zero below ``_BANDED_MIN_STATES`` states (dense LU of
    every point costs little there); from there on, a band narrower than ``n / 4`` after
    the permutation of :func:`_band_plan` (banded LU costs little).
    """
    n = A.shape[0]
    nonzero = np.count_nonzero(A)
    if n < _BANDED_MIN_STATES:
        return 2 * nonzero <= n * n, None
    if 4 * nonzero > n * n:  # no band of width n / 4 holds them
        return False, None
    plan = _band_plan(A, B, C)
    return plan is not None, plan


def _band_plan(A, B, C):
    """Band storage of ``-A`` after a reverse Cuthill-McKee permutation, or None.

    A symmetric permutation is exact, and LU with partial pivoting of the band
    (LAPACK ``gbsv``) has the componentwise backward error of the dense one (see
    :func:`_direct_response`) at ``O(n w^2)`` per point instead of ``O(n^3)`` for a band
    of width ``w``.  Used from ``_BANDED_MIN_STATES`` states, for bands narrower than a
    quarter of ``n``: a chain of masses in position-velocity coordinates has ``w ~ 5``.
    """
    n = A.shape[0]
    if n < _BANDED_MIN_STATES:
        return None
    pattern = scipy.sparse.csr_matrix((A != 0) | (A.T != 0))
    perm = scipy.sparse.csgraph.reverse_cuthill_mckee(pattern, symmetric_mode=True)
    Ap = A[np.ix_(perm, perm)]
    rows, cols = np.nonzero(Ap)
    lower = int(max(0, np.max(rows - cols, initial=0)))
    upper = int(max(0, np.max(cols - rows, initial=0)))
    if 4 * (lower + upper + 1) > n:
        return None
    band = np.zeros((lower + upper + 1, n), dtype=np.result_type(A, complex))
    for offset in range(-lower, upper + 1):
        diagonal = -np.diagonal(Ap, offset)
        start = max(0, offset)
        band[upper - offset, start : start + diagonal.size] = diagonal
    return perm, lower, upper, band, B[perm], C[:, perm]


def _banded_response(plan, points: np.ndarray, *, terms: bool = False):
    """``C (sI - A)^{-1} B`` at each point by banded LU (partial pivoting, LAPACK
    ``gbsv``) of the permuted pencil of :func:`_band_plan`; ``inf`` where it is exactly
    singular.  With ``terms``, also ``max |C| |x|`` at each point."""
    _, lower, upper, band, B, C = plan
    # gbsv's storage: the band below ``lower`` rows kept free for the fill-in of pivoting
    storage = np.zeros((2 * lower + upper + 1, band.shape[1]), dtype=band.dtype)
    storage[lower:] = band
    B = B.astype(band.dtype)
    (gbsv,) = scipy.linalg.get_lapack_funcs(("gbsv",), (storage, B))
    out = np.empty((points.size, C.shape[0], B.shape[1]), dtype=complex)
    solutions = np.zeros((points.size, *B.shape), dtype=complex) if terms else None
    for k, s in enumerate(points):
        pencil = storage.copy()
        pencil[lower + upper] += s
        _, _, X, info = gbsv(lower, upper, pencil, B, overwrite_ab=True)
        out[k] = np.inf if info > 0 else C @ X  # info > 0: exactly singular, on a pole
        if terms and info == 0:
            solutions[k] = X
    if not terms:
        return out
    sizes = np.max(np.abs(C) @ np.abs(solutions), axis=(1, 2), initial=0.0)
    return out, sizes


def _solution_sizes(A, B, C, points: np.ndarray) -> np.ndarray:
    """``max_j ||x_j|| max_i ||y_i||`` at each point (``x = (sI - A)^{-1} B``, ``y = C (sI -
    A)^{-1}``, by LU): times ``eps ||A||`` the first-order error of any normwise
    backward-stable evaluation of ``C (sI - A)^{-1} B`` (``inf`` on an exact pole)."""
    n = A.shape[0]
    out = np.full(points.size, np.inf)
    block = max(1, _BLOCK_ELEMENTS // (n * n))
    for start in range(0, points.size, block):
        s = points[start : start + block]
        pencil = s[:, None, None] * np.eye(n) - A
        with np.errstate(all="ignore"):
            try:
                out[start : start + s.size] = _sizes(pencil, B, C)
            except np.linalg.LinAlgError:  # a point exactly on a pole: one by one
                for k in range(s.size):
                    try:
                        out[start + k] = _sizes(pencil[k : k + 1], B, C)[0]
                    except np.linalg.LinAlgError:
                        continue
    return out


def _sizes(pencil, B, C):
    X = np.linalg.solve(pencil, B)
    Y = np.linalg.solve(np.swapaxes(pencil, -1, -2), C.T)
    x = np.linalg.norm(X, axis=-2).max(axis=-1, initial=0.0)
    return x * np.linalg.norm(Y, axis=-2).max(axis=-1, initial=0.0)
