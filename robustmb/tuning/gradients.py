"""Closed-loop measures and their (sub)gradients with respect to state-space data.

Each function returns a value and ``G = dJ/dS`` for ``S = [[A, B], [C, D]]``;
:meth:`TunableLFT.chain` turns ``G`` into the gradient with respect to the tunable
parameters.  For the H-infinity norm, ``G`` is the gradient of the largest singular
value at the peak frequency, ``Re(a b^H)`` with ``a = [(sI - A)^-H C^H u; u]`` and
``b = [(sI - A)^-1 B v; v]`` built from its singular vectors ``u, v``: a subgradient
of the norm, and its gradient where the peak is unique and simple.
"""

from __future__ import annotations

import numpy as np

from ..analysis import hinfnorm
from ..analysis.balancing import balance_realization
from ..analysis.norms_stability import stability_verdict
from . import hinf_slicot as _slicot
from ._memo import last_call as _last_call
from .stability import STABLE, UNSTABLE, band_verdict


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


def _modal_sigma(lam, cv, vb, d):
    """``w -> sigma_max(G(jw))`` for an array of frequencies, from the modal form
    ``G(jw) = cv diag(1 / (jw - lam)) vb + d`` (:func:`_modal_form`)."""

    def sig(w):
        r = 1.0 / (1j * np.atleast_1d(w)[:, None] - lam[None, :])
        return _sigma_max((cv[None] * r[:, None, :]) @ vb + d[None])

    return sig


def _solved_sigma(a, b, c, d):
    """``w -> sigma_max(G(jw))`` for an array of frequencies, by LU solves of
    ``jw I - A`` (any ``A``: no modal form needed)."""
    eye = np.eye(a.shape[0])

    def sig(w):
        w = np.atleast_1d(np.asarray(w, float))
        rhs = np.broadcast_to(b, (w.size, *b.shape))
        return _sigma_max(c @ np.linalg.solve(1j * w[:, None, None] * eye - a, rhs) + d)

    return sig


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


def _level_set(sig, lam, realization, tol, w_hint, maxit, crossings, stop_above=None):
    """The lean Bruinsma--Steinbuch iteration shared by the inner evaluations.

    ``sig`` evaluates ``sigma_max(G(jw))`` at an array of frequencies, ``lam`` are the
    poles, ``realization`` the ``(A, B, C, D)`` whose level-set Hamiltonians are
    tested (``sd = sigma_max(D)``, 0 when the level set is proper) and ``crossings(H)``
    the imaginary parts of the Hamiltonian's eigenvalues taken as on the axis (``None``:
    the test cannot be trusted).  Starts from the best of 0, the poles' magnitudes and
    imaginary parts and ``w_hint`` (a coarse grid over the modes' band when that is not
    above ``sd``), then raises ``lower`` until the level ``lower (1 + 2 tol)`` has no
    crossing or no tested candidate beats ``lower (1 + tol)`` (not a certificate).
    Returns ``(lower, wpeak, bracket)``, ``bracket`` the crossings around the best
    point of the last level set (``None`` if there was none), or ``None``; with
    ``stop_above``, an :class:`Above` as soon as ``lower`` exceeds it.
    """
    hamiltonian = _LevelHamiltonian(*realization)
    d = realization[3]
    sd = np.linalg.svd(d, compute_uv=False)[0] if d.size and not hamiltonian.proper else 0.0
    extra = [] if w_hint is None or not np.isfinite(w_hint) else [abs(w_hint)]
    mag = np.abs(lam)
    cand = np.unique(np.concatenate(([0.0], mag, np.abs(lam.imag), extra)))
    vals = sig(cand)
    k = int(np.argmax(vals))
    lower, wpeak = float(vals[k]), float(cand[k])
    # Below the feedthrough level, a coarse grid over the modes' band as well: a low peak
    # just above sigma(D) would otherwise start the level set next to its singular level.
    if sd >= lower:
        band = np.geomspace(max(mag.min(), 1e-9) / 10, max(mag.max(), 1e-9) * 10, 24)
        vals = sig(band)
        k = int(np.argmax(vals))
        lower, wpeak = float(vals[k]), float(band[k])
    if sd >= lower:
        lower, wpeak = sd, np.inf
    bracket = None
    for _ in range(maxit):
        g = lower * (1 + 2 * tol)
        # D = 0 and zero at every sampled frequency: no level set to build
        if hamiltonian.proper and g <= 0.0:
            return None
        h = hamiltonian.at(g)
        if h is None:
            return None
        im = crossings(h)
        if im is None:
            return None
        # only once this level's crossings are trusted (else the full path hands over)
        if stop_above is not None and lower > stop_above:
            return Above(lower)
        if im.size == 0:
            return lower, wpeak, bracket
        pts = np.concatenate((im, 0.5 * (im[1:] + im[:-1])))
        vals = sig(pts)
        k = int(np.argmax(vals))
        # The maximiser lies between the crossings on either side of the best point.
        below, above = im[im < pts[k]], im[im > pts[k]]
        bracket = (
            float(below.max()) if below.size else 0.0,
            float(above.min()) if above.size else 2.0 * float(pts[k]) + 1.0,
        )
        if vals[k] <= lower * (1 + tol):
            return max(lower, float(vals[k])), wpeak, bracket
        lower, wpeak = float(vals[k]), float(pts[k])
    return None


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


