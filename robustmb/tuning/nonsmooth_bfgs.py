"""BFGS with a weak Wolfe line search for nonsmooth, locally Lipschitz functions.

Max-type functions such as the H-infinity norm of a closed loop are differentiable
almost everywhere; BFGS with an inexact (weak Wolfe) line search is an effective local
method for them (A. S. Lewis and M. L. Overton, "Nonsmooth optimization via
quasi-Newton methods", Math. Programming 141, 2013; the method behind HIFOO).
Points where the function is ``inf`` (an unstable loop, a violated bound or hard
goal) are rejected by the line search, so every iterate stays feasible; where every
trial is rejected because the step crosses such a boundary, the step is projected onto
the active constraints (:func:`bfgs` ``constraint``) instead of the run stopping there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .multipeak import multipeak_direction


@dataclass
class BFGSRun:
    """Outcome of one run: final point, value, gradient and the value history."""

    x: np.ndarray
    f: float
    g: np.ndarray | None
    history: list = field(default_factory=list)
    nfev: int = 0
    message: str = ""
    ntest: int = 0  # line-search trials rejected by the cheap test alone
    active: tuple = ()  # constraints active where the run ended (bfgs ``constraint``)


def _wolfe(fun, x, f, g, d, *, c1=1e-4, c2=0.5, maxsteps=24, gd=None, screen=None):
    """Weak Wolfe line search by bracketing and bisection (Lewis--Overton).

    ``gd``: the predicted slope along ``d`` (default ``g @ d``; the multi-peak model's
    ``max_i g_i . d`` for its step).  ``screen``: see :func:`bfgs`.  Returns ``(best,
    ok, nfev, ntest)`` with ``ntest`` the trials rejected by ``screen.above`` alone.
    """
    gd = float(g @ d) if gd is None else float(gd)
    lo, hi, t = 0.0, np.inf, 1.0
    best = None
    nfev = ntest = 0
    for _ in range(maxsteps):
        xt = x + t * d
        level = f + c1 * t * gd
        screened = screen is not None and screen.above(xt, level)
        if screened:
            ntest += 1
            ft, gt = np.inf, None
        else:
            ft, gt = fun(xt)
            nfev += 1
        if not np.isfinite(ft) or ft > level:
            if screen is not None and not screened:
                screen.rejected(xt)
            hi = t
        else:
            best = (xt, ft, gt)
            if gt @ d < c2 * gd:
                lo = t
            else:
                return best, True, nfev, ntest
        t = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * lo
        if hi - lo < 1e-14 * max(1.0, lo):
            break
    return best, False, nfev, ntest


#: Halvings tried by :func:`_wolfe` from ``t = 1`` before it gives up.
WOLFE_STEPS = 24


def _backtrack_further(fun, x, f, g, d, gd, screen):
    """The line search continued below the smallest step :func:`_wolfe` tried.

    Its first trial is ``2^-WOLFE_STEPS`` along ``d``; it halves on until the step moves
    ``x`` at rounding level (``||t d|| <= eps max(1, ||x||)``).  Where the first step is
    the raw gradient of a steep function (a hard goal of hundreds with a gradient of
    1e5), every step :func:`_wolfe` tries can leave the domain (an unstable loop) while a
    shorter one still descends.  Same return as :func:`_wolfe`.
    """
    scale = 2.0**-WOLFE_STEPS
    ds = scale * d
    gds = scale * (float(g @ d) if gd is None else float(gd))
    floor = np.finfo(float).eps * max(1.0, float(np.linalg.norm(x)))
    norm = float(np.linalg.norm(ds))
    if not norm > floor:
        return None, False, 0, 0
    steps = int(np.ceil(np.log2(norm / floor))) + 1
    return _wolfe(fun, x, f, g, ds, gd=gds, maxsteps=min(steps, 80), screen=screen)


#: The message of a run stopped where a domain constraint blocks it (:func:`bfgs`).
AT_BOUNDARY = "stopped at a constraint boundary"
#: The projected step must lower each active constraint at least ``TILT`` times as fast
#: as the model's value (``(a_i - TILT g) . d <= 0``): a step only tangent to a curved
#: boundary leaves the domain at every length when the point lies on it (the margins goal
#: of the PID in tests/tuning/test_stability_boundary.py, hard value 1 - 1e-13: the soft
#: value stalled 4 % above the optimum with 0, reached it with 0.1).
TILT = 0.1


def project_on_constraints(d, h, a):
    """The step ``d`` made to keep active constraints ``c_i(x) <= 0`` from rising.

    The solution of ``min 1/2 s' B s - (B d)' s`` subject to ``a s <= 0`` (``B`` the
    inverse of the BFGS metric ``h``, ``a`` one constraint gradient a row), i.e. the
    minimiser of the BFGS model whose unconstrained minimiser is ``d``: ``s = d - h a'
    l`` with the multipliers ``l >= 0`` of the dual problem ``min 1/2 l' a h a' l - l'
    a d``, solved as a non-negative least-squares problem.  With one row and ``a . d >
    0`` it is the projection, in the metric ``B``, of ``d`` onto the plane ``a . s = 0``.
    Returns ``None`` when ``a`` or ``h`` is not finite or ``h`` is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> s = project_on_constraints(np.array([-1.0, 1.0]), np.eye(2), np.array([[-1.0, 0.0]]))
    >>> (s + 0.0).tolist()
    [0.0, 1.0]
    >>> s = project_on_constraints(np.array([1.0, 1.0]), np.eye(2), np.eye(2))
    >>> (s + 0.0).tolist()
    [0.0, 0.0]
    """
    from scipy.optimize import nnls

    a = np.atleast_2d(np.asarray(a, float))
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(h))):
        return None
    if np.all(a @ d <= 0):
        return d
    try:
        ell = np.linalg.cholesky(0.5 * (h + h.T))
    except np.linalg.LinAlgError:
        return None
    lam, _ = nnls(ell.T @ a.T, np.linalg.solve(ell, d), maxiter=50 * a.shape[0] + 50)
    return d - h @ (a.T @ lam)


def _slope(g, d, pc):
    """The model's slope along ``d``: ``max_i g_i . d`` over the active pieces ``pc``
    (:func:`bfgs` ``pieces``) when there are two or more, else ``g . d``."""
    if pc is not None and pc[0].size > 1:
        return float(np.max(pc[1] @ d))
    return float(g @ d)


def bfgs(
    fun,
    x0,
    *,
    maxiter=300,
    ftol=1e-7,
    stop_below=None,
    pieces=None,
    join=None,
    screen=None,
    window=None,
    abandon=None,
    zero=None,
    rescue=False,
    constraint=None,
) -> BFGSRun:
    """Minimise ``fun`` (returning ``(f, grad)``, ``f = inf`` outside the domain) from ``x0``.

    Stops when the line search cannot decrease ``f`` any more, when ``f`` has decreased by
    less than ``ftol`` (relative) over 10 iterations, after ``maxiter`` iterations, or as
    soon as ``f < stop_below``. ``window = (w, rtol)``: also stops (message ``"slow
    progress"``) once ``f`` has decreased by at most ``rtol`` (relative) over the last ``w``
    iterations: a run crawling along a kink, where each step gains parts per million and
    ``maxiter`` would otherwise be the stop. ``join = (v, rtol)``: also stops (message
    ``"joined"``) when ``v <= f <= v (1 + rtol)``, i.e. the run has come level with a value
    already found (another run's) without beating it. A multistart heuristic that can change
    the result: the stop needs no stationarity, so a run passing through that band on its
    way to a lower minimum is cut off there (the value returned is still ``fun``'s).
    ``abandon = (level, m, w)``: also stops (message ``"abandoned"``), checked every 25
    iterations from the ``w``-th on, once ``f - m (f_w - f) > level`` with ``f_w`` the
    value ``w`` iterations earlier: ``m`` more windows of the same gain would still leave
    the run above ``level`` (a multistart heuristic: a run that speeds up later is cut).
    ``zero = (level, fall, first)``: also stops (message ``"target reached"``) once ``f <
    level`` and ``f <= u / fall``, with ``u`` the first value below ``level`` (``first``
    when finite, a value of an earlier stage; else this run's): a fall by ``fall`` after
    crossing the level, the geometric decay of a value that tends to 0.
    ``rescue=True``: where the line search finds no decrease, it is continued to steps
    that move ``x`` at rounding level (:func:`_backtrack_further`) before the run stops
    (message ``"line search found no decrease"``); off by default, which keeps the
    paths of the runs that stop there.

    ``constraint(x)``, when given, returns ``(c, a)``: the values (a 1-D array) and
    gradients (one a row) of constraints ``c_i(x) < 0`` that bound the domain (``fun``
    is ``inf`` where one fails, such as the stability of a closed loop, ``c = alpha +
    decay`` with ``alpha`` the spectral abscissa; ``nan`` for a constraint not
    evaluated there).  Where the line search finds no decrease along a step that raises
    a constraint failing just beyond ``x`` (every trial outside the domain), those
    constraints are taken as active: the step becomes the model's minimiser subject to
    lowering them (``(a_i - TILT g) . d <= 0``, :func:`project_on_constraints`) and the
    search is tried again along it.  The next steps are projected the same way while each
    active ``c_i`` stays within a factor of 2 of its value where it became active; only
    when the projected step finds no decrease either (nor ``rescue``) does the run
    stop, with the message ``AT_BOUNDARY``.  ``BFGSRun.active``: the indices of the constraints
    still active where the run ended, whatever stopped it (the caller names them, see
    :class:`robustmb.tuning.tuning_problem.TuningProblem`).

    ``pieces(x)``, when given, returns the values and subgradients ``(F, G)`` of every
    active piece of a max function at ``x`` (several H-infinity peaks, goals or
    models).  With two or more, the step is that of the multi-peak model of Apkarian
    and Noll (2006) in the BFGS metric (:func:`robustmb.tuning.multipeak.multipeak_direction`),
    which sees every active piece instead of one subgradient; with one, the plain BFGS
    step.  The metric is then updated with the aggregate subgradient.

    ``screen``, when given, has two methods called by the line search before and after
    each trial point: ``screen.above(x, level)`` is a cheap test, ``True`` only when
    ``fun(x) > level`` (a lower bound of ``fun`` above it, such as one response at the
    last peak frequency), and a trial it rejects is not evaluated (counted in
    ``ntest``); ``screen.rejected(x)`` is called when an evaluated trial is rejected
    (to discard state that ``fun`` keeps between calls, such as a peak-frequency hint).

    Examples
    --------
    >>> import numpy as np
    >>> def fun(x):
    ...     return abs(x[0] - 1) + 2 * abs(x[1]), np.array([np.sign(x[0] - 1), 2 * np.sign(x[1])])
    >>> run = bfgs(fun, np.array([3.0, 2.0]))
    >>> bool(run.f < 1e-6)
    True
    """
    x = np.asarray(x0, dtype=float).copy()
    f, g = fun(x)
    nfev = 1
    if not np.isfinite(f):
        return BFGSRun(x, f, g, [f], nfev, "infeasible start")
    n = x.size
    h = np.eye(n)
    hist = [f]
    msg = "maximum number of iterations"
    ntest = 0
    pc = pieces(x) if pieces is not None else None
    active = {}  # index -> value of each constraint where it became active (``constraint``)
    under = np.inf if zero is None else float(zero[2])
    for it in range(maxiter):
        if stop_below is not None and f < stop_below:
            msg = "target reached"
            break
        if zero is not None and f < zero[0]:
            under = under if np.isfinite(under) else f
            if f <= under / zero[1]:
                msg = "target reached"
                break
        d = -h @ g
        if not np.all(np.isfinite(d)) or g @ d >= 0:
            h = np.eye(n)
            d = -g
        gd, gref = None, g
        if pc is not None and pc[0].size > 1:
            dm, theta, gagg, _ = multipeak_direction(pc[0], pc[1], max(f, pc[0].max()), h)
            if np.all(np.isfinite(dm)) and theta < 0:
                d, gd, gref = dm, theta, gagg
        if active:
            c, a = constraint(x)
            # a constraint that has moved away from the boundary is free again
            active = {i: v for i, v in active.items() if c[i] >= 2.0 * v}
            if active:
                dp = project_on_constraints(d, h, a[list(active)] - TILT * gref)
                if dp is None or not _slope(gref, dp, pc) < 0:
                    msg = AT_BOUNDARY
                    break
                d, gd = dp, _slope(gref, dp, pc)
        if np.linalg.norm(d) <= 1e-14 * max(1.0, np.linalg.norm(x)):
            msg = "zero step"
            break
        best, ok, k, kt = _wolfe(fun, x, f, g, d, gd=gd, maxsteps=WOLFE_STEPS, screen=screen)
        nfev += k
        ntest += kt
        if best is None and constraint is not None:
            hit, c, a = _blocked(constraint, x, d)
            if hit:
                active = {**{i: float(c[i]) for i in hit}, **(active or {})}
                dp = project_on_constraints(d, h, a[list(active)] - TILT * gref)
                if dp is not None and _slope(gref, dp, pc) < 0:
                    gdp = _slope(gref, dp, pc)
                    best, ok, k, kt = _wolfe(
                        fun, x, f, g, dp, gd=gdp, maxsteps=WOLFE_STEPS, screen=screen
                    )
                    nfev += k
                    ntest += kt
        if best is None and rescue:
            best, ok, k, kt = _backtrack_further(fun, x, f, g, d, gd, screen)
            nfev += k
            ntest += kt
        if best is None:
            msg = AT_BOUNDARY if active else "line search found no decrease"
            break
        xn, fn, gn = best
        pn = pieces(xn) if pieces is not None else None
        # The metric is updated with the change from the aggregate subgradient (the one
        # the step was built on).  The change of the weighted gradients of the same pieces
        # (the Lagrangian's, as in SQP for minimax problems) was tried: it blew the metric
        # up along the kink (AC15 from K = 0: 1000 iterations, ~1/16 steps).
        s_ = xn - x
        y = gn - gref
        sy = float(s_ @ y)
        if sy > 1e-16 * np.linalg.norm(s_) * np.linalg.norm(y):
            if it == 0:
                h = (sy / float(y @ y)) * np.eye(n)
            rho = 1.0 / sy
            hy = h @ y
            h = (
                h
                - rho * (np.outer(s_, hy) + np.outer(hy, s_))
                + (rho**2 * (y @ hy) + rho) * np.outer(s_, s_)
            )
        x, f, g, pc = xn, fn, gn, pn
        hist.append(f)
        if join is not None and join[0] <= f <= join[0] * (1 + join[1]):
            msg = "joined"
            break
        if not ok and len(hist) > 2 and hist[-2] - f <= ftol * max(1.0, abs(f)):
            msg = "line search stalled"
            break
        if len(hist) > 10 and hist[-11] - f <= ftol * max(1.0, abs(f)):
            msg = "converged"
            break
        if (
            abandon is not None
            and len(hist) > abandon[2]
            and (len(hist) - 1) % 25 == 0
            and f - abandon[1] * (hist[-1 - abandon[2]] - f) > abandon[0]
        ):
            msg = "abandoned"
            break
        if (
            window is not None
            and len(hist) > window[0]
            and (hist[-1 - window[0]] - f <= window[1] * abs(f))
        ):
            msg = "slow progress"
            break
    return BFGSRun(x, f, g, hist, nfev, msg, ntest, tuple(active))


def _blocked(constraint, x, d):
    """The constraints that blocked a failed line search along ``d``: raised by ``d``
    (``a_i . d > 0``) and failing at the smallest step the search tried.  Returns
    ``(indices, c, a)`` with ``c, a`` the constraints at ``x``."""
    c, a = constraint(x)
    c, a = np.asarray(c, float), np.atleast_2d(np.asarray(a, float))
    ct, _ = constraint(x + 2.0 ** -(WOLFE_STEPS - 1) * d)
    hit = [
        i
        for i in range(c.size)
        if np.isfinite(c[i]) and np.all(np.isfinite(a[i])) and a[i] @ d > 0 and ct[i] >= 0
    ]
    return hit, c, a


def continue_rescued(fun, run, *, restarts=5, **opts):
    """Continue ``run`` (a :class:`BFGSRun` stopped by ``"line search found no decrease"``)
    with ``bfgs(..., rescue=True)``, restarting with a fresh metric while it improves
    (at most ``restarts`` runs, as the phases of :mod:`robustmb.tuning.tuning_problem`
    restart theirs) and until ``"target reached"``.

    Returns the run with the lower value (``run`` itself when no step is found); the
    histories and evaluation counts are joined.

    Examples
    --------
    >>> import numpy as np
    >>> def fun(x):  # steep, and infinite (outside the domain) for x <= -1e-3
    ...     return (1e6 * x[0], np.array([1e6])) if x[0] > -1e-3 else (np.inf, None)
    >>> r0 = bfgs(fun, np.array([0.0]))
    >>> r0.message, float(r0.f)
    ('line search found no decrease', 0.0)
    >>> bool(continue_rescued(fun, r0).f < -900.0)
    True
    """
    best = run
    for _ in range(restarts):
        r = bfgs(fun, best.x, rescue=True, **opts)
        if not r.f < best.f:
            best.nfev += r.nfev
            break
        r.history = best.history + r.history[1:]
        r.nfev += best.nfev
        r.ntest += best.ntest
        best = r
        if r.message == "target reached":
            break
    return best


def min_norm_hull(g):
    """The element of least norm of the convex hull of the rows of ``g``.

    Solved as a non-negative least-squares problem: ``min ||g^T l||`` over the simplex,
    with the constraint ``sum(l) = 1`` enforced by a heavily weighted extra row.

    Examples
    --------
    >>> import numpy as np
    >>> (min_norm_hull(np.array([[1.0, 1.0], [-1.0, 1.0]])).round(9) + 0.0).tolist()
    [0.0, 1.0]
    """
    from scipy.optimize import nnls

    g = np.asarray(g, float)
    scale = max(float(np.abs(g).max()), 1e-300)
    gs = g / scale
    m = gs.shape[0]
    big = 1e3 * max(1.0, float(np.abs(gs).max()))
    lhs = np.vstack([gs.T, big * np.ones((1, m))])
    rhs = np.r_[np.zeros(gs.shape[1]), big]
    lam, _ = nnls(lhs, rhs, maxiter=50 * m)
    lam = lam / lam.sum() if lam.sum() > 0 else np.full(m, 1.0 / m)
    return (lam @ g).astype(float)


def gradient_sampling(
    fun,
    x,
    f,
    g,
    *,
    radius=1e-3,
    min_radius=1e-6,
    maxiter=100,
    seed=0,
    screen=None,
    adaptive=True,
):
    """Descend a nonsmooth ``fun`` by gradient sampling (Burke, Lewis and Overton, 2005).

    At each step the gradients at random points of a box of relative size ``radius``
    around ``x`` (and at ``x``) give the least-norm element of their convex hull, an
    approximate steepest-descent direction of the Clarke ``radius``-subdifferential: it
    sees every active piece of a max function (several H-infinity peaks) where BFGS
    stalls on a kink.  The radius shrinks when no descent is found.  ``screen``: as in
    :func:`bfgs`, for the backtracking points.

    ``adaptive=False`` samples ``n + 1`` new points at every step (the method as
    published).  ``adaptive=True`` (default) keeps the gradients of earlier samples that
    still lie in the current box (as in the adaptive method of Curtis and Que, 2013) and
    draws only a few new points (about ``sqrt(n + 1)``); only when their least-norm
    element gives no descent are more drawn, doubling, up to ``n + 1`` points in the
    box, before the radius shrinks.  The radius therefore shrinks only on the same
    evidence as in the published method (``n + 1`` sampled gradients without descent),
    while a step that a few gradients already find costs a few evaluations.

    Examples
    --------
    >>> import numpy as np
    >>> def fun(x):  # max of three planes, minimum 0 at the origin (all three active)
    ...     v = np.array([x[0] + x[1], -x[0] + x[1], -2 * x[1]])
    ...     k = int(np.argmax(v))
    ...     return v[k], np.array([[1.0, 1.0], [-1.0, 1.0], [0.0, -2.0]])[k]
    >>> x0 = np.array([1.0, 0.5])
    >>> x, f, g = gradient_sampling(fun, x0, *fun(x0))
    >>> bool(0 <= f < 1e-6)
    True
    >>> x, f, g = gradient_sampling(fun, x0, *fun(x0), adaptive=False)
    >>> bool(0 <= f < 1e-6)
    True
    """
    rng = np.random.default_rng(seed)
    x = np.asarray(x, float).copy()
    n = x.size
    full = n + 1
    first = max(2, int(np.ceil(np.sqrt(full)))) if adaptive else full
    rad, step = radius, 0.0
    bank = []  # (point, gradient) of earlier samples (adaptive only)
    for _ in range(maxiter):
        box = rad * np.maximum(1.0, np.abs(x))
        bank = [(pt, gt) for pt, gt in bank if np.all(np.abs(pt - x) <= box)]
        grads = [g, *(gt for _, gt in bank)]
        have, want = len(bank), first
        moved, flat = False, False
        while True:
            # Draw new points until ``want`` points of the box have been sampled (an
            # infeasible one counts as drawn and gives no gradient).
            for _ in range(max(0, want - have)):
                pt = x + box * rng.uniform(-1.0, 1.0, n)
                ft, gt = fun(pt)
                if np.isfinite(ft) and gt is not None:
                    grads.append(gt)
                    if adaptive:
                        bank.append((pt, gt))
            have = max(have, want)
            gstar = min_norm_hull(np.array(grads))
            gn = float(np.linalg.norm(gstar))
            flat = gn <= 1e-12 * max(1.0, abs(f))
            if not flat:
                d = -gstar / gn
                # Backtracking from twice the last accepted step (at least ten sampling
                # radii).
                t = max(2.0 * step, 10.0 * float(np.linalg.norm(box)))
                for _ in range(12):
                    level = f - 1e-8 * t * gn
                    if screen is not None and screen.above(x + t * d, level):
                        t *= 0.5
                        continue
                    ft, gt = fun(x + t * d)
                    if np.isfinite(ft) and ft < level:
                        x, f, g, moved = x + t * d, ft, gt, True
                        break
                    if screen is not None:
                        screen.rejected(x + t * d)
                    t *= 0.5
            if moved or have >= full:
                break
            want = min(full, 2 * want)  # no descent from a few gradients: draw more
        if flat:
            rad *= 0.1  # stationary for this radius: the last step length is kept
            if rad < min_radius:
                break
            continue
        step = t if moved else 0.0
        if not moved:
            rad *= 0.1
            if rad < min_radius:
                break
    return x, f, g
