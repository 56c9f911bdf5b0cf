"""Lower bound of the structured singular value: a destabilising perturbation.

Any ``Delta`` in the structure with ``det(I - M Delta) = 0`` proves
``mu(M) >= 1 / max_i sigma_max(Delta_i)``.  Two searches produce one:

* **power iteration** (Packard, Fan & Doyle 1988; Packard & Doyle 1993) for complex
  structures: alternate ``a = M b``, ``w = M^H z`` with the block alignments that make
  ``Q = blkdiag(Q_i)`` (``Q_i`` unitary rank-one for full blocks, a unit phase for
  repeated scalars) satisfy ``b = Q a`` and ``z = Q^H w``.  Then ``M Q`` has the
  eigenvalue ``lambda`` and ``Delta = Q / lambda``;
* **boundary search** for structures with real blocks (mixed mu, Young & Doyle 1997):
  starting from the complex-relaxation solution (its dominant eigenvalue rotated to the
  real axis, real blocks made real) and from random real parameters, find the smallest
  structured ``Delta`` on the singular set ``lambda(M Delta) = 1``.  The block norm
  ``max_i ||Delta_i||`` is replaced by a p-norm with ``p`` raised to 4096, each step is a
  minimum-norm Newton correction of ``lambda - 1`` (exact eigenvalue derivatives
  ``y^H M dDelta x``) plus a projected descent step; a last phase solves the minimax
  exactly on the blocks that are active.  With a complex ``M`` the real singular set is
  thin, which is why several starts are run (the best few go on after a short stage);
* **real-parameter search** for real scalar blocks around one complex block (robust
  performance): the real blocks are closed as an LFT, so the singular scaling
  ``alpha(t)`` is a root in one variable for given real parameters ``t``; it is
  minimised over the box from its vertices, random points and the boundary-search
  results (a climb of ``alpha sigma_max(F)`` at fixed ``alpha``, then projected Newton).

Everything is vectorised over the frequency stack and the starting points.  The result is
re-checked by :func:`verify_lower_bound`; a search that finds no valid perturbation
gives ``lower = 0`` and ``delta = None``.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .mu_structure import COMPLEX, FULL, REAL, BlockStructure, as_matrix_stack, dagger

__all__ = ["verify_lower_bound", "lower_bound_residual"]

_TINY = 1e-300


# --------------------------------------------------------------------------- power iteration
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
    Returns the aligned ``Q`` (B, n_w, n_z).
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
    """``max_i sigma_max(Q_i)`` for a stack of structured matrices."""
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


# --------------------------------------------------------------------------- mixed ascent
class _MixedParams:
    """Real parameter vector <-> structured ``Q`` for the constrained ascent."""

    def __init__(self, struct: BlockStructure):
        self.struct = struct
        n, m = struct.n_z, struct.n_w
        rows, cols, srcs, coefs = [], [], [], []
        p = 0
        self.kinds = []
        for blk in struct.blocks:
            if blk.kind == REAL:
                for k in range(blk.rows):
                    rows.append(blk.w.start + k)
                    cols.append(blk.z.start + k)
                    srcs.append(p)
                    coefs.append(1.0)
                self.kinds.append((blk, p, 1))
                p += 1
            elif blk.kind == COMPLEX:
                for k in range(blk.rows):
                    for off, coef in ((0, 1.0), (1, 1j)):
                        rows.append(blk.w.start + k)
                        cols.append(blk.z.start + k)
                        srcs.append(p + off)
                        coefs.append(coef)
                self.kinds.append((blk, p, 2))
                p += 2
            else:
                size = blk.rows * blk.cols
                for i in range(blk.rows):
                    for j in range(blk.cols):
                        for off, coef in ((0, 1.0), (1, 1j)):
                            rows.append(blk.w.start + i)
                            cols.append(blk.z.start + j)
                            srcs.append(p + 2 * (i * blk.cols + j) + off)
                            coefs.append(coef)
                self.kinds.append((blk, p, 2 * size))
                p += 2 * size
        self.p = p
        self.shape = (m, n)
        # sparse scatter: Q.flat = x @ T with T = T_re + j T_im (entries 0 / 1)
        src, tgt, coef = np.array(srcs), np.array(rows) * n + np.array(cols), np.array(coefs)
        re, im = coef.real != 0, coef.imag != 0
        self.T_re = sparse.csr_matrix((np.ones(re.sum()), (src[re], tgt[re])), shape=(p, m * n))
        self.T_im = sparse.csr_matrix((np.ones(im.sum()), (src[im], tgt[im])), shape=(p, m * n))

    def matrix(self, x):
        flat = (self.T_re.T @ x.T).T + 1j * (self.T_im.T @ x.T).T
        return flat.reshape(x.shape[0], *self.shape)

    def from_matrix(self, Q):
        flat = Q.reshape(Q.shape[0], -1)
        x = np.zeros((Q.shape[0], self.p))
        for blk, p0, cnt in self.kinds:
            if blk.kind == REAL:
                x[:, p0] = flat[:, blk.w.start * self.struct.n_z + blk.z.start].real
            elif blk.kind == COMPLEX:
                v = flat[:, blk.w.start * self.struct.n_z + blk.z.start]
                x[:, p0], x[:, p0 + 1] = v.real, v.imag
            else:
                sub = Q[:, blk.w, blk.z].reshape(Q.shape[0], -1)
                x[:, p0 : p0 + cnt : 2] = sub.real
                x[:, p0 + 1 : p0 + cnt : 2] = sub.imag
        return x

    def gradient(self, M, x_vec, y_vec):
        """Complex ``gamma`` with ``d lambda = gamma . dx`` (x, y right/left eigenvectors)."""
        u = np.einsum("bji,bj->bi", M.conj(), y_vec)  # M^H y
        C = (np.conj(u)[:, :, None] * x_vec[:, None, :]).reshape(len(u), -1)  # dl = sum C dQ
        return (self.T_re @ C.T).T + 1j * (self.T_im @ C.T).T


def _eig_track(MQ, target):
    """Eigenvalue of each ``MQ`` closest to ``target`` with right/left eigenvectors.

    The left eigenvector comes from one step of inverse iteration on
    ``(MQ - lambda I)^H`` (robust when the eigenvector matrix is singular, e.g. for
    rank-deficient ``M``; the SVD is the fallback) and is scaled so that ``y^H x = 1``;
    a (nearly) defective eigenvalue gets ``y = 0``.
    """
    lam, V = np.linalg.eig(MQ)
    k = np.argmin(np.abs(lam - target[:, None]), axis=1)
    r = np.arange(MQ.shape[0])
    lam_k = lam[r, k]
    x = V[r, :, k]
    n = MQ.shape[1]
    shift = lam_k + 1e-13 * (1.0 + np.abs(lam_k))  # keeps the solve away from exact singularity
    K = dagger(MQ - shift[:, None, None] * np.eye(n))
    with np.errstate(all="ignore"):
        try:
            y = np.linalg.solve(K, x[..., None])[..., 0]
        except np.linalg.LinAlgError:
            y = np.full_like(x, np.nan)
    bad = ~np.isfinite(y).all(axis=1)
    if bad.any():
        U, _, _ = np.linalg.svd(MQ[bad] - lam_k[bad, None, None] * np.eye(n))
        y[bad] = U[:, :, -1]
    y /= np.maximum(np.linalg.norm(y, axis=1), _TINY)[:, None]
    yx = np.einsum("bi,bi->b", y.conj(), x)
    good = np.abs(yx) > 1e-12
    y = np.where(good[:, None], y / np.where(good, np.conj(yx), 1.0)[:, None], 0.0)
    return lam_k, x, y


def _block_sizes(x, groups):
    """Frobenius norm of every block's parameters: (B, nblocks)."""
    return np.stack([np.linalg.norm(x[:, p0 : p0 + c], axis=1) for p0, c in groups], axis=1)