def _modal_hinf(a, b, c, d, tol, w_hint=None, maxit=40, above=None):
    """Peak gain of a stable, real, continuous model by a lean level-set iteration.

    The response is evaluated in modal form (one eigendecomposition), and the
    Bruinsma--Steinbuch iteration stops when the Hamiltonian of level
    ``lower * (1 + 2 tol)`` has no imaginary eigenvalue.  Stability is ``hinfnorm``'s
    band test (:func:`~robustmb.tuning.stability.band_verdict`): ``inf`` when a pole is
    beyond the axis by more than its rounding band.  Returns ``None`` when a pole is
    inside its band, the modal form is ill-conditioned or the level set is singular, so
    the caller falls back to the stiff path and :func:`robustmb.hinfnorm`.  The
    optimiser's inner loop only: results are always re-verified with ``hinfnorm``.  Not
    a certificate: the stop when no tested candidate beats ``lower (1 + tol)`` can leave
    a sharp peak between computed crossings (measured error: :func:`hinf_gradient`).
    ``above``: an :class:`Above` once the level set's lower bound exceeds it and the
    verdict is stable.  With every computed pole stable the level set runs first: its
    ``None`` skips the band test (the stiff path makes it on the same balanced ``A``).
    """
    modal = _modal_form(a, b, c)
    if modal is None:
        return None
    lam, cv, vb = modal
    sig = _modal_sigma(lam, cv, vb, d)
    out = None
    if np.max(lam.real) < 0:
        # The level set first when every computed pole is stable: a loop whose level set
        # cannot be trusted (most evaluations at large gains) goes to the stiff path,
        # which decides stability itself by the same test on the same balanced A, so the
        # band test (an eigenvector computation, the dearest step here) is not made twice.
        out = _level_set(sig, lam, (a, b, c, d), tol, w_hint, maxit, _modal_crossings, above)
        if out is None:
            return None
    # hinfnorm's test, not the sign of Re(lambda): a pole beyond the axis by more than
    # its rounding band is unstable (inf); one inside its band is left to the stiff path
    # and hinfnorm (None).  A modal form of condition 1e6 can put a truly unstable pole
    # (50-digit abscissa +2e-11) at a computed -2.1e-11.
    verdict = band_verdict(a, poles=lam)
    if verdict == UNSTABLE:
        return np.inf, np.nan
    if verdict != STABLE:
        return None
    if out is None:
        out = _level_set(sig, lam, (a, b, c, d), tol, w_hint, maxit, _modal_crossings, above)
        if out is None:
            return None
    return out if isinstance(out, Above) else _polish_modal(lam, cv, vb, d, sig, *out)


