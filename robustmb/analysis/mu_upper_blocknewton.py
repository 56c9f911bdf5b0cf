"""Newton's method on the smoothed D,G objective with full (repeated-scalar) ``D`` blocks.

:mod:`~robustmb.analysis.mu_upper_newton` handles diagonal ``D``; with a repeated scalar
block of size ``r > 1`` the scaling ``D_i`` is an ``r x r`` matrix and the global
parametrisation ``D_i = (I + U) E`` of :class:`~robustmb.analysis.mu_upper.ScalingParametrization`
has awkward second derivatives.  Here every Newton step is taken in *local* coordinates
at the current scaling: with ``A = Dl M Dr^-1`` the scaled matrix at the current point,
the trial scaling is ``Dl' = exp(S_l) Dl``, ``Dr' = exp(S_r) Dr``, ``Gh' = Gh + sum g_k G_k``
where ``S`` is block diagonal and Hermitian, ``S = sum s_k E_k`` over a basis ``E_k`` of the
Hermitian matrices of each block (``r^2`` real parameters for a repeated scalar, one for a
full block: as many as the global parametrisation has).  Then::

    A(s) = exp(S_l) A exp(-S_r),   dA = E_l A - A E_r,
    d^2 A[k, l] = (E_lk E_ll + E_ll E_lk) A / 2 - E_lk A E_rl - E_ll A E_rk
                  + A (E_rk E_rl + E_rl E_rk) / 2,

(the second-order terms of the exponential) and the Hessian of the log-sum-exp smoothing
``phi_t`` of ``lambda(X)``, ``X = C^H C - Gh^H Gh``, ``C = A + j Gh``, is that of a spectral
function (Lewis & Sendov 2001), as in :mod:`~robustmb.analysis.mu_upper_newton`::

    d^2 phi_t = tr(Pi d^2 X) + sum_ij Gamma_ij |(V^H dX V)_ij|^2 - t (tr(Pi dX))^2.

Only the eigenvectors whose softmax weight ``s_i`` exceeds ``1e-13`` enter: ``Pi`` is
``V_I diag(s_I) V_I^H``, and ``Gamma_ij = (s_i - s_j)/(lambda_i - lambda_j)`` is at most
``t max(s_i, s_j)`` (mean value theorem), so the pairs outside ``I x I``, ``I x (not I)``
are negligible.  This makes one Hessian cost ``O(p^2 m |I|)`` instead of ``O(p^2 m^2)``
(``p`` = 523 parameters, ``m`` = 35 for the robotic arm's 11-fold repeated blocks).

The line search evaluates the exact smoothed value at the retracted point (a fresh
``Dl M Dr^-1``), so the Hessian only shapes the step.  At the end the scaling is brought
back to the global parametrisation (triangular factor of the QR decomposition of ``D_i``, the
unitary rest moved into ``Gh``, which leaves ``X`` unchanged up to a unitary similarity), and
:func:`~robustmb.analysis.mu_upper.upper_bound_fast` re-evaluates ``lambda_max`` there.
"""

from __future__ import annotations

import weakref

import numpy as np

from .mu_structure import FULL, dagger
from .mu_upper_newton import (
    _MAX_SPREAD,
    _capped,
    armijo,
    newton_direction,
    predictor_step,
    stage_finished,
    stage_tolerance,
)

__all__: list[str] = []

# softmax weights below this (relative to the sum) are left out of Pi and of the Hessian
_ACTIVE = 1e-13
# largest number of complex entries of the (problems x parameters x n x |I|) work arrays
_CHUNK = 1_000_000