def boundary_search(
    M, struct: BlockStructure, x, *, iters=80, p_range=(4.0, 4096.0), equalize=25, polish=6
):
    """Smallest structured ``Delta`` on the singular set ``lambda(M Delta) = 1``.

    ``x`` holds the starting perturbations as parameter vectors of :class:`_MixedParams`.
    Phase 1 minimises the smoothed block norm ``nu_p = (sum_i ||Delta_i||_F^p)^(1/p)``
    (``p`` raised geometrically over ``p_range``) on the manifold where ``M Delta`` has
    the eigenvalue 1: each step is a minimum-norm Newton correction of ``lambda - 1``
    (exact eigenvalue derivatives) plus a step along the projected negative gradient.
    Phase 2 (``equalize`` steps) solves the minimax exactly near the result: the blocks
    within 0.2 % of the largest are constrained to equal norms and their common norm is
    minimised on that smooth manifold.  Problems whose steps stall drop out early.
    The last ``polish`` steps are pure Newton corrections (no objective step) that take
    ``lambda`` to 1 within rounding.  Returns ``(x, lam)``; ``lam`` is the tracked eigenvalue.
    """
    par = _MixedParams(struct)
    groups = [(p0, cnt) for _, p0, cnt in par.kinds]
    B = x.shape[0]
    x = x.copy()
    lam, xv, yv = _eig_track(M @ par.matrix(x), np.ones(B, dtype=complex))
    alpha = np.full(B, 0.05)
    live = np.ones(B, dtype=bool)
    total = iters + equalize + polish
    active_set = None
    for it in range(total):
        idx = np.flatnonzero(live)
        if idx.size == 0:
            break
        xi, lami = x[idx], lam[idx]
        Mi = M[idx]
        rho = _block_sizes(xi, groups)
        gamma = par.gradient(Mi, xv[idx], yv[idx])
        rows = [gamma.real, gamma.imag]
        res = [lami.real - 1.0, lami.imag]
        if it < iters:
            frac = it / max(iters - 1, 1)
            pw = p_range[0] * (p_range[1] / p_range[0]) ** frac
            top = np.maximum(rho.max(axis=1), _TINY)
            nu = top * np.sum((rho / top[:, None]) ** pw, axis=1) ** (1.0 / pw)
            gobj = np.zeros_like(xi)
            for (p0, c), r in zip(groups, rho.T, strict=True):
                wgt = (r / np.maximum(nu, _TINY)) ** (pw - 1) / np.maximum(r, _TINY)
                gobj[:, p0 : p0 + c] = wgt[:, None] * xi[:, p0 : p0 + c]
        else:
            if active_set is None:
                # freeze the near-active blocks; the first of them carries the objective
                rho_all = _block_sizes(x, groups)
                active_set = rho_all >= 0.998 * rho_all.max(axis=1, keepdims=True)
                lead = np.argmax(active_set, axis=1)
                alpha[:] = np.maximum(alpha, 1e-3)
            act = active_set[idx]
            ld = lead[idx]
            nu = rho[np.arange(idx.size), ld]
            gobj = np.zeros_like(xi)
            unit = [
                xi[:, p0 : p0 + c] / np.maximum(rho[:, [k]], _TINY)
                for k, (p0, c) in enumerate(groups)
            ]
            for k, (p0, c) in enumerate(groups):
                sel = ld == k
                gobj[sel, p0 : p0 + c] = unit[k][sel]
            for k, (p0, c) in enumerate(groups):
                row = np.zeros_like(xi)
                on = act[:, k] & (ld != k)
                row[on, p0 : p0 + c] = unit[k][on]
                for j, (q0, cq) in enumerate(groups):
                    sel = on & (ld == j)
                    row[sel, q0 : q0 + cq] -= unit[j][sel]
                rows.append(row)
                res.append(np.where(on, rho[:, k] - nu, 0.0))
        J = np.stack(rows, axis=1)  # (b, k, P)
        r = np.stack(res, axis=1)
        JJ = J @ np.swapaxes(J, 1, 2)
        nk = JJ.shape[1]
        reg = (1e-13 * np.trace(JJ, axis1=1, axis2=2) + 1e-300)[:, None, None] * np.eye(nk)
        JJi = np.linalg.inv(JJ + reg)
        dN = -np.einsum("bkp,bk->bp", J, np.einsum("bkl,bl->bk", JJi, r))
        tang = gobj - np.einsum(
            "bkp,bk->bp", J, np.einsum("bkl,bl->bk", JJi, np.einsum("bkp,bp->bk", J, gobj))
        )
        ntang = np.linalg.norm(tang, axis=1)
        polishing = it >= iters + equalize
        step = 0.0 if polishing else alpha[idx] * nu / np.maximum(ntang, _TINY)
        x_new = xi + dN - np.reshape(step, (-1, 1)) * tang
        finite = np.isfinite(x_new).all(axis=1)
        x_new[~finite] = xi[~finite]
        pred = lami + np.einsum("bp,bp->b", gamma, x_new - xi)
        lam_new, xv_new, yv_new = _eig_track(Mi @ par.matrix(x_new), pred)
        rho_new = _block_sizes(x_new, groups)
        if it < iters:
            top = np.maximum(rho_new.max(axis=1), _TINY)
            nu_new = top * np.sum((rho_new / top[:, None]) ** pw, axis=1) ** (1.0 / pw)
            viol_old = np.abs(lami - 1.0)
            viol_new = np.abs(lam_new - 1.0)
        else:
            nu_new = rho_new[np.arange(idx.size), ld]
            eq_new = np.where(act, rho_new - nu_new[:, None], 0.0)
            viol_new = np.abs(lam_new - 1.0) + np.sqrt(np.sum(eq_new**2, axis=1)) / np.maximum(
                nu_new, _TINY
            )
            viol_old = np.abs(lami - 1.0) + np.sqrt(
                np.sum(np.where(act, rho - nu[:, None], 0.0) ** 2, axis=1)
            ) / np.maximum(nu, _TINY)
        merit_old = nu * (1.0 + 10.0 * viol_old)
        merit_new = nu_new * (1.0 + 10.0 * viol_new)
        ok = np.isfinite(merit_new) & (merit_new < merit_old)
        if polishing:
            ok = np.isfinite(viol_new) & (viol_new < viol_old)
        acc = idx[ok]
        x[acc], lam[acc], xv[acc], yv[acc] = x_new[ok], lam_new[ok], xv_new[ok], yv_new[ok]
        alpha[idx] = np.where(ok, np.minimum(alpha[idx] * 1.5, 0.5), alpha[idx] * 0.3)
        stalled = (alpha[idx] < 1e-9) & (viol_old < 1e-13)
        if iters <= it < iters + equalize:
            live[idx[stalled]] = False
        if it == iters + equalize - 1:
            live[:] = True
    return x, lam


