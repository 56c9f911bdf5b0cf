"""The margin of a D,G certificate of the mu upper bound evaluated at high precision
(mpmath), from the floating-point data: the reference for rounding-safe certificate tests."""

import mpmath
import numpy as np

from robustmb.analysis.mu_upper import expand_scalings


def to_mp(M):
    return mpmath.matrix([[mpmath.mpc(complex(z)) for z in row] for row in np.atleast_2d(M)])


def _hermitian_power(H, p):
    E, Q = mpmath.eighe((H + H.H) / 2)
    return Q * mpmath.diag([(1 + x**2) ** p for x in E]) * Q.H


def margin_mp(M, blk, beta, D, G):
    """``lambda_max(W)`` of :func:`upper_bound_margin` (``beta > 0``), or the largest
    eigenvalue of the ``mu = 0`` form ``A^H A - j(A^H Gm - Gm^H A)`` (``beta = 0``, not
    normalised), at the current mpmath precision."""
    Dl, Dr, Gl, Gm, Gr = (to_mp(X) for X in expand_scalings(blk, D, G))
    A = Dl * to_mp(M) * mpmath.inverse(Dr)
    if beta == 0:
        W = A.H * A - 1j * (A.H * Gm - Gm.H * A)
    else:
        B = _hermitian_power(Gl, -0.25) * (A / beta) * _hermitian_power(Gr, 0.25)
        W = B.H * B + 1j * (Gm.H * B - B.H * Gm)
    E, _ = mpmath.eighe((W + W.H) / 2)
    return max(mpmath.re(x) for x in E)
