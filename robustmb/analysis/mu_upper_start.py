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


def osborne_scaling(M: np.ndarray, struct: BlockStructure, sweeps: int = 60) -> np.ndarray:
    """Log diagonal scalings that balance the block Frobenius norms of ``D M D^-1``.

    Minimises ``sum_{i != j} (d_i / d_j)^2 ||M_ij||_F^2`` by Gauss-Seidel sweeps
    (Osborne's balancing on the block-norm matrix), vectorised over the stack, over
    the units of :func:`_balancing_units` (so the physical units of the individual
    channels of a repeated scalar are balanced too).  Returns ``log d`` with shape
    ``(nw, nunits)``.
    """
    units = _balancing_units(struct)
    nb = len(units)
    B = M.shape[0]
    N2 = np.empty((B, nb, nb))
    for i, (zi, _) in enumerate(units):
        for j, (_, wj) in enumerate(units):
            N2[:, i, j] = np.sum(np.abs(M[:, zi, wj]) ** 2, axis=(-2, -1))
    idx = np.arange(nb)
    N2[:, idx, idx] = 0.0
    floor = 1e-300 + 1e-24 * N2.max(axis=(1, 2), initial=0.0)[:, None]
    logd = np.zeros((B, nb))
    for _ in range(sweeps):
        for i in range(nb):
            d2 = np.exp(2.0 * logd)
            out = np.einsum("bj,bj->b", N2[:, i, :], 1.0 / d2)  # row i: d_i^2 N_ij^2 / d_j^2
            inn = np.einsum("bj,bj->b", N2[:, :, i], d2)  # column i: d_j^2 N_ji^2 / d_i^2
            logd[:, i] = 0.25 * (np.log(inn + floor[:, 0]) - np.log(out + floor[:, 0]))
        logd -= logd[:, :1]
    return np.clip(logd, -30.0, 30.0)


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