def _best_per_owner(score, owner, keep):
    """Indices of the ``keep`` highest scores of every owner."""
    order = np.lexsort((-score, owner))
    rank = np.zeros(len(order), dtype=int)
    so = owner[order]
    starts = np.r_[0, np.flatnonzero(so[1:] != so[:-1]) + 1]
    for a, b in zip(starts, np.r_[starts[1:], len(order)], strict=True):
        rank[a:b] = np.arange(b - a)
    return np.sort(order[rank < keep])


# ----------------------------------------------------------- real blocks + one complex block
class _RealLft:
    """Real scalar blocks closed as an LFT around a single complex block.

    For ``Delta = alpha * blkdiag(T, Delta_c)`` with real ``T = diag(t)``, ``|t_i| <= 1``,
    and ``||Delta_c|| <= 1``, the loop is singular exactly when
    ``alpha * sigma_max(F) >= 1`` for some ``Delta_c``, with
    ``F(alpha, t) = M_cc + alpha M_cr T (I - alpha M_rr T)^-1 M_rc``.  The smallest such
    ``alpha`` over the box of ``t`` is ``1 / mu``; for fixed ``t`` it is the root of
    ``g(alpha) = alpha sigma_max(F) = 1`` and its gradient in ``t`` is analytic.  This
    reduces the mixed problem with a performance block to a search over the few real
    parameters, where vertices and interior points can be tried directly.
    """

    def __init__(self, struct: BlockStructure):
        rw, rz, owner = [], [], []
        cw = cz = None
        k = 0
        for blk in struct.blocks:
            if blk.kind == REAL:
                rw += list(range(blk.w.start, blk.w.stop))
                rz += list(range(blk.z.start, blk.z.stop))
                owner += [k] * blk.rows
                k += 1
            else:
                cw, cz = blk.w, blk.z
        self.rw, self.rz = np.array(rw), np.array(rz)
        self.cw, self.cz = cw, cz
        self.k = k
        self.E = np.zeros((len(rw), k))
        self.E[np.arange(len(rw)), owner] = 1.0

    @staticmethod
    def applies(struct: BlockStructure) -> bool:
        others = [b for b in struct.blocks if b.kind != REAL]
        return (
            struct.has_real and len(others) == 1 and (others[0].kind == FULL or others[0].rows == 1)
        )

    def split(self, M):
        A = M[:, self.rz[:, None], self.rw[None, :]]
        B = M[:, self.rz, self.cw]
        C = M[:, self.cz][:, :, self.rw]
        D = M[:, self.cz, self.cw]
        return A, B, C, D

    def evaluate(self, parts, t, alpha, grad=False):
        """``g = alpha sigma_max(F)`` and optionally ``dg/dt``, ``dg/dalpha`` (batched)."""
        A, B, C, D = parts
        te = t @ self.E.T  # (b, nr) value of every real entry
        nr = te.shape[1]
        eye = np.eye(nr)
        K = eye - alpha[:, None, None] * A * te[:, None, :]  # I - alpha A T
        with np.errstate(all="ignore"):
            try:
                Qm = np.linalg.solve(K, B)
            except np.linalg.LinAlgError:
                Qm = np.einsum("bij,bjk->bik", np.linalg.pinv(K), B)
            F = D + alpha[:, None, None] * np.einsum("bij,bj,bjk->bik", C, te, Qm)
            U, s, Vh = np.linalg.svd(F)
        g = alpha * s[:, 0]
        if not grad:
            return g, U[:, :, 0], Vh[:, 0, :].conj()
        u, v = U[:, :, 0], Vh[:, 0, :].conj()
        with np.errstate(all="ignore"):
            q = np.einsum("bij,bj->bi", Qm, v)  # (I - a A T)^-1 B v
            KT = eye - alpha[:, None, None] * te[:, :, None] * A  # I - alpha T A
            p = np.linalg.solve(dagger(KT), np.einsum("bji,bj->bi", C.conj(), u)[..., None])[
                ..., 0
            ]  # (I - a T A)^-H C^H u
            gt = (alpha**2)[:, None] * (np.real(np.conj(p) * q) @ self.E)
            r = np.linalg.solve(K, q[..., None])[..., 0]  # (I - a A T)^-2 B v
            ga = s[:, 0] + alpha * np.real(np.einsum("bi,bij,bj->b", u.conj(), C, te * r))
        return g, u, v, gt, ga

    def root(self, parts, t, lo, hi, iters=60):
        """A root of ``g(alpha) = 1`` in ``[lo, hi]`` with ``g(lo) < 1 <= g(hi)`` (safe Newton)."""
        lo, hi = lo.copy(), hi.copy()
        a = hi.copy()
        live = np.ones(len(a), dtype=bool)
        for _ in range(iters):
            idx = np.flatnonzero(live)
            if idx.size == 0:
                break
            sub = tuple(P[idx] for P in parts)
            g, _, _, _, ga = self.evaluate(sub, t[idx], a[idx], grad=True)
            f = g - 1.0
            above = ~(f < 0)
            hi[idx] = np.where(above, a[idx], hi[idx])
            lo[idx] = np.where(above, lo[idx], a[idx])
            with np.errstate(all="ignore"):
                nxt = a[idx] - f / ga
            mid = 0.5 * (lo[idx] + hi[idx])
            ok = np.isfinite(nxt) & (nxt > lo[idx]) & (nxt < hi[idx])
            nxt = np.where(ok, nxt, mid)
            done = (np.abs(f) <= 1e-15) | (hi[idx] - lo[idx] <= 4e-16 * hi[idx])
            a[idx] = np.where(done, a[idx], nxt)
            live[idx[done]] = False
        # the end of the bracket where g >= 1 (a valid singular point up to rounding)
        g_a = self.evaluate(parts, t, a)[0]
        return np.where(np.abs(g_a - 1.0) <= 1e-12, a, hi)

    def ascend(self, parts, t, alpha, iters=30):
        """Maximise ``g(alpha, t)`` over the box at fixed ``alpha`` (projected gradient).

        Smoother than ``alpha(t)`` (whose first root jumps where a local maximum of ``g``
        in ``alpha`` crosses 1), so it finds the basin of the best parameters from far away.
        """
        t = t.copy()
        g = self.evaluate(parts, t, alpha)[0]
        step = np.full(len(t), 0.5)
        for _ in range(iters):
            live = np.flatnonzero(step > 1e-4)
            if live.size == 0:
                break
            sub = tuple(P[live] for P in parts)
            _, _, _, gt, _ = self.evaluate(sub, t[live], alpha[live], grad=True)
            gt = np.where(np.isfinite(gt), gt, 0.0)
            ng = np.max(np.abs(gt), axis=1)
            t_new = np.clip(
                t[live] + step[live, None] * gt / np.maximum(ng, _TINY)[:, None], -1.0, 1.0
            )
            g_new = self.evaluate(sub, t_new, alpha[live])[0]
            ok = np.isfinite(g_new) & (g_new > g[live])
            t[live[ok]], g[live[ok]] = t_new[ok], g_new[ok]
            step[live] = np.where(ok, np.minimum(step[live] * 1.5, 1.0), step[live] * 0.3)
        return t, g

    def _alpha_gradient(self, parts, t, alpha):
        """``d alpha / d t`` along the root set ``g(alpha, t) = 1``."""
        _, _, _, gt, ga = self.evaluate(parts, t, alpha, grad=True)
        with np.errstate(all="ignore"):
            d = -gt / ga[:, None]
        return np.where(np.isfinite(d), d, 0.0)

    def _alpha_hessian(self, parts, t, alpha, d, h=1e-6, newton=4):
        """Finite-difference Hessian of ``alpha(t)`` (roots re-solved by Newton)."""
        B, k = t.shape
        sgn = np.where(t < 1.0 - 2 * h, 1.0, -1.0)  # step inside the box
        tt = np.repeat(t, k, axis=0) + (h * sgn[:, :, None] * np.eye(k)[None]).reshape(B * k, k)
        aa = np.repeat(alpha, k) + (d * h * sgn).reshape(-1)  # first-order predictor
        sub = tuple(np.repeat(P, k, axis=0) for P in parts)
        for _ in range(newton):
            g, _, _, _, ga = self.evaluate(sub, tt, aa, grad=True)
            with np.errstate(all="ignore"):
                aa = aa - (g - 1.0) / ga
        dd = self._alpha_gradient(sub, tt, aa).reshape(B, k, k)  # [b, i, :] at t + h e_i
        H = (dd - d[:, None, :]) / (h * sgn[:, :, None])
        return np.where(np.isfinite(H), H, 0.0)

    def delta(self, parts, t, alpha, n_w, n_z):
        """The structured ``Delta = alpha blkdiag(T, v u^H)`` at a root."""
        _, u, v = self.evaluate(parts, t, alpha)
        Dl = np.zeros((len(t), n_w, n_z), dtype=complex)
        te = t @ self.E.T
        Dl[:, self.rw, self.rz] = alpha[:, None] * te
        Dl[:, self.cw, self.cz] = alpha[:, None, None] * v[:, :, None] * u.conj()[:, None, :]
        return Dl

    def search(self, M, t0, owner, alpha_cap, *, iters=40, grid_points=12):
        """Minimise the root ``alpha(t)`` over the box from the starts ``t0`` (B, k).

        ``alpha_cap`` (per start) bounds the search; starts with no root below it are
        dropped.  Returns ``(alpha, t, owner)`` of the surviving starts.
        """
        parts = self.split(M[owner])
        # bracket the first crossing on a geometric grid from 1 / ||M|| (where g < 1) to
        # the cap: past a pole of (I - alpha M_rr T)^-1, g can drop below 1 again
        lo0 = 1.0 / np.maximum(np.linalg.norm(M[owner], 2, axis=(1, 2)), _TINY)
        grid = (
            np.exp(np.linspace(0.0, 1.0, grid_points))[None, :]
            ** np.log(np.maximum(alpha_cap / lo0, 1.0))[:, None]
        )
        lo, hi = lo0.copy(), np.full(len(t0), np.nan)
        for j in range(1, grid_points):
            todo = np.flatnonzero(np.isnan(hi))
            if todo.size == 0:
                break
            a_j = lo0[todo] * grid[todo, j]
            g_j = self.evaluate(tuple(P[todo] for P in parts), t0[todo], a_j)[0]
            hit = np.isfinite(g_j) & (g_j >= 1.0)
            hi[todo[hit]] = a_j[hit]
            lo[todo[~hit]] = a_j[~hit]
        keep = np.isfinite(hi)
        parts = tuple(P[keep] for P in parts)
        t, owner = t0[keep], owner[keep]
        if t.size == 0:
            return np.zeros(0), t, owner
        lo0 = lo0[keep]
        alpha = self.root(parts, t, lo[keep], hi[keep])
        step = np.full(len(t), 0.5)
        for _ in range(iters):
            live = np.flatnonzero(step > 1e-7)
            if live.size == 0:
                break
            sub = tuple(P[live] for P in parts)
            ti, ai = t[live], alpha[live]
            d = self._alpha_gradient(sub, ti, ai)
            # projected (modified) Newton direction on the free coordinates, with a
            # finite-difference Hessian of alpha(t); coordinates at a bound pushing
            # outwards stay put
            fixed = (np.abs(ti) >= 1.0) & (np.sign(-d) == np.sign(ti))
            d[fixed] = 0.0
            H = self._alpha_hessian(sub, ti, ai, d)
            free = ~fixed
            H = np.where(free[:, :, None] & free[:, None, :], H, 0.0)
            H[:, np.arange(self.k), np.arange(self.k)] += np.where(free, 0.0, 1.0)
            lam, V = np.linalg.eigh(0.5 * (H + np.swapaxes(H, 1, 2)))
            top = np.max(np.abs(lam), axis=1, keepdims=True)
            lam = np.maximum(np.abs(lam), 1e-8 * np.maximum(top, _TINY))
            pn = -np.einsum("bij,bj,bkj,bk->bi", V, 1.0 / lam, V.conj(), d).real
            pn = np.where(np.isfinite(pn), pn, 0.0) * free
            nd = np.max(np.abs(d), axis=1)
            flat = nd <= 1e-14 * np.maximum(ai, 1.0)
            cand = [np.clip(ti + pn, -1.0, 1.0)]
            cand.append(np.clip(ti + 0.25 * pn, -1.0, 1.0))
            cand.append(
                np.clip(ti - step[live, None] * d / np.maximum(nd, _TINY)[:, None], -1.0, 1.0)
            )
            t_new, ok = ti.copy(), np.zeros(live.size, dtype=bool)
            g_best = np.zeros(live.size)
            for c in cand:
                g_c = self.evaluate(sub, c, ai)[0]
                better = np.isfinite(g_c) & (g_c >= 1.0) & (g_c > g_best) & ~flat
                t_new[better], g_best[better], ok[better] = c[better], g_c[better], True
            acc = live[ok]
            if acc.size:
                sub_ok = tuple(P[acc] for P in parts)
                a_new = self.root(sub_ok, t_new[ok], lo0[acc], alpha[acc])
                gain = alpha[acc] - a_new
                alpha[acc], t[acc] = a_new, t_new[ok]
                ok[ok] = gain > 1e-10 * a_new  # no measurable progress: converged
            step[live] = np.where(ok, np.minimum(step[live] * 2.0, 1.0), step[live] * 0.25)
            step[live[flat]] = 0.0
        return alpha, t, owner


