"""An orthonormal basis of a subspace that depends on the subspace only.

The singular vectors LAPACK returns for a range are fixed only up to a sign each (a
phase for complex data) and, where singular values are equal, up to a rotation; which
one a build returns is not specified.  A Delta-reduction that projects channels on
such a basis gives an exact LFT either way, but the realisation -- the basis of the
repeated-scalar channels, hence every D,G scaling written for it -- changes with the
LAPACK build.  :func:`canonical_basis` replaces any basis of a subspace ``V`` by one
fixed by ``V`` alone:

1. ``r`` pivot rows are chosen by a pivoted Gram-Schmidt on the rows of ``U`` (``U`` any
   orthonormal basis of ``V``), the row of largest residual norm first, near-ties to the
   lowest index.  Residual row norms are those of the orthogonal projector ``U U^H``:
   the same for every basis of ``V``.
2. ``B = U U[piv]^-1`` is the one basis of ``V`` with ``B[piv] = I``.
3. ``B = Q R`` with the diagonal of ``R`` real and positive: a unique ``Q``, an
   orthonormal basis of ``V``.

Up to rounding, every orthonormal basis of ``V`` gives the same ``Q``.
"""

from __future__ import annotations

import numpy as np

# Rows whose residual norms are within this factor of the largest count as tied; the tie
# is broken by the lowest index.  LAPACK's pivoted QR breaks ties by rounding noise, and
# a basis such as (e1 - e3)/sqrt(2) would then come out with either sign.
_TIE = 1e-8
# Entries at rounding level (relative to the largest) are set to zero.
_NOISE = 64 * np.finfo(float).eps


def _pivot_rows(u):
    """``r`` rows of ``u`` by pivoted Gram-Schmidt, near-ties broken by the lowest index.

    Row ``i`` of ``u`` is a vector in ``C^r``; another orthonormal basis ``u X`` moves
    every row by the same unitary ``X``, which changes no norm nor inner product: the
    choices are those of the subspace.
    """
    res = np.array(u, dtype=np.result_type(u.dtype, float))
    chosen = []
    for _ in range(u.shape[1]):
        norms = np.linalg.norm(res, axis=1)
        norms[chosen] = -1.0
        i = int(np.flatnonzero(norms >= (1.0 - _TIE) * norms.max())[0])
        chosen.append(i)
        v = res[i] / norms[i]
        res = res - np.outer(res @ v.conj(), v)
    return np.array(chosen)


def unit_basis(u):
    """The basis of the range of ``u`` equal to the identity on ``r`` pivot rows.

    Parameters
    ----------
    u : ndarray, shape (n, r)
        Orthonormal columns (e.g. leading left singular vectors), ``0 < r <= n``.

    Returns
    -------
    rows : ndarray of int, shape (r,)
        The pivot rows, increasing.
    b : ndarray, shape (n, r)
        Columns spanning the range of ``u`` with ``b[rows] = I`` exactly; any
        matrix ``d`` whose range it is then satisfies ``d = b @ d[rows]``.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]])
    >>> u = np.linalg.svd(d)[0][:, :1]
    >>> rows, b = unit_basis(u)
    >>> rows.tolist(), b.ravel().tolist()
    ([1], [0.5, 1.0, 0.0])
    """
    r = u.shape[1]
    rows = np.sort(_pivot_rows(u))
    b = np.linalg.solve(u[rows].T, u.T).T
    # exact where it is exact in theory: the identity rows, and zeros for rounding noise
    # (a noise column later normalised by the reduction's rank test would pass for a
    # direction)
    b[np.abs(b) <= _NOISE * np.abs(b).max()] = 0.0
    b[rows] = np.eye(r)
    return rows, b


def canonical_basis(u):
    """The canonical orthonormal basis of the range of ``u`` (orthonormal columns).

    Parameters
    ----------
    u : ndarray, shape (n, r)
        Orthonormal columns (e.g. leading left singular vectors), ``r <= n``.

    Returns
    -------
    ndarray, shape (n, r)
        Orthonormal columns spanning the same subspace, the same for every orthonormal
        basis ``u`` of it (up to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u, _ = np.linalg.qr(rng.standard_normal((5, 2)))
    >>> rot = np.array([[0.6, -0.8], [0.8, 0.6]])     # another basis of the same range
    >>> q1, q2 = canonical_basis(u), canonical_basis(u @ rot * [-1.0, 1.0])
    >>> bool(np.allclose(q1, q2)), bool(np.allclose(q1.T @ q1, np.eye(2)))
    (True, True)
    """
    n, r = u.shape
    if r == 0 or n == 0:
        return u
    # 1.-2. the basis equal to the identity on the pivot rows
    _, b = unit_basis(u)
    # 3. its QR factor with a real positive diagonal of R
    q, rr = np.linalg.qr(b)
    d = np.diag(rr)
    phase = np.where(np.abs(d) > 0, d / np.where(np.abs(d) > 0, np.abs(d), 1.0), 1.0)
    q = q * phase[None, :]
    q[np.abs(q) <= _NOISE] = 0.0
    return q
