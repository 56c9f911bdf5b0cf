"""Limited-memory BFGS for a stack of independent problems, vectorised over the stack.

Used by the D,G upper bound (:func:`robustmb.analysis.mu_upper.upper_bound_fast`): one
problem per frequency, ``p`` scaling parameters each (several hundred for an LFT with
repeated real parameters).  A dense inverse Hessian costs ``O(p^2)`` memory traffic per
problem and iteration; the two-loop recursion (Nocedal 1980; Nocedal & Wright,
*Numerical Optimization*, 2nd ed., Alg. 7.4) with the last ``memory`` pairs costs
``O(memory p)``.  Pairs are stored as unit directions ``t = s/|s|``, ``v = y/|y|`` with
``c = t.v`` and ``r = |s|/|y|``: the recursion is the usual one with ``rho = 1/(s.y)``,
written so that no ``rho`` (which overflows for tiny steps) is formed.  Below
``dense_below`` parameters the dense inverse Hessian is kept (cheap there, and on some
badly scaled max-eigenvalue problems it ends lower).
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError

__all__ = ["batched_bfgs"]


def _two_loop(g, T, V, inv_c, ratio):
    """``-H g`` for every row (``T, V``: ``(B, m, p)``, oldest first; unused: ``inv_c = 0``)."""
    m = T.shape[1]
    q = g.copy()
    alpha = np.zeros((g.shape[0], m))
    for i in range(m - 1, -1, -1):
        a = np.einsum("bi,bi->b", T[:, i], q) * inv_c[:, i]
        alpha[:, i] = a
        q -= a[:, None] * V[:, i]
    # initial matrix gamma I with gamma = s.y / y.y of the newest pair (1 with none)
    gamma = ratio[:, -1] / np.where(inv_c[:, -1] > 0, inv_c[:, -1], 1.0)
    gamma = np.where(inv_c[:, -1] > 0, gamma, 1.0)
    r = gamma[:, None] * q
    for i in range(m):
        b = np.einsum("bi,bi->b", V[:, i], r) * inv_c[:, i]
        r += (ratio[:, i] * alpha[:, i] - b)[:, None] * T[:, i]
    return -r


def batched_bfgs(
    fun,
    x0,
    *,
    maxiter=300,
    rtol=1e-11,
    stall_iters=4,
    fstop=None,
    stop=None,
    memory=12,
    dense_below=200,
):
    """Minimise ``B`` independent functions at once with L-BFGS and Armijo backtracking.

    Parameters
    ----------
    fun : callable
        ``fun(x, idx)`` returns ``(f, g)`` (shapes ``(k,)`` and ``(k, p)``) for the
        problems ``idx`` at the points ``x`` (``(k, p)``).
    x0 : ndarray, shape (B, p)
        Starting points.
    maxiter : int
        Iterations per problem at most.
    rtol : float
        A problem stops when its relative decrease stays below ``rtol`` for
        ``stall_iters`` iterations in a row.
    stall_iters : int
        See ``rtol``.
    fstop : float, optional
        A problem stops once ``f <= fstop``.
    stop : callable, optional
        ``stop(f)``, given the current values of all ``B`` problems, returns a boolean
        mask of those to stop.
    memory : int
        Number of ``(s, y)`` pairs kept per problem.
    dense_below : int
        With fewer than ``dense_below`` parameters the dense inverse Hessian is kept
        instead (its ``O(p^2)`` cost is then small; on badly scaled max-eigenvalue
        problems it can end lower than the limited-memory update); 0: never.

    Returns
    -------
    x : ndarray, shape (B, p)
        The best point seen for each problem.
    f : ndarray, shape (B,)
        The value there.

    Notes
    -----
    A problem also stops when its line search fails (45 backtracking steps).  The
    functions may be nonsmooth (BFGS copes well with max-eigenvalue functions, Lewis &
    Overton 2013); pairs without positive curvature are skipped, and a direction that
    is not a descent direction resets the memory to steepest descent.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.mu_lbfgs import batched_bfgs
    >>> c = np.array([[1.0, -2.0], [3.0, 0.5]])
    >>> def fun(x, idx):
    ...     d = x - c[idx]
    ...     return np.sum(d**2, axis=1), 2.0 * d
    >>> x, f = batched_bfgs(fun, np.zeros((2, 2)))
    >>> bool(np.allclose(x, c) and np.all(f < 1e-20))
    True
    """
    x = np.array(x0, dtype=float)
    if x.ndim != 2:
        raise ArgumentError(f"x0 must have shape (B, p), got {x.shape}")
    for name, value, least in (("memory", memory, 1), ("dense_below", dense_below, 0)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < least:
            raise ArgumentError(f"{name} must be an integer >= {least}, got {value!r}")
    B, p = x.shape
    model = _DenseInverse(B, p) if p < dense_below else _LimitedMemory(B, p, int(memory))
    f, g = fun(x, np.arange(B))
    f, g = np.array(f, dtype=float), np.array(g, dtype=float)
    stall = np.zeros(B, dtype=int)
    active = np.isfinite(f)
    if fstop is not None:
        active &= f > fstop
    if stop is not None:
        active &= ~stop(f)
    for _ in range(maxiter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        gi = g[idx]
        d = model.direction(idx, gi)
        slope = np.einsum("bi,bi->b", d, gi)
        bad = ~(slope < 0)
        if bad.any():
            model.reset(idx[bad])
            d[bad] = -gi[bad]
            slope[bad] = -np.einsum("bi,bi->b", gi[bad], gi[bad])
        alpha = np.ones(idx.size)
        xi, fi = x[idx], f[idx]
        xn, fn, gn = xi.copy(), fi.copy(), gi.copy()
        ok_all = np.zeros(idx.size, dtype=bool)
        pending = np.arange(idx.size)
        for _ls in range(45):
            xt = xi[pending] + alpha[pending, None] * d[pending]
            ft, gt = fun(xt, idx[pending])
            ok = np.isfinite(ft) & (ft <= fi[pending] + 1e-4 * alpha[pending] * slope[pending])
            acc = pending[ok]
            xn[acc], fn[acc], gn[acc] = xt[ok], ft[ok], gt[ok]
            ok_all[acc] = True
            pending = pending[~ok]
            if pending.size == 0:
                break
            alpha[pending] *= 0.3
        active[idx[~ok_all]] = False
        acc = np.flatnonzero(ok_all)
        if acc.size == 0:
            continue
        ia = idx[acc]
        s = xn[acc] - xi[acc]
        y = gn[acc] - gi[acc]
        decrease = fi[acc] - fn[acc]
        x[ia], f[ia], g[ia] = xn[acc], fn[acc], gn[acc]
        small = decrease <= rtol * np.maximum(np.abs(f[ia]), 1e-300)
        stall[ia] = np.where(small, stall[ia] + 1, 0)
        active[ia[stall[ia] >= stall_iters]] = False
        if fstop is not None:
            active[ia[f[ia] <= fstop]] = False
        if stop is not None:
            active[ia[stop(f)[ia]]] = False
        # pairs in unit directions t = s/|s|, v = y/|y| (c = t.v): the update of
        # rho = 1/(s.y) without a rho^2 that overflows for tiny steps
        ns, ny = np.linalg.norm(s, axis=1), np.linalg.norm(y, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t, v = s / ns[:, None], y / ny[:, None]
            r = ns / ny
        c = np.einsum("bi,bi->b", t, v)
        upd = (c > 1e-12) & (ns > 0) & (ny > 0) & np.isfinite(r)
        if upd.any():
            model.update(ia[upd], t[upd], v[upd], c[upd], r[upd])
    return x, f


class _LimitedMemory:
    """The last ``m`` pairs per problem, applied by the two-loop recursion."""

    def __init__(self, B, p, m):
        self.T, self.V = np.zeros((B, m, p)), np.zeros((B, m, p))
        self.inv_c = np.zeros((B, m))  # 0 marks an unused pair
        self.ratio = np.zeros((B, m))

    def direction(self, idx, g):
        return _two_loop(g, self.T[idx], self.V[idx], self.inv_c[idx], self.ratio[idx])

    def reset(self, rows):
        self.inv_c[rows] = 0.0

    def update(self, iu, t, v, c, r):
        # drop the oldest pair, append the newest (rows iu only)
        T, V, inv_c, ratio = self.T, self.V, self.inv_c, self.ratio
        T[iu, :-1], V[iu, :-1] = T[iu, 1:], V[iu, 1:]
        inv_c[iu, :-1], ratio[iu, :-1] = inv_c[iu, 1:], ratio[iu, 1:]
        T[iu, -1], V[iu, -1] = t, v
        inv_c[iu, -1], ratio[iu, -1] = 1.0 / c, r


class _DenseInverse:
    """A dense inverse Hessian per problem, scaled by ``s.y / y.y`` at its first update."""

    def __init__(self, B, p):
        self.H = np.broadcast_to(np.eye(p), (B, p, p)).copy()
        self.first = np.ones(B, dtype=bool)

    def direction(self, idx, g):
        return -np.einsum("bij,bj->bi", self.H[idx], g)

    def reset(self, rows):
        self.H[rows] = np.eye(self.H.shape[1])

    def update(self, iu, t, v, c, r):
        H, first = self.H, self.first
        init = first[iu]
        if init.any():
            H[iu[init]] = (r[init] * c[init])[:, None, None] * np.eye(H.shape[1])
            first[iu[init]] = False
        Hu = H[iu]
        Hv = np.einsum("bij,bj->bi", Hu, v)
        vHv = np.einsum("bi,bi->b", v, Hv)
        H[iu] = (
            Hu
            - (Hv[:, :, None] * t[:, None, :] + t[:, :, None] * Hv[:, None, :]) / c[:, None, None]
            + ((vHv / c + r) / c)[:, None, None] * t[:, :, None] * t[:, None, :]
        )