# --------------------------------------------------------------------------- driver
def lower_bound(Ms, struct: BlockStructure, b_init=None, w_init=None, **options):
    """Best certified lower bound per matrix of the stack ``Ms``.

    The search runs on the balanced matrices ``D_z M D_w^-1`` (Osborne scaling over the
    blocks' channels, which commutes with the structure, so ``mu`` is unchanged): with
    entries spread over 1e-10..1e10 the unbalanced problem loses every perturbation to
    rounding.  A perturbation ``Delta'`` of the balanced matrix maps back to
    ``D_w^-1 Delta' D_z``, the same structured matrix with the same block norms.
    ``b_init``, ``w_init`` (nw, n_w) seed the first start (the upper bound's top singular
    vectors are a good choice).  Returns ``(lower, delta)`` with ``delta`` a list of
    ``(n_w, n_z)`` arrays or ``None`` where no perturbation was found.
    """
    from .mu_upper import _balancing_units, osborne_scaling

    logd = osborne_scaling(Ms, struct)
    dz = np.zeros((Ms.shape[0], struct.n_z))
    dw = np.zeros((Ms.shape[0], struct.n_w))
    for u, (zs, ws) in enumerate(_balancing_units(struct)):
        dz[:, zs] = logd[:, [u]]
        dw[:, ws] = logd[:, [u]]
    Mb = Ms * np.exp(dz)[:, :, None] * np.exp(-dw)[:, None, :]
    nb = np.linalg.norm(Mb, 2, axis=(1, 2))
    nb = np.where(nb > 0, nb, 1.0)
    Mb = Mb / nb[:, None, None]
    if b_init is not None:
        b_init, w_init = b_init * np.exp(dw), w_init * np.exp(-dw)
    lo, deltas = _lower_bound_balanced(Mb, struct, b_init, w_init, **options)
    out = []
    for k, dl in enumerate(deltas):
        out.append(
            None if dl is None else (dl / nb[k]) * np.exp(-dw[k])[:, None] * np.exp(dz[k])[None, :]
        )
    return lo * nb, out


