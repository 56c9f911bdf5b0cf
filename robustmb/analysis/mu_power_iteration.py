"""Complex power iteration for a lower bound of mu (a destabilising perturbation).

Power iteration (Packard, Fan & Doyle 1988; Packard & Doyle 1993) for complex
structures: alternate ``a = M b``, ``w = M^H z`` with the block alignments that make
``Q = blkdiag(Q_i)`` (``Q_i`` unitary rank-one for full blocks, a unit phase for repeated
scalars) satisfy ``b = Q a`` and ``z = Q^H w``.  Then ``M Q`` has the eigenvalue
``lambda`` and ``Delta = Q / lambda``.  Vectorised over the frequency stack and the
starting points.
"""

from __future__ import annotations

import numpy as np

from .mu_structure import FULL, BlockStructure

_TINY = 1e-300


def _align_b(a, w, struct):
    """``b = Q a`` with ``Q`` aligned to ``(a, w)`` (full: |a_i|/|w_i| w_i, scalar: q_i a_i)."""
    b = np.empty_like(w)
    for blk in struct.blocks:
        ai, wi = a[:, blk.z], w[:, blk.w]
        if blk.kind == FULL:
            na = np.linalg.norm(ai, axis=1)
            nw = np.linalg.norm(wi, axis=1)
            b[:, blk.w] = (na / np.maximum(nw, _TINY))[:, None] * wi
        else:
            s = np.einsum("bi,bi->b", ai.conj(), wi)
            q = s / np.maximum(np.abs(s), _TINY)
            b[:, blk.w] = q[:, None] * ai
    return b


def _align_z(a, w, struct):
    """``z = Q^H w`` (full: |w_i|/|a_i| a_i, scalar: conj(q_i) w_i)."""
    z = np.empty_like(a)
    for blk in struct.blocks:
        ai, wi = a[:, blk.z], w[:, blk.w]
        if blk.kind == FULL:
            na = np.linalg.norm(ai, axis=1)
            nw = np.linalg.norm(wi, axis=1)
            z[:, blk.z] = (nw / np.maximum(na, _TINY))[:, None] * ai
        else:
            s = np.einsum("bi,bi->b", ai.conj(), wi)
            q = s / np.maximum(np.abs(s), _TINY)
            z[:, blk.z] = np.conj(q)[:, None] * wi
    return z


def _q_from_vectors(a, w, struct):
    """The structured ``Q`` (B, n_w, n_z) aligned to ``(a, w)``; unit norm per block."""
    B = a.shape[0]
    Q = np.zeros((B, struct.n_w, struct.n_z), dtype=complex)
    for blk in struct.blocks:
        ai, wi = a[:, blk.z], w[:, blk.w]
        if blk.kind == FULL:
            na = np.linalg.norm(ai, axis=1)
            nw = np.linalg.norm(wi, axis=1)
            Q[:, blk.w, blk.z] = (wi[:, :, None] * ai.conj()[:, None, :]) / np.maximum(
                na * nw, _TINY
            )[:, None, None]
        else:
            s = np.einsum("bi,bi->b", ai.conj(), wi)
            q = np.where(np.abs(s) > _TINY, s / np.maximum(np.abs(s), _TINY), 1.0)
            idx = np.arange(blk.rows)
            Q[:, blk.w.start + idx, blk.z.start + idx] = q[:, None]
    return Q


def power_iteration(M, struct: BlockStructure, b0, w0, iters=120):
    """Complex power iteration from starting vectors ``b0, w0`` (B, n_w).

    Real blocks are treated as complex scalars here (the complex relaxation).
    Returns the aligned ``Q`` (B, n_w, n_z); ``max |lambda(M Q)| / block_norm(Q)`` is a
    lower bound of mu (``Delta = Q / lambda`` makes ``I - M Delta`` singular).

    Examples
    --------
    One full 2x2 block: mu is the largest singular value, ``1 + sqrt(2)`` here.

    >>> from robustmb.analysis.mu_structure import BlockStructure
    >>> M = np.array([[[1.0, 2.0], [0.0, 1.0]]], dtype=complex)
    >>> s = BlockStructure([(2, 2)])
    >>> Q = power_iteration(M, s, np.ones((1, 2), complex), np.ones((1, 2), complex))
    >>> lam = np.abs(np.linalg.eigvals(M[0] @ Q[0])).max()
    >>> round(float(lam / block_norm_stack(Q, s)[0]), 12), round(1 + 2**0.5, 12)
    (2.414213562373, 2.414213562373)
    """
    b, w = b0, w0
    a = np.einsum("bij,bj->bi", M, b)
    for _ in range(iters):
        a = np.einsum("bij,bj->bi", M, b)
        a /= np.maximum(np.linalg.norm(a, axis=1), _TINY)[:, None]
        z = _align_z(a, w, struct)
        w = np.einsum("bji,bj->bi", M.conj(), z)
        w /= np.maximum(np.linalg.norm(w, axis=1), _TINY)[:, None]
        b = _align_b(a, w, struct)
    return _q_from_vectors(a, w, struct)


def block_norm_stack(Q, struct: BlockStructure):
    """``max_i sigma_max(Q_i)`` for a stack of structured matrices.

    Examples
    --------
    >>> from robustmb.analysis.mu_structure import BlockStructure
    >>> s = BlockStructure([(1, 0), (2, 2)])     # a complex scalar and a full 2x2 block
    >>> Q = np.zeros((1, 3, 3), dtype=complex)
    >>> Q[0, 0, 0] = 0.5j
    >>> Q[0, 1:, 1:] = [[3.0, 0.0], [0.0, 4.0]]
    >>> block_norm_stack(Q, s)
    array([4.])
    """
    out = np.zeros(Q.shape[0])
    for blk in struct.blocks:
        sub = Q[:, blk.w, blk.z]
        if blk.kind == FULL:
            nrm = (
                np.linalg.norm(sub, 2, axis=(-2, -1))
                if min(blk.rows, blk.cols) > 1
                else np.sqrt(np.sum(np.abs(sub) ** 2, axis=(-2, -1)))  # also for 0 rows
            )
        else:
            nrm = np.abs(sub[:, 0, 0])
        out = np.maximum(out, nrm)
    return out
