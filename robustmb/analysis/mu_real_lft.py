"""Real-parameter search for mu lower bounds: real scalar blocks around one complex block.

For robust performance (real parameters and one complex performance block) the real
blocks are closed as an LFT, so the singular scaling ``alpha(t)`` is a root in one
variable for given real parameters ``t``; it is minimised over the box from its vertices,
random points and the boundary-search results (a climb of ``alpha sigma_max(F)`` at
fixed ``alpha``, then projected Newton).
"""

from __future__ import annotations

import numpy as np

from .mu_boundary_search import _best_per_owner
from .mu_power_iteration import _TINY, block_norm_stack
from .mu_structure import FULL, REAL, BlockStructure, dagger


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