def _lower_bound_balanced(
    Ms,
    struct: BlockStructure,
    b_init=None,
    w_init=None,
    *,
    starts=4,
    real_starts=3,
    keep_starts=3,
    seed=0,
):
    """:func:`lower_bound` on a balanced, normalised stack."""
    nw, n, m = Ms.shape
    rng = np.random.default_rng(seed)
    S = starts
    b0 = rng.standard_normal((nw, S, m)) + 1j * rng.standard_normal((nw, S, m))
    w0 = rng.standard_normal((nw, S, m)) + 1j * rng.standard_normal((nw, S, m))
    if b_init is not None:
        b0[:, 0], w0[:, 0] = b_init, w_init
    owner = np.repeat(np.arange(nw), S)
    Mb = Ms[owner]
    Q = power_iteration(Mb, struct, b0.reshape(nw * S, m), w0.reshape(nw * S, m))
    if struct.has_real:
        # starts for the boundary search: the complex-relaxation solution rotated so that
        # its dominant eigenvalue is real, with its real blocks made real, and random
        # interior points of the real parameters (the singular set of a complex M with
        # real blocks is thin, so several starts are needed), each scaled so that the
        # eigenvalue of M Delta nearest the positive real axis has modulus 1
        lam_c = np.linalg.eigvals(Mb @ Q)
        lam1 = lam_c[np.arange(nw * S), np.argmax(np.abs(lam_c), axis=1)]
        rot = np.conj(lam1) / np.maximum(np.abs(lam1), _TINY)
        Qr = Q * rot[:, None, None]
        Qv = np.repeat(Qr, real_starts, axis=0)
        for blk in struct.blocks:
            if blk.kind == REAL:
                Qr[:, blk.w, blk.z] = Qr[:, blk.w, blk.z].real
                val = rng.uniform(-1.0, 1.0, size=len(Qv))
                idx = np.arange(blk.rows)
                Qv[:, blk.w, blk.z] = 0.0
                Qv[:, blk.w.start + idx, blk.z.start + idx] = val[:, None]
        owner = np.concatenate([owner, np.repeat(owner, real_starts)])
        Q0 = np.concatenate([Qr, Qv])
        # a start whose real parts vanished (phases +-j) gets random real parameters
        rows = np.flatnonzero(block_norm_stack(Q0, struct) < 1e-8)
        for blk in struct.blocks:
            if blk.kind == REAL and rows.size:
                idx = np.arange(blk.rows)
                val = rng.uniform(-1.0, 1.0, size=rows.size)
                Q0[rows[:, None], blk.w.start + idx, blk.z.start + idx] = val[:, None]
        lam0 = np.linalg.eigvals(Ms[owner] @ Q0)
        score = np.abs(lam0) * np.cos(0.5 * np.angle(lam0)) ** 4  # favour lambda near R+
        pick = lam0[np.arange(len(Q0)), np.argmax(score, axis=1)]
        Q0 = Q0 / np.where(np.abs(pick) > 0, np.abs(pick), 1.0)[:, None, None]
        par = _MixedParams(struct)
        groups = [(p0, cnt) for _, p0, cnt in par.kinds]
        # short first stage from every start, then the best few per matrix go on
        x, lam = boundary_search(
            Ms[owner], struct, par.from_matrix(Q0), iters=20, p_range=(4.0, 32.0), equalize=0
        )
        nu = _block_sizes(x, groups).max(axis=1)
        merit = -nu * (1.0 + 10.0 * np.abs(lam - 1.0))
        keep = _best_per_owner(merit, owner, keep_starts)
        owner = owner[keep]
        x, lam = boundary_search(
            Ms[owner], struct, x[keep], iters=60, p_range=(32.0, 4096.0), equalize=0
        )
        # the exact minimax step helps when the active blocks were found and can jump to a
        # worse branch otherwise: keep both results as candidates
        x_eq, lam_eq = boundary_search(Ms[owner], struct, x, iters=0, equalize=25)
        owner = np.concatenate([owner, owner])
        x, lam = np.concatenate([x, x_eq]), np.concatenate([lam, lam_eq])
        Qc = par.matrix(x)
        ok = np.abs(lam - 1.0) <= 1e-9
        lam = np.ones(len(Qc), dtype=complex)
    else:
        Qc = Q
        lam_all = np.linalg.eigvals(Mb @ Qc)
        lam = lam_all[np.arange(len(Qc)), np.argmax(np.abs(lam_all), axis=1)]
        ok = np.abs(lam) > 0
    nq = block_norm_stack(Qc, struct)
    val = np.where(ok & (nq > 0), np.abs(lam) / np.maximum(nq, _TINY), 0.0)
    D = Qc / np.where(val > 0, lam, 1.0)[:, None, None]
    for blk in struct.blocks:
        if blk.kind == REAL:
            D[:, blk.w, blk.z] = D[:, blk.w, blk.z].real
    if _RealLft.applies(struct):
        D, val, owner = _lft_candidates(Ms, struct, D, val, owner, rng)
    # re-check every candidate (singularity of I - M Delta), then keep the best per matrix
    cand = np.flatnonzero(val > 0)
    if cand.size:
        res = _residuals(Ms[owner[cand]], D[cand])
        val[cand[res > 1e-10]] = 0.0
    order = np.lexsort((-val, owner))  # by matrix, best first
    first = order[np.r_[True, owner[order][1:] != owner[order][:-1]]]
    first = first[val[first] > 0]
    best = np.zeros(nw)
    best[owner[first]] = 1.0 / block_norm_stack(D[first], struct)
    delta: list = [None] * nw
    for i in first:
        delta[owner[i]] = D[i]
    return best, delta


