"""Exact rational linear algebra for certificates (small dense matrices, no rounding).

Floats convert to :class:`fractions.Fraction` without error, so a statement proved here
about the converted data is a statement about the floating-point data itself.  Used by
the dual certificate of the full-order H-infinity floor
(:mod:`robustmb.tuning.full_order_floor`); sizes there are tens, not thousands.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np


def to_exact(M):
    """Object array of Fractions equal to the float array ``M`` (exactly)."""
    M = np.asarray(M, dtype=float)
    if not np.all(np.isfinite(M)):
        raise ValueError("to_exact: non-finite entries")
    out = np.empty(M.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(M.reshape(-1)):
        flat[i] = Fraction(v)
    return out


def nullspace_exact(M):
    """Exact basis (columns) of the null space of the rational matrix ``M``.

    Reduced row echelon form with the largest pivot of each column (only to keep the
    numbers small: every step is exact).  Returns an object array of shape
    ``(ncols, ncols - rank)``.

    Examples
    --------
    >>> import numpy as np
    >>> N = nullspace_exact(to_exact([[1.0, 2.0, 3.0]]))
    >>> bool(np.all(to_exact([[1.0, 2.0, 3.0]]) @ N == 0)), N.shape
    (True, (3, 2))
    """
    R = np.array(M, dtype=object).copy()
    m, n = R.shape
    pivots = []
    row = 0
    for col in range(n):
        if row >= m:
            break
        mags = [abs(R[i, col]) for i in range(row, m)]
        k = row + int(np.argmax(mags)) if mags else row
        if R[k, col] == 0:
            continue
        R[[row, k]] = R[[k, row]]
        R[row] = R[row] / R[row, col]
        for i in range(m):
            if i != row and R[i, col] != 0:
                R[i] = R[i] - R[i, col] * R[row]
        pivots.append(col)
        row += 1
    free = [c for c in range(n) if c not in pivots]
    N = np.empty((n, len(free)), dtype=object)
    N[...] = Fraction(0)
    for j, f in enumerate(free):
        N[f, j] = Fraction(1)
        for i, p in enumerate(pivots):
            N[p, j] = -R[i, f]
    return N


def is_positive_definite_exact(S):
    """Whether the symmetric rational matrix ``S`` is positive definite, decided exactly.

    Sylvester's criterion (every leading principal minor positive) on the matrix scaled to
    integers, with Bareiss's fraction-free elimination: its k-th pivot is the k-th
    leading principal minor, and every intermediate number is an integer.

    Examples
    --------
    >>> is_positive_definite_exact(to_exact([[2.0, 1.0], [1.0, 2.0]]))
    True
    >>> is_positive_definite_exact(to_exact([[1.0, 1.0], [1.0, 1.0]]))
    False
    """
    S = np.asarray(S, dtype=object)
    n = S.shape[0]
    if n == 0:
        return True
    if any(S[i, j] != S[j, i] for i in range(n) for j in range(i)):
        raise ValueError("is_positive_definite_exact: matrix not symmetric")
    den = math.lcm(*(Fraction(v).denominator for v in S.reshape(-1)))
    M = [[int(Fraction(S[i, j]) * den) for j in range(n)] for i in range(n)]
    prev = 1
    for k in range(n):
        if M[k][k] <= 0:
            return False  # the (k+1)-th leading principal minor (times den^(k+1)) is <= 0
        pk = M[k][k]
        for i in range(k + 1, n):
            Mi, Mik = M[i], M[i][k]
            Mk = M[k]
            for j in range(k + 1, n):
                Mi[j] = (pk * Mi[j] - Mik * Mk[j]) // prev
        prev = pk
    return True


def floor_float(q):
    """The largest float not above the rational ``q``."""
    f = float(q)
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return f
