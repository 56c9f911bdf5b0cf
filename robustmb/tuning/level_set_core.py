"""Level-set primitives of the inner H-infinity evaluation (continuous time).

The pieces that both the Python level sets (:mod:`.gradients`) and the check of SLICOT
AB13DD's peak (:mod:`.hinf_ab13dd_check`) use: responses ``sigma_max(G(jw))`` and their
frequency derivative by LU solves, the power-of-two balancing of a realisation, the
Hamiltonian whose imaginary eigenvalues are the frequencies where ``sigma_max(G(jw))``
equals a level and the two tests that take its eigenvalues as on the axis, the peak
polish, and the gradient of ``sigma_max`` at a frequency with respect to
``S = [[A, B], [C, D]]``.
"""

from __future__ import annotations

import numpy as np

from ..analysis.balancing import balance_realization
from ._memo import last_call as _last_call
from ._memo import recent_calls as _recent_calls


def _sigma_max(g):
    """Largest singular value of each matrix of a stack (a vector norm for one row/column)."""
    if g.shape[-1] == 1:
        return np.sqrt(
            np.einsum("...ij,...ij->...", g.real, g.real)
            + np.einsum("...ij,...ij->...", g.imag, g.imag)
        )
    if g.shape[-2] == 1:
        return _sigma_max(np.swapaxes(g, -1, -2))
    return np.linalg.svd(g, compute_uv=False)[..., 0]


_EPS = np.finfo(float).eps


def _solved_sigma(a, b, c, d):
    """``w -> sigma_max(G(jw))`` for an array of frequencies, by LU solves of
    ``jw I - A`` (any ``A``: no modal form needed)."""
    eye = np.eye(a.shape[0])

    def sig(w):
        w = np.atleast_1d(np.asarray(w, float))
        rhs = np.broadcast_to(b, (w.size, *b.shape))
        return _sigma_max(c @ np.linalg.solve(1j * w[:, None, None] * eye - a, rhs) + d)

    return sig


def _solved_dsig(a, b, c, d):
    """``w -> (sigma_max(G(jw)), d sigma_max / dw)`` at one frequency by LU solves:
    ``G' = -j C (jw I - A)^-2 B`` by two solves with the same matrix."""
    eye = np.eye(a.shape[0])

    def dsig(w):
        m = 1j * w * eye - a
        x = np.linalg.solve(m, b)
        u, sv, vh = np.linalg.svd(c @ x + d)
        gp = -1j * (c @ np.linalg.solve(m, x))
        return float(sv[0]), float(np.real(u[:, 0].conj() @ gp @ vh[0].conj()))

    return dsig


def _pow2_balanced(a, b, c):
    """``(A, B, C)`` balanced by powers of two (exact, the same ``G``): LAPACK ``dgebal``
    on ``A``, then ``B 2^k`` and ``C 2^-k`` brought to about equal norms."""
    a, b, c = balance_realization(a, b, c)
    nb, nc = np.linalg.norm(b), np.linalg.norm(c)
    if nb > 0 and nc > 0:
        k = (np.frexp(nc)[1] - np.frexp(nb)[1]) // 2
        b, c = np.ldexp(b, k), np.ldexp(c, -k)
    return a, b, c


def _interval_points(im, ends):
    """Test points of a level set with crossings ``im`` (sorted, ``>= 0``): the midpoints
    between consecutive crossings, with the crossings themselves (``ends=True``, the
    level-set iterations' candidates) or with ``w = 0`` (``ends=False``: one point
    inside each interval the crossings cut ``[0, inf)`` into, but the unbounded one)."""
    mids = 0.5 * (im[1:] + im[:-1])
    return np.concatenate((im if ends else [0.0], mids))