def _lft_candidates(Ms, struct, D, val, owner, rng, *, n_random=96, keep=4, first=0, ascent=40):
    """Add the perturbations of the real-parameter search of :class:`_RealLft`.

    Starts: every vertex of the real box (random vertices beyond 32), random interior
    points and the real parts of the candidates found so far; the best ``keep`` per
    matrix are refined by projected descent on the root ``alpha(t)``.
    """
    lft = _RealLft(struct)
    nw, k = Ms.shape[0], lft.k
    if 2**k <= 32:
        vert = np.array(np.meshgrid(*([[-1.0, 1.0]] * k), indexing="ij")).reshape(k, -1).T
    else:
        vert = rng.choice([-1.0, 1.0], size=(32, k))
    base = np.concatenate([vert, rng.uniform(-1.0, 1.0, size=(n_random, k))])
    t0 = np.tile(base, (nw, 1))
    own0 = np.repeat(np.arange(nw), len(base))
    cand = np.flatnonzero(val > 0)
    if cand.size:
        nrm = block_norm_stack(D[cand], struct)
        tc = (
            np.stack(
                [D[cand, b.w.start, b.z.start].real for b in struct.blocks if b.kind == REAL],
                axis=1,
            )
            / nrm[:, None]
        )
        t0 = np.concatenate([t0, np.clip(tc, -1.0, 1.0)])
        own0 = np.concatenate([own0, owner[cand]])
    best = np.zeros(nw)
    np.maximum.at(best, owner, val)
    norm = np.linalg.norm(Ms, 2, axis=(1, 2))
    # only perturbations up to twice the size of the best one so far are of interest
    cap = np.where(best > 0, 2.0 / np.maximum(best, _TINY), 1e6 / np.maximum(norm, _TINY))
    # a short first pass from every start; then, at the best scaling found so far,
    # every start climbs g(alpha, t); the best few per matrix go on
    alpha, t, own = lft.search(Ms, t0, own0, cap[own0], iters=0)
    if alpha.size == 0:
        return D, val, owner
    a_best = np.full(nw, np.inf)
    np.minimum.at(a_best, own, alpha)
    a_ref = a_best[own]
    t, _ = lft.ascend(lft.split(Ms[own]), t, a_ref * (1 - 1e-3), iters=ascent)
    alpha, t, own = lft.search(Ms, t, own, a_ref * 1.01, iters=first)
    if alpha.size == 0:
        return D, val, owner
    sel = _best_per_owner(-alpha, own, keep)
    alpha, t, own = lft.search(Ms, t[sel], own[sel], alpha[sel] * (1 + 1e-12), iters=40)
    if alpha.size == 0:
        return D, val, owner
    Dn = lft.delta(lft.split(Ms[own]), t, alpha, struct.n_w, struct.n_z)
    vn = 1.0 / block_norm_stack(Dn, struct)
    return np.concatenate([D, Dn]), np.concatenate([val, vn]), np.concatenate([owner, own])