class LocalGenerators:
    """Hermitian basis ``E_k`` of the block-diagonal ``D`` directions and the ``G_k``.

    ``entries_l`` / ``entries_r``: ``(k, row, col, coef)`` of ``E_k`` on the ``z`` (left,
    ``n x n``) and ``w`` (right, ``m x m``) side, with ``(k, row)`` unique so that
    ``E_k Z`` is a scatter of rows; ``Gk``: ``(p - n_d, n, m)`` from the global
    parametrisation (``Gh`` is linear in its parameters).
    """

    def __init__(self, param):
        struct = param.struct
        self.n, self.m, self.nd, self.p = param.n, param.m, param.n_d, param.p
        el, er = [], []
        self.blocks = []  # (z slice, w slice, first k, kind)
        k = 0
        for b in struct.blocks:
            self.blocks.append((b.z, b.w, k, b.kind))
            if b.kind == FULL:
                el += [(k, b.z.start + a, b.z.start + a, 1.0) for a in range(b.cols)]
                er += [(k, b.w.start + a, b.w.start + a, 1.0) for a in range(b.rows)]
                k += 1
                continue
            r = b.rows
            for a in range(r):
                el.append((k, b.z.start + a, b.z.start + a, 1.0))
                er.append((k, b.w.start + a, b.w.start + a, 1.0))
                k += 1
            for a in range(r):
                for c in range(a + 1, r):
                    for coef in (1.0, 1j):
                        for off, out in ((b.z.start, el), (b.w.start, er)):
                            out.append((k, off + a, off + c, coef))
                            out.append((k, off + c, off + a, np.conj(coef)))
                        k += 1
        assert k == self.nd
        self.el = self._arrays(el)
        self.er = self._arrays(er)
        self.lmap = self._dense(el, self.n)
        self.rmap = self._dense(er, self.m)
        self.Gk = param.lin_g[self.nd :].reshape(self.p - self.nd, self.n, self.m)
        gm = param.lin_g[self.nd :]
        self._g_proj = gm / np.maximum(np.sum(np.abs(gm) ** 2, axis=1), 1e-300)[:, None]

    @staticmethod
    def _arrays(entries):
        k, r, c, v = zip(*entries, strict=True) if entries else ((), (), (), ())
        return (np.array(k, int), np.array(r, int), np.array(c, int), np.array(v, complex))

    def _dense(self, entries, size):
        out = np.zeros((self.nd, size * size), dtype=complex)
        for k, r, c, v in entries:
            out[k, r * size + c] += v
        return out

    def apply(self, side, Z):
        """``E_k Z`` for every ``D`` direction ``k``: ``(B, n_d, rows, q)``."""
        k, r, c, v = self.el if side == "l" else self.er
        B, rows, q = Z.shape
        out = np.zeros((B, self.nd, rows, q), dtype=complex)
        out[:, k, r, :] = v[None, :, None] * Z[:, c, :]
        return out

    def retract(self, Dl, Dr, Gh, step):
        """``(exp(S_l) Dl, exp(S_r) Dr, Gh + sum g_k G_k)`` for the steps ``(B, p)``."""
        B = step.shape[0]
        sd = step[:, : self.nd]
        Sl = (sd @ self.lmap).reshape(B, self.n, self.n)
        Sr = (sd @ self.rmap).reshape(B, self.m, self.m)
        El = np.zeros_like(Sl)
        Er = np.zeros_like(Sr)
        for z, w, _, _ in self.blocks:
            for S, E, sl in ((Sl, El, z), (Sr, Er, w)):
                blk = S[:, sl, sl]
                lam, Q = np.linalg.eigh(0.5 * (blk + dagger(blk)))
                E[:, sl, sl] = (Q * np.exp(np.clip(lam, -300.0, 300.0))[:, None, :]) @ dagger(Q)
        Gh_new = Gh + np.einsum("bk,kij->bij", step[:, self.nd :], self.Gk)
        return El @ Dl, Er @ Dr, Gh_new

    def spread(self, Dl):
        """Largest spread of ``log sigma`` of a ``D`` block (``log cond`` of the scaling)."""
        s = np.linalg.svd(Dl, compute_uv=False)
        with np.errstate(divide="ignore"):
            return np.log(s[:, 0]) - np.log(s[:, -1])

    def to_global(self, Dl, Dr, Gh):
        """Parameters ``x`` of the global parametrisation for the scalings ``(Dl, Dr, Gh)``.

        Block by block ``D_i = W_i R_i`` (QR decomposition, the phases of ``diag(R_i)``
        moved into ``W_i``: ``R_i`` upper triangular with positive diagonal, ``W_i``
        unitary); ``(R, W^H Gh W)`` gives the same ``X`` up to a unitary similarity, hence
        the same bound.  Unlike a Cholesky factor of ``D_i^H D_i`` this does not square
        the condition number, and ``R^-1`` is never formed.  Rows whose factor has a zero
        (or non-finite) diagonal get non-finite parameters; the caller discards them.
        """
        B = Dl.shape[0]
        x = np.zeros((B, self.p))
        Wl = np.zeros((B, self.n, self.n), dtype=complex)
        Wr = np.zeros((B, self.m, self.m), dtype=complex)
        k_global = 0
        for z, w, _, kind in self.blocks:
            D = Dl[:, z, z]
            if kind == FULL:
                d = np.abs(D[:, 0, 0])
                with np.errstate(divide="ignore", invalid="ignore"):
                    x[:, k_global] = np.log(d)
                    ph = D[:, 0, 0] / d
                Wl[:, z, z] = ph[:, None, None] * np.eye(z.stop - z.start)
                Wr[:, w, w] = ph[:, None, None] * np.eye(w.stop - w.start)
                k_global += 1
                continue
            r = z.stop - z.start
            fin = np.isfinite(D).all(axis=(1, 2))
            Q = np.broadcast_to(np.eye(r, dtype=complex), D.shape).copy()
            R = np.full(D.shape, np.nan, dtype=complex)
            if fin.any():
                Q[fin], R[fin] = np.linalg.qr(D[fin])
            dR = np.diagonal(R, axis1=1, axis2=2)
            diag = np.abs(dR)
            with np.errstate(divide="ignore", invalid="ignore"):
                ph = np.where(diag > 0, dR / diag, 1.0)
                # D = (Q diag(ph)) (diag(conj ph) R): the second factor has diagonal |dR|
                R = np.conj(ph)[:, :, None] * R
                x[:, k_global : k_global + r] = np.log(diag)
            k_global += r
            for a in range(r):
                for c in range(a + 1, r):
                    with np.errstate(divide="ignore", invalid="ignore"):
                        u = R[:, a, c] / diag[:, c]
                    x[:, k_global] = u.real
                    x[:, k_global + 1] = u.imag
                    k_global += 2
            W = Q * ph[:, None, :]
            Wl[:, z, z] = W
            Wr[:, w, w] = W
        # D = W R on both sides: A_R = W^H A W and Gh_R = W^H Gh W keep X's spectrum
        Ghr = dagger(Wl) @ Gh @ Wr
        x[:, self.nd :] = np.real(Ghr.reshape(B, -1) @ np.conj(self._g_proj).T)
        return x


