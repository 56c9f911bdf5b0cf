"""Newton's method on the smoothed D,G objective when both ``D`` scalings are diagonal.

The fast upper bound minimises ``phi(x) = lambda_max(X(x))`` with
``X = A^H A + j(A^H Gh - Gh^H A) = C^H C - Gh^H Gh``, ``C = A + j Gh``,
``A = diag(dl) M diag(dr)^-1`` (see :mod:`robustmb.analysis.mu_upper`).  Its smooth
approximation ``phi_t = (1/t) log sum_i exp(t lambda_i)`` (``lambda_max <= phi_t <=
lambda_max + log(m)/t``) is twice differentiable, and with only ``p`` (``<= 3`` per block)
parameters its exact Hessian is cheap:

* ``d^2 phi_t = tr(Pi d^2X) + sum_ij Gamma_ij |(V^H dX V)_ij|^2 - t (tr(Pi dX))^2``,
  ``Pi = V diag(s) V^H`` with the softmax weights ``s_i`` of the eigenvalues and
  ``Gamma_ij = (s_i - s_j) / (lambda_i - lambda_j)`` (``t s_i`` on the diagonal): the
  second derivative of a spectral function (Lewis & Sendov 2001);
* ``dA = diag(da) A - A diag(db)`` is linear in the log-scalings, ``d^2 A`` follows, and
  ``d^2 Gh = 0``.

A damped Newton iteration (eigenvalues of the Hessian replaced by their moduli, floored;
Armijo backtracking) on ``phi_t`` for an increasing sequence of ``t`` (relative to the
current value) takes a handful of steps per ``t`` where BFGS needs dozens, because
the smoothed function becomes badly conditioned as ``t`` grows.  A stage ends when the
Newton decrement says that the remaining decrease is below ``1/t`` relative, i.e. below
the smoothing error itself.  The result is only a starting point for the certificate:
:func:`robustmb.analysis.mu_upper.upper_bound_fast` returns ``lambda_max`` at the best
point seen, and the bound is re-checked by ``verify_upper_bound``.
"""

from __future__ import annotations

import numpy as np

from .mu_structure import dagger

__all__: list[str] = []

# largest spread of the log D parameters kept (cond(D) = exp(28) = 1.4e12): beyond it the
# rounding allowance of the certificate check (mu_rounding) grows with cond(D) and the
# certified bound loosens
_MAX_SPREAD = 28.0
# largest Newton step per parameter (logs of D, G of the normalised matrix), unless the
# parameter itself is larger (see _capped)
_MAX_STEP = 4.0


def _hessian_factors(param):
    """Constant pieces of the derivatives: ``(alpha, beta, Gk)``.

    ``alpha[k]``, ``beta[k]``: derivative of ``log dl``, ``log dr`` in parameter ``k``
    (zero rows for the ``G`` parameters); ``Gk[k]``: derivative of ``Gh`` (zero for
    the ``D`` parameters).
    """
    cached = getattr(param, "_newton_factors", None)
    if cached is not None:
        return cached
    p, nd = param.p, param.n_d
    alpha = np.zeros((p, param.n))
    beta = np.zeros((p, param.m))
    alpha[:nd] = param._el_diag
    beta[:nd] = param._er_diag
    Gk = (param._lg[0] + 1j * param._lg[1]).reshape(p, param.n, param.m)
    param._newton_factors = (alpha, beta, Gk)
    return param._newton_factors


