"""The frequency response of a small stored realisation in exact rational arithmetic.

Every finite double is a dyadic rational, so ``G(p) = C (p I - A)^-1 B + D`` at a point
``p = x + j y`` with float ``x, y`` is a matrix of complex rationals.  With
``X = U + j V`` the complex system ``(p I - A) X = B`` is the real one

    [[x I - A, -y I], [y I, x I - A]] [U; V] = [B; 0],

solved here by fraction-free (Bareiss) elimination on integers (:func:`._h2_exact.bareiss_solve`;
each row scaled by a power of 2, no rounding), and
``G`` is rounded once to floats.  This gives the response of the matrices exactly as
stored when a pole lies so close to ``p`` that every floating-point solve, even one
refined in double-double, loses all accuracy.  The cost grows like ``n^3`` operations
on integers whose size grows with ``n``, so the caller limits it to a few states.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from robustmb.analysis._h2_exact import bareiss_solve
from robustmb.errors import warn

__all__ = ["EXACT_RESPONSE_MAX_ORDER", "exact_response", "unresolved_peak"]

# Largest order evaluated exactly (a real system of twice that size).
EXACT_RESPONSE_MAX_ORDER = 12


def exact_response(A, B, C, D, point):
    """``C (p I - A)^-1 B + D`` of real stored matrices at a complex point, exactly.

    Parameters
    ----------
    A, B, C, D : numpy.ndarray
        Real, finite state-space matrices.
    point : complex
        The point ``p`` (its real and imaginary parts are taken as the exact rationals
        they store).

    Returns
    -------
    numpy.ndarray or None
        The response rounded once to complex floats (``inf`` entries beyond the float
        range); None when ``p I - A`` is exactly singular (``p`` is a pole).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-2.0**-60]])                 # 1 / (s + 2^-60)
    >>> G0 = exact_response(A, np.eye(1), np.eye(1), np.zeros((1, 1)), 0j)
    >>> bool(G0[0, 0] == 2.0**60)
    True
    """
    A, B, C, D = (np.asarray(M, dtype=float) for M in (A, B, C, D))
    n, m = B.shape
    x, y = Fraction(float(np.real(point))), Fraction(float(np.imag(point)))
    size = 2 * n

    def q(v):
        return Fraction(float(v))

    rows = []
    for i in range(size):
        r, block = i % n, i // n
        row = [Fraction(0)] * (size + m)
        for j in range(n):
            row[block * n + j] = -q(A[r, j])
        row[block * n + r] += x
        # the coupling -y V in the real rows, +y U in the imaginary rows
        row[(1 - block) * n + r] = -y if block == 0 else y
        for k in range(m):
            row[size + k] = q(B[r, k]) if block == 0 else Fraction(0)
        # every entry is dyadic: one power of 2 makes the row integer
        scale = max(v.denominator for v in row)
        rows.append([int(v * scale) for v in row])
    solutions = bareiss_solve(rows, size, m)
    if solutions is None:
        return None
    p = C.shape[0]
    out = np.empty((p, m), dtype=complex)
    for i in range(p):
        for k in range(m):
            re = sum((q(C[i, j]) * solutions[k][j] for j in range(n)), q(D[i, k]))
            im = sum((q(C[i, j]) * solutions[k][n + j] for j in range(n)), Fraction(0))
            out[i, k] = complex(_to_float(re), _to_float(im))
    return out


def unresolved_peak(stored, dt, frequency, accuracy):
    """``hinfnorm``'s ``(gamma, fpeak, inf)`` when even refined solves could not resolve
    the response at the peak ``frequency`` (rad/s; their estimated relative error is
    ``accuracy``): a pole within rounding of the boundary.  ``gamma`` is the response of
    the ``stored`` matrices ``(A, B, C, D)`` there in exact arithmetic for up to
    :data:`EXACT_RESPONSE_MAX_ORDER` real states, else ``inf``; a ``RuntimeWarning``
    says that the norm is set by the rounding of the realisation.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> A = np.array([[-(2.0**-60)]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     gamma, fpeak, upper = unresolved_peak((A, np.eye(1), np.eye(1), np.zeros((1, 1))),
    ...                                           0.0, 0.0, 1.0)
    >>> gamma == 2.0**60, upper
    (True, inf)
    """
    A, B, C, D = stored
    gamma = np.inf
    small = A.shape[0] <= EXACT_RESPONSE_MAX_ORDER and not any(np.iscomplexobj(M) for M in stored)
    if small and np.isfinite(frequency):
        point = np.exp(1j * frequency * dt) if dt else 1j * frequency
        response = exact_response(A, B, C, D, point)
        if response is not None and np.all(np.isfinite(response)):
            gamma = float(np.linalg.norm(response, 2))
    what = (
        "the value is the response of the stored matrices at that frequency in exact "
        "arithmetic, not a certified peak"
        if np.isfinite(gamma)
        else "returning inf"
    )
    boundary = "unit circle" if dt else "imaginary axis"
    warn(
        f"hinfnorm: a pole lies within rounding distance of the {boundary} next "
        f"to the peak (about {frequency:.6g} rad/s; the refined response there is accurate "
        f"to only about {accuracy:.1e}), so the norm is set by the rounding of the "
        f"realisation; {what} (upper = inf)",
        RuntimeWarning,
    )
    return gamma, frequency, np.inf


def _to_float(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return float(np.inf) if value > 0 else float(-np.inf)
