"""An exact stability test of a floating-point matrix: integer arithmetic, no rounding.

Every finite double is a dyadic rational, so ``A = M / 2^k`` with an integer matrix
``M`` (``k`` the largest binary exponent among the entries' denominators).  The
characteristic polynomial of ``M`` has integer coefficients, computed exactly by the
Faddeev-LeVerrier recurrence in Python's unbounded integers:

    N_1 = I,  c_{n-1} = -tr(M),  N_j = M N_{j-1} + c_{n-j+1} I,  c_{n-j} = -tr(M N_j) / j,

where every division is exact (the ``c`` are integers), so no fractions appear.  The
poles of ``A`` are those of ``M`` divided by ``2^k``; a positive scaling of ``s`` keeps
the sign of every real part, so the continuous-time test is the Routh test of that
polynomial (Routh, 1877; Gantmacher, *The Theory of Matrices*, vol. 2, ch. XV): all
roots in the open left half-plane exactly when the ``n + 1`` entries of the first
column of the Routh array are positive.  The rows are kept as integers: each new row is
the cross product of the two above it multiplied by the (positive) pivot, then divided
by its content, which changes no sign.  In discrete time the polynomial of ``A`` itself,
``sum_j c_j 2^(k j) z^j``, is mapped by ``z = (1 + s) / (1 - s)`` (the open unit disc to
the open left half-plane): ``q(s) = sum_j c_j 2^(k j) (1 + s)^j (1 - s)^(n - j)``; a
degree drop of ``q`` is a root at ``z = -1`` (on the circle).  A complex ``A`` is
tested through its real form ``[[Re A, -Im A], [Im A, Re A]]``, whose eigenvalues are
those of ``A`` and their conjugates (same real parts and moduli).

The verdict is a proof about the matrix exactly as stored, with no tolerance, so it
decides what floating-point tests cannot: a defective pair ``(s^2 + 2 zeta s + 1)^2``
with ``zeta = 1e-6``, whose computed poles scatter by ``sqrt(eps)`` across the axis.
Before the polynomial, exact norms and the trace of ``M`` settle a matrix well inside
or outside the region (:func:`_quick_verdict`: ``||A||_inf < 1`` or ``||A||_1 < 1``, or the
Gershgorin discs in the open left half-plane, prove stability; ``|tr A| >= n``, or ``tr A
>= 0``, disprove it); without that test, entries near ``1e-300`` (``k`` above 1000) gave
discrete-time coefficients of ``k n`` bits and 26 s at ``n = 24``.
The cost grows like ``n^4`` products of integers of ``n (b + log2 n)`` bits (``b`` the
bits of ``M``'s entries); :data:`EXACT_MAX_ORDER` and :data:`EXACT_MAX_BITS` bound it
(measured in ``benchmarks/bench_exact_stability.py``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from robustmb.errors import ArgumentError, DimensionError

__all__ = [
    "EXACT_MAX_BITS",
    "EXACT_MAX_ORDER",
    "characteristic_polynomial",
    "exact_stable",
    "hurwitz_stable",
    "integer_matrix",
]

# Largest order tested exactly (the real form of a complex matrix counts twice): at
# n = 24 the test took 0.05 s (companion form) to 0.4-0.7 s (dense, 90-bit entries) on a
# loaded machine, growing like n^4 (benchmarks/bench_exact_stability.py).
EXACT_MAX_ORDER = 24
# Largest bit length of the scaled integer entries: entries spread over many binades
# (1e-30 next to 1e3, say) make ``M`` large; beyond this the test is not attempted.
EXACT_MAX_BITS = 256


def integer_matrix(A):
    """``(M, k)`` with ``A = M / 2^k`` exactly: ``M`` a list of rows of Python ints.

    Parameters
    ----------
    A : numpy.ndarray
        Real, finite square matrix.

    Returns
    -------
    M : list of list of int
    k : int
        Smallest ``k >= 0`` for which every ``2^k A_ij`` is an integer.

    Examples
    --------
    >>> import numpy as np
    >>> integer_matrix(np.array([[0.5, -3.0], [0.25, 0.0]]))
    ([[2, -12], [1, 0]], 2)
    """
    ratios = [[float(x).as_integer_ratio() for x in row] for row in np.asarray(A, dtype=float)]
    # denominators are powers of 2: their bit length minus one is the exponent
    k = max((d.bit_length() - 1 for row in ratios for _, d in row), default=0)
    M = [[p << (k - (d.bit_length() - 1)) for p, d in row] for row in ratios]
    return M, k


def characteristic_polynomial(M):
    """Integer coefficients of ``det(t I - M)``, highest power first (leading 1).

    Faddeev-LeVerrier in exact integer arithmetic (every division is exact).

    Parameters
    ----------
    M : list of list of int or numpy.ndarray of ints
        Square integer matrix.

    Returns
    -------
    list of int
        ``[1, c_{n-1}, ..., c_0]``.

    Examples
    --------
    >>> characteristic_polynomial([[0, 1], [-2, -3]])  # t^2 + 3 t + 2
    [1, 3, 2]
    """
    M = np.array(M, dtype=object)
    n = M.shape[0]
    coefficients = [1]
    if n == 0:
        return coefficients
    identity = np.zeros((n, n), dtype=object)
    identity[np.arange(n), np.arange(n)] = 1
    N = identity.copy()
    for j in range(1, n + 1):
        MN = M.dot(N)
        trace = sum(MN[i, i] for i in range(n))
        c, remainder = divmod(-trace, j)
        if remainder:  # cannot happen for an integer matrix; a guard, not a tolerance
            raise ArithmeticError("Faddeev-LeVerrier: inexact division")
        coefficients.append(c)
        if j < n:
            N = MN + c * identity
    return [int(c) for c in coefficients]


def hurwitz_stable(coefficients) -> bool:
    """True exactly when every root of the integer polynomial has a negative real part.

    The Routh array, kept in integers: each new row is ``r[0] * above[j + 1] -
    above[0] * r[j + 1]`` (the usual row times the positive pivot ``r[0]``), divided by
    its content.  Stable exactly when all ``n + 1`` first-column entries are positive
    (after making the leading coefficient positive); a zero entry means a root on or
    beyond the imaginary axis.

    Parameters
    ----------
    coefficients : sequence of int
        Highest power first; the leading one nonzero.

    Returns
    -------
    bool

    Examples
    --------
    >>> hurwitz_stable([1, 3, 3, 1]), hurwitz_stable([1, 0, 1]), hurwitz_stable([1, 1, 2, 8])
    (True, False, False)
    >>> hurwitz_stable([5])  # a constant has no roots
    True
    """
    a = [int(c) for c in coefficients]
    if not a or a[0] == 0:
        raise ArgumentError("hurwitz_stable: the leading coefficient must be nonzero")
    if a[0] < 0:
        a = [-c for c in a]
    n = len(a) - 1
    if n == 0:  # a nonzero constant has no roots: none of them is unstable
        return True
    # all coefficients positive is necessary (a quick exit, the array decides anyway)
    if any(c <= 0 for c in a):
        return False
    width = n // 2 + 1
    above = a[0::2] + [0] * (width - len(a[0::2]))
    row = a[1::2] + [0] * (width - len(a[1::2]))
    for _ in range(n - 1):
        if row[0] <= 0:
            return False
        new = [row[0] * above[j + 1] - above[0] * row[j + 1] for j in range(width - 1)] + [0]
        content = math.gcd(*new)
        if content > 1:
            new = [x // content for x in new]
        above, row = row, new
    return row[0] > 0


def _bilinear(p):
    """``q(s) = sum_j p_j (1 + s)^j (1 - s)^(n - j)`` (``p`` and ``q`` highest power
    first): roots ``z`` of ``p`` become ``(z - 1) / (z + 1)``."""
    n = len(p) - 1
    plus = [[1]]  # (1 + s)^j, lowest power first
    minus = [[1]]  # (1 - s)^j
    for _ in range(n):
        plus.append(_times_linear(plus[-1], 1))
        minus.append(_times_linear(minus[-1], -1))
    q = [0] * (n + 1)
    for j in range(n + 1):
        c = p[n - j]  # coefficient of z^j
        if c == 0:
            continue
        product = _multiply(plus[j], minus[n - j])
        for i, x in enumerate(product):
            q[i] += c * x
    return q[::-1]


def _times_linear(poly, sign):
    """``poly * (1 + sign s)``, lowest power first."""
    out = poly + [0]
    for i in range(len(poly)):
        out[i + 1] += sign * poly[i]
    return out


def _multiply(u, v):
    out = [0] * (len(u) + len(v) - 1)
    for i, x in enumerate(u):
        for j, y in enumerate(v):
            out[i + j] += x * y
    return out


def exact_stable(A, dt: float = 0.0, *, max_order=None, max_bits=None):
    """Whether every eigenvalue of the stored matrix ``A`` lies in the open stability
    region, decided exactly; ``None`` when ``A`` is too large for the test.

    Parameters
    ----------
    A : numpy.ndarray
        Square matrix of floats (real or complex), finite.
    dt : float, optional
        ``0`` for continuous time (open left half-plane), ``> 0`` for discrete time
        (open unit disc).
    max_order : int, optional
        Largest order attempted (default :data:`EXACT_MAX_ORDER`; the real form of a
        complex ``A`` has twice its order).
    max_bits : int, optional
        Largest bit length of the scaled integer entries (default
        :data:`EXACT_MAX_BITS`).

    Returns
    -------
    bool or None
        ``True``: proved stable; ``False``: proved not stable (some eigenvalue on or
        beyond the boundary); ``None``: not attempted (order or integer size beyond the
        limits, or a non-finite entry).

    Examples
    --------
    >>> import numpy as np
    >>> zeta = 1e-6                       # (s^2 + 2 zeta s + 1)^2, companion form
    >>> a = np.polymul([1, 2 * zeta, 1], [1, 2 * zeta, 1])
    >>> A = np.diag(np.ones(3), -1)
    >>> A[0] = -a[1:]
    >>> exact_stable(A), exact_stable(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    (True, False)
    >>> exact_stable(np.array([[0.5, 1.0], [0.0, -0.25]]), dt=0.1)
    True
    """
    A = np.asarray(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise DimensionError(f"exact_stable: A must be a square matrix, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        return None
    if np.iscomplexobj(A):
        re, im = A.real.astype(float), A.imag.astype(float)
        A = np.block([[re, -im], [im, re]])
    else:
        A = A.astype(float)
    n = A.shape[0]
    if n == 0:
        return True
    if n > (EXACT_MAX_ORDER if max_order is None else max_order):
        return None
    A = np.ascontiguousarray(A)
    limit = EXACT_MAX_BITS if max_bits is None else max_bits
    return _decide(A.tobytes(), n, bool(dt > 0), limit)


@functools.lru_cache(maxsize=32)
def _decide(data, n, discrete, max_bits):
    """:func:`exact_stable` of the matrix whose float64 bytes are ``data``, cached: the
    norms and the tuning's stability test often ask about the same matrix again."""
    A = np.frombuffer(data, dtype=float).reshape(n, n)
    M, k = integer_matrix(A)
    quick = _quick_verdict(M, k, discrete)
    if quick is not None:
        return quick
    bits = max(abs(x).bit_length() for row in M for x in row)
    if bits > max_bits:
        return None
    c = characteristic_polynomial(M)
    if discrete:
        # det(z I - A) = 2^(-k n) sum_j c_j (2^k z)^j: coefficient of z^j is c_j 2^(k j)
        # The shift k (n - i) is bounded: a matrix left by the norm test has a row of
        # absolute sum >= 1, so an entry >= 1/n, and k <= bits + log2(n) + 1 (entries near
        # 1e-300 alone, k ~ 1000, took 26 s at n = 24 before that test).
        p = [c[i] << (k * (n - i)) for i in range(n + 1)]
        q = _bilinear(p)
        if q[0] == 0:
            return False  # a root at z = -1
        return hurwitz_stable(q)
    return hurwitz_stable(c)


def _quick_verdict(M, k, discrete):
    """A verdict from exact norms and the trace of ``M = 2^k A`` when they decide, else None.

    Discrete time: the spectral radius is at most ``||A||_inf`` and ``||A||_1``, so either
    below 1 (``||M|| < 2^k``) proves stability; ``|tr A| = |sum lambda_i| >= n`` puts an
    eigenvalue on or outside the unit circle.  Continuous time: the Gershgorin discs of
    the rows (or columns) of ``A`` lie in the open left half-plane when ``A_ii + sum_{j !=
    i} |A_ij| < 0`` for every ``i``; ``tr A = sum Re lambda_i >= 0`` puts one on or right
    of the axis.  All in integers, exact; these settle a matrix far inside (or outside)
    the region without its characteristic polynomial, whose discrete-time coefficients
    grow by ``k (n - i)`` bits (``k`` above 1000 for entries near ``1e-300``).
    """
    n = len(M)
    trace = sum(M[i][i] for i in range(n))
    if discrete:
        unit = 1 << k
        if abs(trace) >= n * unit:
            return False
        rows = max(sum(abs(x) for x in row) for row in M)
        cols = max(sum(abs(M[i][j]) for i in range(n)) for j in range(n))
        return True if min(rows, cols) < unit else None
    if trace >= 0:
        return False
    off_rows = [sum(abs(x) for x in row) - abs(row[i]) for i, row in enumerate(M)]
    off_cols = [sum(abs(M[i][j]) for i in range(n)) - abs(M[j][j]) for j in range(n)]
    if all(M[i][i] + off_rows[i] < 0 for i in range(n)):
        return True
    if all(M[j][j] + off_cols[j] < 0 for j in range(n)):
        return True
    return None