def objective_hessian(M, x, param, t):
    """Value, gradient and Hessian of the smoothed objective ``phi_t`` (diagonal ``D``).

    Returns ``(f, g, H, top, gt)``: ``f = phi_t``, ``top = lambda_max`` (``+inf`` and zero
    derivatives where the scaled matrix overflows), ``gt = dg/dt``.  ``t`` has one value
    per problem.
    """
    B = x.shape[0]
    p, nd = param.p, param.n_d
    alpha, beta, Gk = _hessian_factors(param)
    with np.errstate(over="ignore", invalid="ignore"):
        ex = np.exp(np.clip(x[:, :nd], -300.0, 300.0))
        dl = ex @ param._el_diag
        dr = ex @ param._er_diag
        Gh = (x @ param._lg[0] + 1j * (x @ param._lg[1])).reshape(B, param.n, param.m)
        A = dl[:, :, None] * (M / dr[:, None, :])
        C = A + 1j * Gh
        X = dagger(C) @ C - dagger(Gh) @ Gh
    finite = np.isfinite(X).all(axis=(1, 2)) & np.isfinite(A).all(axis=(1, 2))
    if not finite.all():
        f = np.full(B, np.inf)
        top = np.full(B, np.inf)
        g = np.zeros((B, p))
        gt = np.zeros((B, p))
        H = np.broadcast_to(np.eye(p), (B, p, p)).copy()
        if finite.any():
            sub = objective_hessian(M[finite], x[finite], param, t[finite])
            f[finite], g[finite], H[finite], top[finite], gt[finite] = sub
        return f, g, H, top, gt
    lam, V = np.linalg.eigh(X)
    top = lam[:, -1]
    with np.errstate(over="ignore", under="ignore"):
        e = np.exp(t[:, None] * (lam - top[:, None]))
    s = e / e.sum(axis=1)[:, None]
    f = top + np.log(e.sum(axis=1)) / t
    # first derivatives of C (D parameters: rows and columns of A; G parameters: j Gk),
    # in the eigenbasis: Y_k = Ck V, Z_k = Gk V, U = C V, W = Gh V
    AV = A @ V
    Z = Gk[None] @ V[:, None]  # (B, p, n, m)
    Y = alpha[None, :, :, None] * AV[:, None] - A[:, None] @ (beta[None, :, :, None] * V[:, None])
    Y = Y + 1j * Z
    GV = Gh @ V
    U = AV + 1j * GV
    # tr(Pi d2X) = 2 Re tr(Pi C^H d2A) + 2 Re tr(Pi Ck^H Cl) - 2 Re tr(Pi Gk^H Gl),
    # Pi = V diag(s) V^H; d2A_kl = (alpha_k - beta_k)(alpha_l - beta_l) o A
    R = np.real(np.conj(A) * ((U * s[:, None, :]) @ dagger(V)))
    RB = np.einsum("bij,lj->bil", R, beta)
    aRb = np.einsum("ki,bil->bkl", alpha, RB)
    H = 2.0 * (
        np.einsum("ki,bi,li->bkl", alpha, R.sum(axis=2), alpha)
        - aRb
        - np.swapaxes(aRb, 1, 2)
        + np.einsum("kj,bj,lj->bkl", beta, R.sum(axis=1), beta)
    )
    nm = param.n * param.m
    sw = s[:, None, None, :]
    Yf, Zf = Y.reshape(B, p, nm), Z.reshape(B, p, nm)
    H += 2.0 * np.real((np.conj(Y) * sw).reshape(B, p, nm) @ np.swapaxes(Yf, 1, 2))
    H -= 2.0 * np.real((np.conj(Z) * sw).reshape(B, p, nm) @ np.swapaxes(Zf, 1, 2))
    # spectral term: K_k = V^H X_k V = S_k + S_k^H, S_k = U^H Y_k - (Gh V)^H Z_k
    # (X_k = Ck^H C + C^H Ck - Gk^H Gh - Gh^H Gk)
    S = dagger(U)[:, None] @ Y - dagger(GV)[:, None] @ Z
    K = S + dagger(S)
    Kd = np.real(np.einsum("bkii->bki", K))
    g = np.einsum("bki,bi->bk", Kd, s)
    # d g / d t (the softmax weights move with t: ds_i/dt = s_i (lambda_i - sum_j s_j lambda_j))
    dsdt = s * (lam - np.sum(s * lam, axis=1)[:, None])
    gt = np.einsum("bki,bi->bk", Kd, dsdt)
    dlam = lam[:, :, None] - lam[:, None, :]
    ds = s[:, :, None] - s[:, None, :]
    close = np.abs(t[:, None, None] * dlam) < 1e-8
    with np.errstate(divide="ignore", invalid="ignore"):
        Gamma = np.where(close, 0.5 * t[:, None, None] * (s[:, :, None] + s[:, None, :]), ds / dlam)
    Kf = K.reshape(B, p, -1)
    KG = Kf * Gamma.reshape(B, 1, -1)
    H += np.real(KG @ np.swapaxes(np.conj(Kf), 1, 2))
    H -= t[:, None, None] * g[:, :, None] * g[:, None, :]
    H = 0.5 * (H + np.swapaxes(H, 1, 2))
    bad = ~(np.isfinite(g).all(axis=1) & np.isfinite(H).all(axis=(1, 2)))
    g[bad] = 0.0
    gt[bad] = 0.0
    H[bad] = np.eye(p)
    return f, g, H, top, gt


