"""Gain levels certified by the D,G scalings a failing level ended at.

The pointwise bisection of :func:`.worst_case_gain.pointwise_gain_bounds` asks, at a
frequency, whether ``mu(diag(I, 1/gamma) M) <= 1`` for the augmented structure
``[Delta, Delta_p]`` (``Delta_p`` a full complex performance block).  At a level that
fails, the optimiser still ends at scalings ``(Dl, Dr, Gh)`` with a bound ``beta > 1``.
Those scalings, with the performance block's own scaling ``d`` re-chosen, bound mu by
1 at a larger level, computed here by small eigenvalue problems, without optimisation.

In the internal form of :mod:`.mu_upper`, ``beta^2 = lambda_max(X)`` with
``X = A^H A + j(A^H Gh - Gh^H A)`` and ``A = Dl N Dr^-1``.  ``Dl`` and ``Dr`` are ``d I``
on the performance rows and columns (a full block) and ``Gh`` is zero there.  Raising
the level from ``gamma`` to ``gamma / sqrt(s)`` scales the performance rows of ``A`` by
``sqrt(s)``; multiplying ``d`` by ``e`` scales those rows by ``e`` and the performance
columns by ``1 / e``.  With ``E = diag(I, I / e)`` (columns) and ``f = e^2``::

    X(s, f) = E (X_u + s f Q) E,   X_u = A_u^H A_u + j(A^H Gh - Gh^H A),   Q = A_p^H A_p,

``A_u``, ``A_p`` the uncertainty and performance rows of ``A``.  So the same scalings
bound mu by ``tau`` at level ``gamma / sqrt(s)`` when
``X_u + s f Q <= tau^2 diag(I, f I)``: with ``R(f) = tau^2 diag(I, f I) - X_u``
positive definite, the largest ``s f`` is ``1 / lambda_max(R^-1/2 Q R^-1/2)``.  ``f`` is
chosen on a logarithmic grid, then refined by golden-section search.  The level so
found is only a candidate: the caller certifies it with the existing D,G check (which
does not see how it was found).
"""

from __future__ import annotations

import numpy as np

from .mu_structure import BlockStructure, dagger
from .mu_upper import _scaled_matrix, scaling_parametrization

_LOG_F = np.linspace(-12.0, 12.0, 49)  # ln f, f = e^2: e from 0.0025 to 400
_GOLDEN = 0.5 * (np.sqrt(5.0) - 1.0)


def _inverse_level(Xu, Q, perf, tau, log_f):
    """``f * lambda_max(R(f)^-1/2 Q R(f)^-1/2)`` for each row (``inf`` where ``R(f)`` is
    not positive definite): the level ratio squared is this value."""
    f = np.exp(log_f)
    R = -Xu.copy()
    diag = np.full((len(Xu), Xu.shape[-1]), tau**2)
    diag[:, perf] *= f[:, None]
    idx = np.arange(Xu.shape[-1])
    R[:, idx, idx] += diag
    w, V = np.linalg.eigh(R)
    out = np.full(len(Xu), np.inf)
    # R must be positive definite with room: rounding must not decide the sign
    pos = w[:, 0] > 1e-12 * np.maximum(np.abs(w[:, -1]), 1e-300)
    if pos.any():
        S = V[pos] / np.sqrt(w[pos])[:, None, :]
        T = dagger(S) @ Q[pos] @ S
        lam = np.linalg.eigvalsh(0.5 * (T + dagger(T)))[:, -1]
        out[pos] = f[pos] * np.maximum(lam, 0.0)
    return out


