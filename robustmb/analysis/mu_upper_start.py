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
    M: np.ndarray, struct: BlockStructure, sweeps: int = 60, tol: float = 1e-6
) -> np.ndarray:
    """Log diagonal scalings that balance the block Frobenius norms of ``D M D^-1``.

    Minimises ``sum_{i != j} (d_i / d_j)^2 ||M_ij||_F^2`` by Gauss-Seidel sweeps
    (Osborne's balancing on the block-norm matrix), vectorised over the stack, over
    the units of :func:`_balancing_units` (so the physical units of the individual
    channels of a repeated scalar are balanced too).  The sweeps stop when no
    ``log d`` moved by more than ``tol`` (or after ``sweeps``).  Returns ``log d`` with
    shape ``(nw, nunits)``.
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
    N2t = np.ascontiguousarray(np.swapaxes(N2, 1, 2))
    floor = 1e-300 + 1e-24 * N2.max(axis=(1, 2), initial=0.0)
    logd = np.zeros((B, nb))
    d2 = np.ones((B, nb))
    for _ in range(sweeps):
        before = logd.copy()
        for i in range(nb):
            out = np.sum(N2[:, i, :] / d2, axis=1)  # row i: d_i^2 N_ij^2 / d_j^2
            inn = np.sum(N2t[:, i, :] * d2, axis=1)  # column i: d_j^2 N_ji^2 / d_i^2
            logd[:, i] = 0.25 * np.log((inn + floor) / (out + floor))
            d2[:, i] = np.exp(2.0 * logd[:, i])
        logd -= logd[:, :1]
        d2 = np.exp(2.0 * logd)
        if np.max(np.abs(logd - before), initial=0.0) <= tol:
            break
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