def _residuals(M, D):
    """Batched ``sigma_min(I - M D) / (1 + ||M|| ||D||)``."""
    K = np.eye(M.shape[1]) - M @ D
    smin = np.linalg.svd(K, compute_uv=False)[:, -1]
    return smin / (1.0 + np.linalg.norm(M, 2, axis=(1, 2)) * np.linalg.norm(D, 2, axis=(1, 2)))


# --------------------------------------------------------------------------- verification
def lower_bound_residual(M, blk, delta):
    """``sigma_min(I - M Delta) / (1 + sigma_max(M) sigma_max(Delta))`` (0 when singular)."""
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    M = np.asarray(M)
    delta = np.asarray(delta)
    K = np.eye(struct.n_z) - M @ delta
    smin = np.linalg.svd(K, compute_uv=False)[-1]
    return float(smin / (1.0 + np.linalg.norm(M, 2) * np.linalg.norm(delta, 2)))


def verify_lower_bound(M, blk, delta, *, lower=None, tol=1e-8):
    """Check a destabilising perturbation ``Delta`` (the lower-bound certificate).

    Parameters
    ----------
    M : array_like, shape (n, m) or (nw, n, m)
        Matrix or frequency stack; ``n = sum c`` and ``m = sum r``.
    blk : list of (r, c)
        Block structure (MATLAB ``mussv`` convention).
    delta : array_like (m, n), or a list of them (``None`` entries are skipped) for a stack
        The perturbation.
    lower : float or array_like, optional
        Claimed lower bound; when given, ``1 / max_i sigma_max(Delta_i)`` must match it.
    tol : float
        Tolerance of the structure, norm and singularity tests (relative).

    Returns
    -------
    bool or numpy.ndarray of bool
        True when ``Delta`` has the block structure (repeated scalars ``delta I``, real
        blocks real, zero outside the blocks), ``det(I - M Delta) = 0`` in the sense
        ``sigma_min(I - M Delta) <= tol (1 + sigma_max(M) sigma_max(Delta))`` and, if
        ``lower`` is given, ``|1/||Delta|| - lower| <= tol lower`` (``sqrt(tol)`` floor
        of ``1e-6``).  ``None`` entries of a stack give True only if ``lower`` is 0 there.

    Examples
    --------
    >>> M = np.array([[0.0, 1.0], [-1.0, 0.0]])
    >>> bool(verify_lower_bound(M, [(-1, 0), (-1, 0)], np.diag([1.0, -1.0]), lower=1.0))
    True
    >>> bool(verify_lower_bound(M, [(-1, 0), (-1, 0)], np.diag([1.0, 1.0])))
    False
    """
    struct = blk if isinstance(blk, BlockStructure) else BlockStructure(blk)
    Ms, single = as_matrix_stack(M)
    struct.check_shape(Ms.shape)
    deltas = [delta] if single else list(delta)
    if len(deltas) != Ms.shape[0]:
        from ..errors import DimensionError

        raise DimensionError(f"{len(deltas)} perturbations for a stack of {Ms.shape[0]} matrices")
    lowers = (
        [None] * len(deltas)
        if lower is None
        else list(np.broadcast_to(np.asarray(lower, dtype=float), (len(deltas),)))
    )
    out = np.zeros(len(deltas), dtype=bool)
    for k, (Mk, Dk, lk) in enumerate(zip(Ms, deltas, lowers, strict=True)):
        if Dk is None:
            out[k] = lk is not None and lk == 0.0
            continue
        Dk = np.asarray(Dk)
        if Dk.shape != (struct.n_w, struct.n_z):
            out[k] = False
            continue
        viol, _ = struct.delta_violation(Dk)
        nrm = struct.block_norm(Dk)
        good = viol <= tol and nrm > 0
        good = good and lower_bound_residual(Mk, struct, Dk) <= tol
        if good and lk is not None:
            good = abs(1.0 / nrm - lk) <= max(tol, 1e-6) * lk
        out[k] = good
    return bool(out[0]) if single else out
