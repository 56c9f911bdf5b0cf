"""Closed-form destabilising perturbations for structures of real scalar blocks.

The searches of :mod:`.mu_lower` are local: with real blocks only, on a complex ``M``,
the singular set ``det(I - M Delta) = 0`` has codimension two in the real parameters
(isolated points for two parameters), and random starts can miss it entirely.  Two
exact candidates complement them (every candidate is re-checked and certified by the
caller like the search's):

* **pairs** (any ``M``): ``Delta`` zero except two non-repeated real scalars ``x, y``
  (blocks ``j, k``).  ``det(I - M Delta)`` is then
  ``1 - m_jj x - m_kk y + d x y`` with ``d = m_jj m_kk - m_jk m_kj``, so
  ``y = (1 - m_jj x) / (m_kk - d x)``, real exactly where the real quadratic
  ``Im((1 - m_jj x) conj(m_kk - d x)) = 0``: at most two points per pair, all found
  (unless the quadratic vanishes identically, as on a real ``M``).  For two
  non-repeated real scalars on a complex ``M`` this gives ``mu`` itself.
* **vertices** (real ``M``, non-repeated real scalars only):
  ``det(I - M Delta)`` is real and affine in each parameter, equal to 1 at
  ``Delta = 0``, so it first vanishes on ``t`` times the unit box at a vertex ``v``:
  ``mu = max_v max{|lambda| : lambda`` a real eigenvalue of ``M diag(v)}``, with
  ``Delta = diag(v) / lambda`` (half the vertices suffice, ``M diag(-v)`` having the
  opposite eigenvalues).
"""

from __future__ import annotations

import itertools

import numpy as np

from .mu_structure import REAL, BlockStructure

__all__ = ["real_scalar_candidates"]

# at most this many real scalars: the vertex enumeration costs 2^(n-1) eigenvalue
# problems, and beyond it :func:`~.mu_lower.certified_lower` has no exact check of a
# real root on a complex M (a pair's root on a nearly real M is not certain to be real)
_EXACT_MAX_N = 10
# a computed root of the quadratic counts as real below this relative imaginary part
# (the candidate is re-checked exactly anyway)
_REAL_ROOT_RTOL = 1e-9


def real_scalar_candidates(Ms, struct: BlockStructure):
    """Exact destabilising perturbations of a stack for a structure of real scalars.

    Parameters
    ----------
    Ms : numpy.ndarray, shape (nw, n, n)
    struct : BlockStructure
        Applies when every block is a real scalar, at least two are not repeated and
        ``n <= 10`` (otherwise nothing is returned).

    Returns
    -------
    D : numpy.ndarray, shape (K, n, n)
        Real diagonal perturbations in the structure, each with ``I - M D`` singular up
        to rounding for its matrix.
    val : numpy.ndarray, shape (K,)
        ``1 / max_i |D_ii|`` (the lower bound each gives).
    owner : numpy.ndarray of int, shape (K,)
        Index of the matrix of the stack each belongs to.

    Examples
    --------
    ``det(I - M diag(x, y)) = 1 - x - y + x y - j x y``: a real root needs ``x y = 0``,
    then ``x + y = 1``, so ``mu = 1``:

    >>> M = np.array([[[1.0, 1.0], [1.0j, 1.0]]])
    >>> D, val, owner = real_scalar_candidates(M, BlockStructure([(-1, 0), (-1, 0)]))
    >>> float(val.max())
    1.0
    """
    nw, n, _ = Ms.shape
    empty = (np.zeros((0, n, n)), np.zeros(0), np.zeros(0, dtype=int))
    if not struct.all_real:
        return empty
    single = [b.w.start for b in struct.blocks if b.kind == REAL and b.rows == 1]
    if len(single) < 2 or n > _EXACT_MAX_N:
        return empty
    parts = [_pair_candidates(Ms, single)]
    real_rows = np.flatnonzero(~np.any(np.imag(Ms) != 0, axis=(1, 2)))
    if len(single) == n and real_rows.size:
        parts.append(_vertex_candidates(Ms[real_rows].real, real_rows))
    D = np.concatenate([p[0] for p in parts])
    return D, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])


def _pair_candidates(Ms, single):
    nw, n, _ = Ms.shape
    pairs = np.array(list(itertools.combinations(single, 2)))
    j, k = pairs[:, 0], pairs[:, 1]
    a = Ms[:, j, j]  # (nw, P)
    b = Ms[:, k, k]
    d = a * b - Ms[:, j, k] * Ms[:, k, j]
    # Im((1 - a x)(conj(b) - conj(d) x)) = c2 x^2 + c1 x + c0
    c2 = np.imag(a * np.conj(d))
    c1 = -np.imag(np.conj(d) + a * np.conj(b))
    c0 = -np.imag(b)
    Ds, vals, owners = [], [], []
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # the stable form of the roots: c2 ~ 0 (a rank-one 2 x 2 block, d ~ 0) leaves
        # one accurate root c0 / q and one huge one
        disc = np.sqrt((c1 * c1 - 4 * c2 * c0).astype(complex))
        sgn = np.where(np.real(np.conj(c1) * disc) >= 0, 1.0, -1.0)
        q = -0.5 * (c1 + sgn * disc)
        roots = [q / c2, c0 / q]
        for x in roots:
            ok = np.isfinite(x) & (np.abs(x.imag) <= _REAL_ROOT_RTOL * np.abs(x))
            xr = x.real
            y = (1 - a * xr) / (b - d * xr)
            ok &= np.isfinite(y) & (np.abs(y.imag) <= _REAL_ROOT_RTOL * np.abs(y))
            ok &= (xr != 0) | (y.real != 0)
            w, p = np.nonzero(ok)
            if w.size == 0:
                continue
            D = np.zeros((w.size, n, n))
            D[np.arange(w.size), j[p], j[p]] = xr[w, p]
            D[np.arange(w.size), k[p], k[p]] = y[w, p].real
            Ds.append(D)
            vals.append(1.0 / np.maximum(np.abs(xr[w, p]), np.abs(y[w, p].real)))
            owners.append(w)
    if not Ds:
        return np.zeros((0, n, n)), np.zeros(0), np.zeros(0, dtype=int)
    return np.concatenate(Ds), np.concatenate(vals), np.concatenate(owners)


def _vertex_candidates(Mr, rows):
    nr, n, _ = Mr.shape
    signs = np.array([(1,) + s for s in itertools.product((1.0, -1.0), repeat=n - 1)])
    lam = np.linalg.eigvals(Mr[:, None, :, :] * signs[None, :, None, :])  # (nr, V, n)
    real = np.abs(lam.imag) <= 0  # LAPACK returns real eigenvalues of a real matrix exactly
    score = np.where(real & (lam != 0), np.abs(lam), 0.0)
    flat = score.reshape(nr, -1)
    best = np.argmax(flat, axis=1)
    keep = flat[np.arange(nr), best] > 0
    v = best[keep] // n
    lam_best = lam.reshape(nr, -1)[np.arange(nr)[keep], best[keep]].real
    D = np.zeros((keep.sum(), n, n))
    idx = np.arange(n)
    D[:, idx, idx] = signs[v] / lam_best[:, None]
    return D, np.abs(lam_best), rows[keep]