# one LocalGenerators per ScalingParametrization, alive as long as the latter is
_GENERATORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def local_generators(param):
    """The :class:`LocalGenerators` of ``param`` (built once, cached while it lives)."""
    gen = _GENERATORS.get(param)
    if gen is None:
        gen = _GENERATORS[param] = LocalGenerators(param)
    return gen


def _gevp(M, Dl, Dr, Gh):
    A = dagger(np.linalg.solve(dagger(Dr), dagger(Dl @ M)))
    C = A + 1j * Gh
    X = dagger(C) @ C - dagger(Gh) @ Gh
    return A, 0.5 * (X + dagger(X))


def smoothed_value(M, Dl, Dr, Gh, t):
    """``(phi_t, lambda_max)`` at the scalings (``+inf`` where they overflow)."""
    B = M.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        A, X = _gevp(M, Dl, Dr, Gh)
    ok = np.isfinite(X).all(axis=(1, 2)) & np.isfinite(A).all(axis=(1, 2))
    f = np.full(B, np.inf)
    top = np.full(B, np.inf)
    if ok.any():
        lam = np.linalg.eigvalsh(X[ok])
        tp = lam[:, -1]
        with np.errstate(under="ignore"):
            e = np.exp(t[ok, None] * (lam - tp[:, None]))
        f[ok] = tp + np.log(e.sum(axis=1)) / t[ok]
        top[ok] = tp
    return f, top