def _stiff_hinf(a, b, c, d, tol, w_hint=None, maxit=60, above=None):
    """Peak gain and frequency of a stable, real, continuous model whose level set the
    modal loop (:func:`_modal_hinf`) cannot trust: an ill-conditioned modal form, or a
    Hamiltonian whose norm is far above its eigenvalues (large gains).

    The same level-set iteration on a realisation balanced by powers of two (exact:
    LAPACK ``dgebal`` on ``A``, then ``B`` and ``C`` brought to equal norms), with
    responses by LU solves of ``jw I - A`` and ``hinfnorm``'s axis test scaled by
    ``||H||_1`` (generous: a spurious candidate costs one batched evaluation).  It
    stops when no tested candidate is above ``lower (1 + tol)`` and polishes the peak
    frequency.  Stability is ``hinfnorm``'s test
    (:func:`~robustmb.tuning.stability.band_verdict` on the balanced ``A``): ``inf``
    when a pole is beyond the axis by more than its band; ``None`` when a pole is inside
    its band or the level set is singular (the caller then uses
    :func:`robustmb.hinfnorm`).

    Not a certificate: the stop is not the level-set test at ``value (1 + 2 tol)``, and
    the LU responses of a realisation with ``||A||`` ~ 1e9 are ~1e-6 off, so the value
    can miss the norm by more than ``tol`` (1.4e-6 and 8.1e-6 below on two review
    cases, up to 1e-5 above under non-diagonal ill-conditioning; see
    :func:`hinf_gradient`).  The optimiser's inner loop only: a run's value is
    re-verified by ``hinfnorm``.  ``above``: as :func:`_modal_hinf`.
    """
    a, b, c = balance_realization(a, b, c)
    nb, nc = np.linalg.norm(b), np.linalg.norm(c)
    if nb > 0 and nc > 0:
        k = (np.frexp(nc)[1] - np.frexp(nb)[1]) // 2  # B 2^k, C 2^-k: the same G
        b, c = np.ldexp(b, k), np.ldexp(c, -k)
    # The stiff path runs exactly when the eigenvectors are ill-conditioned, so the sign
    # of a computed Re(lambda) proves nothing: hinfnorm's test (pole_bands on the same
    # balanced A, the one verdict function through band_verdict) decides.  A pole beyond
    # the axis by more than its band: unstable, as hinfnorm says; one inside its band:
    # left to hinfnorm's verified inclusion.
    lam = np.linalg.eigvals(a)
    verdict = band_verdict(a, poles=lam, balanced=True)
    if verdict == UNSTABLE:
        return np.inf, np.nan
    if verdict != STABLE:
        return None
    sig = _solved_sigma(a, b, c, d)
    out = _level_set(sig, lam, (a, b, c, d), tol, w_hint, maxit, _stiff_crossings, above)
    if out is None or isinstance(out, Above):
        return out
    lower, wpeak, bracket = out
    mag = np.abs(lam)
    if not np.isfinite(wpeak):
        return lower, wpeak
    if wpeak == 0.0:
        if sig(np.array([1e-4 * max(float(mag.min()), 1e-9)]))[0] <= lower:
            return lower, wpeak
        return _polish(sig, lower, wpeak, bracket)
    eye = np.eye(a.shape[0])

    def dsig(w):
        # G' = -j C (jw I - A)^-2 B by two solves with the same matrix.
        m = 1j * w * eye - a
        x = np.linalg.solve(m, b)
        u, sv, vh = np.linalg.svd(c @ x + d)
        gp = -1j * (c @ np.linalg.solve(m, x))
        return float(sv[0]), float(np.real(u[:, 0].conj() @ gp @ vh[0].conj()))

    return _secant_peak(dsig, sig, lower, wpeak, bracket or (0.5 * wpeak, 2.0 * wpeak))


