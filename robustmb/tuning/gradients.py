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
from . import hinf_ab13dd_check as _check
from . import hinf_slicot as _slicot
from ._memo import last_call as _last_call
from .level_set_core import (
    Above,
    _interval_points,
    _LevelHamiltonian,
    _modal_crossings,
    _polish,
    _pow2_balanced,
    _secant_peak,
    _sigma_max,
    _solved_dsig,
    _solved_sigma,
    _stiff_crossings,
    peak_gradient,
)
from .stability import STABLE, UNSTABLE, band_verdict


def _modal_sigma(lam, cv, vb, d):
    """``w -> sigma_max(G(jw))`` for an array of frequencies, from the modal form
    ``G(jw) = cv diag(1 / (jw - lam)) vb + d`` (:func:`_modal_form`)."""

    def sig(w):
        r = 1.0 / (1j * np.atleast_1d(w)[:, None] - lam[None, :])
        return _sigma_max((cv[None] * r[:, None, :]) @ vb + d[None])

    return sig


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
        pts = _interval_points(im, ends=True)
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


def _modal_hinf(a, b, c, d, tol, w_hint=None, maxit=40, above=None, verdict=None):
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
    ``verdict``: the band verdict when the caller made it already (``hinfnorm``'s, on
    the balanced ``A``: :mod:`.hinf_ab13dd_check`); not ``STABLE``: ``None``.
    """
    if verdict not in (None, STABLE):
        return None
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
    if verdict is None:
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


def _stiff_hinf(a, b, c, d, tol, w_hint=None, maxit=60, above=None, verdict=None):
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
    re-verified by ``hinfnorm``.  ``above``, ``verdict``: as :func:`_modal_hinf`.
    """
    if verdict not in (None, STABLE):
        return None
    a, b, c = _pow2_balanced(a, b, c)
    # The stiff path runs exactly when the eigenvectors are ill-conditioned, so the sign
    # of a computed Re(lambda) proves nothing: hinfnorm's test (pole_bands on the same
    # balanced A, the one verdict function through band_verdict) decides.  A pole beyond
    # the axis by more than its band: unstable, as hinfnorm says; one inside its band:
    # left to hinfnorm's verified inclusion.
    lam = np.linalg.eigvals(a)
    if verdict is None:
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
    dsig = _solved_dsig(a, b, c, d)
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


def hinf_gradient(a, b, c, d, dt=0.0, *, tol=1e-7, w_hint=None, above=None):
    """H-infinity norm of ``(A, B, C, D)``, its peak frequency and gradient w.r.t. S.

    Returns ``(gamma, fpeak, G)``; ``gamma = inf`` (and ``G = None``) when unstable.

    ``gamma`` is the optimiser's inner value: on a continuous loop proved stable by the
    band test, SLICOT AB13DD's peak (:mod:`.hinf_slicot`) once one level set finds
    nothing above it and the response at its frequency reproduces it to 1e-6
    (:mod:`.hinf_ab13dd_check`: then the balanced realisation's response, measured
    within 4e-7 of a 40-digit reference under ``cond(A) = 2e11``); otherwise, or when
    those checks fail, a lean level set (modal, or balanced and
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
    verdict = None
    if dt == 0 and a.shape[0] and b.shape[1] and c.shape[0] and _slicot.ENABLED:
        out, w_hint, verdict = _check.slicot_hinf_gradient(a, b, c, d, tol, w_hint, above)
        if out is not None:
            return out
    fast = None
    if dt == 0 and a.shape[0] and b.shape[1] and c.shape[0]:
        # the band verdict already made on the balanced A, when AB13DD's value was not taken
        fast = _modal_hinf(a, b, c, d, tol, w_hint, above=above, verdict=verdict)
        if fast is None:
            fast = _stiff_hinf(a, b, c, d, tol, w_hint, above=above, verdict=verdict)
        if isinstance(fast, Above):
            return fast, np.nan, None
    gamma, fpeak = fast if fast is not None else hinfnorm((a, b, c, d, dt), tol=tol)
    if not np.isfinite(gamma):
        return np.inf, fpeak, None
    sv, grad = peak_gradient(a, b, c, d, dt, fpeak)
    if fast is None:
        # hinfnorm's value (its verified inclusion, on the balanced realisation), not the
        # given realisation's response at its frequency: on an ill-conditioned loop that
        # response can be below the norm (COMPleib REA1 near the stability boundary:
        # 5.8e-4 relative), and the inner value would then sit below what hinfnorm says.
        sv = max(sv, float(gamma))
    return sv, float(fpeak), grad


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

    lows, highs = lows[above], highs[above]
    # An interval may hold several local maxima (the response need not dip below the
    # level between them): every local maximum of a grid, then zoomed.  The grids of all
    # intervals in one batched evaluation.
    grids = np.linspace(lows, highs, 33, axis=1)
    grid_vals = sig(grids.ravel()).reshape(grids.shape) if lows.size else grids
    for lo, hi, grid, vals in zip(lows, highs, grids, grid_vals, strict=True):
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
