"""The multi-peak (cutting-plane) step of nonsmooth H-infinity optimisation.

Where several peak frequencies (or goals, or models) are active at once, the worst
value ``f(x) = max_i f_i(x)`` has a kink and a quasi-Newton step built on one
subgradient zig-zags along it.  P. Apkarian and D. Noll, "Nonsmooth H-infinity
synthesis", IEEE Trans. Automatic Control 51(1), 2006, pp. 71-86, instead take
every active piece ``i`` (value ``f_i``, subgradient ``g_i``) into a local model and
step to

    d = argmin_d  max_i (f_i - f + g_i . d) + 1/2 d^T Q d,

whose dual is a small quadratic programme over the simplex,

    lam = argmin_{lam >= 0, sum lam = 1}  1/2 lam^T (G Q^-1 G^T) lam - (f_i - f)^T lam,

with ``d = -Q^-1 G^T lam``: the step sees every active peak, and ``G^T lam`` is the
aggregate subgradient (its norm in the ``Q^-1`` metric is a stationarity measure).
Here ``Q^-1`` is the BFGS inverse Hessian (a multiple of the identity at the start).
"""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError


def simplex_qp(m, c, *, tol=1e-12, maxiter=200):
    """Minimise ``1/2 l^T M l - c^T l`` over the simplex ``l >= 0, sum(l) = 1``.

    A primal active-set method for a small positive semidefinite ``M`` (a ridge of
    ``1e-12 max|M|`` keeps the equality-constrained subproblems regular).  Returns the
    minimiser ``l``.

    Examples
    --------
    >>> import numpy as np
    >>> # Least-norm point of the segment between (1, 1) and (-1, 1): the midpoint.
    >>> g = np.array([[1.0, 1.0], [-1.0, 1.0]])
    >>> simplex_qp(g @ g.T, np.zeros(2)).round(12).tolist()
    [0.5, 0.5]
    """
    m = np.asarray(m, float)
    c = np.asarray(c, float)
    k = c.size
    if m.shape != (k, k):
        raise DimensionError(f"simplex_qp: m has shape {m.shape}, expected ({k}, {k})")
    if not (np.all(np.isfinite(m)) and np.all(np.isfinite(c))):
        raise DimensionError("simplex_qp: m and c must be finite")
    if k == 1:
        return np.ones(1)
    scale = max(float(np.abs(m).max()), float(np.abs(c).max()), 1e-300)
    m = 0.5 * (m + m.T) / scale + 1e-12 * np.eye(k)
    c = c / scale
    # Start at the vertex of least objective.
    j = int(np.argmin(0.5 * np.diag(m) - c))
    lam = np.zeros(k)
    lam[j] = 1.0
    free = [j]
    for _ in range(maxiter):
        s = np.array(free)
        ns = s.size
        kkt = np.zeros((ns + 1, ns + 1))
        kkt[:ns, :ns] = m[np.ix_(s, s)]
        kkt[:ns, ns] = kkt[ns, :ns] = 1.0
        sol = np.linalg.lstsq(kkt, np.concatenate((c[s], [1.0])), rcond=None)[0]
        target = sol[:ns]
        if np.all(target >= -tol):
            lam = np.zeros(k)
            lam[s] = np.maximum(target, 0.0)
            lam /= lam.sum()
            # Multipliers of the bounds of the pieces outside the support.
            grad = m @ lam - c
            mu = float(grad[s] @ lam[s])
            mask = np.ones(k, bool)
            mask[s] = False
            out = np.flatnonzero(mask)
            if out.size == 0:
                return lam
            nu = grad[out] - mu
            i = int(np.argmin(nu))
            if nu[i] >= -tol * max(1.0, abs(mu)):
                return lam
            free.append(int(out[i]))
            continue
        # Move from lam towards the target until a weight reaches zero; drop it.
        cur = lam[s]
        dirn = target - cur
        neg = dirn < 0
        t = np.min(np.where(neg, cur / np.where(neg, -dirn, 1.0), np.inf))
        t = min(max(t, 0.0), 1.0)
        new = np.maximum(cur + t * dirn, 0.0)
        lam = np.zeros(k)
        lam[s] = new
        lam /= lam.sum()
        drop = s[int(np.argmin(np.where(neg, new, np.inf)))]
        free.remove(int(drop))
        if not free:  # cannot happen for a convex problem; restart at the best vertex
            free = [int(np.argmin(0.5 * np.diag(m) - c))]
    return lam


def multipeak_direction(values, grads, f, hinv):
    """Descent direction of the multi-peak model (module docstring).

    Parameters
    ----------
    values : (k,) array
        Values ``f_i`` of the active pieces (``f_i <= f``).
    grads : (k, n) array
        Their subgradients ``g_i``.
    f : float
        The current worst value.
    hinv : (n, n) array
        ``Q^-1``, a positive definite inverse Hessian estimate.

    Returns
    -------
    d : (n,) array
        The step of the model.
    theta : float
        Its predicted change of the worst value, ``max_i (f_i - f + g_i . d) <= 0``.
    gagg : (n,) array
        The aggregate subgradient ``G^T lam`` (``d = -Q^-1 gagg``).
    lam : (k,) array
        The weights of the pieces.

    Examples
    --------
    >>> import numpy as np
    >>> # f = max(x1 + x2, -x1 + x2) at x = 0: the model step goes straight down x2.
    >>> d, theta, gagg, lam = multipeak_direction(
    ...     np.zeros(2), np.array([[1.0, 1.0], [-1.0, 1.0]]), 0.0, np.eye(2))
    >>> d.round(12).tolist(), round(theta, 12)
    ([0.0, -1.0], -1.0)
    """
    values = np.asarray(values, float)
    grads = np.atleast_2d(np.asarray(grads, float))
    if grads.shape[0] != values.size:
        raise DimensionError(
            f"multipeak_direction: {values.size} values for {grads.shape[0]} gradients"
        )
    hg = grads @ hinv  # rows: (Q^-1 g_i)^T (hinv symmetric)
    lam = simplex_qp(hg @ grads.T, values - f)
    gagg = lam @ grads
    d = -(lam @ hg)
    theta = float(np.max(values - f + grads @ d))
    return d, theta, gagg, lam
