"""Balanced realisations and scale-aware stability tests.

A stiff model (a 1e8 N/m spring between a 1 g and a 1 kg mass) has ``||A||`` around
1e11 while its slow poles sit at ``Re s ~ -5e-4``.  Rounding moves an eigenvalue by
about ``eps ||A|| kappa`` (``kappa`` its condition number), so a test against
``eps ||A||`` alone declares such a model unstable.  Balancing ``A`` (a diagonal
similarity that equalises row and column norms, exact in floating point since it uses
powers of 2) shrinks ``||A||`` to the size that matters for the eigenvalues, and the
per-pole condition number decides how close to the boundary a pole may be computed
and still be told apart from it.  The transfer function is unchanged by balancing.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

__all__ = ["balance_realization", "pole_bands"]

_EPS = np.finfo(float).eps
# Poles within _BOUNDARY_FACTOR * eps * ||A_bal|| * kappa of the boundary count as on it.
_BOUNDARY_FACTOR = 100.0


def balance_realization(A, B, C):
    """``(T^-1 A T, T^-1 B, C T)`` with ``T`` the (permuted, power-of-2) balancing of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0.0, 1e6], [-1e-6, -0.1]])
    >>> Ab, Bb, Cb = balance_realization(A, np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]]))
    >>> bool(np.max(np.abs(Ab)) < 1.1)
    True
    """
    if A.shape[0] == 0:
        return A, B, C
    Ab, (scale, perm) = scipy.linalg.matrix_balance(A, separate=True)
    # T = P diag(scale): rows of B and columns of C follow the same permutation
    Bb = B[perm] / scale[:, None]
    Cb = C[:, perm] * scale[None, :]
    return Ab, Bb, Cb


def pole_bands(A, dt=0.0):
    """Poles of ``A`` with the distance to the boundary that rounding cannot resolve.

    Returns ``(poles, distance, band)``: ``distance`` is ``Re p`` (continuous) or
    ``|p| - 1`` (discrete), and a pole with ``|distance| <= band`` cannot be told apart
    from the boundary.  ``band = 100 eps ||A_bal|| kappa`` with ``kappa`` the pole's
    condition number on the balanced matrix (capped at ``1/sqrt(eps)``, the size of the
    error of a defective eigenvalue).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-1e11, 1e11, -1e3, 1e3],
    ...               [1e8, -1e8 - 1, 1, -1 - 1e-3]])
    >>> p, dist, band = pole_bands(A)
    >>> bool(np.all(dist < -band))
    True
    """
    n = A.shape[0]
    if n == 0:
        z = np.zeros(0)
        return z.astype(complex), z, z
    Ab = scipy.linalg.matrix_balance(A, permute=True)[0]
    w, vl, vr = scipy.linalg.eig(Ab, left=True, right=True)
    # columns are unit vectors: kappa_i = 1 / |y_i^H x_i|
    with np.errstate(divide="ignore"):
        kappa = 1.0 / np.abs(np.sum(vl.conj() * vr, axis=0))
    kappa = np.minimum(kappa, 1.0 / np.sqrt(_EPS))
    size = np.linalg.norm(Ab, 1)
    band = _BOUNDARY_FACTOR * _EPS * size * kappa
    if dt:
        distance = np.abs(w) - 1.0
        band = np.maximum(band, _BOUNDARY_FACTOR * _EPS)
    else:
        distance = w.real
    return w.astype(complex), distance, band
