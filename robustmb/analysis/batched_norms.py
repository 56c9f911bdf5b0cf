"""H2 and H-infinity norms of a stack of models, for the models a batch can settle.

A gridded or Monte-Carlo family of small models (thousands of 6-state closed loops, say)
costs, model by model, mostly fixed Python overhead.  Here the family is one stack
``A (N, n, n), B (N, n, m), C (N, p, n), D (N, p, m)`` and every step is a batched numpy
operation over the models:

- stability: eigenvalues of all balanced ``A`` at once, with the same condition-number
  band as :func:`~robustmb.analysis.balancing.pole_bands`;
- response: the modal form ``G(s) = (C V) diag(1 / (s - lambda)) (V^-1 B) + D``;
- H2: the modal sum of :func:`~robustmb.analysis._h2norm._h2_modal` (stiff models are
  left to the refined Gramian of the single-model routine);
- H-infinity: the level-set iteration of :mod:`robustmb.analysis.norms`, with the
  Hamiltonian eigenvalue problems of all models still running solved in one call.

The functions here return ``nan`` for the models this path does not decide (discrete or
complex families, ill-conditioned eigenvectors, unstable or boundary poles, ``gamma``
near ``sigma_max(D)``, a response zero at every start point, a value beyond the float
range).  :func:`~robustmb.analysis.norms.hinfnorm` and
:func:`~robustmb.analysis.norms.h2norm` hand those to their single-model routines, so
each result is the one the single-model call certifies: H-infinity within the same
relative ``tol``, H2 to rounding.  This module sits below :mod:`~robustmb.analysis.norms`
and never calls it.
"""

from __future__ import annotations

import numpy as np

from robustmb.analysis._norm_common import (
    _AXIS_RTOL,
    _AXIS_SQRT_FACTOR,
    _BOUNDARY_FACTOR,
    _EPS,
    _H2_MODAL_ACCURACY,
    _HAMILTONIAN_AMPLIFICATION_LIMIT,
    _MAX_ITERATIONS,
    _check_tol,
    _h2_modal_accurate,
)
from robustmb.analysis._norm_common import _unit_scaled_stack as _unit_scaled
from robustmb.analysis.balancing import balance_realization
from robustmb.analysis.freqresp import largest_singular_values
from robustmb.analysis.model_stack import as_statespace_stack

__all__ = ["h2norm_batch", "hinfnorm_batch"]

_MODAL_CONDITION_LIMIT = 1e4  # as freqresp: ||V^-1||_F of unit eigenvectors


def _balanced(A, B, C):
    """Per-model :func:`~robustmb.analysis.balancing.balance_realization` (LAPACK's
    balancing has no batched form)."""
    Ab, Bb, Cb = np.empty_like(A), np.empty_like(B), np.empty_like(C)
    for k in range(A.shape[0]):
        Ab[k], Bb[k], Cb[k] = balance_realization(A[k], B[k], C[k])
    return Ab, Bb, Cb


def _modal(A):
    """Eigenvalues, unit eigenvectors, their inverse (nan where singular), ``||V^-1||_F``."""
    lam, V = np.linalg.eig(A)
    lam = lam.astype(complex)
    V = V.astype(complex)
    V_inv = np.full_like(V, np.nan)
    condition = np.full(A.shape[0], np.inf)
    try:
        V_inv = np.linalg.inv(V)
    except np.linalg.LinAlgError:
        for k in range(A.shape[0]):
            try:
                V_inv[k] = np.linalg.inv(V[k])
            except np.linalg.LinAlgError:
                pass
    finite = np.all(np.isfinite(V_inv), axis=(1, 2))
    condition[finite] = np.linalg.norm(V_inv[finite], axis=(1, 2))
    return lam, V, V_inv, condition


def _stable(lam, V, V_inv, A):
    """Batched stability test of :func:`norms._stability` (continuous time).

    The eigenvalue condition numbers ``||y_i|| ||x_i|| / |y_i^H x_i|`` come from the rows
    of ``V^-1`` (left eigenvectors scaled so that ``y_i^H x_i = 1``).  Returns
    ``(stable, undecided)``: undecided models (a pole inside its band, or a nearly
    defective one) go to the single-model test.
    """
    kappa = np.linalg.norm(V_inv, axis=2) * np.linalg.norm(V, axis=1)
    # The first-order band holds for kappa < 1/sqrt(eps) only: a nearly defective
    # cluster of size m moves by ~eps^(1/m) ||A||.  Such models go to the single-model
    # test, whose band for them comes from Elsner's theorem (balancing.defective_radius).
    capped = np.any(~(kappa < 1.0 / np.sqrt(_EPS)), axis=1)  # nan and inf too
    size = np.linalg.norm(A, 1, axis=(1, 2))
    band = _BOUNDARY_FACTOR * _EPS * size[:, None] * np.minimum(kappa, 1.0 / np.sqrt(_EPS))
    stable = np.all(lam.real < -band, axis=1) & ~capped
    return stable, ~stable


