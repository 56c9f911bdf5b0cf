"""Local maximisation of ``sigma_max(G(j w))`` with few, expensive evaluations.

Used by :mod:`~robustmb.analysis.norms` on stiff or very lightly damped models, where
every response is a solve refined in double-double
(:func:`~robustmb.analysis.refined_response.refined_response`, about ten times the cost
of a plain solve) and the peak is a resonance whose relative width is the damping.

Near an isolated lightly damped pole ``p`` the response is ``r / (j w - p)`` to first
order, so ``1 / sigma^2 = |j w - p|^2 / |r|^2`` is a parabola in ``w``: successive
parabolic interpolation of ``1 / sigma^2`` through the best sample and its two
neighbours lands on the peak in one or two steps, where a grid shrinking by a constant
factor per round needs many.  Each round evaluates the parabola's vertex and two points
at a distance ``h`` on either side of it; when the vertex is not usable (outside the
bracket, or the parabola opens the wrong way) the two halves of the bracket are bisected
instead, so the bracket still shrinks.  Only the attained value is raised: every
returned value is a computed ``sigma`` at the returned frequency.
"""

from __future__ import annotations

import numpy as np

_EPS = np.finfo(float).eps
# The points beside the vertex sit at ``h = max(|v - b|, _SIDE_FRACTION (c - a))``: the
# bracket shrinks at least ``1 / (2 _SIDE_FRACTION)``-fold per round while the parabola
# is accurate.
_SIDE_FRACTION = 1e-2


def _vertex(a, b, c, fa, fb, fc):
    """Minimiser of the parabola through ``(x, 1 / f^2)`` at ``a < b < c``, or None."""
    ga, gb, gc = 1.0 / (fa * fa), 1.0 / (fb * fb), 1.0 / (fc * fc)
    p = (b - a) * (gb - gc)
    q = (b - c) * (gb - ga)
    denominator = p - q
    # g's parabola must open upwards: (gb - ga) / (b - a) < (gc - gb) / (c - b)
    if not (np.isfinite(denominator) and denominator < 0.0):
        return None
    v = b - 0.5 * ((b - a) * p - (b - c) * q) / denominator
    if not (np.isfinite(v) and a < v < c):
        return None
    return float(v)


def parabolic_peak(sigma, points, values, lower, frequency, *, tol, rounds=40):
    """Raise the attained peak ``lower = sigma(frequency)`` by a local search.

    Parameters
    ----------
    sigma : callable
        ``sigma(w)`` for a 1-D array of frequencies, returning their values.
    points, values : numpy.ndarray
        Frequencies already evaluated and their values (sorted or not); the neighbours of
        ``frequency`` among them bracket the search.
    lower, frequency : float
        The best value so far and where it was attained.
    tol : float
        The search stops when both neighbours of the best sample are within
        ``1e-3 tol`` of it (relative), or the bracket is a few ``eps`` wide.
    rounds : int, optional
        At most this many rounds of (at most three) evaluations.

    Returns
    -------
    lower, frequency : float
        The best value found (never below the given one) and its frequency.

    Examples
    --------
    >>> import numpy as np
    >>> def sigma(w):  # a resonance at 1.0 with damping 1e-4
    ...     return 1.0 / np.abs(1.0 - w**2 + 2e-4j * w)
    >>> grid = np.linspace(0.5, 1.5, 11)
    >>> best, where = parabolic_peak(sigma, grid, sigma(grid), sigma(grid).max(), 1.0,
    ...                              tol=1e-10)
    >>> bool(abs(best * 2e-4 * np.sqrt(1 - 1e-8) - 1.0) < 1e-12)
    True
    """
    if not np.isfinite(frequency):
        return lower, frequency
    points = np.asarray(points, dtype=float)
    values = np.asarray(values, dtype=float)
    keep = np.isfinite(points) & np.isfinite(values)
    points, values = points[keep], values[keep]
    left, right = points < frequency, points > frequency
    w = [frequency]
    f = [lower]
    if left.any():
        j = int(np.argmax(np.where(left, points, -np.inf)))
        w.insert(0, float(points[j]))
        f.insert(0, float(values[j]))
    if right.any():
        j = int(np.argmin(np.where(right, points, np.inf)))
        w.append(float(points[j]))
        f.append(float(values[j]))
    if len(w) == 1:
        return lower, frequency
    w, f = np.array(w), np.array(f)
    for _ in range(rounds):
        b = int(np.argmax(f))
        lo, hi = max(b - 1, 0), min(b + 1, w.size - 1)
        a, c = w[lo], w[hi]
        if c - a <= 4 * _EPS * abs(w[b]):
            break
        if max(f[b] - f[lo], f[b] - f[hi]) <= 1e-3 * tol * f[b] and (lo < b or hi > b):
            break  # flat to far below tol beside it: the peak is located
        v = _vertex(a, w[b], c, f[lo], f[b], f[hi]) if lo < b < hi else None
        if v is None:
            new = [0.5 * (a + w[b]), 0.5 * (w[b] + c)]
        else:
            h = max(abs(v - w[b]), _SIDE_FRACTION * (c - a))
            new = [v - h, v, v + h]
        new = np.array([x for x in new if a < x < c and x not in w])
        if new.size == 0:
            break
        fx = np.asarray(sigma(new), dtype=float)
        ok = np.isfinite(fx)
        w = np.concatenate([w, new[ok]])
        f = np.concatenate([f, fx[ok]])
        order = np.argsort(w)
        w, f = w[order], f[order]
    b = int(np.argmax(f))
    if f[b] > lower:
        return float(f[b]), float(w[b])
    return lower, frequency