def local_hessian(gen, M, Dl, Dr, Gh, t):
    """Value, gradient, Hessian (local coordinates at the current point) of ``phi_t``.

    Returns ``(f, g, H, top, gt)`` as :func:`~robustmb.analysis.mu_upper_newton.objective_hessian`
    does (``gt = dg/dt``), one ``t`` per problem.
    """
    B = M.shape[0]
    p = gen.p
    with np.errstate(over="ignore", invalid="ignore"):
        A, X = _gevp(M, Dl, Dr, Gh)
    ok = np.isfinite(X).all(axis=(1, 2)) & np.isfinite(A).all(axis=(1, 2))
    f = np.full(B, np.inf)
    top = np.full(B, np.inf)
    g = np.zeros((B, p))
    gt = np.zeros((B, p))
    H = np.broadcast_to(np.eye(p), (B, p, p)).copy()
    idx = np.flatnonzero(ok)
    if idx.size == 0:
        return f, g, H, top, gt
    lam, V = np.linalg.eigh(X[idx])
    tp = lam[:, -1]
    with np.errstate(under="ignore"):
        e = np.exp(t[idx, None] * (lam - tp[:, None]))
    s = e / e.sum(axis=1)[:, None]
    f[idx] = tp + np.log(e.sum(axis=1)) / t[idx]
    top[idx] = tp
    # the active eigenvalues are the top ones (ascending order from eigh)
    n_act = int(np.max(np.sum(s > _ACTIVE, axis=1)))
    per = max(1, _CHUNK // max(1, p * gen.n * n_act))
    for lo in range(0, idx.size, per):
        sl = slice(lo, lo + per)
        j = idx[sl]
        out = _hessian_chunk(gen, A[j], Gh[j], lam[sl], V[sl], s[sl], t[j], n_act)
        g[j], H[j], gt[j] = out
    bad = ~(np.isfinite(g).all(axis=1) & np.isfinite(H).all(axis=(1, 2)))
    g[bad] = 0.0
    gt[bad] = 0.0
    H[bad] = np.eye(p)
    return f, g, H, top, gt


def _hessian_chunk(gen, A, Gh, lam, V, s, t, n_act):
    B, n, m = A.shape
    nd, p = gen.nd, gen.p
    VI = V[:, :, m - n_act :]
    sI = s[:, m - n_act :]
    C = A + 1j * Gh
    U = C @ V
    UI = U[:, :, m - n_act :]
    GV = Gh @ V
    GVI = GV[:, :, m - n_act :]
    AVI = A @ VI
    AhUI = dagger(A) @ UI
    # D directions: Y_k = E_lk A V_I - A E_rk V_I (= C_k V_I)
    LU = gen.apply("l", UI)  # (B, nd, n, I)
    LAV = gen.apply("l", AVI)
    RV = gen.apply("r", VI)  # (B, nd, m, I)
    ARV = A[:, None] @ RV
    RAU = gen.apply("r", AhUI)
    Zg = gen.Gk[None] @ VI[:, None]  # (B, pg, n, I)
    Y = np.concatenate([LAV - ARV, 1j * Zg], axis=1)  # (B, p, n, I)
    # K_k = V^H X_k V_I: D directions V^H (A^H E_lk U_I - E_rk A^H U_I) + U^H Y_k,
    # G directions -V^H G_k^H (j U_I + Gh V_I) + (-j U - Gh V)^H Z_k
    Vh = dagger(V)[:, None]
    KD = Vh @ (dagger(A)[:, None] @ LU - RAU) + dagger(U)[:, None] @ Y[:, :nd]
    KG = -(Vh @ (dagger(gen.Gk)[None] @ (1j * UI + GVI)[:, None]))
    KG = KG + dagger(-1j * U - GV)[:, None] @ Zg
    K = np.concatenate([KD, KG], axis=1)  # (B, p, m, I)
    a = np.arange(n_act)
    Kd = np.real(K[:, :, m - n_act + a, a])  # (B, p, I)
    g = np.einsum("bki,bi->bk", Kd, sI)
    dsdt = s * (lam - np.sum(s * lam, axis=1)[:, None])
    gt = np.einsum("bki,bi->bk", Kd, dsdt[:, m - n_act :])
    # tr(Pi X_kl): 2 Re <Y_k, Y_l>_s - 2 Re <Z_k, Z_l>_s + 2 Re tr(Pi C^H A_kl)
    sw = sI[:, None, None, :]

    def gram(P, Q):  # sum_i s_i P_k[:, i]^H Q_l[:, i]
        Bq, kp, rows, ni = P.shape
        Pf = (np.conj(P) * sw).reshape(Bq, kp, rows * ni)
        return Pf @ np.swapaxes(Q.reshape(Bq, Q.shape[1], rows * ni), 1, 2)

    H = 2.0 * np.real(gram(Y, Y))
    H[:, nd:, nd:] -= 2.0 * np.real(gram(Zg, Zg))
    N1 = gram(LU, LAV)
    N2 = gram(LU, ARV)
    N3 = gram(RAU, RV)
    T = 0.5 * (N1 + np.swapaxes(N1, 1, 2)) - (N2 + np.swapaxes(N2, 1, 2))
    T = T + 0.5 * (N3 + np.swapaxes(N3, 1, 2))
    H[:, :nd, :nd] += 2.0 * np.real(T)
    # spectral term, rows i over all eigenvalues and columns j over the active ones;
    # the pairs (i not active, j active) stand for their transposes as well (K Hermitian)
    lamI = lam[:, m - n_act :]
    dlam = lam[:, :, None] - lamI[:, None, :]
    ds = s[:, :, None] - sI[:, None, :]
    close = np.abs(t[:, None, None] * dlam) < 1e-8
    with np.errstate(divide="ignore", invalid="ignore"):
        Gam = np.where(close, 0.5 * t[:, None, None] * (s[:, :, None] + sI[:, None, :]), ds / dlam)
    Gam[:, : m - n_act, :] *= 2.0
    Kf = K.reshape(B, p, -1)
    H += np.real((Kf * Gam.reshape(B, 1, -1)) @ np.swapaxes(np.conj(Kf), 1, 2))
    H -= t[:, None, None] * g[:, :, None] * g[:, None, :]
    H = 0.5 * (H + np.swapaxes(H, 1, 2))
    return g, H, gt


def block_newton_stages(M, x, param, schedule, *, fstop=None, stop=None, max_steps=40):
    """Damped Newton on ``phi_t`` in local coordinates, for each ``t`` of ``schedule``.

    Same contract as :func:`~robustmb.analysis.mu_upper_newton.newton_stages` (``t``
    relative to the value; a predictor along the path of minimisers between stages;
    ``fstop``/``stop`` end a problem's descent): returns ``(best_top, best_x)`` with
    ``best_x`` in the global parametrisation of ``param``.
    """
    gen = local_generators(param)
    B, p = x.shape
    nd = gen.nd
    Dl, Dr, Gh = (np.array(a) for a in param.matrices(np.asarray(x, float)))
    best = [Dl.copy(), Dr.copy(), Gh.copy()]
    best_top = np.full(B, np.inf)
    active = np.ones(B, dtype=bool)
    cur_top = np.full(B, np.inf)
    t_rel = np.full(B, float(schedule[0]))
    g_cur = np.zeros((B, p))
    gt_cur = np.zeros((B, p))
    H_cur = np.zeros((B, p, p))

    def gparams(idx):  # current G parameters (for the step cap)
        out = np.zeros((idx.size, p))
        out[:, nd:] = np.real(Gh[idx].reshape(idx.size, -1) @ np.conj(gen._g_proj).T)
        return out

    def record(idx, top, dl, dr, gh):
        cand = top < best_top[idx]
        if not cand.any():
            return
        ok = np.zeros(idx.size, dtype=bool)
        ok[cand] = gen.spread(dl[cand]) <= _MAX_SPREAD
        j = idx[ok]
        best_top[j] = top[ok]
        best[0][j], best[1][j], best[2][j] = dl[ok], dr[ok], gh[ok]

    def finished(idx, top):
        return stage_finished(top, gen.spread(Dl[idx]), best_top, idx, fstop, stop)

    def hessian_at(idx):
        f, g, H, top, gt = local_hessian(gen, M[idx], Dl[idx], Dr[idx], Gh[idx], t_rel[idx])
        record(idx, top, Dl[idx], Dr[idx], Gh[idx])
        cur_top[idx], g_cur[idx], H_cur[idx], gt_cur[idx] = top, g, H, gt
        return f, g, H, top

    for k_stage, t in enumerate(schedule):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        if k_stage == 0:
            f, g, H, top = hessian_at(idx)
            off = np.isfinite(top) & ((np.abs(top) > 2.0) | (np.abs(top) < 0.5))
            if off.any():
                t_rel[idx[off]] = t / np.maximum(np.abs(top[off]), 1e-12)
                f, g, H, top = hessian_at(idx)
        else:
            t_rel[idx], step = predictor_step(t, t_rel[idx], cur_top[idx], H_cur[idx], gt_cur[idx])
            step = _capped(step, gparams(idx))
            trial = gen.retract(Dl[idx], Dr[idx], Gh[idx], step)
            _, top_p = smoothed_value(M[idx], *trial, t_rel[idx])
            good = np.isfinite(top_p) & (top_p < cur_top[idx])
            j = idx[good]
            Dl[j], Dr[j], Gh[j] = trial[0][good], trial[1][good], trial[2][good]
            f, g, H, top = hessian_at(idx)
        done = finished(idx, top)
        active[idx[done]] = False
        keep = ~done
        idx, f, g, H = idx[keep], f[keep], g[keep], H[keep]
        rel_tol = stage_tolerance(k_stage, t)
        for _ in range(max_steps):
            if idx.size == 0:
                break
            d, decrement, keep = newton_direction(H, g, f, gparams(idx), rel_tol)
            idx, f, d, decrement = idx[keep], f[keep], d[keep], decrement[keep]
            if idx.size == 0:
                break
            alpha = np.ones(idx.size)
            pending = np.arange(idx.size)
            moved = np.zeros(idx.size, dtype=bool)
            for _ls in range(30):
                j = idx[pending]
                trial = gen.retract(Dl[j], Dr[j], Gh[j], alpha[pending, None] * d[pending])
                ft, topt = smoothed_value(M[j], *trial, t_rel[j])
                record(j, topt, *trial)
                ok = armijo(ft, f[pending], alpha[pending], decrement[pending])
                ja = j[ok]
                Dl[ja], Dr[ja], Gh[ja] = trial[0][ok], trial[1][ok], trial[2][ok]
                moved[pending[ok]] = True
                pending = pending[~ok]
                if pending.size == 0:
                    break
                alpha[pending] *= 0.5
            idx = idx[moved]
            if idx.size == 0:
                break
            f, g, H, top = hessian_at(idx)
            done = finished(idx, top)
            active[idx[done]] = False
            keep = ~done
            idx, f, g, H = idx[keep], f[keep], g[keep], H[keep]
        # a problem still descending after max_steps (typically a bound approached as G
        # or the spread of D grows without limit) goes on at the next stage
    best_x = gen.to_global(*best)
    return best_top, best_x


def polish_block_newton(Ms, best_f, best_x, param, schedule, fstop, stop, lam_max):
    """Block Newton from ``best_x`` for the problems not yet good enough; in place.

    ``Ms`` is the normalised stack of :func:`~robustmb.analysis.mu_upper.upper_bound_fast`,
    ``best_f`` its current ``lambda_max`` values, ``lam_max(x, rows)`` its exact objective:
    the parameters returned by the Newton stages are re-evaluated by it, and kept only
    where the bound is lower.
    """
    todo = np.isfinite(best_f) & (best_f > 0)
    if fstop is not None:
        todo &= best_f > fstop
    if stop is not None:
        todo &= ~stop(best_f)
    rows = np.flatnonzero(todo)
    if rows.size == 0:
        return
    # normalise once more so that lambda_max = 1 at the start (G scales with sqrt(phi))
    c = np.sqrt(best_f[rows])
    x0 = best_x[rows].copy()
    x0[:, param.n_d :] /= c[:, None]
    sub_stop = None
    if stop is not None:

        def sub_stop(phi):
            full = best_f.copy()
            full[rows] = phi * c**2
            return stop(full)[rows]

    try:
        _, x_new = block_newton_stages(
            Ms[rows] / c[:, None, None], x0, param, schedule, fstop=fstop, stop=sub_stop,
            max_steps=15,
        )  # fmt: skip
        x_new[:, param.n_d :] *= c[:, None]
        fin = np.isfinite(x_new).all(axis=1)
        f_new = np.full(rows.size, np.inf)
        if fin.any():
            f_new[fin] = lam_max(x_new[fin], rows[fin])[0]
    except (np.linalg.LinAlgError, ArithmeticError, ValueError):
        # a numerical failure of the polish (e.g. a factorisation that does not
        # converge) leaves the BFGS result of every row as it is
        return
    better = np.isfinite(f_new) & (f_new < best_f[rows])
    best_f[rows[better]] = f_new[better]
    best_x[rows[better]] = x_new[better]
