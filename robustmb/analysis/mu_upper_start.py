"""Starting D scalings of the fast mu upper bound: Osborne balancing of the block norms.

Used by :func:`robustmb.analysis.mu_upper.upper_bound_fast` (its cold start), by the
lower bound's power iteration and by the model-family grid peak (a first certified
bound ``sigma_max(D M D^-1)`` per point).
"""

from __future__ import annotations

import numpy as np

from .mu_structure import FULL, BlockStructure

__all__: list[str] = []


def _balancing_units(struct: BlockStructure):
    """Rows/columns that may carry their own diagonal scaling: a full block as a whole,
    each row of a repeated scalar block on its own (its ``D`` is any invertible matrix)."""
    units = []
    for b in struct.blocks:
        if b.kind == FULL:
            units.append((b.z, b.w))
        else:
            units.extend(
                (slice(b.z.start + k, b.z.start + k + 1), slice(b.w.start + k, b.w.start + k + 1))
                for k in range(b.rows)
            )
    return units


def osborne_scaling(
    M: np.ndarray,
    struct: BlockStructure,
    sweeps: int = 60,
    tol: float = 1e-6,
    max_spread: float = 60.0,
    floor: float = 1e-60,
) -> np.ndarray:
    """Log diagonal scalings that balance the block Frobenius norms of ``D M D^-1``.

    Minimises ``sum_{i != j} (d_i / d_j)^2 ||M_ij||_F^2`` by Gauss-Seidel sweeps
    (Osborne's balancing on the block-norm matrix), vectorised over the stack, over
    the units of :func:`_balancing_units` (so the physical units of the individual
    channels of a repeated scalar are balanced too).  The sweeps stop when no
    ``log d`` moved by more than ``tol`` (or after ``sweeps``).  Returns ``log d`` with
    shape ``(nw, nunits)``, centred, its spread ``max - min`` at most ``max_spread``.
    ``floor`` (relative to the largest squared block norm) bounds how far a unit with an
    all-zero row or column moves.
    """
    units = _balancing_units(struct)
    nb = len(units)
    B = M.shape[0]
    # block norms ||M_ij||_F^2 = Z^T |M|^2 W with the 0/1 maps of rows and columns to units
    Z = np.zeros((M.shape[1], nb))
    W = np.zeros((M.shape[2], nb))
    for u, (zu, wu) in enumerate(units):
        Z[zu, u] = 1.0
        W[wu, u] = 1.0
    absM2 = M.real**2 + M.imag**2 if np.iscomplexobj(M) else M**2
    N2 = Z.T @ absM2 @ W
    idx = np.arange(nb)
    N2[:, idx, idx] = 0.0
    # balancing is invariant under scaling of M: work relative to the largest norm
    top = N2.max(axis=(1, 2), initial=0.0)
    N2 /= np.where(top > 0, top, 1.0)[:, None, None]
    N2t = np.ascontiguousarray(np.swapaxes(N2, 1, 2))
    # The floor only keeps a unit with an all-zero row or column finite (it bounds how far
    # such a unit moves: |log d| below about 70).  It must sit far below the products of
    # small and large block norms that balancing has to weigh: a matrix whose entries
    # span 1e-13 .. 1e10 (a lightly damped mode seen at a high frequency through a stiff
    # controller) has squared norms 1e-46 of the largest, and a floor at 1e-24 of it left
    # such an M unbalanced by a factor 1e4 in d, from where the D,G optimisation stalled
    # at four times mu.
    logd = np.zeros((B, nb))
    # Each matrix stops on its own test, so that its scaling does not depend on the
    # other matrices of the stack.
    todo = np.arange(B)
    for _ in range(sweeps):
        if todo.size == 0:
            break
        Nr, Nc = N2[todo], N2t[todo]
        ld = logd[todo]
        before = ld.copy()
        d2 = np.exp(2.0 * ld)
        for i in range(nb):
            out = np.sum(Nr[:, i, :] / d2, axis=1)  # row i: d_i^2 N_ij^2 / d_j^2
            inn = np.sum(Nc[:, i, :] * d2, axis=1)  # column i: d_j^2 N_ji^2 / d_i^2
            ld[:, i] = 0.25 * np.log((inn + floor) / (out + floor))
            d2[:, i] = np.exp(2.0 * ld[:, i])
        ld -= ld[:, :1]
        logd[todo] = ld
        todo = todo[np.max(np.abs(ld - before), axis=1, initial=0.0) > tol]
    # A reducible M (a block triangular one) drives the units apart without limit:
    # shrinking the spread as a whole keeps their order, which is what makes the
    # scaling good there.
    spread = np.max(logd, axis=1) - np.min(logd, axis=1)
    logd *= np.minimum(1.0, max_spread / np.maximum(spread, 1e-300))[:, None]
    logd -= 0.5 * (np.max(logd, axis=1) + np.min(logd, axis=1))[:, None]
    return logd


def _x_from_logd(logd, struct: BlockStructure, param) -> np.ndarray:
    """Parameters (of a ``ScalingParametrization``) of the diagonal scalings ``exp(logd)``
    (one per balancing unit)."""
    B = logd.shape[0]
    x = np.zeros((B, param.p))
    p = u = 0
    for b in struct.blocks:
        if b.kind == FULL:
            x[:, p] = logd[:, u]
            p, u = p + 1, u + 1
        else:
            x[:, p : p + b.rows] = logd[:, u : u + b.rows]
            p, u = p + b.rows**2, u + b.rows
    return x


def exact_similarity(M: np.ndarray, struct: BlockStructure, logd: np.ndarray):
    """``P M P^-1`` with ``P = diag(exp(logd))`` over the balancing units, ``logd``
    rounded to multiples of ``log 2``: returns ``(P M P^-1, rounded logd)``.

    With powers of two every entry is multiplied by a power of two, which is exact
    (outside underflow and overflow), so ``mu`` of the result is ``mu(M)`` for the
    floating-point ``M`` itself.
    """
    ln2 = np.log(2.0)
    logd = ln2 * np.round(logd / ln2)
    dz = np.zeros((M.shape[0], struct.n_z))
    dw = np.zeros((M.shape[0], struct.n_w))
    for u, (zs, ws) in enumerate(_balancing_units(struct)):
        dz[:, zs] = logd[:, [u]]
        dw[:, ws] = logd[:, [u]]
    # np.ldexp multiplies by 2^k exactly
    kz = np.rint(dz / ln2).astype(int)
    kw = np.rint(dw / ln2).astype(int)
    k = kz[:, :, None] - kw[:, None, :]
    if np.iscomplexobj(M):
        out = np.ldexp(M.real, k) + 1j * np.ldexp(M.imag, k)
    else:
        out = np.ldexp(M, k)
    return out, logd
