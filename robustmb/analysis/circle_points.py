"""Discrete responses at the exact images of frequencies of the bilinear equivalent.

The bilinear map sends ``nu`` to ``z = (1 + j nu) / (1 - j nu)``.  Rounded to a double,
``z`` moves by about ``eps``; against a pole ``d`` from the unit circle (a loop with a
pole ``1e-15`` from ``z = -1``) that moves ``Md(z)`` by ``eps / d``, ten per cent and
more.  A bound on ``|Md(z) - Mc(j nu)|`` that solves at the rounded ``z`` then measures
the difference at the wrong point (it understated the true one by 9 % for ``nu`` between
``3e9`` and ``4e13``).  Here the point is formed as an unevaluated sum ``z_hi + z_lo``
accurate to about ``eps^2`` (double-double arithmetic on
``z = ((1 - nu^2) + 2 j nu) / (1 + nu^2)``), and ``Md`` is refined at that sum, with the
double-double residuals of :mod:`.refined_response`.  ``nu = inf`` is ``z = -1``.
"""

from __future__ import annotations

import numpy as np

from .refined_response import _Accumulator, _complex_products, _residual, _two_product, _two_sum

__all__ = ["circle_points", "refined_at_points"]

_EPS = np.finfo(float).eps
_MAX_STEPS = 8
# Above this ``nu`` (``nu^2`` would overflow) ``z = -1 + 2 j / nu`` to far below eps^2.
_HUGE = 1e100


def _dd_divide(num, den_hi, den_lo):
    """``num / (den_hi + den_lo)`` as ``(q, q_lo)``, to about ``eps^2`` relative."""
    q = num / den_hi
    p, pe = _two_product(q, den_hi)
    rem = ((num - p) - pe) - q * den_lo
    return q, rem / den_hi


def circle_points(nu):
    """``(z, z_lo)``: ``z + z_lo = (1 + j nu) / (1 - j nu)`` to about ``eps^2``.

    Parameters
    ----------
    nu : array_like
        Frequencies ``nu >= 0`` of the bilinear equivalent (``inf`` gives ``z = -1``).

    Returns
    -------
    z, z_lo : numpy.ndarray
        Complex, 1-D; ``z`` is the point rounded, ``z_lo`` the small remainder.

    Examples
    --------
    >>> import numpy as np
    >>> z, lo = circle_points(np.array([0.0, 1.0, np.inf]))
    >>> z.tolist(), lo.tolist()
    ([(1+0j), 1j, (-1+0j)], [0j, 0j, 0j])
    """
    nu = np.asarray(nu, float).ravel()
    big = nu > _HUGE
    v = np.where(big | ~np.isfinite(nu), 1.0, nu)
    s, se = _two_product(v, v)
    t, te = _two_sum(1.0, s)
    te = te + se
    q, q_lo = _dd_divide(2.0, t, te)  # 2 / (1 + nu^2)
    # real part -1 + 2 / (1 + nu^2) for nu >= 1, 1 - 2 nu^2 / (1 + nu^2) below
    r_hi, r_lo = _two_sum(-1.0, q)
    r_lo = r_lo + q_lo
    sq, sq_lo = _dd_divide(2.0 * s, t, te)  # 2 nu^2 / (1 + nu^2), without the se term
    sq_lo = sq_lo + 2.0 * se / t
    l_hi, l_lo = _two_sum(1.0, -sq)
    l_lo = l_lo - sq_lo
    small = v < 1.0
    r_hi, r_lo = np.where(small, l_hi, r_hi), np.where(small, l_lo, r_lo)
    i_hi, i_lo = _two_product(v, q)  # 2 nu / (1 + nu^2)
    i_lo = i_lo + v * q_lo
    # huge nu: z = -1 + 2 j / nu (the real remainder 2 / nu^2 is below eps^2)
    with np.errstate(all="ignore"):
        g, g_lo = _dd_divide(2.0, np.where(big, nu, 1.0), 0.0)
    r_hi, r_lo = np.where(big, -1.0, r_hi), np.where(big, 0.0, r_lo)
    i_hi, i_lo = np.where(big, g, i_hi), np.where(big, g_lo, i_lo)
    inf = np.isinf(nu)
    r_hi, r_lo = np.where(inf, -1.0, r_hi), np.where(inf, 0.0, r_lo)
    i_hi, i_lo = np.where(inf, 0.0, i_hi), np.where(inf, 0.0, i_lo)
    zero = nu == 0
    r_lo, i_hi, i_lo = (
        np.where(zero, 0.0, r_lo),
        np.where(zero, 0.0, i_hi),
        np.where(zero, 0.0, i_lo),
    )
    # renormalise so that |z_lo| is below half an ulp of z
    r_hi, r2 = _two_sum(r_hi, r_lo)
    i_hi, i2 = _two_sum(i_hi, i_lo)
    return r_hi + 1j * i_hi, r2 + 1j * i2


