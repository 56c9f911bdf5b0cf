"""Frequency responses of stiff models by solves refined with double-double residuals.

``G(p) = C (p I - A)^-1 B + D`` by an LU solve is backward stable, but its relative
error is about ``eps cond(p I - A)``: for a stiff model (a fast pole at ``-4e9``) near
a lightly damped slow resonance (``Re p = -1.6e-4``) that condition number reaches
``1e13``, and ``sigma_max`` comes out ``5e-4`` low.  Iterative refinement recovers full
accuracy when the residual ``B - (p I - A) X`` is computed in about twice the working
precision (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., ch. 12):
each step divides the error by about ``eps cond`` while that is below 1.  The residuals
and the final products ``C X`` are formed with error-free transformations (Dekker's
product, Knuth's sum), as in the ``Dot2`` algorithm of Ogita, Rump and Oishi (SIAM J.
Sci. Comput. 26, 2005), vectorised over points, rows and columns.

The solution is kept as an unevaluated sum ``X_hi + X_lo``.  The size of the last
correction relative to ``X`` is returned as the reached accuracy; it is an estimate,
not a bound (refinement converges when ``eps cond < 1``, and the estimate is then
close to the true error).
"""

from __future__ import annotations

import numpy as np

__all__ = ["refined_response"]

_EPS = np.finfo(float).eps
_SPLITTER = 134217729.0  # 2^27 + 1: Dekker's split of a double into two 26-bit halves
_MAX_STEPS = 6


