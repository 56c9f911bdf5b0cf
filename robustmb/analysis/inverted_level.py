"""The level-set test on the inverted model ``G~(s) = G(1/s)``: a proof where the slow
eigenvalues of a stiff model's test are blind.

Why.  The level-set test of :func:`.norms.hinfnorm` at a level ``gamma`` computes the
eigenvalues of a matrix (pencil) ``M`` whose norm is set by the fast poles; each eigenvalue
``lambda_i`` carries an error of about ``10 eps ||M|| kappa_i`` (``kappa_i`` from its left
and right eigenvectors).  A slow eigenvalue whose distance to the imaginary axis is below
that radius is "blind": the test proves nothing in the frequency window it covers.

The inverted model.  For nonsingular ``A``, ``G~(s) = G(1/s)`` has the realisation

    A~ = A^-1,  B~ = A^-1 B,  C~ = -C A^-1,  D~ = D - C A^-1 B = G(0),

(``(I/s - A)^-1 = -A^-1 - A^-1 (s I - A^-1)^-1 A^-1``), with poles ``1/p``: stable with
``G``.  On the axis ``G~(j nu) = G(-j / nu)``, so ``gamma`` is a singular value of ``G`` at
``omega`` exactly when it is one of ``G~`` at ``nu = -1 / omega``: the crossings of the two
tests correspond one to one, and the eigenvalues of the inverted test are (up to its
infinite ones) the reciprocals ``1 / lambda`` of the original's.  The slow eigenvalues
become the large ones, whose errors are small relative to their size.

What the inverted test proves.  Its own errors have two sources.

* Forming the data.  ``A^-1`` by a plain LU solve carries a relative error of about
  ``eps cond(A)`` (``eps`` times the Skeel condition ``|| |A^-1| |A| ||`` at best): that
  is a backward error of about ``eps ||A||`` in ``A``, which moves the slow eigenvalues
  exactly as much as the original test's rounding, so nothing would be gained.  The
  blocks are therefore formed from ``-A X = [I, B]`` solved by iterative refinement with
  double-double residuals (as in :mod:`.refined_response`; it converges while
  ``eps cond(A) < 1``, else the test is not used), and ``[[I], [C]] X + [[0, 0], [0,
  D]]`` summed in double-double.  The final residual ``R`` of the unrounded solution
  bounds its error entry by entry, ``|A^-1 R| <= 2 |A~| |R|`` to first order; rounding
  the blocks adds ``2 eps`` of each entry.  These entrywise bounds survive the exact
  scalings that follow: the states by powers of two balancing ``A~``, ``G~ / gamma``
  tested at level one, ``B~`` and ``C~`` balanced by a power of two.  They give the
  entrywise bound ``dM`` on the perturbation of the inverted pencil ``(M, E)``.
* The eigenvalue solve (QZ, normwise backward stable): ``eps (||M|| + |mu| ||E||)``.

To first order an eigenvalue ``mu_k`` with unit left and right eigenvectors ``y, x`` then
moves by at most ``rho_k = 10 (kappa_k eps (||M|| + |mu_k| ||E||) + |y|^T dM |x| /
|y^H E x|)`` (``kappa_k = 1 / |y^H E x|``; the margin of ten the original test's radii
carry).  A true crossing of ``G~`` at ``nu`` needs a true eigenvalue ``j nu``, within
``rho_k`` of some ``mu_k``: so ``nu`` lies within ``h_k = max(rho_k, band_k)`` of
``Im mu_k`` for some ``mu_k`` with ``|Re mu_k| <= h_k`` (``band_k`` the original test's
crossing band, for consistency).  Each such disc covers the ``omega`` window
``{-1 / nu : |nu - Im mu_k| <= h_k}``, which reaches ``omega = inf`` when it touches
``nu = 0`` (the fast eigenvalues, blind in the inverted test, cover the high frequencies
the original decides).  The ``m + p`` infinite eigenvalues of the inverted pencil are
dropped only when they stand three orders of magnitude apart from the finite ones (a
large finite one is a crossing near ``omega = 0``).

A window of the original test is proved free of crossings when no inverted window meets
it.  Where it meets only inverted windows that locate their crossing (``h_k`` at most a
tenth of ``|Im mu_k|``), the response is evaluated at those crossings and at the midpoints
between consecutive ones, as the level-set iteration does with its own candidates: if none
exceeds the level, the window is decided; if one does, the level is refuted and that value
returned.  That rule needs a response that varies slowly across the inverted windows: where a
pole lies closer to them than ten times their width (a lightly damped resonance narrower
than the windows fits between the evaluations), the caller searches them instead, which
refutes the level or leaves it undecided (:meth:`.ClusterScreen._inverted_verdict`).
Where an inverted window that locates nothing meets it, neither test decides.

Discrete time.  The same blind spot exists near ``z = 1`` (slow modes of a finely sampled
model crowd ``z = 1``, where the test's eigenvalues carry errors ``eps ||M||`` much larger
than their distance ``~ omega dt`` to it); the bilinear map ``s = (z - 1) / (z + 1)``
turns that region into the slow region of a continuous model, where this test applies;
it is not implemented here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from robustmb.analysis._norm_common import _AXIS_RTOL, _AXIS_SQRT_FACTOR, _EPS
from robustmb.analysis.peak_gain_result import PeakGain
from robustmb.analysis.refined_response import (
    _Accumulator,
    _complex_products,
    _residual,
    _two_sum,
)

__all__ = ["InvertedLevelTest", "ProvedPeakGain", "inverted_realisation"]

# how sharply an inverted eigenvalue must locate its crossing for the response to be
# evaluated there (``h_k <= _LOCATED |Im mu_k|``)
_LOCATED = 0.1


@dataclass(frozen=True)
class ProvedPeakGain(PeakGain):
    """:class:`.peak_gain_result.PeakGain` with the way ``upper`` was decided.

    Attributes
    ----------
    proof : str
        ``"level-set"`` (the level-set test alone), ``"inverted"`` (windows where the
        test's rounding reaches the axis decided by the test on ``G(1/s)``),
        ``"relaxed"`` (a coarser level decided by the tests) or ``"none"`` (``upper`` is
        ``inf``; windows left undecided by both tests are searched, and a search proves
        no bound).

    Examples
    --------
    >>> r = ProvedPeakGain(2.0, 2.0 * (1 + 1e-8), 0.5, 2, proof="inverted")
    >>> r.proof, r.upper > r.lower
    ('inverted', True)
    """

    proof: str = "level-set"


def inverted_realisation(A, B, C, D):
    """``(A~, B~, C~, D~, errors)`` of ``G(1/s)``, or None when ``A`` is singular or the
    refined solves do not converge.

    ``-A X = [I, B]`` is solved by iterative refinement with double-double residuals and
    ``[[I], [C]] X + [[0, 0], [0, D]] = [[-A^-1, -A^-1 B], [-C A^-1, G(0)]]`` summed in
    double-double.  ``errors`` bounds, entry by entry, the differences between the
    returned ``[[A~, B~], [C~, D~]]`` and the exact blocks: ``2 |A~| |R|`` from the final
    residual ``R`` (first order, doubled), the rounding of the blocks to working precision
    (``2 eps`` of each entry) and the residuals' own rounding (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-1e-4, 0.0], [1.0, -1e4]])
    >>> Ai, Bi, Ci, Di, err = inverted_realisation(A, np.ones((2, 1)), np.ones((1, 2)),
    ...                                             np.zeros((1, 1)))
    >>> bool(np.all(err[:2, :2] <= 1e-15 * np.abs(Ai) + 1e-300))
    True
    >>> sorted(np.linalg.eigvals(Ai).real.round(6).tolist())
    [-10000.0, -0.0001]
    """
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    if n == 0:
        return None
    dtype = np.result_type(A, B, C, D, float)
    right = np.concatenate([np.eye(n, dtype=dtype), B], axis=1)
    solution = _refined_solution(A, right)
    if solution is None:
        return None
    X_hi, X_lo, residual = solution
    # X_hi + X_lo solves -A X = [I, B] up to A^-1 R: |X| |R| to first order (doubled),
    # plus the residual's own rounding (about (n eps)^2 of its terms)
    tiny = 4.0 * ((n + 2) * _EPS) ** 2
    inverse = np.abs(X_hi[:, :n])
    slack = np.abs(residual) + tiny * (np.abs(right) + np.abs(A) @ np.abs(X_hi))
    solved = 2.0 * inverse @ slack
    # [[I], [C]] (X_hi + X_lo) + [[0, 0], [0, D]] summed in double-double, then rounded
    shape = (1, n + p, n + m)
    re, im = _Accumulator(shape), _Accumulator(shape)
    direct = np.zeros((n + p, n + m), dtype=dtype)
    direct[n:, n:] = D
    re.add(np.real(direct)[None])
    im.add(np.imag(direct)[None])
    left = np.concatenate([np.eye(n, dtype=dtype), C], axis=0)
    _complex_products(re, im, left, X_hi.real[None], X_hi.imag[None])
    low = left @ X_lo
    re.add_small(low.real[None])
    im.add_small(low.imag[None])
    W = (re.value() + 1j * im.value())[0]
    if not np.isfinite(W).all():
        return None
    if not np.issubdtype(dtype, np.complexfloating):
        W = W.real
    X = -W[:n, :n]
    Bi, Ci, Di = -W[:n, n:], W[n:, :n], W[n:, n:]
    error_top = solved + 2.0 * _EPS * np.abs(W[:n])
    error_bottom = np.abs(C) @ solved + 2.0 * _EPS * np.abs(W[n:]) + tiny * np.abs(C) @ np.abs(X_hi)
    entrywise = np.concatenate([error_top, error_bottom], axis=0)
    if not np.isfinite(entrywise).all():
        return None
    return X, Bi, Ci, Di, entrywise


# refinement steps at most, and the relative size of a last correction that ends them
_STEPS = 8
_SETTLED = 4.0 * _EPS**2


def _refined_solution(A, right):
    """``(X_hi, X_lo, R)``: ``X_hi + X_lo`` solving ``-A X = right`` by iterative
    refinement with double-double residuals, and the residual ``R = right + A (X_hi +
    X_lo)``; None when ``A`` is singular or the refinement does not converge (``eps
    cond(A)`` not below one)."""
    points = np.zeros(1)
    shifted = -A
    try:
        X_hi = np.linalg.solve(shifted, right).astype(complex)
    except np.linalg.LinAlgError:
        return None
    X_lo = np.zeros_like(X_hi)
    with np.errstate(all="ignore"):  # an overflowing size (a pole near 0) means None
        size = float(np.linalg.norm(X_hi))
        if not (np.isfinite(size) and size > 0):
            return None
        for _ in range(_STEPS):
            residual = _residual(A, right, points, X_hi[None], X_lo[None])[0]
            correction = np.linalg.solve(shifted, residual)
            step = float(np.linalg.norm(correction))
            total = X_lo + correction
            hr, lr = _two_sum(X_hi.real, total.real)
            hi, li = _two_sum(X_hi.imag, total.imag)
            X_hi, X_lo = hr + 1j * hi, lr + 1j * li
            if not step > _SETTLED * size:
                break
        else:
            if not step <= 1e-3 * _EPS * size:
                return None
        residual = _residual(A, right, points, X_hi[None], X_lo[None])[0]
    if not (np.isfinite(residual).all() and np.isfinite(X_hi).all()):
        return None
    if not np.issubdtype(np.result_type(A, right), np.complexfloating):
        X_hi, X_lo = X_hi.real, X_lo.real
    return X_hi, X_lo, residual


def _fro(M):
    return float(np.linalg.norm(M)) if M.size else 0.0


class InvertedLevelTest:
    """The level-set test of ``G(1/s)`` and the ``omega`` windows it leaves open.

    Parameters
    ----------
    A, B, C, D : numpy.ndarray
        A realisation of a stable continuous-time model.
    real : bool
        Whether the data are real (crossings at ``+-omega`` coincide).

    Examples
    --------
    >>> import numpy as np
    >>> A = np.diag([-1e-3, -1e5]); B = np.ones((2, 1)); C = np.array([[1e-3, 1e5]])
    >>> test = InvertedLevelTest(A, B, C, np.zeros((1, 1)), real=True)
    >>> # the peak is 2 (at omega = 0); at level 2.5 only the fast mode's frequencies,
    >>> # which the plain test decides, are left open
    >>> all(low > 1e3 and not located for low, _, located, _ in test.windows(2.5))
    True
    """

    def __init__(self, A, B, C, D, real=True):
        self.real = real
        self.available = False
        data = inverted_realisation(A, B, C, D)
        if data is None:
            return
        X, B, C, D, entrywise = data
        # T = diag(t) balances A^-1 (powers of two: T^-1 X T, T^-1 B~, C~ T are exact,
        # and so is the scaling of the entrywise error bounds)
        _, (t, _) = scipy.linalg.matrix_balance(X, permute=False, separate=True)
        n = X.shape[0]
        self.A = X * t[None, :] / t[:, None]
        self.B, self.C, self.D = B / t[:, None], C * t[None, :], D
        entrywise = entrywise.copy()
        entrywise[:n] /= t[:, None]
        entrywise[:, :n] *= t[None, :]
        self.errors = entrywise
        self.available = True

    def _pencil(self, gamma):
        """``(M, E, dM)``: the level-set pencil of ``G~ / gamma`` at level one, with ``B~``
        and ``C~`` balanced by a power of two ``c`` (``G~ = (C~ / c) (s I - A~)^-1 (c
        B~)``), and entrywise bounds ``dM`` on the errors of ``M`` from those of the
        data."""
        A, B, C, D = self.A, self.B, self.C / gamma, self.D / gamma
        size_b, size_c = _fro(B), _fro(C)
        c = 1.0
        if size_b > 0 and size_c > 0:
            c = 2.0 ** round(0.5 * np.log2(size_c / size_b))
        B, C = B * c, C / c
        entrywise = self.errors
        n, m, p = A.shape[0], B.shape[1], C.shape[0]
        d_a, d_b = entrywise[:n, :n], entrywise[:n, n:] * c
        d_c, d_d = entrywise[n:, :n] / (gamma * c), entrywise[n:, n:] / gamma
        size = 2 * n + m + p
        dtype = np.result_type(A, B, C, D, float)
        M = np.zeros((size, size), dtype=dtype)
        E = np.zeros((size, size), dtype=dtype)
        E[: 2 * n, : 2 * n] = np.eye(2 * n)
        M[:n, :n] = A
        M[n : 2 * n, n : 2 * n] = -A.conj().T
        M[n : 2 * n, 2 * n + m :] = -C.conj().T
        M[:n, 2 * n : 2 * n + m] = B
        M[2 * n : 2 * n + p, :n] = C
        M[2 * n : 2 * n + p, 2 * n : 2 * n + m] = D
        M[2 * n : 2 * n + p, 2 * n + m :] = -np.eye(p)
        M[2 * n + p :, n : 2 * n] = B.conj().T
        M[2 * n + p :, 2 * n : 2 * n + m] = -np.eye(m)
        M[2 * n + p :, 2 * n + m :] = D.conj().T
        # entrywise bounds on the errors of M's entries, in M's layout
        dM = np.zeros((size, size))
        dM[:n, :n], dM[n : 2 * n, n : 2 * n] = d_a, d_a.T
        dM[n : 2 * n, 2 * n + m :], dM[:n, 2 * n : 2 * n + m] = d_c.T, d_b
        dM[2 * n : 2 * n + p, :n], dM[2 * n : 2 * n + p, 2 * n : 2 * n + m] = d_c, d_d
        dM[2 * n + p :, n : 2 * n], dM[2 * n + p :, 2 * n + m :] = d_b.T, d_d.T
        return M, E, dM

    def eigenvalues(self, gamma):
        """Finite eigenvalues of the inverted pencil at ``gamma`` and their radii
        (module docstring); None when the infinite ones are not clearly separated."""
        M, E, dM = self._pencil(gamma)
        m, p = self.B.shape[1], self.C.shape[0]
        try:
            (alpha, beta), vl, vr = scipy.linalg.eig(
                M, E, left=True, right=True, check_finite=False, homogeneous_eigvals=True
            )
        except (np.linalg.LinAlgError, ValueError):
            return None
        finiteness = np.abs(beta) / np.maximum(np.abs(alpha) + np.abs(beta), np.finfo(float).tiny)
        order = np.argsort(finiteness)
        dropped, keep = order[: m + p], order[m + p :]
        # the m + p infinite eigenvalues must stand apart from the finite ones: a large
        # finite one (a crossing near omega = 0) must not be dropped for an infinite one
        if dropped.size and keep.size:
            if not finiteness[dropped].max() <= 1e-3 * finiteness[keep].min():
                return None
        vl, vr = vl[:, keep], vr[:, keep]
        with np.errstate(all="ignore"):
            w = alpha[keep] / beta[keep]
            pairing = np.abs(np.sum(vl.conj() * (E @ vr), axis=0))
            kappa = np.linalg.norm(vl, axis=0) * np.linalg.norm(vr, axis=0) / pairing
            # first order: |y^H (Delta M) x| / |y^H E x| for entrywise errors
            entrywise = np.sum(np.abs(vl) * (dM @ np.abs(vr)), axis=0) / pairing
            size_m, size_e = np.linalg.norm(M, 1), np.linalg.norm(E, 1)
            radius = 10.0 * (kappa * _EPS * (size_m + np.abs(w) * size_e) + entrywise)
        radius = np.where(np.isfinite(radius), radius, np.inf)
        if not np.isfinite(w).all():
            return None
        scale = np.linalg.norm(M, 1)
        band = _AXIS_RTOL * np.abs(w) + _AXIS_SQRT_FACTOR * np.sqrt(_EPS) * scale
        return w, radius, band

    def windows(self, gamma):
        """``omega`` intervals ``(low, high, located)`` where ``G`` may cross ``gamma``
        according to the inverted test (``located``: the inverted eigenvalue places its
        crossing within a tenth); None when the test cannot be formed.  For real data the
        intervals are of ``|omega|``."""
        if not self.available:
            return None
        with np.errstate(all="ignore"):
            result = self.eigenvalues(gamma)
        if result is None:
            return None
        w, radius, band = result
        half = np.maximum(radius, band)
        near = np.abs(w.real) <= half
        out = []
        with np.errstate(all="ignore"):
            for mu, h in zip(w[near], half[near], strict=True):
                located = bool(h <= _LOCATED * abs(mu.imag))
                omega = -1.0 / mu.imag if located else np.nan
                nu_low, nu_high = mu.imag - h, mu.imag + h
                if self.real:
                    a = max(abs(mu.imag) - h, 0.0)
                    b = abs(mu.imag) + h
                    out.append((1.0 / b, np.inf if a == 0 else 1.0 / a, located, omega))
                elif nu_low > 0 or nu_high < 0:
                    out.append((-1.0 / nu_low, -1.0 / nu_high, located, omega))
                else:
                    # the window holds nu = 0: omega beyond -1/nu_high and below -1/nu_low
                    high = -1.0 / nu_high if nu_high > 0 else -np.inf
                    low = -1.0 / nu_low if nu_low < 0 else np.inf
                    out.append((-np.inf, high, False, np.nan))
                    out.append((low, np.inf, False, np.nan))
        return out


def meets(intervals, windows, real):
    """The inverted intervals (``(low, high, located, omega)``) that meet any of the
    windows ``(centre, half_width)``; for real data the windows cover ``|omega|``."""
    spans = []
    for centre, half in windows:
        low, high = centre - half, centre + half
        if real:
            low, high = (
                max(min(abs(low), abs(high)) if low * high > 0 else 0.0, 0.0),
                max(abs(low), abs(high)),
            )
        spans.append((low, high))
    return [iv for iv in intervals if any(iv[0] <= hi and lo <= iv[1] for lo, hi in spans)]