def _solve_modified(H, v):
    """``|H|^-1 v`` per problem: the Hessian's eigenvalues replaced by their moduli,
    floored at ``1e-10`` of the largest and at ``1e-12`` (the common scaling of all
    ``D`` is a null direction of the bound)."""
    w, Q = np.linalg.eigh(H)
    aw = np.abs(w)
    aw = np.maximum(aw, np.maximum(1e-10 * aw.max(axis=1), 1e-12)[:, None])
    return np.einsum("bij,bj->bi", Q, np.einsum("bji,bj->bi", Q, v) / aw)


def _capped(d, x):
    """The step ``d`` shortened so that no parameter moves by more than
    ``max(_MAX_STEP, |x_k|)``: a direction without curvature (``G`` of a real scalar
    with ``mu = 0``, or a bound approached only as ``G -> inf``) then grows ``x`` at most
    geometrically instead of jumping to overflow."""
    limit = np.maximum(_MAX_STEP, np.abs(x))
    ratio = np.max(np.abs(d) / limit, axis=1, initial=0.0)
    return d / np.maximum(ratio, 1.0)[:, None]


# ---------------------------------------------------------------- shared by the Newton stages
# (here and in mu_upper_blocknewton: the same stage logic on two parametrisations)
def stage_finished(top, spread, best_top, idx, fstop, stop):
    """Rows ``idx`` whose descent ends: a non-finite value, a D spread past
    ``_MAX_SPREAD``, ``top <= fstop``, or ``stop`` on the best values with ``top`` in."""
    out = ~np.isfinite(top) | (spread > _MAX_SPREAD)
    if fstop is not None:
        out |= top <= fstop
    if stop is not None:
        cur = best_top.copy()
        cur[idx] = np.minimum(cur[idx], top)
        out |= stop(cur)[idx]
    return out


def stage_tolerance(k_stage, t):
    """A stage ends when the decrease left (about half the Newton decrement) is below
    a fraction of the smoothing error ``log(m) / t`` (relative)."""
    return (0.2 if k_stage == 0 else 0.02) / t


def predictor_step(t, t_rel, cur_top, H, gt):
    """New ``t_rel`` of a stage and the predictor step along the path of minimisers,
    ``x(1/t)`` extrapolated from ``dx/dt = -H^-1 dg/dt`` (uncapped)."""
    t_old = t_rel.copy()
    t_new = t / np.maximum(np.abs(cur_top), 1e-12)
    dxdt = -_solve_modified(H, gt)
    return t_new, (t_old * (1.0 - t_old / t_new))[:, None] * dxdt


def newton_direction(H, g, f, ref, rel_tol):
    """The capped modified-Newton step, its decrement and the rows where it is worth
    taking (decrement above ``rel_tol |f|``); ``ref`` the parameters for the cap."""
    d = _capped(-_solve_modified(H, g), ref)
    decrement = -np.einsum("bi,bi->b", g, d)
    keep = decrement > rel_tol * np.maximum(np.abs(f), 1e-300)
    return d, decrement, keep


def armijo(ft, f, alpha, decrement):
    """Sufficient decrease of a trial value ``ft`` along a step of length ``alpha``."""
    return np.isfinite(ft) & (ft <= f - 1e-4 * alpha * decrement)