def _two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``s + e = a + b`` exactly."""
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def _split(a):
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a, b):
    """``(x, e)`` with ``x = fl(a b)`` and ``x + e = a b`` exactly (no overflow)."""
    x = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return x, al * bl - (((x - ah * bh) - al * bh) - ah * bl)


class _Accumulator:
    """A sum of exact products with its rounding errors collected in a second term."""

    def __init__(self, shape):
        self.s = np.zeros(shape)
        self.e = np.zeros(shape)

    def add(self, value):
        self.s, q = _two_sum(self.s, value)
        self.e = self.e + q

    def add_products(self, M, X):
        """``+ M @ X`` for a real ``M (r, n)`` and a real stack ``X (K, n, m)``."""
        total, error = _dot2(M, X)
        self.add(total)
        self.e = self.e + error

    def add_small(self, value):
        self.e = self.e + value

    def value(self):
        return self.s + self.e


def _dot2(M, X):
    """``M @ X`` as an unevaluated sum ``(s, e)`` accurate to about twice the working
    precision, for a real ``M (r, n)`` and a real stack ``X (K, n, m)``.

    All products are formed error-free at once, laid out ``(K, m, r, n)`` so that the
    summation runs along the last, contiguous axis; they are summed by a tree of
    error-free additions (pairing the two halves), the rounding errors collected apart.
    """
    Xt = np.swapaxes(X, 1, 2)[:, :, None, :]  # (K, m, 1, n)
    x, y = _two_product(M[None, None, :, :], Xt)  # (K, m, r, n)
    error = y.sum(axis=-1)
    while x.shape[-1] > 1:
        size = x.shape[-1]
        half = size // 2
        total, q = _two_sum(x[..., :half], x[..., half : 2 * half])
        error = error + q.sum(axis=-1)
        x = np.concatenate([total, x[..., 2 * half :]], axis=-1) if size % 2 else total
    return np.swapaxes(x[..., 0], 1, 2), np.swapaxes(error, 1, 2)


def _complex_products(acc_re, acc_im, M, X_re, X_im):
    """``+ M @ X`` into the real and imaginary accumulators (``M`` real or complex)."""
    M_re, M_im = np.real(M), np.imag(M)
    m = X_re.shape[2]
    # one pass over the real part of M for both parts of X
    total, error = _dot2(M_re, np.concatenate([X_re, X_im], axis=2))
    acc_re.add(total[..., :m])
    acc_re.add_small(error[..., :m])
    acc_im.add(total[..., m:])
    acc_im.add_small(error[..., m:])
    if np.any(M_im):
        acc_re.add_products(-M_im, X_im)
        acc_im.add_products(M_im, X_re)


def _circle_correction(points):
    """``points_lo`` with ``|points + points_lo| = 1`` to about ``eps^2``.

    ``exp(j theta)`` rounded lies off the unit circle by up to about ``eps``; against a
    pole ``d`` inside the circle that is a relative error of ``eps / d`` per pole of
    the response (``1e-8`` for a double pole at ``d = 1e-8``).  Radially projected:
    ``z / |z| = z (1 - (|z|^2 - 1) / 2)`` to first order in ``|z|^2 - 1``, with ``|z|^2``
    formed without rounding (``s - 1`` is exact for ``s`` in ``[0.5, 2]``)."""
    a, b = points.real, points.imag
    a2, ea = _two_product(a, a)
    b2, eb = _two_product(b, b)
    s, es = _two_sum(a2, b2)
    excess = (s - 1.0) + (es + (ea + eb))
    return -points * (0.5 * excess)


def _residual(A, B, points, X_hi, X_lo, points_lo=None):
    """``B - ((p + p_lo) I - A) (X_hi + X_lo)`` to about twice the working precision."""
    shape = X_hi.shape
    re, im = _Accumulator(shape), _Accumulator(shape)
    re.add(np.broadcast_to(np.real(B), shape))
    im.add(np.broadcast_to(np.imag(B), shape))
    Xr, Xi = X_hi.real, X_hi.imag
    pr, pi = points.real[:, None, None], points.imag[:, None, None]
    for acc, terms in ((re, ((-pr, Xr), (pi, Xi))), (im, ((-pr, Xi), (-pi, Xr)))):
        for a, b in terms:
            x, y = _two_product(np.broadcast_to(a, shape), b)
            acc.add(x)
            acc.add_small(y)
    _complex_products(re, im, A, Xr, Xi)
    low = A @ X_lo - points[:, None, None] * X_lo  # small: plain arithmetic suffices
    if points_lo is not None:
        low -= points_lo[:, None, None] * X_hi
    re.add_small(low.real)
    im.add_small(low.imag)
    return re.value() + 1j * im.value()


def refined_response(A, B, C, D, points, *, on_circle=False, sizes=False, max_steps=_MAX_STEPS):
    """``G(p) = C (p I - A)^-1 B + D`` at the points ``p``, refined to working accuracy.

    Parameters
    ----------
    A, B, C, D : numpy.ndarray
        State-space matrices (finite, of moderate size: entries far below ``1e300``).
    points : numpy.ndarray
        Complex points ``p`` (1-D), none of them a pole.
    on_circle : bool, optional
        The points stand for points of the unit circle (``exp(j theta)``, rounded): the
        response is refined at their radial projection onto the circle, kept as a
        double-double ``p + p_lo`` (for poles within ``1e-8`` of the circle the rounding
        of ``p`` itself costs ``1e-8`` relative).
    max_steps : int, optional
        Refinement steps at most (each divides the error by about ``eps cond``).
    sizes : bool, optional
        Refine every column of ``X`` to its own relative accuracy, and return the norms
        of the columns of ``X`` (the scales of the errors ``accuracy`` then measures).

    Returns
    -------
    response : numpy.ndarray
        Shape ``(len(points), p, m)``.
    accuracy : numpy.ndarray
        Per point (with ``sizes``: per point and column, shape ``(len(points), m)``),
        the relative size of the last correction to ``X = (p I - A)^-1 B``: an
        estimate of the relative error reached (about ``eps`` when refinement converged).
    size : numpy.ndarray
        With ``sizes`` only: the 2-norms of the columns of ``X``, ``(len(points), m)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        When ``p I - A`` is exactly singular at some point.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-4e9, 0.0, 0.0], [0.0, -1e-4, 1.6], [0.0, -1.6, -1e-4]])
    >>> B, C, D = np.ones((3, 1)), np.ones((1, 3)), np.zeros((1, 1))
    >>> G, acc = refined_response(A, B, C, D, np.array([1.6j]))
    >>> exact = 1 / (1.6j + 4e9) + (2 * 1.6j + 2e-4) / ((1.6j + 1e-4) ** 2 + 1.6**2)
    >>> bool(abs(G[0, 0, 0] / exact - 1) < 1e-12), bool(acc[0] < 1e-12)
    (True, True)
    """
    n = A.shape[0]
    K = points.size
    M = np.empty((K, n, n), dtype=complex)
    M[:] = -A
    M.reshape(K, n * n)[:, :: n + 1] += points[:, None]
    rhs = np.broadcast_to(B, (K,) + B.shape)
    X_hi = np.linalg.solve(M, rhs).astype(complex)
    # entries near the overflow threshold (a pole at -1e-300 gives |X| = 1e300) overflow
    # the norms and the splitting of the products: quietly, such points stay unrefined
    with np.errstate(over="ignore", invalid="ignore"):
        return _refine(A, B, C, D, points, M, X_hi, sizes, on_circle, max_steps)


def _refine(A, B, C, D, points, M, X_hi, sizes, on_circle, max_steps):
    """The refinement loop and final sum of :func:`refined_response`."""
    K = points.size
    X_lo = np.zeros_like(X_hi)
    # with ``sizes``, per column of X: columns of very different scales (a channel scaled
    # by 1e7) are each refined to their own relative accuracy
    axis = 1 if sizes else (1, 2)
    size = np.linalg.norm(X_hi, axis=axis)
    accuracy = np.full(size.shape, np.inf)
    rows = np.arange(K)  # points still refined (converged ones drop out)
    points_lo = _circle_correction(points) if on_circle else None
    for _ in range(max_steps):
        Xh, Xl = X_hi[rows], X_lo[rows]
        low = None if points_lo is None else points_lo[rows]
        correction = np.linalg.solve(M[rows], _residual(A, B, points[rows], Xh, Xl, low))
        bad = ~np.all(np.isfinite(correction.reshape(rows.size, -1)), axis=1)
        correction[bad] = 0.0
        step = np.linalg.norm(correction, axis=axis)
        ok = size[rows] > 0
        accuracy[rows] = np.where(ok, step / np.where(ok, size[rows], 1.0), 0.0)
        accuracy[rows[bad]] = np.inf
        total = Xl + correction
        hr, lr = _two_sum(Xh.real, total.real)
        hi, li = _two_sum(Xh.imag, total.imag)
        X_hi[rows], X_lo[rows] = hr + 1j * hi, lr + 1j * li
        size[rows] = np.linalg.norm(X_hi[rows], axis=axis)
        worst = accuracy[rows] if not sizes else np.max(accuracy[rows], axis=1, initial=0.0)
        rows = rows[(worst > 4 * _EPS) & np.isfinite(worst)]
        if rows.size == 0:
            break
    # after the last step the error is about eps cond times the last correction
    shape = (K,) + D.shape
    re, im = _Accumulator(shape), _Accumulator(shape)
    re.add(np.broadcast_to(np.real(D), shape))
    im.add(np.broadcast_to(np.imag(D), shape))
    _complex_products(re, im, C, X_hi.real, X_hi.imag)
    low = C @ X_lo
    re.add_small(low.real)
    im.add_small(low.imag)
    value = re.value() + 1j * im.value()
    plain = C @ X_hi + D  # where the double-double sum overflows
    lost = ~np.isfinite(value) & np.isfinite(plain)
    value[lost] = plain[lost]
    if sizes:
        return value, accuracy, size
    return value, accuracy
