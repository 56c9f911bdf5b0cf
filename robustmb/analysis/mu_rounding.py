"""Rounding allowance of the D,G certificate test of the mu upper bound.

:func:`~robustmb.analysis.mu_upper.upper_bound_margin` evaluates the certificate
condition ``lambda_max(W) <= 1`` in floating point.  :func:`margin_rounding_allowance`
adds a first-order bound ``delta`` on the rounding error of the computed
``lambda_max(W)``, so that ``margin^2 + delta <= 1`` proves the exact condition for the
floating-point data: the solve with ``Dr`` (whose error grows with the conditioning of
``D`` as it acts on ``M``), the block-wise ``(I + G^2)^(-+1/4)`` (Daleckii-Krein divided
differences), the products and the eigenvalue are bounded entrywise.
"""

from __future__ import annotations

import numpy as np

from .mu_structure import REAL, BlockStructure, as_matrix_stack, dagger
from .mu_upper import _margin

__all__ = ["margin_rounding_allowance"]


def margin_rounding_allowance(M, blk, beta, D, G=None):
    """The margin of :func:`~robustmb.analysis.mu_upper.upper_bound_margin` and a bound on
    its rounding error: ``(margin, delta)``.

    For ``beta > 0`` the certificate condition is ``lambda_max(W) <= 1`` (see
    :func:`~robustmb.analysis.mu_upper.upper_bound_margin`); ``delta`` bounds, to first
    order in the unit roundoff ``eps``, the error of the computed ``lambda_max(W)``, so
    that ``margin^2 + delta <= 1`` (``margin >= 0``) or ``margin <= 0`` proves the exact
    condition for the given floating-point ``M``, ``D``, ``G``.  The analysis
    (``g = 4 n eps``, ``n`` the larger side of ``M``; ``|.|`` entrywise, ``X`` the
    computed ``Dr^-1``):

    * ``A = Dl M Dr^-1`` by a solve with ``Dr``: backward stable (an LU growth of at
      most ``n`` taken), so the computed ``A`` differs from the exact one by at most
      ``g (n |A| |Dr| |X| + |Dl| |M| |X|)`` entrywise,
      whose 2-norm ``dA`` grows with the conditioning of ``D`` as it acts on ``M`` (1 for
      a diagonal ``D``: every entry of ``A`` is then a product of three numbers);
    * ``Lf = (I + Gl^2)^(-1/4)``, ``Rf = (I + Gr^2)^(1/4)`` (eigendecompositions):
      ``dLf``, ``dRf`` by the divided differences of ``(1 + x^2)^(-+1/4)`` over the
      eigenvalues of ``G`` (about ``g`` relative to ``||Lf||``, ``||Rf||`` for a large ``G``);
    * ``B = Lf (A / beta) Rf``: ``dB = ||Lf|| ||Rf|| dA / beta + (dLf ||Rf|| + ||Lf|| dRf)
      ||A|| / beta + g || |Lf| |A / beta| |Rf| ||``;
    * ``W = B^H B + j(Gm^H B - B^H Gm)`` and its largest eigenvalue:
      ``2 (||B|| + ||Gm||) dB + g (||B||^2 + 2 ||Gm|| ||B||) + g ||W||``.

    ``beta = 0`` rows (the ``mu = 0`` form) get ``delta = 0``.

    Examples
    --------
    A diagonal scaling with condition number ``1e10`` costs nothing: the scaled entries
    are exact to a few roundings.

    >>> M = np.array([[0.5, 1e-10], [1e10, 0.5]])
    >>> m, d = margin_rounding_allowance(M, [(1, 0), (1, 0)], 1.6, np.diag([1.0, 1e-10]))
    >>> bool(m < 1), bool(d < 1e-13)
    (True, True)
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    out, delta = _margin(Ms, struct, beta, D, G, allowance=_allowance)
    return (float(out[0]), float(delta[0])) if single else (out, delta)


def _norm2(X):
    return np.linalg.norm(X, 2, axis=(-2, -1))


def _power_error(G, p, g):
    """Bound on the error of ``(I + G^2)^p`` (a stack) computed by
    :func:`~robustmb.analysis.mu_structure.hermitian_power`.

    The eigendecomposition is exact for ``G + E``, ``||E|| <= g ||G||``, with
    eigenvectors unitary to ``g``.  By the Daleckii-Krein formula ``f(G + E) - f(G)`` has
    the entries ``f[w_i, w_j] (V^H E V)_ij`` in the eigenbasis (``f[.,.]`` the divided
    differences of ``f(x) = (1 + x^2)^p``), so its norm is at most
    ``sqrt(n) max |f[w_i, w_j]| ||E||``; the eigenvectors add ``3 g ||f(G)||``.  For large
    ``G`` this is ``g`` relative to ``f(G)``, not ``g ||G||``.
    """
    w = np.linalg.eigvalsh(0.5 * (G + dagger(G)))
    f = np.hypot(1.0, w) ** (2 * p)
    df = np.abs(2 * p * w * np.hypot(1.0, w) ** (2 * p - 2))
    wi, wj = w[:, :, None], w[:, None, :]
    gap = np.abs(wi - wj)
    near = gap <= 1e-3 * (1.0 + np.minimum(np.abs(wi), np.abs(wj)))
    with np.errstate(divide="ignore", invalid="ignore"):
        quot = np.abs(f[:, :, None] - f[:, None, :]) / gap * (1.0 + 1e-10)
    # on a short interval f' changes by less than a factor 2 (it varies on the scale
    # 1 + |x|); on any interval |f'(x)| <= 2 |p| |x| and (p = +-1/4) below 0.4
    wmax = np.maximum(np.abs(wi), np.abs(wj))
    close = np.minimum(2 * abs(p) * wmax, 0.4)
    local = 2.0 * np.maximum(df[:, :, None], df[:, None, :])
    close = np.where(wi * wj > 0, np.minimum(close, local), close)
    dd = np.where(near, close, quot)
    n = G.shape[-1]
    nG = np.max(np.abs(w), axis=-1)
    return np.sqrt(n) * np.max(dd, axis=(-2, -1)) * g * nG + 3 * g * np.max(f, axis=-1)


def _block_power_error(struct, G, p, g, side):
    """Entrywise bound on the error of :func:`_block_power` (uniform within a block)."""
    E = np.zeros(G.shape)
    for b in struct.blocks:
        if b.kind == REAL:
            sl = getattr(b, side)
            E[:, sl, sl] = _power_error(G[:, sl, sl], p, g)[:, None, None]
    return E


def _allowance(struct, M, Dl, Dr, A, beta, Lf, Rf, Gl, Gm, B, W):
    """First-order bound on the error of the computed ``lambda_max(W)`` (see
    :func:`margin_rounding_allowance`), by entrywise bounds: rounding errors then stay
    with the rows and columns that a large ``G`` scales down."""
    g = 4 * max(M.shape[-2:]) * np.finfo(float).eps
    try:
        X = np.linalg.inv(Dr)
    except np.linalg.LinAlgError:
        return np.full(len(beta), np.inf)
    aX = np.abs(X)
    b = beta[:, None, None]
    # n g: the LU factors of Dr taken with a growth of at most n
    EA = g * (M.shape[-1] * np.abs(A) @ np.abs(Dr) @ aX + np.abs(Dl) @ np.abs(M) @ aX) / b
    aA, aL, aR = np.abs(A) / b, np.abs(Lf), np.abs(Rf)
    Gr = struct.right_g(Gl)
    EL = _block_power_error(struct, Gl, -0.25, g, "z")
    ER = _block_power_error(struct, Gr, 0.25, g, "w")
    EB = aL @ EA @ aR + EL @ aA @ aR + aL @ aA @ ER + g * (aL @ aA @ aR)
    aB, aG = np.abs(B), np.abs(Gm)
    EW = dagger(aB) @ EB + dagger(aG) @ EB
    EW = EW + dagger(EW) + g * (dagger(aB) @ aB + 2.0 * dagger(aG) @ aB)
    out = _norm2(EW) + g * _norm2(W)
    return np.where(np.isfinite(out), out, np.inf)