def newton_stages(M, x, param, schedule, *, fstop=None, stop=None, max_steps=40):
    """Damped Newton on ``phi_t`` for each ``t`` of ``schedule`` (relative to the value).

    ``M`` is normalised so that ``lambda_max`` is about 1 at ``x`` (as
    :func:`~robustmb.analysis.mu_upper.upper_bound_fast` does); later stages take
    ``t / lambda_max``.  Every stage after the first starts from a predictor along the
    path of minimisers, ``x(1/t)`` extrapolated linearly from ``dx/dt = -H^-1 dg/dt``
    (kept when it lowers ``lambda_max``).  Returns ``(best_top, best_x, stalled)``: the
    smallest ``lambda_max`` seen for every problem, its parameters, and whether a stage
    ended at ``max_steps`` with the problem still descending.  ``fstop`` and ``stop`` end
    a problem's descent as in :func:`robustmb.analysis.mu_lbfgs.batched_bfgs` (tested
    on ``lambda_max``, itself a value of the bound at that point).
    """
    B, p = x.shape
    x = np.array(x, dtype=float)
    best_x = x.copy()
    best_top = np.full(B, np.inf)
    active = np.ones(B, dtype=bool)
    stalled = np.zeros(B, dtype=bool)
    cur_top = np.full(B, np.inf)
    t_rel = np.full(B, float(schedule[0]))
    g_cur = np.zeros((B, p))
    gt_cur = np.zeros((B, p))
    H_cur = np.zeros((B, p, p))

    nd = param.n_d

    def record(idx, top, xx):
        # D may run off to infinity (a triangular M): points with cond(D) above about
        # 1e12 are not kept, and their problems stop (see ``finished``)
        better = (top < best_top[idx]) & (np.ptp(xx[:, :nd], axis=1) <= _MAX_SPREAD)
        best_top[idx[better]] = top[better]
        best_x[idx[better]] = xx[better]

    def finished(idx, top):
        return stage_finished(top, np.ptp(x[idx, :nd], axis=1), best_top, idx, fstop, stop)

    def evaluate(idx, xx):
        f, g, H, top, gt = objective_hessian(M[idx], xx, param, t_rel[idx])
        record(idx, top, xx)
        return f, g, H, top, gt

    for k_stage, t in enumerate(schedule):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        if k_stage == 0:
            f, g, H, top, gt = evaluate(idx, x[idx])
            # not normalised after all (e.g. a warm start with G): t relative to lambda_max
            off = np.isfinite(top) & ((np.abs(top) > 2.0) | (np.abs(top) < 0.5))
            if off.any():
                redo = idx[off]
                t_rel[redo] = t / np.maximum(np.abs(top[off]), 1e-12)
                sub = evaluate(redo, x[redo])
                for arr, val in zip((f, g, H, top, gt), sub, strict=True):
                    arr[off] = val
        else:
            t_rel[idx], step = predictor_step(t, t_rel[idx], cur_top[idx], H_cur[idx], gt_cur[idx])
            xp = x[idx] + _capped(step, x[idx])
            f, g, H, top, gt = evaluate(idx, xp)
            good = np.isfinite(top) & (top < cur_top[idx])
            x[idx[good]] = xp[good]
            if not good.all():
                redo = idx[~good]
                sub = evaluate(redo, x[redo])
                for arr, val in zip((f, g, H, top, gt), sub, strict=True):
                    arr[~good] = val
        cur_top[idx], g_cur[idx], H_cur[idx], gt_cur[idx] = top, g, H, gt
        done = finished(idx, top)
        active[idx[done]] = False
        keep = ~done
        idx, f, g, H = idx[keep], f[keep], g[keep], H[keep]
        rel_tol = stage_tolerance(k_stage, t)
        for _ in range(max_steps):
            if idx.size == 0:
                break
            d, decrement, keep = newton_direction(H, g, f, x[idx], rel_tol)
            idx, f, d, decrement = idx[keep], f[keep], d[keep], decrement[keep]
            if idx.size == 0:
                break
            alpha = np.ones(idx.size)
            pending = np.arange(idx.size)
            new_f = f.copy()
            new_g = np.zeros((idx.size, p))
            new_H = np.zeros((idx.size, p, p))
            moved = np.zeros(idx.size, dtype=bool)
            for _ls in range(30):
                j = idx[pending]
                xt = x[j] + alpha[pending, None] * d[pending]
                ft, gn, Hn, topt, gtn = evaluate(j, xt)
                ok = armijo(ft, f[pending], alpha[pending], decrement[pending])
                acc = pending[ok]
                ja = idx[acc]
                x[ja] = xt[ok]
                cur_top[ja], g_cur[ja], H_cur[ja], gt_cur[ja] = topt[ok], gn[ok], Hn[ok], gtn[ok]
                new_f[acc], new_g[acc], new_H[acc] = ft[ok], gn[ok], Hn[ok]
                moved[acc] = True
                active[ja[finished(ja, topt[ok])]] = False
                pending = pending[~ok]
                if pending.size == 0:
                    break
                alpha[pending] *= 0.5
            keep = moved & active[idx]
            idx, f, g, H = idx[keep], new_f[keep], new_g[keep], new_H[keep]
        # still descending after max_steps: a bound approached along a curved valley
        # to infinity (e.g. G -> inf), where BFGS on lambda_max does better
        # (they leave the Newton stages at once)
        stalled[idx] = True
        active[idx] = False
    return best_top, best_x, stalled