def refined_at_points(a, b, c, d, points, points_lo, max_steps=_MAX_STEPS):
    """``C ((z + z_lo) I - A)^-1 B + D`` refined with double-double residuals.

    Returns ``(response, accuracy, size)`` as :func:`.refined_response.refined_response`
    with ``sizes=True``: per point and column, the relative size of the last correction
    (the error estimate) and the 2-norm of the column of ``X``.  A point on which the
    solve fails has ``inf`` accuracy.

    Examples
    --------
    >>> import numpy as np
    >>> a, b, c, d = np.array([[-0.5]]), np.eye(1), np.eye(1), np.zeros((1, 1))
    >>> z, lo = circle_points(np.array([np.inf]))
    >>> m, acc, size = refined_at_points(a, b, c, d, z, lo)
    >>> complex(m[0, 0, 0]), bool(acc[0, 0] < 1e-15)  # 1 / (-1 + 0.5)
    ((-2+0j), True)
    """
    n = a.shape[0]
    K = points.size
    M = np.empty((K, n, n), dtype=complex)
    M[:] = -a
    M.reshape(K, n * n)[:, :: n + 1] += points[:, None]
    rhs = np.broadcast_to(b, (K,) + b.shape).astype(complex)
    X_hi = np.zeros((K,) + b.shape, dtype=complex)
    accuracy = np.full((K, b.shape[1]), np.inf)
    good = np.ones(K, bool)
    with np.errstate(all="ignore"):
        for k in range(K):
            try:
                X_hi[k] = np.linalg.solve(M[k], rhs[k])
            except np.linalg.LinAlgError:
                good[k] = False
        X_lo = np.zeros_like(X_hi)
        size = np.linalg.norm(X_hi, axis=1)
        rows = np.flatnonzero(good & np.all(np.isfinite(X_hi.reshape(K, -1)), axis=1))
        good[:] = False
        good[rows] = True
        for _ in range(max_steps):
            if rows.size == 0:
                break
            Xh, Xl = X_hi[rows], X_lo[rows]
            res = _residual(a, b, points[rows], Xh, Xl, points_lo[rows])
            correction = np.linalg.solve(M[rows], res)
            bad = ~np.all(np.isfinite(correction.reshape(rows.size, -1)), axis=1)
            correction[bad] = 0.0
            step = np.linalg.norm(correction, axis=1)
            ok = size[rows] > 0
            accuracy[rows] = np.where(ok, step / np.where(ok, size[rows], 1.0), 0.0)
            accuracy[rows[bad]] = np.inf
            total = Xl + correction
            hr, lr = _two_sum(Xh.real, total.real)
            hi, li = _two_sum(Xh.imag, total.imag)
            X_hi[rows], X_lo[rows] = hr + 1j * hi, lr + 1j * li
            size[rows] = np.linalg.norm(X_hi[rows], axis=1)
            worst = np.max(accuracy[rows], axis=1, initial=0.0)
            rows = rows[(worst > 4 * _EPS) & np.isfinite(worst)]
        shape = (K,) + d.shape
        re, im = _Accumulator(shape), _Accumulator(shape)
        re.add(np.broadcast_to(np.real(d), shape))
        im.add(np.broadcast_to(np.imag(d), shape))
        _complex_products(re, im, c, X_hi.real, X_hi.imag)
        low = c @ X_lo
        re.add_small(low.real)
        im.add_small(low.imag)
        value = re.value() + 1j * im.value()
    value[~good] = np.inf
    accuracy[~good] = np.inf
    return value, accuracy, size