def _polish_modal(lam, cv, vb, d, sig, lower, wpeak, bracket, maxit=30):
    """Peak frequency by a safeguarded secant iteration on ``d sigma / d w`` (modal form).

    ``G(w) = cv diag(r) vb + d`` with ``r = 1 / (jw - lam)`` has ``G' = cv diag(-j r^2) vb``
    and a simple largest singular value has ``sigma' = Re(u^H G' v)``: a root of
    ``sigma'`` inside the level set's bracket is the local maximiser, found in a few
    single-frequency evaluations (a grid zoom costs about twenty batched ones).  Falls
    back to :func:`_polish` when the derivative does not change sign in the bracket.
    """
    if not np.isfinite(wpeak):
        return lower, wpeak
    if wpeak == 0.0:
        # sigma is even in w for a real model: 0 is stationary; a maximum when the
        # response drops just beside it.
        h = 1e-4 * max(float(np.abs(lam).min()), 1e-9)
        if sig(np.array([h]))[0] <= lower:
            return lower, wpeak
        return _polish(sig, lower, wpeak, bracket)
    if bracket is None:
        bracket = (0.5 * wpeak, 2.0 * wpeak)

    def dsig(w):
        r = 1.0 / (1j * w - lam)
        g = (cv * r) @ vb + d
        u, sv, vh = np.linalg.svd(g)
        gp = (cv * (-1j * r * r)) @ vb
        return float(sv[0]), float(np.real(u[:, 0].conj() @ gp @ vh[0].conj()))

    return _secant_peak(dsig, sig, lower, wpeak, bracket, maxit)


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


def hinf_gradient(a, b, c, d, dt=0.0, *, tol=1e-7, w_hint=None, above=None):
    """H-infinity norm of ``(A, B, C, D)``, its peak frequency and gradient w.r.t. S.

    Returns ``(gamma, fpeak, G)``; ``gamma = inf`` (and ``G = None``) when unstable.

    ``gamma`` is the optimiser's inner value: on a continuous loop proved stable by the
    band test, SLICOT AB13DD's peak (:mod:`.hinf_slicot`) once one level set finds
    nothing above it (:func:`_slicot_hinf_gradient`); otherwise, or when that check
    fails, a lean level set (modal, or balanced and
    LU-solved for stiff loops) within ``tol`` on well-conditioned loops but not
    certified; under ill-conditioning it was measured up to 8.1e-6 below and 9.5e-6
    above the norm (tests bound it by 2e-5 against independent references).  The
    values a tuning run reports are recomputed by :func:`robustmb.hinfnorm`.

    ``above`` (a line search's level, continuous time): as soon as the level set has
    found a gain above it, ``(Above(lower), nan, None)`` without the rest of the
    iteration, the peak polish and the gradient: ``lower`` is the response's
    ``sigma_max`` at a frequency (a lower bound of the norm of a stable loop; an
    unstable loop's value is ``inf``, above it as well).

    Examples
    --------
    >>> import numpy as np
    >>> g, w, G = hinf_gradient(np.array([[-2.0]]), np.array([[1.0]]),
    ...                         np.array([[3.0]]), np.array([[0.0]]))
    >>> round(g, 10), round(w, 10), G.round(6).tolist()
    (1.5, 0.0, [[0.75, 1.5], [0.5, 1.0]])
    >>> v, w, G = hinf_gradient(np.array([[-2.0]]), np.array([[1.0]]),
    ...                         np.array([[3.0]]), np.array([[0.0]]), above=1.0)
    >>> isinstance(v, Above), float(v), G is None  # the gain 1.5 at w = 0 is above 1
    (True, 1.5, True)
    """
    if dt == 0 and a.shape[0] and b.shape[1] and c.shape[0] and _slicot.ENABLED:
        out, w_hint = _slicot_hinf_gradient(a, b, c, d, tol, w_hint, above)
        if out is not None:
            return out
    fast = None
    if dt == 0 and a.shape[0] and b.shape[1] and c.shape[0]:
        fast = _modal_hinf(a, b, c, d, tol, w_hint, above=above)
        if fast is None:
            fast = _stiff_hinf(a, b, c, d, tol, w_hint, above=above)
        if isinstance(fast, Above):
            return fast, np.nan, None
    gamma, fpeak = fast if fast is not None else hinfnorm((a, b, c, d, dt), tol=tol)
    if not np.isfinite(gamma):
        return np.inf, fpeak, None
    sv, grad = peak_gradient(a, b, c, d, dt, fpeak)
    return sv, float(fpeak), grad


