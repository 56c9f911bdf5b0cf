"""The fast mu upper bound's objective when both ``D`` scalings are diagonal.

Block structures without repeated scalar blocks of size > 1 (every structure SLICOT's
AB13MD accepts, for one) have diagonal ``Dl``, ``Dr``: the scaled matrix
``Dl M Dr^-1`` is a broadcast product and the gradient needs only the diagonals of its
factors, so no linear solves are needed.  The value and gradient are those of
:func:`robustmb.analysis.mu_upper.scaled_objective` (tested against it).
"""

from __future__ import annotations

import numpy as np

from .mu_structure import dagger

__all__: list[str] = []


def _objective_diagonal(M, x, param, t):
    """``scaled_objective`` when both ``D`` are diagonal (every repeated scalar block
    is 1x1): the same value and gradient with ``A = diag(dl) M diag(dr)^-1`` formed
    by broadcasting, and only the diagonals of ``Gamma_l``, ``Gamma_r`` computed."""
    B = x.shape[0]
    nd = param.n_d
    ex = np.exp(np.clip(x[:, :nd], -300.0, 300.0))
    dl = ex @ param._el_diag
    dr = ex @ param._er_diag
    Gh = (x @ param._lg[0] + 1j * (x @ param._lg[1])).reshape(B, param.n, param.m)
    with np.errstate(over="ignore", invalid="ignore"):
        MR = M / dr[:, None, :]  # Dl^-1 A
        A = dl[:, :, None] * MR
        Ah = dagger(A)
        AhG = Ah @ Gh
        # Hermitian up to rounding; eigh reads its lower triangle only
        X = Ah @ A + 1j * (AhG - dagger(AhG))
    finite = np.all(np.isfinite(X), axis=(1, 2)) & np.all(np.isfinite(A), axis=(1, 2))
    if not finite.all():
        f = np.full(B, np.inf)
        g = np.zeros_like(x)
        if finite.any():
            t_fin = None if t is None else np.broadcast_to(np.asarray(t, float), f.shape)[finite]
            f[finite], g[finite] = _objective_diagonal(M[finite], x[finite], param, t_fin)
        return f, g
    w, V = np.linalg.eigh(X)
    top = w[:, -1]
    if t is None:
        f = top
        Pi = V[:, :, -1:] @ dagger(V[:, :, -1:])
    else:
        t = np.broadcast_to(np.asarray(t, dtype=float), top.shape)
        with np.errstate(over="ignore"):
            e = np.exp(t[:, None] * (w - top[:, None]))
        s = e.sum(axis=1)
        f = top + np.log(s) / t
        Pi = (V * (e / s[:, None])[:, None, :]) @ dagger(V)
    with np.errstate(over="ignore", invalid="ignore"):
        P = (A + 1j * Gh) @ Pi
        # diagonals of Gamma_l = 2 P (Dl^-1 A)^H and Gamma_r = -2 A^H P Dr^-H
        gamma_l = 2.0 * np.einsum("bij,bij->bi", P, np.conj(MR))
        gamma_r = -2.0 * np.einsum("bji,bji->bi", np.conj(A), P) / dr
        g = np.zeros((B, param.p))
        g[:, :nd] = (gamma_l.real * dl) @ param._el_diag.T + (gamma_r.real * dr) @ param._er_diag.T
        # G part: -2 Im sum(C * dGh) with C = conj(A) Pi^T, at the G entries only
        rows, zi, wj, coef = param._g_entries
        C = np.conj(A) @ np.swapaxes(Pi, 1, 2)
        np.add.at(g.T, rows, -2.0 * np.imag(C[:, zi, wj] * coef).T)
    g[~np.all(np.isfinite(g), axis=1)] = 0.0
    return f, g