class _LevelHamiltonian:
    """Hamiltonian whose imaginary eigenvalues ``jw`` are the frequencies where
    ``sigma(G(jw)) = g`` (Boyd--Balakrishnan--Kabamba; Bruinsma--Steinbuch).

    ``D = 0``: ``[[A, B B^T / g], [-C^T C / g, -A^T]]``, assembled in one buffer reused
    across levels; otherwise, with ``R = (g^2 I - D^T D)^-1`` and
    ``S = (g^2 I - D D^T)^-1``, ``[[A + B R D^T C, g B R B^T], [-g C^T S C, -(A + B R D^T C)^T]]``.
    """

    def __init__(self, a, b, c, d):
        self.a, self.b, self.c, self.d = a, b, c, d
        self.proper = not np.any(d)
        if self.proper:
            n = a.shape[0]
            self.h = np.empty((2 * n, 2 * n))
            self.h[:n, :n], self.h[n:, n:] = a, -a.T
            self.bbt, self.ctc = b @ b.T, c.T @ c

    def at(self, g):
        """The Hamiltonian of level ``g > sigma_max(D)`` (``None``: ``g^2 I - D^T D`` singular).
        For ``D = 0`` the same array is returned for every level (overwritten)."""
        a, b, c, d = self.a, self.b, self.c, self.d
        if self.proper:
            n = a.shape[0]
            self.h[:n, n:], self.h[n:, :n] = self.bbt / g, self.ctc / -g
            return self.h
        ny, nu = d.shape
        try:
            ri = np.linalg.inv(g * g * np.eye(nu) - d.T @ d)
            si = np.linalg.inv(g * g * np.eye(ny) - d @ d.T)
        except np.linalg.LinAlgError:
            return None
        a1 = a + b @ ri @ d.T @ c
        return np.block([[a1, g * b @ ri @ b.T], [-g * c.T @ si @ c, -a1.T]])


class Above(float):
    """A lower bound of the norm that already exceeds a caller's level (a float).

    Returned by the inner H-infinity evaluation when asked to stop above a level (a
    line-search trial that will be rejected whatever the rest of the evaluation gives):
    the largest ``sigma_max(G(jw))`` computed so far, returned only for a loop proved
    stable and a level set whose crossings are trusted.  A lower bound of the norm up
    to the rounding of the modal responses (below 1e-3 relative on lightly damped,
    ill-conditioned loops; ``tuning_problem.REJECT_MARGIN`` covers it).
    """


def _modal_crossings(h):
    """Crossings of the modal level set, ``None`` when ``||H||`` makes them untrustworthy.

    Loose test: near the singular level the crossings leave the axis by roughly
    sqrt(eps * cond); a spurious candidate only costs one evaluation.  The rounding of
    the eigenvalues is of order eps ||H|| kappa: when ||H|| is far above the largest
    eigenvalue (an ill-conditioned loop: REA2 with gains ~4e5 has |eigenvalues| <=
    1.3e4, ||H||_1 1e12 and a crossing at w = 0.82 computed 4.6e-4 off the axis, so
    sigma(G(0)) was returned 9e-4 below the norm) this test cannot be trusted: left to
    the stiff path (balanced realisation, ||H||-scaled test).
    """
    e = np.linalg.eigvals(h)
    ae = np.abs(e)
    if 1e3 * _EPS * np.abs(h).sum(axis=0).max() > 1e-9 * max(1.0, ae.max()):
        return None
    near = np.abs(e.real) <= 1e-4 * ae + 1e-9 * max(1.0, ae.max())
    return np.unique(np.abs(e[near].imag))


def _stiff_crossings(h):
    """Crossings of the stiff level set: ``hinfnorm``'s axis test scaled by ``||H||_1``."""
    e = np.linalg.eigvals(h)
    near = np.abs(e.real) <= 1e-4 * np.abs(e) + 10 * np.sqrt(_EPS) * np.abs(h).sum(axis=0).max()
    return np.unique(np.abs(e[near].imag))


def _secant_peak(dsig, sig, lower, wpeak, bracket, maxit=30):
    """Root of ``d sigma / d w`` in ``bracket`` by a safeguarded secant iteration, from
    ``wpeak``; ``dsig(w) = (sigma(w), sigma'(w))``.  Falls back to :func:`_polish` (a
    grid zoom on ``sig``) when the derivative does not change sign in the bracket."""
    lo, hi = bracket
    hi = max(hi, wpeak)
    lo = min(lo, wpeak)
    f1, d1 = dsig(wpeak)
    best = (f1, wpeak)
    w1 = wpeak
    # A second point on the side the slope points to.
    w0 = w1 + (1e-4 if d1 > 0 else -1e-4) * max(w1, 1e-6)
    w0 = min(max(w0, lo), hi)
    f0, d0 = dsig(w0)
    if f0 > best[0]:
        best = (f0, w0)
    for _ in range(maxit):
        # Keep the bracket on the root of sigma' (slope > 0 left of it, < 0 right).
        for w, dv in ((w0, d0), (w1, d1)):
            if dv > 0:
                lo = max(lo, w)
            elif dv < 0:
                hi = min(hi, w)
        if hi <= lo:
            break
        step = d1 * (w1 - w0) / (d1 - d0) if d1 != d0 else np.inf
        w2 = w1 - step
        if not (lo < w2 < hi):
            w2 = 0.5 * (lo + hi)
        w0, f0, d0 = w1, f1, d1
        w1 = w2
        f1, d1 = dsig(w1)
        if f1 > best[0]:
            best = (f1, w1)
        if abs(w1 - w0) <= 1e-10 * max(abs(w1), 1e-6) or d1 == 0.0:
            break
    else:
        return _polish(sig, lower, wpeak, bracket)
    if best[0] > lower:
        return best
    return lower, wpeak


