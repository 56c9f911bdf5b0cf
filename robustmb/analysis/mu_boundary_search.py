"""Boundary search for mixed (real and complex) mu lower bounds.

For structures with real blocks (mixed mu, Young & Doyle 1997): starting from the
complex-relaxation solution (its dominant eigenvalue rotated to the real axis, real
blocks made real) and from random real parameters, find the smallest structured
``Delta`` on the singular set ``lambda(M Delta) = 1``.  The block norm
``max_i ||Delta_i||`` is replaced by a p-norm with ``p`` raised to 4096, each step is a
minimum-norm Newton correction of ``lambda - 1`` (exact eigenvalue derivatives
``y^H M dDelta x``) plus a projected descent step; a last phase solves the minimax exactly
on the blocks that are active.  With a complex ``M`` the real singular set is thin,
which is why several starts are run (the best few go on after a short stage).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from .mu_power_iteration import _TINY
from .mu_structure import COMPLEX, REAL, BlockStructure, dagger


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
    # largest entry first: the inverse-iteration step can be ~1e300, whose norm overflows
    y /= np.maximum(np.abs(y).max(axis=1), _TINY)[:, None]
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

    Examples
    --------
    Two real scalars on ``M = [[1, 2], [0.5, 1]]``: ``det(I - M diag(d1, d2)) = 1 - d1 - d2``,
    so the smallest destabilising ``max |d_i|`` is 1/2 (mu = 2).

    >>> from robustmb.analysis.mu_structure import BlockStructure
    >>> M = np.array([[[1.0, 2.0], [0.5, 1.0]]], dtype=complex)
    >>> x, lam = boundary_search(M, BlockStructure([(-1, 0), (-1, 0)]), np.array([[0.9, 0.1]]))
    >>> x.round(9), lam.round(9)
    (array([[0.5, 0.5]]), array([1.+0.j]))
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