def _slicot_hinf_gradient(a, b, c, d, tol, w_hint, above):
    """:func:`hinf_gradient` of a continuous loop by SLICOT AB13DD (:mod:`.hinf_slicot`),
    checked by one level set: ``(result, hint)``, ``result`` ``None`` when the Python
    level sets must evaluate the loop, starting from the frequency ``hint``.

    Stability as ``hinfnorm`` decides it before its verified inclusion: the band test
    on the balanced ``A`` (a pole beyond its rounding band: ``inf``; inside it: the
    Python paths).  AB13DD can miss a peak on an ill-conditioned loop (COMPleib REA2
    with gains ~4e5: 1.14792 at ``w = 0`` against the norm 1.14897 at ``w = 0.56``,
    depending on its tolerance), so its value ``g`` is accepted only when the
    Hamiltonian of level ``g (1 + 1e-6)`` has no crossing by the modal path's test and
    that test can be trusted (its ``||H||`` criterion: it cannot on that REA2 loop), and
    when the response at its frequency reproduces ``g`` (relative 1e-6).  Otherwise the
    Python paths run, from AB13DD's frequency.  Not a certificate (the axis test rests
    on rounding), like the Python paths.
    """
    ab = balance_realization(a, np.zeros((a.shape[0], 0)), np.zeros((0, a.shape[0])))[0]
    lam = np.linalg.eigvals(ab)
    if np.max(lam.real) >= 0.0:
        return None, w_hint
    # hinfnorm's call: the balanced A, its poles, and the given A whose rounding also
    # bounds the poles' errors (the band test alone, without the verified inclusion).
    verdict = stability_verdict(ab, 0.0, raw=a, poles=lam, verify=False)[0]
    if verdict == UNSTABLE:
        return (np.inf, np.nan, None), w_hint
    if verdict != STABLE:
        return None, w_hint
    # The value is flat at the peak: a frequency to a relative ~sqrt(tol) only, and the
    # subgradient is taken there (at 1e-9, 5e-6 to 1e-5 off and gradients up to 3.6e-3
    # off on random 3-state models); at 1e-12 within 1e-12, for 10-25 % more time.
    out = _slicot.ab13dd_peak(a, b, c, d, tol=min(tol, 1e-12), w_hint=w_hint)
    if out is None:
        return None, w_hint
    gamma, w = out
    if gamma > 0 and not _no_higher_peak(a, b, c, d, gamma * (1 + 1e-6)):
        return None, w
    sv, grad = peak_gradient(a, b, c, d, 0.0, w)
    # AB13DD's value is that of its equilibrated coordinates: on an ill-conditioned loop
    # (a mode of damping 1e-5 seen through a change of coordinates of condition 1e5) it
    # was 2.2e-3 above the norm, the response here 2.3e-4 below it.
    if not abs(sv - gamma) <= 1e-6 * gamma:
        return None, w
    if above is not None and sv > above:
        return (Above(sv), np.nan, None), w
    return (sv, float(w), grad), w