def _modal_response(lam, CV, WB, D, points):
    """``sum_i (C v_i)(w_i B) / (s - lambda_i) + D`` for a stack; points ``(K,)`` or
    ``(N, K)``."""
    points = np.broadcast_to(points, (lam.shape[0],) + np.shape(points)[-1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        weights = 1.0 / (points[:, :, None] - lam[:, None, :])  # (N, K, n)
    # (N, K, n) x (N, p, n) x (N, n, m) -> (N, K, p, m) as one batched product
    scaled = weights[:, :, None, :] * CV[:, None, :, :]
    return scaled @ WB[:, None, :, :] + D[:, None, :, :]


def _unscaled(values, e):
    """``values * 2^e``; nan where that leaves the float range (the single-model routine
    then raises its error)."""
    with np.errstate(over="ignore"):
        out = np.ldexp(values, e)
    return np.where(np.isinf(out) & np.isfinite(values), np.nan, out)


def h2norm_batch(models, *, argname: str = "models"):
    """H2 norms of the models of a family that the batched modal sum settles.

    Parameters
    ----------
    models : list of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
        See :func:`~robustmb.analysis.model_stack.as_statespace_stack`.
    argname : str, optional
        Name of the argument the user wrote, for error messages (``models[k]``).

    Returns
    -------
    numpy.ndarray
        Shape ``(N,)``: ``h2norm`` of each model (``inf`` for a continuous model with
        ``D != 0``), ``nan`` where the model needs the single-model routine.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> values = h2norm_batch([control.tf([1.0], [1.0, a]) for a in (1.0, 2.0, -1.0)])
    >>> bool(np.allclose(values[:2], np.sqrt([0.5, 0.25]))), bool(np.isnan(values[2]))
    (True, True)
    """
    A, B, C, D, dt = as_statespace_stack(models, argname=argname)
    N, n = A.shape[0], A.shape[1]
    out = np.full(N, np.nan)
    if dt > 0 or np.iscomplexobj(A) or n == 0 or N == 0:
        return out
    out[np.any(D != 0, axis=(1, 2))] = np.inf
    todo = np.flatnonzero(np.isnan(out))
    A, B, C = _balanced(A[todo], B[todo], C[todo])
    B, C, _, e = _unit_scaled(B, C, D[todo])
    lam, V, V_inv, condition = _modal(A)
    stable, _ = _stable(lam, V, V_inv, A)
    # stiff or very lightly damped: computed poles would cost more than
    # _H2_MODAL_ACCURACY; the single-model routine refines a Gramian instead
    size = np.abs(A).sum(axis=1).max(axis=1)
    sensitive = _EPS * size > _H2_MODAL_ACCURACY * np.min(-lam.real, axis=1)
    # a nearly defective pole moves by about 10 eps ||A|| kappa_i (as in
    # norms_stability.eigenvalue_rounding), far more than eps ||A||
    kappa = np.linalg.norm(V_inv, axis=2) * np.linalg.norm(V, axis=1)
    moved = 10.0 * _EPS * size[:, None] * np.maximum(kappa, 1.0)
    sensitive |= ~np.all(moved <= _H2_MODAL_ACCURACY * -lam.real, axis=1)
    k = np.flatnonzero(stable & _h2_modal_accurate(condition, n) & ~sensitive)
    W = V_inv[k] @ B[k]
    U = C[k] @ V[k]
    denom = lam[k][:, :, None] + lam[k].conj()[:, None, :]
    X = -(W @ W.conj().transpose(0, 2, 1)) / denom
    values = np.real(np.sum(X * (U.conj().transpose(0, 2, 1) @ U).transpose(0, 2, 1), (1, 2)))
    out[todo[k]] = _unscaled(np.sqrt(np.maximum(values, 0.0)), e[k])
    return out


def hinfnorm_batch(models, *, tol: float = 1e-8, argname: str = "models"):
    """H-infinity norms and peak frequencies of the models a batched level-set search
    settles.

    Parameters
    ----------
    models : list of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
    tol : float, optional
        Relative accuracy, as in :func:`~robustmb.analysis.norms.hinfnorm`.
    argname : str, optional
        Name of the argument the user wrote, for error messages (``models[k]``).

    Returns
    -------
    gamma, fpeak : numpy.ndarray
        Shapes ``(N,)``: what ``hinfnorm`` returns for each model (within ``tol``);
        ``nan`` in both where the model needs the single-model routine.

    Raises
    ------
    ArgumentError
        For ``tol`` not a number in ``(0, 1)``.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> zeta = np.array([0.05, 0.2])
    >>> family = [control.tf([1.0], [1.0, 2 * z, 1.0]) for z in zeta]
    >>> gamma, fpeak = hinfnorm_batch(family)
    >>> bool(np.allclose(gamma, 1 / (2 * zeta * np.sqrt(1 - zeta**2)), rtol=1e-8))
    True
    """
    tol = _check_tol(tol)
    A, B, C, D, dt = as_statespace_stack(models, argname=argname)
    N, n, m, p = A.shape[0], A.shape[1], B.shape[2], C.shape[1]
    gamma, fpeak = np.full(N, np.nan), np.full(N, np.nan)
    if dt > 0 or np.iscomplexobj(A) or min(n, m, p, N) == 0:
        return gamma, fpeak
    Ab, Bb, Cb = _balanced(A, B, C)
    Bs, Cs, Ds, e = _unit_scaled(Bb, Cb, D)
    lam, V, V_inv, condition = _modal(Ab)
    stable, _ = _stable(lam, V, V_inv, Ab)
    # as norms._resonance_sensitive: modal values may miss tol, the single-model
    # routine evaluates those models by refined solves
    size = np.abs(Ab).sum(axis=1).max(axis=1)
    sensitive = _EPS * size > tol * np.min(-lam.real, axis=1)
    k = np.flatnonzero(stable & ~sensitive & (condition <= _MODAL_CONDITION_LIMIT))
    search = _StackSearch(Ab[k], Bs[k], Cs[k], Ds[k], lam[k], V[k], V_inv[k])
    lower, freq, ok = search.run(tol)
    done = k[ok]
    gamma[done] = _unscaled(lower[ok], e[done])
    fpeak[done] = np.where(np.isnan(gamma[done]), np.nan, freq[ok])
    return gamma, fpeak


class _StackSearch:
    """The level-set iteration of ``norms._LevelSetSearch`` on stable, real, continuous
    models with well-conditioned eigenvectors, all models at once."""

    def __init__(self, A, B, C, D, lam, V, V_inv):
        self.A, self.B, self.C, self.D = A, B, C, D
        self.lam = lam
        self.CV, self.WB = C @ V, V_inv @ B
        self.sigma_D = largest_singular_values(D)

    def sigma(self, rows, points):
        """sigma_max at frequencies ``points (len(rows), K)`` (finite) of models ``rows``."""
        response = _modal_response(
            self.lam[rows], self.CV[rows], self.WB[rows], self.D[rows], 1j * points
        )
        K = points.shape[1]
        p, m = response.shape[-2:]
        return largest_singular_values(response.reshape(-1, p, m)).reshape(-1, K)

    def initial(self):
        lam = self.lam
        magnitude = np.abs(lam)
        positive = np.where(magnitude > 0, magnitude, np.nan)
        low = np.nan_to_num(np.nanmin(positive, axis=1), nan=1.0)
        high = np.nan_to_num(np.nanmax(positive, axis=1), nan=1.0)
        grid = np.geomspace(low / 10, high * 10, 30, axis=1)
        points = np.concatenate([np.zeros((lam.shape[0], 1)), magnitude, np.abs(lam.imag), grid], 1)
        return np.sort(points, axis=1)

    def crossings(self, rows, level):
        """Sorted |Im| of near-axis Hamiltonian eigenvalues (nan-padded), or None rows."""
        A, B, C, D = self.A[rows], self.B[rows], self.C[rows], self.D[rows]
        m, p = B.shape[2], C.shape[1]
        g2 = (level**2)[:, None, None]
        Dt = D.transpose(0, 2, 1)
        R = g2 * np.eye(m) - Dt @ D
        R_inv_DhC = np.linalg.solve(R, Dt @ C)
        R_inv_Bh = np.linalg.solve(R, B.transpose(0, 2, 1))
        A_gamma = A + B @ R_inv_DhC
        S = g2 * np.eye(p) - D @ Dt
        Q = g2 * C.transpose(0, 2, 1) @ np.linalg.solve(S, C)
        H = np.block([[A_gamma, B @ R_inv_Bh], [-Q, -A_gamma.transpose(0, 2, 1)]])
        eig = np.linalg.eigvals(H)
        scale = np.linalg.norm(H, 1, axis=(1, 2))
        finite = np.isfinite(eig)
        near = finite & (
            np.abs(eig.real)
            <= _AXIS_RTOL * np.abs(eig) + _AXIS_SQRT_FACTOR * np.sqrt(_EPS) * scale[:, None]
        )
        return np.sort(np.where(near, np.abs(eig.imag), np.nan), axis=1)

    def run(self, tol):
        N = self.A.shape[0]
        ok = np.ones(N, dtype=bool)
        points = self.initial()
        values = self.sigma(np.arange(N), points)
        best = np.argmax(values, axis=1)
        lower = values[np.arange(N), best]
        freq = points[np.arange(N), best]
        at_inf = self.sigma_D > lower
        lower = np.where(at_inf, self.sigma_D, lower)
        freq = np.where(at_inf, np.inf, freq)
        ok &= lower > 0  # a response zero at every start point: single-model routine
        last_points = points.copy()
        active = np.flatnonzero(ok)
        for _ in range(_MAX_ITERATIONS):
            if active.size == 0:
                break
            level = lower[active] * (1.0 + tol)
            amplification = 1.0 / (1.0 - (self.sigma_D[active] / level) ** 2)
            pencil = amplification > _HAMILTONIAN_AMPLIFICATION_LIMIT
            ok[active[pencil]] = False
            active, level = active[~pencil], level[~pencil]
            if active.size == 0:
                break
            cross = self.crossings(active, level)
            none = np.all(np.isnan(cross), axis=1)
            keep = ~none
            active, level, cross = active[keep], level[keep], cross[keep]
            if active.size == 0:
                break
            # test points: crossings and midpoints of [0, c_1, ..., c_k, 2 c_k + 1]
            upper_end = 2 * np.nanmax(cross, axis=1) + 1.0
            padded = np.where(np.isnan(cross), upper_end[:, None], cross)
            ends = np.concatenate([np.zeros((active.size, 1)), padded, upper_end[:, None]], 1)
            mids = 0.5 * (ends[:, 1:] + ends[:, :-1])
            mids = np.where(
                np.concatenate([~np.isnan(cross), np.ones((active.size, 1), bool)], 1), mids, np.nan
            )
            test = np.sort(np.concatenate([cross, mids], 1), axis=1)
            valid = ~np.isnan(test)
            vals = self.sigma(active, np.where(valid, test, 0.0))
            vals = np.where(valid, vals, -np.inf)
            best = np.argmax(vals, axis=1)
            top = vals[np.arange(active.size), best]
            raise_ = top > lower[active]
            lower[active[raise_]] = top[raise_]
            freq[active[raise_]] = test[np.arange(active.size), best][raise_]
            width = max(last_points.shape[1], test.shape[1])
            if width > last_points.shape[1]:
                last_points = np.pad(
                    last_points, ((0, 0), (0, width - last_points.shape[1])), constant_values=np.nan
                )
            last_points[active] = np.pad(
                test, ((0, 0), (0, width - test.shape[1])), constant_values=np.nan
            )
            active = active[top > level]
        else:
            ok[active] = False  # not converged: the single-model routine warns
        lower, freq = self._refine(last_points, lower, freq, ok)
        return lower, freq, ok

    def _refine(self, points, lower, freq, ok, rounds=3, samples=17):
        """Batched ``_LevelSetSearch._refine``: raises the attained lower bound only."""
        rows = np.flatnonzero(ok & np.isfinite(freq))
        if rows.size == 0:
            return lower, freq
        P = points[rows]
        k = np.nanargmin(np.abs(P - freq[rows, None]), axis=1)
        r = np.arange(rows.size)
        count = np.sum(~np.isnan(P), axis=1)
        left = P[r, np.maximum(k - 1, 0)]
        right = P[r, np.minimum(k + 1, count - 1)]
        go = np.isfinite(left) & np.isfinite(right) & (right > left)
        rows, left, right = rows[go], left[go], right[go]
        r = np.arange(rows.size)
        for _ in range(rounds):
            if rows.size == 0:
                break
            grid = np.linspace(left, right, samples, axis=1)
            vals = self.sigma(rows, grid)
            j = np.argmax(vals, axis=1)
            top = vals[r, j]
            better = top > lower[rows]
            lower[rows[better]] = top[better]
            freq[rows[better]] = grid[r, j][better]
            left = grid[r, np.maximum(j - 1, 0)]
            right = grid[r, np.minimum(j + 1, samples - 1)]
        return lower, freq