def level_ratio_from_scalings(stack, blk, nz, x, tau=1.0, refine=24):
    """Factor by which a level can be raised for the scalings ``x`` to bound mu by ``tau``.

    Parameters
    ----------
    stack : numpy.ndarray, shape (N, n, m)
        Matrices ``diag(I, 1/gamma) M`` at the tried levels ``gamma``: the last
        ``n - nz`` rows are the performance outputs, the last block of ``blk`` the full
        performance block.
    blk : list of (r, c)
        The augmented structure (uncertainty blocks, then the performance block).
    nz : int
        Number of uncertainty rows.
    x : numpy.ndarray, shape (N, p)
        D,G parameters of :class:`~robustmb.analysis.mu_upper.ScalingParametrization`
        for the unnormalised stack (as returned by
        :func:`~robustmb.analysis.mussv.warm_upper_bounds`).
    tau : float
        Bound to reach (the caller's target, e.g. just below 1).
    refine : int
        Golden-section steps on ``ln f`` after the grid.

    Returns
    -------
    ratio : numpy.ndarray, shape (N,)
        ``r`` with ``lambda_max(X) <= tau^2`` at level ``r gamma`` for the scalings
        ``x_new`` (``inf`` where no level is reached this way: the uncertainty part
        alone is at or above ``tau``, or ``x`` has non-finite entries).
    x_new : numpy.ndarray, shape (N, p)
        ``x`` with the performance block's scaling moved to the chosen ``f``.

    Examples
    --------
    A single full performance block (no uncertainty): ``mu = sigma_max(M) / gamma``, so
    the level must be raised by ``sigma_max(M) / gamma / tau``.

    >>> M = np.array([[[3.0, 0.0], [0.0, 1.0]]]) / 2.0   # gamma = 2, sigma_max(M) = 3
    >>> ratio, _ = level_ratio_from_scalings(M, [(2, 2)], 0, np.zeros((1, 1)))
    >>> round(float(ratio[0]), 9)
    1.5
    """
    struct = BlockStructure(blk)
    param = scaling_parametrization(struct)
    stack = np.asarray(stack, dtype=complex)
    x = np.array(x, dtype=float)
    ratio = np.full(len(stack), np.inf)
    good = np.flatnonzero(np.all(np.isfinite(x), axis=1))
    if good.size == 0:
        return ratio, x
    perf = struct.blocks[-1].w  # the performance block's columns
    Dl, Dr, Gh = param.matrices(x[good])
    A = _scaled_matrix(stack[good], Dl, Dr)
    Au, Ap = A[:, :nz, :], A[:, nz:, :]
    AhG = dagger(A) @ Gh
    Xu = dagger(Au) @ Au + 1j * (AhG - dagger(AhG))
    Xu = 0.5 * (Xu + dagger(Xu))
    Q = dagger(Ap) @ Ap
    Q = 0.5 * (Q + dagger(Q))
    k = len(good)
    vals = np.stack([_inverse_level(Xu, Q, perf, tau, np.full(k, lf)) for lf in _LOG_F])
    best = np.argmin(vals, axis=0)
    v_best = vals[best, np.arange(k)]
    # golden section on the grid cell around the best grid point
    step = _LOG_F[1] - _LOG_F[0]
    a, b = _LOG_F[best] - step, _LOG_F[best] + step
    c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    fc, fd = _inverse_level(Xu, Q, perf, tau, c), _inverse_level(Xu, Q, perf, tau, d)
    for _ in range(refine):
        left = fc <= fd
        b = np.where(left, d, b)
        a = np.where(left, a, c)
        c_new, d_new = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
        f_new = _inverse_level(Xu, Q, perf, tau, np.where(left, c_new, d_new))
        fd, fc = np.where(left, fc, f_new), np.where(left, f_new, fd)
        c, d = np.where(left, c_new, d), np.where(left, c, d_new)
    log_f = np.where(v_best <= np.minimum(fc, fd), _LOG_F[best], np.where(fc <= fd, c, d))
    v = np.minimum(v_best, np.minimum(fc, fd))
    ratio[good] = np.sqrt(v)
    # the performance block is the last full block: its D parameter is the last one
    x[good, param.n_d - 1] += 0.5 * log_f
    return ratio, x


__all__ = ["level_ratio_from_scalings"]
