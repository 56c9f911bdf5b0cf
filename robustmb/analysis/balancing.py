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
import scipy.linalg.lapack

__all__ = ["balance_realization", "defective_radius", "eigenvectors", "pole_bands"]

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
    if A.dtype == np.float64:
        # the LAPACK call behind scipy's matrix_balance, without its wrapper's overhead;
        # with no rows permuted (lo = 0, hi = n - 1) ``ps`` is the scaling itself
        ba, lo, hi, ps, info = scipy.linalg.lapack.dgebal(A, scale=1, permute=1)
        if info == 0 and lo == 0 and hi == A.shape[0] - 1:
            return ba, B / ps[:, None], C * ps[None, :]
    Ab, (scale, perm) = scipy.linalg.matrix_balance(A, separate=True)
    # T = P diag(scale): rows of B and columns of C follow the same permutation
    Bb = B[perm] / scale[:, None]
    Cb = C[:, perm] * scale[None, :]
    return Ab, Bb, Cb


def pole_bands(A, dt=0.0, *, balanced=False):
    """Poles of ``A`` with the distance to the boundary that rounding cannot resolve.

    Returns ``(poles, distance, band)``: ``distance`` is ``Re p`` (continuous) or
    ``|p| - 1`` (discrete), and a pole with ``|distance| <= band`` cannot be told apart
    from the boundary.  ``band = 100 eps ||A_bal|| kappa`` with ``kappa`` the pole's
    condition number on the balanced matrix.  The first-order estimate holds while
    ``kappa < 1/sqrt(eps)``; beyond (a defective or nearly defective pole, whose error is
    about ``eps^(1/m) ||A||`` for a Jordan-like cluster of size ``m``) the band is
    :func:`defective_radius`, a bound from Elsner's theorem valid for any cluster.
    With ``balanced`` the caller's ``A`` is already balanced and is used as it is.

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
    Ab = A if balanced else _balanced_matrix(A)
    w, vl, vr = eigenvectors(Ab)
    # columns are unit vectors: kappa_i = 1 / |y_i^H x_i|
    with np.errstate(divide="ignore"):
        kappa = 1.0 / np.abs(np.sum(vl.conj() * vr, axis=0))
    capped = ~(kappa < 1.0 / np.sqrt(_EPS))  # nan and inf too
    kappa = np.minimum(kappa, 1.0 / np.sqrt(_EPS))
    size = np.linalg.norm(Ab, 1)
    band = _BOUNDARY_FACTOR * _EPS * size * kappa
    if np.any(capped):
        band = np.where(capped, np.maximum(band, defective_radius(Ab)), band)
    if dt:
        distance = np.abs(w) - 1.0
        band = np.maximum(band, _BOUNDARY_FACTOR * _EPS)
    else:
        distance = w.real
    return w, distance, band


def _balanced_matrix(A):
    """``scipy.linalg.matrix_balance(A, permute=True)[0]``: for a finite real ``A`` by the
    same LAPACK call (``dgebal``, scaling and permutation) without the wrapper."""
    if isinstance(A, np.ndarray) and A.dtype == np.float64 and np.all(np.isfinite(A)):
        ba, _, _, _, info = scipy.linalg.lapack.dgebal(A, scale=1, permute=1)
        if info == 0:
            return ba
    return scipy.linalg.matrix_balance(A, permute=True)[0]


def defective_radius(A):
    """How far rounding may move any eigenvalue of ``A``, defective ones included.

    Elsner's theorem (Stewart and Sun, *Matrix Perturbation Theory*, 1990, Thm IV.1.3):
    every eigenvalue of ``A + E`` lies within ``(||A|| + ||A + E||)^(1 - 1/n) ||E||^(1/n)``
    (2-norms) of an eigenvalue of ``A``, and conversely.  The computed eigenvalues are
    exact for some ``A + E`` with ``||E||_2 <= c eps ||A||_F`` (backward stability of the
    QR algorithm); ``c = 100 n`` here, generous against the ``O(n)`` of the analyses.  The
    result is ``2^(1 - 1/n) (c eps)^(1/n) ||A||_F`` with a margin for its own rounding:
    ``eps^(1/m) ||A||`` for a Jordan block of size ``m``, never smaller.

    Examples
    --------
    >>> import numpy as np
    >>> J = -1e-5 * np.eye(4) + np.diag(np.ones(3), 1)  # 4x4 Jordan block at -1e-5
    >>> bool(defective_radius(J) > 1e-5)
    True
    """
    n = A.shape[0]
    if n == 0:
        return 0.0
    size = float(np.linalg.norm(A, "fro"))
    c = _BOUNDARY_FACTOR * n * _EPS
    return 2.0 ** (1.0 - 1.0 / n) * c ** (1.0 / n) * size * (1.0 + 1e-6)


def eigenvectors(A):
    """``(w, vl, vr)``: eigenvalues and unit left/right eigenvectors from one LAPACK call.

    The same numbers as ``scipy.linalg.eig(A, left=True, right=True)`` (LAPACK ``?geev``),
    with the complex conjugate pairs of a real matrix unpacked in one vectorised step
    rather than pair by pair: on small models the unpacking cost more than the solve.

    Examples
    --------
    >>> import numpy as np
    >>> w, vl, vr = eigenvectors(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    >>> np.allclose(sorted(w.imag), [-1, 1]), np.allclose(np.array([[0, 1], [-1, 0]]) @ vr, vr * w)
    (True, True)
    """
    A = np.asarray(A)
    if not np.all(np.isfinite(A)):
        raise np.linalg.LinAlgError("eigenvectors: A has non-finite entries")
    if np.iscomplexobj(A):
        (geev,) = scipy.linalg.get_lapack_funcs(("geev",), (A,))
        w, vl, vr, info = geev(A, compute_vl=1, compute_vr=1)
    else:
        (geev,) = scipy.linalg.get_lapack_funcs(("geev",), (A,))
        wr, wi, vl, vr, info = geev(A, compute_vl=1, compute_vr=1)
        w = wr + 1j * wi
        both = _unpack(np.vstack([vl, vr]), wi)
        vl, vr = both[: A.shape[0]], both[A.shape[0] :]
    if info != 0:
        raise np.linalg.LinAlgError(f"eigenvalue computation did not converge (info={info})")
    return w, vl, vr


def _unpack(v, wi):
    """Complex eigenvectors from LAPACK's real storage (pairs as real and imaginary part)."""
    out = v.astype(complex)
    first = np.flatnonzero(wi > 0)
    first = first[first + 1 < wi.size]
    out[:, first] = v[:, first] + 1j * v[:, first + 1]
    out[:, first + 1] = v[:, first] - 1j * v[:, first + 1]
    return out