def _polish(sig, lower, wpeak, bracket=None, rounds=8):
    """Move the peak frequency onto the local maximiser (the gradient is taken there).

    On a flat peak the level set stops the iteration with the value within ``tol`` but
    the frequency far from the maximiser, and the gradient is taken at the frequency:
    first zoom into ``bracket`` (the last level set's crossings around the peak) by
    vectorised grids, each keeping two spacings around its best point, then a few
    parabolic steps through three points of a shrinking spacing.
    """
    if not np.isfinite(wpeak):
        return lower, wpeak
    if bracket is not None:
        lo, hi = bracket
        for _ in range(12):
            grid = np.linspace(lo, hi, 9)
            f = sig(grid)
            k = int(np.argmax(f))
            if f[k] > lower:
                lower, wpeak = float(f[k]), float(grid[k])
            step = grid[1] - grid[0]
            lo, hi = max(grid[k] - step, 0.0), grid[k] + step
            if step <= 1e-9 * max(grid[k], 1e-6):
                break
    w, h = wpeak, 1e-3 * max(wpeak, 1e-6)
    for _ in range(rounds):
        pts = np.array([max(w - h, 0.0), w, w + h])
        f = sig(pts)
        k = int(np.argmax(f))
        if f[k] > lower:
            lower, wpeak = float(f[k]), float(pts[k])
        curv = f[0] - 2 * f[1] + f[2]
        shift = 0.5 * h * (f[0] - f[2]) / curv if curv < 0 and pts[0] > 0 else np.inf
        if abs(shift) < h:
            w, h = w + float(shift), 0.03 * max(abs(float(shift)), 0.1 * h)
        else:  # the maximiser is further out: walk towards it at this spacing
            w = float(pts[k])
        if h <= 1e-9 * max(w, 1e-6):
            break
    f = sig(np.array([w]))
    if f[0] > lower:
        lower, wpeak = float(f[0]), w
    return lower, wpeak


# The objective's stability test asks for the poles of every model's loop before the
# inner evaluations ask again, one model at a time.
@_recent_calls(64)
def poles(a):
    """Eigenvalues of ``A`` (``numpy.linalg.eigvals``), with a memo of the last 64 distinct
    calls: the objective's stability test and the inner evaluation's band verdict ask for
    the poles of the same closed loops.

    Examples
    --------
    >>> import numpy as np
    >>> sorted(poles(np.array([[-1.0, 2.0], [0.0, -3.0]])).real.tolist())
    [-3.0, -1.0]
    """
    return np.linalg.eigvals(a)


@_last_call
def peak_gradient(a, b, c, d, dt, fpeak):
    """Largest singular value at ``fpeak`` (``inf``: the feedthrough) and its gradient w.r.t. S.

    Examples
    --------
    >>> import numpy as np
    >>> sv, G = peak_gradient(np.array([[-1.0]]), np.array([[1.0]]), np.array([[1.0]]),
    ...                       np.array([[0.0]]), 0.0, 1.0)
    >>> round(sv, 12)  # |1 / (j + 1)|
    0.707106781187
    """
    n = a.shape[0]
    if n and np.isfinite(fpeak):
        s = 1j * fpeak if dt == 0 else np.exp(1j * fpeak * dt)
        m = s * np.eye(n) - a  # built once for both solves
        rb = np.linalg.solve(m, b)
        t = c @ rb + d
    else:
        rb = np.zeros((n, b.shape[1]))
        t = d.astype(complex)
    u, sv, vh = np.linalg.svd(t)
    u1, v1 = u[:, 0], vh[0].conj()
    if n and np.isfinite(fpeak):
        ax = np.linalg.solve(m.conj().T, c.conj().T @ u1)
        bx = rb @ v1
    else:
        ax, bx = np.zeros(n), np.zeros(n)
    av = np.concatenate([ax, u1])
    bv = np.concatenate([bx, v1])
    grad = np.real(np.outer(av.conj(), bv))
    return float(sv[0]), grad