def _no_higher_peak(a, b, c, d, level):
    """True when the level set of ``level`` shows no response above it (not a proof).

    The Hamiltonian of ``level`` with the modal path's axis test on the given
    realisation when its ``||H||`` criterion trusts it, else the stiff path's generous
    test on the realisation balanced by powers of two; every crossing found and every
    midpoint between two is then evaluated (LU solves), as the level-set iterations do
    before they stop: a spurious crossing (a pair of eigenvalues near the axis at a
    level just above a peak) costs one batched evaluation, a missed peak shows as a
    response above ``level`` between its crossings.
    """
    h = _LevelHamiltonian(a, b, c, d).at(level)
    if h is None:
        return False
    cross = _modal_crossings(h)
    if cross is None:
        a, b, c = balance_realization(a, b, c)
        nb, nc = np.linalg.norm(b), np.linalg.norm(c)
        if nb > 0 and nc > 0:
            k = (np.frexp(nc)[1] - np.frexp(nb)[1]) // 2  # B 2^k, C 2^-k: the same G
            b, c = np.ldexp(b, k), np.ldexp(c, -k)
        h = _LevelHamiltonian(a, b, c, d).at(level)
        if h is None:
            return False
        cross = _stiff_crossings(h)
    if not cross.size:
        return True
    pts = np.concatenate((cross, 0.5 * (cross[1:] + cross[:-1])))
    return bool(np.max(_solved_sigma(a, b, c, d)(pts)) <= level)


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
        rb = np.linalg.solve(s * np.eye(n) - a, b)
        t = c @ rb + d
    else:
        rb = np.zeros((n, b.shape[1]))
        t = d.astype(complex)
    u, sv, vh = np.linalg.svd(t)
    u1, v1 = u[:, 0], vh[0].conj()
    if n and np.isfinite(fpeak):
        ax = np.linalg.solve((s * np.eye(n) - a).conj().T, c.conj().T @ u1)
        bx = rb @ v1
    else:
        ax, bx = np.zeros(n), np.zeros(n)
    av = np.concatenate([ax, u1])
    bv = np.concatenate([bx, v1])
    grad = np.real(np.outer(av.conj(), bv))
    return float(sv[0]), grad


