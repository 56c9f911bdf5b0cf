"""BFGS with a weak Wolfe line search for nonsmooth, locally Lipschitz functions.

Max-type functions such as the H-infinity norm of a closed loop are differentiable
almost everywhere; BFGS with an inexact (weak Wolfe) line search is an effective local
method for them (A. S. Lewis and M. L. Overton, "Nonsmooth optimization via
quasi-Newton methods", Math. Programming 141, 2013; the method behind HIFOO).
Points where the function is ``inf`` (an unstable loop, a violated bound or hard
goal) are rejected by the line search, so every iterate stays feasible.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class BFGSRun:
    """Outcome of one run: final point, value, gradient and the value history."""

    x: np.ndarray
    f: float
    g: np.ndarray | None
    history: list = field(default_factory=list)
    nfev: int = 0
    message: str = ""


def _wolfe(fun, x, f, g, d, *, c1=1e-4, c2=0.5, maxsteps=40):
    """Weak Wolfe line search by bracketing and bisection (Lewis--Overton)."""
    gd = float(g @ d)
    lo, hi, t = 0.0, np.inf, 1.0
    best = None
    nfev = 0
    for _ in range(maxsteps):
        xt = x + t * d
        ft, gt = fun(xt)
        nfev += 1
        if not np.isfinite(ft) or ft > f + c1 * t * gd:
            hi = t
        else:
            best = (xt, ft, gt)
            if gt @ d < c2 * gd:
                lo = t
            else:
                return best, True, nfev
        t = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * lo
        if hi - lo < 1e-14 * max(1.0, lo):
            break
    return best, False, nfev


def bfgs(fun, x0, *, maxiter=300, ftol=1e-7, stop_below=None) -> BFGSRun:
    """Minimise ``fun`` (returning ``(f, grad)``, ``f = inf`` outside the domain) from ``x0``.

    Stops when the line search cannot decrease ``f`` any more, when ``f`` has decreased
    by less than ``ftol`` (relative) over 10 iterations, after ``maxiter`` iterations,
    or as soon as ``f < stop_below``.

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
    for it in range(maxiter):
        if stop_below is not None and f < stop_below:
            msg = "target reached"
            break
        d = -h @ g
        if not np.all(np.isfinite(d)) or g @ d >= 0:
            h = np.eye(n)
            d = -g
        if np.linalg.norm(d) <= 1e-14 * max(1.0, np.linalg.norm(x)):
            msg = "zero step"
            break
        best, ok, k = _wolfe(fun, x, f, g, d)
        nfev += k
        if best is None:
            msg = "line search found no decrease"
            break
        xn, fn, gn = best
        s, y = xn - x, gn - g
        sy = float(s @ y)
        if sy > 1e-16 * np.linalg.norm(s) * np.linalg.norm(y):
            if it == 0:
                h = (sy / float(y @ y)) * np.eye(n)
            rho = 1.0 / sy
            hy = h @ y
            h = (
                h
                - rho * (np.outer(s, hy) + np.outer(hy, s))
                + (rho**2 * (y @ hy) + rho) * np.outer(s, s)
            )
        x, f, g = xn, fn, gn
        hist.append(f)
        if not ok and len(hist) > 2 and hist[-2] - f <= ftol * max(1.0, abs(f)):
            msg = "line search stalled"
            break
        if len(hist) > 10 and hist[-11] - f <= ftol * max(1.0, abs(f)):
            msg = "converged"
            break
    return BFGSRun(x, f, g, hist, nfev, msg)
