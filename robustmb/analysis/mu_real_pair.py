"""Exact check of a real destabilising perturbation of a complex matrix.

With real scalar blocks only, ``det(I - M Delta) = 0`` on a complex ``M`` is two real
equations in the real parameters, so a perturbation found by a search is singular only
to its tolerance, and rounding decides nothing.  Two non-repeated real scalars ``x, y``
(the others kept at their floating-point values) enter the determinant bilinearly:
``p(x, y) = c00 + c10 x + c01 y + c11 x y`` with the coefficients computed exactly in
rational arithmetic.  For each ``x`` the root ``y(x) = -(c00 + c10 x) / (c01 + c11 x)``
is real where the real quadratic ``q(x) = Im((c00 + c10 x) conj(c01 + c11 x))`` vanishes;
a sign change of ``q`` over a small interval around the search's ``x`` brackets such an
``x*``, and ``|y(x*)|`` is bounded over the interval (``|c00 + c10 x|`` is convex in
``x``, the least ``|c01 + c11 x|`` is found exactly).  The real structured
``Delta(x*, y(x*))`` is singular, so ``mu(M) >= 1 / ||Delta(x*, y(x*))||``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .mu_structure import REAL, BlockStructure

__all__ = ["real_pair_lower"]

_EPS = np.finfo(float).eps
# brackets tried around the search's value, relative
_TAUS = (Fraction(1, 2**40), Fraction(1, 2**30), Fraction(1, 2**20))
# pairs of blocks tried at most
_MAX_PAIRS = 6


def _q(z):
    z = complex(z)
    return (Fraction(z.real), Fraction(z.imag))


def _mul(a, b):
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1])


def _det(K):
    """Exact determinant of a square matrix of rational complex pairs (Gaussian elimination)."""
    K = [row[:] for row in K]
    n = len(K)
    zero = (Fraction(0), Fraction(0))
    det = (Fraction(1), Fraction(0))
    for c in range(n):
        piv = next((i for i in range(c, n) if K[i][c] != zero), None)
        if piv is None:
            return zero
        if piv != c:
            K[c], K[piv] = K[piv], K[c]
            det = (-det[0], -det[1])
        p = K[c][c]
        det = _mul(det, p)
        den = p[0] * p[0] + p[1] * p[1]
        inv = (p[0] / den, -p[1] / den)
        for i in range(c + 1, n):
            if K[i][c] == zero:
                continue
            f = _mul(K[i][c], inv)
            for j in range(c + 1, n):
                if K[c][j] != zero:
                    K[i][j] = _sub(K[i][j], _mul(f, K[c][j]))
    return det


def _loop_det(Mr, diag, n):
    """``det(I - M diag(d))`` for a diagonal ``Delta`` (``diag`` rational pairs per column)."""
    one = (Fraction(1), Fraction(0))
    zero = (Fraction(0), Fraction(0))
    K = []
    for i in range(n):
        row = []
        for j in range(n):
            e = _sub(one if i == j else zero, _mul(Mr[i][j], diag[j]))
            row.append(e)
        K.append(row)
    return _det(K)


def _scalar_values(struct, delta):
    """The value of every real scalar block of ``delta``, or None unless ``delta`` is exactly
    a real diagonal in the structure (real blocks only)."""
    if struct.n_z != struct.n_w or np.any(delta.imag):
        return None
    d = delta.real
    if np.any(d - np.diag(np.diag(d))):
        return None
    vals = []
    for b in struct.blocks:
        if b.kind != REAL:
            return None
        v = np.diag(d)[b.w]
        if np.any(v != v[0]):
            return None
        vals.append(float(v[0]))
    return vals


def real_pair_lower(M, struct: BlockStructure, delta):
    """Certified lower bound from a real perturbation of a complex ``M`` (real blocks only).

    Parameters
    ----------
    M : numpy.ndarray, shape (n, n)
    struct : BlockStructure
        Real scalar blocks only, at least two of them non-repeated.
    delta : numpy.ndarray, shape (n, n)
        A search's perturbation, singular to its tolerance.

    Returns
    -------
    lower : float
        ``1 / ||Delta*||`` for an exactly singular real ``Delta*`` near ``delta``, rounded
        down; 0.0 when no pair of blocks gives a certificate.
    delta : numpy.ndarray or None
        The floating-point ``Delta`` nearest ``Delta*`` (None with ``lower = 0``).

    Examples
    --------
    ``det(I - M diag(x, y)) = 1 - x - y + x y - j x y`` for the ``M`` below: a real root
    needs ``x y = 0``, then ``x + y = 1``, so ``mu = 1``:

    >>> import numpy as np
    >>> from robustmb.analysis.mu_structure import BlockStructure
    >>> M = np.array([[1.0, 1.0], [1.0j, 1.0]])
    >>> lo, d = real_pair_lower(M, BlockStructure([(-1, 0), (-1, 0)]), np.diag([1.0, 0.0]))
    >>> bool(0.999999 < lo <= 1.0)
    True
    """
    n = struct.n_z
    vals = _scalar_values(struct, np.asarray(delta))
    if vals is None:
        return 0.0, None
    single = [k for k, b in enumerate(struct.blocks) if b.rows == 1]
    if len(single) < 2:
        return 0.0, None
    order = sorted(single, key=lambda k: -abs(vals[k]))
    pairs = [(i, j) for a, i in enumerate(order) for j in order[a + 1 :]][:_MAX_PAIRS]
    Mr = [[_q(M[i, j]) for j in range(n)] for i in range(n)]
    col = [b.w.start for b in struct.blocks]
    # the best a pair can give: 1 / max |value| (its own values moved by rounding only)
    ideal = 1.0 / max(abs(v) for v in vals) * (1.0 - 1e-9)
    best, best_delta = 0.0, None
    for i, j in pairs:
        got = _pair_bound(Mr, n, struct, vals, col, i, j)
        if got is not None and got[0] > best:
            best, best_delta = got
            if best >= ideal:
                break
    return best, best_delta


def _pair_bound(Mr, n, struct, vals, col, i, j):
    """The bound with blocks ``i`` (``x``) and ``j`` (``y``) free, or None."""
    base = [(Fraction(0), Fraction(0))] * n
    for k, b in enumerate(struct.blocks):
        for c in range(b.w.start, b.w.stop):
            base[c] = (Fraction(vals[k]), Fraction(0))

    def p(x, y):
        d = list(base)
        d[col[i]] = (Fraction(x), Fraction(0))
        d[col[j]] = (Fraction(y), Fraction(0))
        return _loop_det(Mr, d, n)

    c00 = p(0, 0)
    c10 = _sub(p(1, 0), c00)
    c01 = _sub(p(0, 1), c00)
    c11 = _sub(_sub(_sub(p(1, 1), c00), c10), c01)

    def lin(a, b, x):  # a + b x
        return (a[0] + b[0] * x, a[1] + b[1] * x)

    def q(x):  # Im((c00 + c10 x) conj(c01 + c11 x))
        u, v = lin(c00, c10, x), lin(c01, c11, x)
        return u[1] * v[0] - u[0] * v[1]

    def abs2(z):
        return z[0] * z[0] + z[1] * z[1]

    x_hat = Fraction(vals[i])
    if x_hat == 0:
        return None
    for tau in _TAUS:
        lo, hi = sorted((x_hat * (1 - tau), x_hat * (1 + tau)))
        if q(lo) * q(hi) > 0:
            continue
        num2 = max(abs2(lin(c00, c10, lo)), abs2(lin(c00, c10, hi)))
        # least |c01 + c11 x|^2 over [lo, hi]: a convex quadratic in x
        den2 = min(abs2(lin(c01, c11, lo)), abs2(lin(c01, c11, hi)))
        a2 = abs2(c11)
        if a2:
            xm = -(c01[0] * c11[0] + c01[1] * c11[1]) / a2
            if lo < xm < hi:
                den2 = min(den2, abs2(lin(c01, c11, xm)))
        if den2 == 0:
            return None
        y_abs = math.sqrt(float(num2 / den2)) * (1.0 + 4 * _EPS)
        x_abs = float(max(abs(lo), abs(hi))) * (1.0 + 4 * _EPS)
        others = [abs(v) for k, v in enumerate(vals) if k not in (i, j)]
        nrm = max([x_abs, y_abs, *others])
        if not (math.isfinite(nrm) and nrm > 0):
            return None
        u, v = lin(c00, c10, x_hat), lin(c01, c11, x_hat)
        y_hat = -complex(float(u[0]), float(u[1])) / complex(float(v[0]), float(v[1]))
        d = np.diag([v_ for k, v_ in enumerate(vals) for _ in range(struct.blocks[k].rows)])
        d[col[i], col[i]] = vals[i]
        d[col[j], col[j]] = y_hat.real
        return float(1.0 / nrm * (1.0 - 4 * _EPS)), d
    return None