def finite_peak(a, b, c, d, *, band=None, points=240):
    """Peak of ``sigma_max(G(jw))`` at finite frequencies (continuous time).

    The H-infinity norm of a model whose supremum is its feedthrough ``D`` (reached as
    ``w -> inf``) says nothing about the response at finite frequencies; when ``D`` does
    not depend on the tunable parameters (the ``|I - T| -> 1`` limit of a tracking
    error), the finite-frequency response is what tuning can still lower.  With
    ``band``, the maximum over ``0 <= w <= band`` (a continuous function of the
    data); without, the largest local maximum at a finite frequency.  Found on a
    logarithmic grid around the modes (plus ``0``, the modes' moduli and imaginary
    parts, ``band``) and zoomed onto the maximiser.  Returns ``(value, frequency)``,
    or ``None`` when ``A`` is unstable or, without ``band``, the response has no
    finite local maximum (it rises to its limit).

    Examples
    --------
    >>> import numpy as np
    >>> # 1 - 0.5 s / (s^2 + 0.5 s + 1): 1 at w = 0, a notch at w = 1, back to 1 at
    >>> # infinity; its finite local maximum is at w = 0.
    >>> a = np.array([[0.0, 1.0], [-1.0, -0.5]]); b = np.array([[0.0], [1.0]])
    >>> c = np.array([[0.0, -0.5]]); d = np.array([[1.0]])
    >>> v, w = finite_peak(a, b, c, d)
    >>> round(v, 9), w
    (1.0, 0.0)
    >>> v, w = finite_peak(a, b, c, d, band=0.5)  # 1 - ... falls towards the notch
    >>> round(v, 9), w
    (1.0, 0.0)
    """
    n = a.shape[0]
    if n == 0:
        return None
    lam = np.linalg.eigvals(a)
    if np.max(lam.real) >= 0:
        return None
    mag = np.abs(lam)
    lo, hi = max(mag.min(), 1e-8) / 1e3, mag.max() * 1e3
    sig = _solved_sigma(a, b, c, d)
    pts = np.r_[0.0, np.geomspace(lo, hi, points), mag, np.abs(lam.imag)]
    if band is not None:
        pts = np.r_[pts[pts < band], np.geomspace(lo, band, points // 4), band]
    grid = np.unique(pts)
    vals = sig(grid)
    if band is not None:
        peak = np.zeros(grid.size, bool)
        peak[int(np.argmax(vals))] = True
    else:
        peak = np.r_[
            vals[0] >= vals[1], (vals[1:-1] >= vals[:-2]) & (vals[1:-1] >= vals[2:]), False
        ]
        if not peak.any():
            return None
    k = int(np.flatnonzero(peak)[np.argmax(vals[peak])])
    if k == 0 or k == grid.size - 1:
        return float(vals[k]), float(grid[k])
    # Zoom onto the maximiser: a few rounds of a fine grid over a shrinking bracket.
    wk, vk = float(grid[k]), float(vals[k])
    left, right = float(grid[k - 1]), float(grid[k + 1])
    for _ in range(6):
        fine = np.linspace(left, right, 17)
        fv = sig(fine)
        j = int(np.argmax(fv))
        if fv[j] > vk:
            wk, vk = float(fine[j]), float(fv[j])
        step = fine[1] - fine[0]
        left, right = max(wk - step, grid[k - 1]), min(wk + step, grid[k + 1])
    return vk, wk


@_last_call
def _modal_form(a, b, c):
    """``(lambda, C V, V^-1 B)`` of a diagonalisable ``A`` (``None``: ill-conditioned)."""
    lam, v = np.linalg.eig(a)
    try:
        vi = np.linalg.inv(v)
    except np.linalg.LinAlgError:
        return None
    # 1-norm condition number (within a factor n of the 2-norm one, no SVD).
    if np.abs(v).sum(axis=0).max() * np.abs(vi).sum(axis=0).max() > 1e8:
        return None
    return lam, c @ v, vi @ b


def hinf_peaks(a, b, c, d, gamma, wpeak, *, rel=0.05, max_peaks=8):
    """Every local maximum of ``sigma_max(G(jw))`` above ``(1 - rel) gamma``, with gradients.

    The pieces of the H-infinity norm that the multi-peak step of
    :mod:`robustmb.tuning.multipeak` needs (Apkarian and Noll, 2006): ``gamma`` and
    ``wpeak`` are the norm and its peak frequency (from :func:`hinf_gradient`).  The
    imaginary eigenvalues of the Hamiltonian of level ``(1 - rel) gamma`` (raised to
    ``1.001 sigma_max(D)`` when the feedthrough is above it) split the frequency axis
    into the intervals where the response is above that level; the
    maximiser of each is found as in the inner H-infinity loop.  Continuous time and a
    finite ``wpeak`` only; anything else gives the single peak ``(gamma, wpeak)``.
    Returns ``(values, frequencies, grads)`` with ``grads`` a stack of ``dJ/dS``,
    largest value first, at most ``max_peaks``.

    Examples
    --------
    >>> import numpy as np
    >>> # Two lightly damped modes, at w = 1 and w = 10, of nearly equal peak gain.
    >>> a = np.diag([-0.1, -0.1, -1.0, -1.0]) + np.diag([1.0, 0, 10.0], 1)
    >>> a -= np.diag([1.0, 0, 10.0], -1)
    >>> b = np.array([[0.0], [0.5], [0.0], [5.0]]); c = np.array([[0.0, 1.0, 0.0, 1.0]])
    >>> d = np.zeros((1, 1))
    >>> g, w, _ = hinf_gradient(a, b, c, d)
    >>> vals, freqs, grads = hinf_peaks(a, b, c, d, g, w)
    >>> [round(float(f)) for f in sorted(freqs)], grads.shape
    ([1, 10], (2, 5, 5))
    """
    n = a.shape[0]
    one = peak_gradient(a, b, c, d, 0.0, wpeak)
    single = np.array([one[0]]), np.array([wpeak]), one[1][None]
    if n == 0 or not np.isfinite(wpeak) or not np.isfinite(gamma) or gamma <= 0:
        return single
    sd = np.linalg.svd(d, compute_uv=False)[0] if d.size and np.any(d) else 0.0
    # Above sigma(D) the level set is bounded; a feedthrough inside the band only raises the
    # level to just above it (peaks lower than that are no kinks the step can use).
    level = max((1.0 - rel) * gamma, sd * (1 + 1e-3))
    if level >= gamma:
        return single
    h = _LevelHamiltonian(a, b, c, d).at(level)
    if h is None:
        return single
    e = np.linalg.eigvals(h)
    ae = np.abs(e)
    near = np.abs(e.real) <= 1e-6 * ae + 1e-10 * max(1.0, ae.max())
    cross = np.unique(np.abs(e[near].imag))
    modal = _modal_form(a, b, c)
    if modal is not None:
        lam, cv, vb = modal
        sig = _modal_sigma(lam, cv, vb, d)

        def zoom(v, w, bracket):
            return _polish_modal(lam, cv, vb, d, sig, v, w, bracket)

    else:
        sig = _solved_sigma(a, b, c, d)

        def zoom(v, w, bracket):
            return _polish(sig, v, w, bracket)

    edges = np.concatenate(([0.0], cross[cross > 0]))
    # The intervals [edges[i], edges[i + 1]] above the level (the last one is bounded:
    # the response is below the level beyond the largest crossing, level > sigma(D)).
    lows, highs = edges[:-1], edges[1:]
    if lows.size == 0:
        return single
    above = sig(0.5 * (lows + highs)) > level
    found = []

    def known(w):
        return any(
            abs(w - w0) <= 1e-4 * max(abs(w0), 1e-6) for w0 in [wpeak, *(f[1] for f in found)]
        )

    for lo, hi in zip(lows[above], highs[above], strict=True):
        # An interval may hold several local maxima (the response need not dip below the
        # level between them): every local maximum of a grid, then zoomed.
        grid = np.linspace(lo, hi, 33)
        vals = sig(grid)
        inner = (vals[1:-1] >= vals[:-2]) & (vals[1:-1] >= vals[2:])
        ks = list(np.flatnonzero(inner) + 1)
        if lo == 0.0 and vals[0] >= vals[1]:
            ks.insert(0, 0)
        for k in ks:
            if k == 0:
                v, w = float(vals[0]), 0.0
                if sig(np.array([1e-6 * max(hi, 1e-6)]))[0] > v:
                    continue
            elif grid[k - 1] <= wpeak <= grid[k + 1]:
                # The known peak's own grid maximum: its zoom, in a bracket holding the
                # known maximiser, would return it (and `known` would drop it).
                continue
            else:
                v, w = zoom(float(vals[k]), float(grid[k]), (grid[k - 1], grid[k + 1]))
            # A maximum on an inner edge is no local maximum (a spurious split).
            if v > level and (w == 0.0 or lo < w < hi) and not known(w):
                found.append((v, w))
    if not found:
        return single
    found.sort(reverse=True)
    found = found[: max_peaks - 1]
    vals, freqs, grads = [one[0]], [wpeak], [one[1]]
    for w in (f[1] for f in found):
        v, g = peak_gradient(a, b, c, d, 0.0, w)
        vals.append(v)
        freqs.append(w)
        grads.append(g)
    return np.array(vals), np.array(freqs), np.array(grads)
