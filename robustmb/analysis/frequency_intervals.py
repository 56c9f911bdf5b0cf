"""Extending a mu upper-bound certificate from one frequency to a whole interval.

A D,G certificate of ``mu(M(j w0)) <= beta0`` (in the sigma-max form of
:mod:`.mu_upper`) is equivalent to the quadratic inequality::

    Phi(w) = [M(jw); I]^H Pi [M(jw); I] <= 0,
    Pi = [[X, -jY], [jY^H, -beta^2 Z]],

with ``X = Dl^H Pl Dl``, ``Y = beta0 Dl^H Pl Gm Dr``, ``Z = Dr^H Pr Dr``,
``Pl = (I + Gl^2)^(-1/2)`` and ``Pr = (I + Gr^2)^(1/2) - Gm^H Pl Gm``.  With
``X, Y, Z`` fixed the inequality stays true for every ``beta >= beta0`` and
keeps certifying ``mu(M(jw)) <= beta`` at every frequency where it holds.

``Phi`` is a para-Hermitian rational matrix; its eigenvalues change sign only
where ``det Phi(jw) = 0``, i.e. at the imaginary eigenvalues of a Hamiltonian
pencil built from the state-space data of ``M``.  Between two consecutive such
frequencies the inertia of ``Phi`` is constant, so one evaluation per segment
decides it: the certified interval around ``w0`` is exact, not sampled.
The imaginary parts of all the eigenvalues are kept as candidate crossings: the
pencil of a degenerate certificate is ill-conditioned enough to move a true
crossing well off the axis, and a spurious candidate can only split a segment
(the inequality is checked at the candidate before joining across it), never
hide a violation.  The candidates also include the zeros of ``Phi(1/s)`` (from the
realisation of ``M(1/s)``, whose feedthrough is ``M(0)``), mapped back: a scaled
certificate model can carry a feedthrough a million times larger than ``M(0)``, cancelled
at low frequency by a fast pole; the pencil of ``Phi(s)`` is then computed with an
absolute error (``eps`` times its norm) that scatters its low-frequency zeros by amounts
the last bits of the data decide, whereas that of ``Phi(1/s)`` places them far out, to
full relative accuracy.  Discrete-time models are handled through the bilinear map
``z = (1 + s) / (1 - s)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from .checked_response import (
    _ESTIMATE_SAFETY,
    _PRODUCT_ROUNDING,
    CheckedResponse,
    fdi_upper_bounds,
)
from .circle_points import circle_points, refined_at_points
from .mu_structure import dagger, hermitian_power
from .mu_upper import expand_scalings

_EPS = np.finfo(float).eps

# Full (non-diagonal) scalings D worse conditioned than this are folded into the
# multiplier instead; diagonal ones are applied to M exactly (entry by entry) up to
# _MAX_DIAGONAL_SPREAD, a guard against overflow only.
_MAX_COND = 1e12
_MAX_DIAGONAL_SPREAD = 1e100
# Relative margin by which interval ends are pulled in from their crossing frequencies.
_EDGE = 1e-9
# Relative slack of a level above the largest pointwise bound, on top of ``rel_gap``.
_LEVEL_SLACK = 1e-12
# A pole of ``M`` closer to the axis than this (relative to its frequency) makes the
# pencil's crossings near it unresolved (see _unresolved_windows); the window around it
# has the relative half-width _WINDOW plus _WINDOW_DAMPING times the pole's damping.
_NEAR_AXIS = 1e-6
_WINDOW = 1e-6
_WINDOW_DAMPING = 100.0


def sweep_level(bound, rel_gap):
    """The level a sweep certifies above its largest pointwise bound ``bound``.

    ``bound * (1 + rel_gap)`` plus a slack relative to ``bound`` (the inequality of the
    largest point must hold strictly at the level even with ``rel_gap = 0``); the slack
    is ``1e-12`` absolute only when no bound is positive (``mu = 0`` on the grid: no
    scale).  An absolute slack would loosen the bound of a small ``M``: ``1e-13 M`` was
    certified 8.9 times above its ``mu``.

    Examples
    --------
    >>> sweep_level(2.0, 1e-3) == 2.0 * (1 + 1e-3) + 2e-12
    True
    >>> bool(sweep_level(3e-15, 1e-3) < 3.01e-15), sweep_level(0.0, 1e-3)
    (True, 1e-12)
    """
    bound = float(bound)
    if bound > 0:
        return bound * (1 + rel_gap) + _LEVEL_SLACK * bound
    return _LEVEL_SLACK


@dataclass(frozen=True)
class Multiplier:
    """``X, Y, Z`` of the frequency-domain inequality of one certificate.

    With ``left`` and ``right`` (invertible ``Dl``, ``Dr``) the inequality is stated
    for the scaled model ``Dl M Dr^-1``: it is the congruence of the one for ``M``
    by ``Dr``, so it holds at exactly the same frequencies, but its multiplier has
    no spread of magnitudes (a real-mu certificate's ``D`` can span 1e4 and more,
    which leaves the Hamiltonian pencil of the unscaled form numerically singular).
    """

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    left: np.ndarray | None = None
    right: np.ndarray | None = None

    def scale_responses(self, responses):
        """``Dl M Dr^-1`` for a stack of responses (unchanged without scaling)."""
        if self.left is None:
            return responses
        return self.left @ responses @ np.linalg.inv(self.right)

    def scale_system(self, a, b, c, d):
        """State-space data of ``Dl M Dr^-1``."""
        if self.left is None:
            return a, b, c, d
        rinv = np.linalg.inv(self.right)
        return a, b @ rinv, self.left @ c, self.left @ d @ rinv

    def pi(self, beta):
        """The constant Hermitian multiplier ``Pi`` for the level ``beta``."""
        return np.block([[self.x, -1j * self.y], [1j * dagger(self.y), -(beta**2) * self.z]])


def multiplier_from_certificate(blk, beta0, D, G=None) -> Multiplier:
    """Multiplier of a sigma-max certificate ``(beta0, D, G)`` of :func:`mussv`.

    ``beta0 = 0`` certificates (``mu = 0``) use the limit form, in which ``G`` is
    already the multiplier's ``Y`` block.  ``Pr`` uses the identity
    ``(I + G^2)^(1/2) - G (I + G^2)^(-1/2) G = (I + G^2)^(-1/2)`` (``G`` acts on
    the real blocks, whose row and column channels coincide), which avoids the
    cancellation of the difference when ``G`` is large.
    """
    # The certificate is invariant under D -> c D; unit size keeps products finite.
    D = np.asarray(D) / np.max(np.abs(D))
    dl, dr, gl, gm, gr = expand_scalings(blk, D, G)
    if beta0 > 0 and _well_scaled(dl) and _well_scaled(dr):
        # the scaled form: X = Pl, Y = beta0 Pl Gm, Z = Pr, of unit size
        pl = hermitian_power(gl, -0.5)
        pr = hermitian_power(gr, -0.5)
        x, y, z = pl, beta0 * pl @ gm, pr
        scale = max(np.linalg.norm(x), np.linalg.norm(y), np.linalg.norm(z))
        x, y, z = x / scale, y / scale, z / scale
        return Multiplier(0.5 * (x + dagger(x)), y, 0.5 * (z + dagger(z)), dl, dr)
    if beta0 == 0:
        x, y, z = dagger(dl) @ dl, dagger(dl) @ gm @ dr, dagger(dr) @ dr
    else:
        pl = hermitian_power(gl, -0.5)
        pr = hermitian_power(gr, -0.5)
        x = dagger(dl) @ pl @ dl
        y = beta0 * dagger(dl) @ pl @ gm @ dr
        z = dagger(dr) @ pr @ dr
    # A positive scaling does not change the inequality; unit size helps the pencil.
    scale = max(np.linalg.norm(x), np.linalg.norm(y), np.linalg.norm(z))
    x, y, z = x / scale, y / scale, z / scale
    return Multiplier(0.5 * (x + dagger(x)), y, 0.5 * (z + dagger(z)))


def _well_scaled(dmat):
    """Whether ``dmat`` can scale ``M`` in the multiplier's scaled form.

    A diagonal ``D`` (scalar and full blocks only) scales every entry of ``M`` by one
    factor, exact to a rounding whatever its spread: folded into the unscaled multiplier
    instead, its spread (a block channel scaled by ``1e7`` gives ``cond(D)`` 6e13) left
    the Hamiltonian pencil without a pair of crossings and a false interval certified.
    """
    if np.count_nonzero(dmat - np.diag(np.diagonal(dmat))) == 0:
        mags = np.abs(np.diagonal(dmat))
        return bool(mags.min() > 0 and mags.max() < _MAX_DIAGONAL_SPREAD * mags.min())
    return bool(np.linalg.cond(dmat) < _MAX_COND)


def fdi_values(responses, mult: Multiplier, beta):
    """``lambda_max(Phi(w))`` for a stack of responses ``M(jw)`` (shape ``(k, n, m)``)."""
    m = mult.scale_responses(responses)
    mh = dagger(m)
    my = mh @ mult.y
    phi = mh @ mult.x @ m - 1j * my + 1j * dagger(my) - beta**2 * mult.z
    return np.linalg.eigvalsh(0.5 * (phi + dagger(phi)))[..., -1]


def continuous_equivalent(a, b, c, d, dt):
    """Bilinear map of a discrete model: ``Mc(j nu) = Md(exp(j theta))``, ``nu = tan(theta/2)``."""
    if not dt:
        return a, b, c, d
    n = a.shape[0]
    if n == 0:
        return a, b, c, d
    ipa = np.eye(n) + a
    k = np.linalg.solve(ipa, np.hstack([a - np.eye(n), b]))
    ac, bc = k[:, :n], np.sqrt(2.0) * k[:, n:]
    cc = np.sqrt(2.0) * np.linalg.solve(ipa.T, c.T).T
    dc = d - c @ np.linalg.solve(ipa, b)
    _record_map_error(ac, (a, b, c, d))
    return ac, bc, cc, dc


# Equivalents formed by :func:`continuous_equivalent` (keyed by their ``A``), with the
# discrete data they came from, for :func:`bilinear_map_errors`.
_MAP_ERRORS: dict = {}


def _record_map_error(ac, discrete):
    if len(_MAP_ERRORS) >= 16:
        _MAP_ERRORS.pop(next(iter(_MAP_ERRORS)))
    _MAP_ERRORS[id(ac)] = (ac, discrete, None)


def bilinear_map_errors(ac, nu, equivalent_response):
    """Entrywise bound on ``|Md(z) - Mc(j nu)|``, ``z = (1 + j nu) / (1 - j nu)``, for the
    rounded equivalent ``Mc`` of :func:`continuous_equivalent` whose ``A`` is ``ac``.

    The equivalent is formed by solves with ``I + A``: a discrete pole near ``z = -1``
    makes them ill-conditioned (relative error about ``eps / (1 + z)``), and the
    response of the rounded equivalent then differs from the discrete one by far more
    than the error bound of its own evaluation (``1e-3`` relative at a pole
    ``2e-14`` from ``-1``).  The difference is measured a posteriori: ``Md(z)`` by a
    refined solve with ``z I - A`` (the refinement and error bound of
    :class:`.checked_response.CheckedResponse`, at ``z`` instead of ``j w``), ``Mc(j nu)``
    by ``equivalent_response(nu) -> (responses, error bounds)`` (the checked response
    of the rounded equivalent); the bound is the difference plus both errors.  ``None``
    when ``ac`` is not the ``A``
    of a recorded equivalent (a continuous model).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.checked_response import CheckedResponse
    >>> data = (np.array([[0.5]]), np.eye(1), np.eye(1), np.zeros((1, 1)))
    >>> equiv = continuous_equivalent(*data, 1.0)
    >>> err = bilinear_map_errors(equiv[0], np.array([0.0, 1.0]), CheckedResponse(equiv))
    >>> bool(err.max() < 1e-13)
    True
    """
    got = _MAP_ERRORS.get(id(ac))
    if got is None or got[0] is not ac:
        return None
    _, (a, b, c, d), modes = got
    if modes is None:
        modes = CheckedResponse((a, b, c, d))
        _MAP_ERRORS[id(ac)] = (ac, got[1], modes)
    nu = np.asarray(nu, float).ravel()
    K = nu.size
    err = np.full((K,) + d.shape, np.inf)
    with np.errstate(all="ignore"):
        # at the exact image of nu (a double-double point): the rounded z moved Md by
        # eps / d against a pole d from the circle (9 % at a pole 1e-15 from z = -1)
        md, tau, size = _refined_on_circle(modes, nu)
        direct = (tau * size)[:, None, :] * modes.row_norms[None, :, None]
        mc, fast = equivalent_response(nu)
        # 1 + a relative 1e-12: the rounding of the difference and of its terms' sums
        diff = np.abs(md - mc) * (1 + 1e-12) + 1e-12 * _EPS * (np.abs(md) + np.abs(mc))
        total = diff + direct + fast
        err = np.where(np.isfinite(total), total, np.inf)
    return err


# A finite frequency ``nu`` of the bilinear equivalent maps back below the Nyquist
# frequency ``pi / dt`` by at least this relative margin (four times the sweeps' gap
# tolerance of 16 eps): ``2 arctan(nu) / dt`` rounds to ``pi / dt`` for ``nu`` above
# about 1e16, and within 16 eps of it for ``nu`` above about 1e14, while ``z = -1``
# (``nu = inf``) is a point of its own, where a real ``mu`` can peak alone.
_TOP_MARGIN = 64 * _EPS


def _refined_on_circle(modes, nu):
    """``Md`` at ``z = (1 + j nu) / (1 - j nu)`` (exact image, :mod:`.circle_points`) with
    the error terms of :class:`.checked_response.CheckedResponse` (``tau``, ``size``)."""
    z, z_lo = circle_points(nu)
    md, acc, size = refined_at_points(modes.a, modes.b, modes.c, modes.d, z, z_lo)
    with np.errstate(invalid="ignore"):
        tau = _ESTIMATE_SAFETY * acc + _PRODUCT_ROUNDING * _EPS
        tau = np.where(np.isfinite(tau) & np.isfinite(size), tau, np.inf)
    return md, tau, size


def to_model_frequency(nu, dt):
    """Map a frequency of the continuous equivalent back to rad/s.

    ``nu = inf`` (``z = -1``) maps to ``pi / dt``; every finite ``nu`` maps at least
    ``_TOP_MARGIN`` (relative) below it, so that an interval ending at a finite ``nu``
    never reaches (or closes a sweep's gap up to) ``z = -1``, which only an interval
    checked there reaches.

    Examples
    --------
    >>> import numpy as np
    >>> float(to_model_frequency(1.0, 2.0)) == np.pi / 4
    True
    >>> float(to_model_frequency(np.inf, 1.0)) == np.pi
    True
    >>> bool(to_model_frequency(1e300, 1.0) < np.pi * (1 - 16 * np.finfo(float).eps))
    True
    """
    if not dt:
        return nu
    nu = np.asarray(nu, float)
    top = np.pi / dt
    got = np.minimum(2.0 * np.arctan(nu) / dt, top * (1.0 - _TOP_MARGIN))
    got = np.where(np.isinf(nu), top, got)
    return got if got.ndim else got[()]


def to_equivalent_frequency(w, dt):
    """Map a frequency in rad/s to the continuous equivalent, ``nu = tan(w dt / 2)``.

    The Nyquist frequency (``w >= pi / dt`` as rounded, or ``w dt >= pi``) maps to ``nu = inf``,
    i.e. ``z = -1`` exactly: ``tan`` of the rounded ``pi / 2`` is ``1.6e16``, a point
    ``1e-16`` away from ``z = -1``, which misses a real ``mu`` peak there (on a pole
    ``5.6e-14`` from ``-1``, ``|M| = 1.708`` at ``z = -1`` but ``M`` is complex, with
    a real ``mu`` of 0, everywhere else).

    Examples
    --------
    >>> import numpy as np
    >>> round(float(to_equivalent_frequency(np.pi / 2, 1.0)), 12)
    1.0
    >>> float(to_equivalent_frequency(np.pi, 1.0))
    inf
    """
    if not dt:
        return w
    w = np.asarray(w, float)
    half = np.clip(w * dt / 2.0, 0.0, np.pi / 2)
    with np.errstate(all="ignore"):
        return np.where((w >= np.pi / dt) | (w * dt >= np.pi), np.inf, np.tan(half))


def _pencil_eigenvalues(a, b, c, d, pi):
    """Finite zeros of ``Phi(s) = [M(s); I]^~ Pi [M(s); I]`` (continuous-time data).

    The states are balanced first (a diagonal similarity by powers of 2, exact): a
    loop closed through a high-gain controller has state coordinates spread over
    twenty orders of magnitude, and the unbalanced pencil then loses every crossing.
    With a well-conditioned ``D^H Pi D`` term the pencil is reduced to a
    Hamiltonian matrix, whose eigenvalue routine balances it again.
    """
    n, mw = b.shape
    if n == 0:
        return np.zeros(0, complex)
    _, (scal, _perm) = sla.matrix_balance(a, permute=False, separate=True)
    a = a * scal[None, :] / scal[:, None]
    b = b / scal[:, None]
    c = c * scal[None, :]
    cc = np.vstack([c, np.zeros((mw, n))])
    dc = np.vstack([d, np.eye(mw)])
    q = dagger(cc) @ pi @ cc
    s = dagger(cc) @ pi @ dc
    r = dagger(dc) @ pi @ dc
    big_a = np.block([[a, np.zeros((n, n))], [q, -dagger(a)]])
    big_b = np.vstack([b, s])
    big_c = np.hstack([dagger(s), -dagger(b)])
    if np.linalg.cond(r) < 1e8:
        return np.linalg.eigvals(big_a - big_b @ np.linalg.solve(r, big_c))
    pencil_a = np.block([[big_a, big_b], [big_c, r]])
    pencil_e = sla.block_diag(np.eye(2 * n), np.zeros((mw, mw)))
    lam = sla.eigvals(pencil_a, pencil_e)
    return lam[np.isfinite(lam)]


def _reciprocal_system(a, b, c, d):
    """State-space data of ``M(1/s)``, or None when ``A`` is singular to working precision.

    ``M(1/s) = (D - C A^-1 B) + (-C A^-1) (s I - A^-1)^-1 (A^-1 B)``.  Its feedthrough is
    ``M(0)``, formed once by a solve; in ``(A, B, C, D)`` it is the difference of ``D``
    and ``C A^-1 B``, which for a scaled certificate model can both be 1e6 times larger
    than ``M(0)`` (a pole far to the left cancelling the feedthrough at low frequency).
    """
    n = a.shape[0]
    if n == 0 or not np.linalg.cond(a) < _MAX_COND:
        return None
    try:
        ainv = np.linalg.solve(a, np.hstack([np.eye(n), b]))
    except np.linalg.LinAlgError:
        return None
    ai, aib = ainv[:, :n], ainv[:, n:]
    return ai, aib, -c @ ai, d - c @ aib


def _candidate_crossings(a, b, c, d, pi):
    """Candidate crossing frequencies ``w > 0`` of ``Phi`` (continuous-time data), sorted.

    The imaginary parts of the finite zeros of ``Phi(s)`` and of ``Phi(1/s)``, the
    latter mapped back (``s = 1/lambda``) below the geometric mean of the smallest and
    largest pole moduli of ``M``.  A zero of the pencil is computed with an absolute
    error of about ``eps`` times the norm of the pencil; when ``D`` is large (its
    entries cancelled at low frequency by ``C (sI - A)^-1 B``) that error reaches the
    low crossings themselves, which then scatter off the axis by amounts that the last
    bits of the data decide.  The pencil of ``Phi(1/s)`` carries ``M(0)`` as its
    feedthrough and places the low crossings far out, with a small relative error.
    Extra candidates only split segments, each of which is checked (so every zero of
    ``Phi(s)`` is kept; those of ``Phi(1/s)`` only where they are the accurate ones,
    as each candidate costs probes).
    """
    lam = _pencil_eigenvalues(a, b, c, d, pi)
    w = [np.abs(lam.imag)]
    rec = _reciprocal_system(a, b, c, d)
    if rec is not None:
        try:  # an overflowing pencil (a pole near 0) gives no extras: those of Phi(s) stand
            with np.errstate(all="ignore"):
                mu = _pencil_eigenvalues(*rec, pi)
        except (np.linalg.LinAlgError, ValueError):
            mu = np.zeros(0, complex)
        mu = mu[np.isfinite(mu) & (mu != 0)]
        poles = np.abs(np.linalg.eigvals(a))  # nonzero: A is invertible here
        w.append(np.abs((1.0 / mu).imag)[np.abs(1.0 / mu) < np.sqrt(poles.min() * poles.max())])
    w = np.concatenate(w)
    w = np.sort(w[np.isfinite(w) & (w > 0)])
    # duplicates within 1e-14 relative: an absolute rounding would move the candidates
    # below about 1e-5 rad/s by more than the margin _EDGE
    keep = np.ones(w.size, bool)
    keep[1:] = np.diff(w) > 1e-14 * w[1:]
    return w[keep]


def certified_interval(sysdata, mult: Multiplier, beta, w0, evaluate):
    """Largest interval around ``w0`` on which the multiplier certifies ``mu <= beta``.

    The imaginary parts of all eigenvalues of the (balanced, scaled) Hamiltonian
    pencil, and of the pencil of ``M(1/s)`` mapped back (accurate at low frequency),
    are candidate crossings.  Every segment between two of them is checked
    at three interior points (its inertia is constant, so they agree unless the
    pencil lost a crossing, in which case the segment counts as violated).
    Segments are joined across a crossing only where the inequality holds at it and
    just either side of it; the ends are pulled in from their crossings by the
    relative margin ``_EDGE`` (at a real-mu discontinuity the intervals on either
    side both end at one frequency: the margin leaves the gap that exposes it).
    Where the inequality fails at such an end (the pencil placed the crossing off by
    more than the margin) the end is located by bisection between it and the
    segment's first probe, and is again a point where the inequality was evaluated.
    No interval enters the window around a pole of ``M`` within ``_NEAR_AXIS`` of the
    axis (:func:`_unresolved_windows`): there the pencil does not resolve the crossings.

    Parameters
    ----------
    sysdata : tuple
        ``(a, b, c, d)`` of the continuous(-equivalent) model of ``M``.
    mult : Multiplier
    beta : float
    w0 : float
        Frequency (of the continuous equivalent) where the certificate holds.
    evaluate : callable
        ``evaluate(frequencies) -> responses`` of ``M`` (continuous equivalent).

    Returns
    -------
    (lo, hi) : floats, ``lo <= w0 <= hi``; ``hi`` may be ``inf``.  ``None`` when
    the inequality does not hold at ``w0`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.analysis.freqresp import freqresp
    >>> sysdata = (-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1)))
    >>> mult = Multiplier(np.eye(1), np.zeros((1, 1)), np.eye(1))  # |M(jw)| <= beta
    >>> lo, hi = certified_interval(sysdata, mult, 0.5, 3.0, lambda w: freqresp(sysdata, w))
    >>> round(lo, 6), hi  # |1 / (jw + 1)| <= 0.5 for w >= sqrt(3)
    (1.732051, inf)
    """
    a, b, c, d = sysdata
    # Every eigenvalue is a candidate: a real-mu peak isolated at one frequency is a
    # pair of crossings so close together that they come out off the axis.
    cand = _candidate_crossings(*mult.scale_system(a, b, c, d), mult.pi(beta))
    windows = _unresolved_windows(a)
    if windows.size:
        cand = np.unique(np.concatenate([cand, windows.ravel()]))
        cand = cand[cand > 0]
    checked = _Checked(_checked_evaluation(sysdata), evaluate)
    got = _interval_between(cand, mult, beta, w0, checked, d, probes=3, windows=windows)
    return (w0, w0) if got == "mixed" else got


_CHECKED: dict = {}


class _Checked:
    """The evaluations of a certified interval: the inequality is decided on responses
    with an error bound (``checked``, a :class:`.checked_response.CheckedResponse`);
    ``fast`` (the sweep's evaluation) only guides the bisection of :func:`_edge_point`."""

    def __init__(self, checked, fast):
        self.checked, self.fast = checked, fast

    def __call__(self, w):
        return self.checked(w)

    def upper_bounds(self, w, mult, beta):
        return self.checked.upper_bounds(w, mult, beta, self.fast)


def _checked_evaluation(sysdata):
    """``w -> (M(jw), error bound)`` of :class:`.checked_response.CheckedResponse` for
    ``sysdata``, kept for the last few models (a sweep checks one model many times)."""
    key = tuple(id(x) for x in sysdata)
    got = _CHECKED.get(key)
    if got is None or any(x is not y for x, y in zip(got.sysdata, sysdata, strict=True)):
        if len(_CHECKED) >= 8:
            _CHECKED.pop(next(iter(_CHECKED)))
        got_map = _MAP_ERRORS.get(id(sysdata[0]))
        extra = got_map is not None and got_map[0] is sysdata[0] and sysdata[0].shape[0] > 0
        got = _CHECKED[key] = (_MappedCheckedResponse if extra else CheckedResponse)(sysdata)
    return got


class _MappedCheckedResponse(CheckedResponse):
    """:class:`.checked_response.CheckedResponse` of a continuous equivalent of a discrete
    model, whose error bounds also count the rounding of the bilinear map
    (:func:`bilinear_map_errors`): the responses are those of the rounded equivalent,
    the certificate is claimed for the discrete model."""

    def _map_errors(self, omega):
        return bilinear_map_errors(
            self.sysdata[0], omega, lambda nu: CheckedResponse.__call__(self, nu)
        )

    def fast_errors(self, omega):
        omega = np.asarray(omega, float).ravel()
        return super().fast_errors(omega) + self._map_errors(omega)

    def __call__(self, omega, max_steps=None):
        omega = np.asarray(omega, float).ravel()
        resp, err = super().__call__(omega, max_steps=max_steps)
        return resp, err + self._map_errors(omega)


def _unresolved_windows(a):
    """Frequency windows ``(lo, hi)`` (rows) around the poles of ``M`` nearly on the axis.

    Near a pole ``p`` with ``|Re p| <= _NEAR_AXIS |Im p|`` the multiplier's inequality can
    fail on a sliver far narrower than the error of the pencil's eigenvalues: a real-mu
    peak on a resonance whose pole lies ``1e-10`` (relative) from the axis fails on
    ``2e-9`` of the axis, or on less than ``1e-10``, while the pencil places the pair of
    crossings around it as a cluster ``1e-8`` off the axis and ``4e-8`` wide (a double
    eigenvalue, perturbed by ``sqrt(eps)``), and the sliver hid in a segment whose probes
    all held.  No interval is extended into such a window, whose half-width is
    ``_WINDOW |Im p| + _WINDOW_DAMPING |Re p|``: a point inside it certifies itself only.
    """
    if a.shape[0] == 0:
        return np.zeros((0, 2))
    poles = np.linalg.eigvals(a)
    wp = np.abs(poles.imag)
    light = (wp > 0) & (np.abs(poles.real) <= _NEAR_AXIS * wp)
    if not light.any():
        return np.zeros((0, 2))
    half = _WINDOW * wp[light] + _WINDOW_DAMPING * np.abs(poles.real[light])
    return np.column_stack([np.maximum(wp[light] - half, 0.0), wp[light] + half])


def _interval_between(cross, mult, beta, w0, evaluate, d, probes, batch=2, windows=None):
    """The interval of :func:`certified_interval` for the candidate crossings ``cross``.

    ``"mixed"`` when the probes of the segment of ``w0`` disagree (a missed crossing), or
    when an end next to a failing crossing cannot be placed on the outer side of ``w0``
    (candidates misplaced by more than the margin): only ``w0`` is then claimed.
    The chain of segments is walked outward from the one of ``w0``, ``batch`` segments
    per side and evaluation: a segment's probes and those of the crossing joining it
    are evaluated only when the chain reaches it (most intervals span one or two of the
    tens of segments, and the inequality's evaluations are the cost of a re-check).
    A segment inside one of ``windows`` (rows ``(lo, hi)``, see :func:`_unresolved_windows`)
    counts as violated whatever its probes say.
    """
    edges = np.concatenate([[0.0], cross, [np.inf]])
    seg_lo, seg_hi = edges[:-1], edges[1:]
    fr = (np.arange(probes) + 1.0) / (probes + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        finite_hi = np.where(np.isinf(seg_hi), np.maximum(100 * seg_lo, seg_lo + 100.0), seg_hi)
        # log-spaced inside a segment away from 0, linear in the first one
        geo = seg_lo[:, None] * (finite_hi / np.where(seg_lo > 0, seg_lo, 1.0))[:, None] ** fr
        lin = finite_hi[:, None] * fr
        inner = np.where((seg_lo > 0)[:, None], geo, lin)
    nseg = len(seg_lo)
    blocked = np.zeros(nseg, bool)
    if windows is not None and len(windows):
        mid = np.where(np.isinf(seg_hi), np.inf, 0.5 * (seg_lo + seg_hi))
        for lo_w, hi_w in windows:
            blocked |= (mid > lo_w) & (mid < hi_w)

    def holds(w):
        return _holds(evaluate, np.asarray(w, float), mult, beta)

    k = min(int(np.searchsorted(seg_hi, w0, side="left")), nseg - 1)
    first = holds(np.concatenate([[w0, 0.0], inner[k]]))
    at_w0, at_zero = first[0], first[1]
    if not at_w0:
        return None
    if not first[2:].all() or blocked[k]:
        return "mixed"
    crossing = {}  # crossing index -> (below, at, above): the inequality just below, at, above

    def walk(step):
        """The last segment of the chain from ``k`` in direction ``step`` (-1 or +1)."""
        j = k
        while 0 <= j + step < nseg:
            segs = np.arange(j + step, j + step * (batch + 1), step)
            segs = segs[(segs >= 0) & (segs < nseg)]
            joins = segs if step < 0 else segs - 1  # the crossing between seg and its inner side
            c = cross[joins]
            got = holds(np.concatenate([inner[segs].ravel(), c * (1 - _EDGE), c, c * (1 + _EDGE)]))
            seg_ok = got[: segs.size * probes].reshape(segs.size, probes).all(axis=1)
            seg_ok &= ~blocked[segs]
            below, at, above = got[segs.size * probes :].reshape(3, segs.size)
            for i, seg in enumerate(segs):
                crossing[int(joins[i])] = (below[i], at[i], above[i])
                if not (seg_ok[i] and below[i] and at[i] and above[i]):
                    return j
                j = int(seg)
        return j

    lo_k, hi_k = walk(-1), walk(+1)

    def edge(ok, bad, good, side):
        """The verified end next to a crossing on ``side`` (+1 above ``w0``, -1 below);
        None when it cannot be placed: ``bad`` failed on the inner side of the probe
        ``good`` (two candidates closer than the margin), or the end found lies on the
        inner side of ``w0`` (a violation between the end and ``w0``)."""
        if ok:
            return bad
        if not (bad - good) * side > 0:
            return None
        end = _edge_point(bad, good, mult, beta, evaluate)
        return end if (end - w0) * side >= 0 else None

    if lo_k == 0:
        lo = edge(at_zero, 0.0, inner[0, 0], -1)
    else:
        lo = edge(crossing[lo_k - 1][2], cross[lo_k - 1] * (1 + _EDGE), inner[lo_k, 0], -1)
    if lo is None:
        return "mixed"
    lo = min(lo, w0)
    if hi_k == nseg - 1:
        if isinstance(evaluate, _Checked):  # the feedthrough with its error bound
            at_inf = fdi_upper_bounds(*evaluate.checked(np.array([np.inf])), mult, beta)[0]
        else:
            at_inf = fdi_values(d[None], mult, beta)[0]
        if at_inf < 0:
            return (float(lo), np.inf)
        # The strict inequality must also hold at infinity (the feedthrough).
        if hi_k == k:
            return (float(lo), float(w0))
        hi_k -= 1
    hi = edge(crossing[hi_k][0], cross[hi_k] * (1 - _EDGE), inner[hi_k, -1], +1)
    if hi is None:
        return "mixed"
    return (float(lo), float(max(hi, w0)))


def _edge_point(bad, good, mult, beta, evaluate, rtol=1e-12, max_iter=60):
    """Point next to ``bad`` where the inequality holds, by bisection towards ``good``.

    ``good`` holds the inequality and no candidate crossing lies strictly between the
    two, but at ``bad`` (a candidate crossing pulled in by ``_EDGE``) it does not hold:
    the pencil placed the crossing off by more than ``_EDGE`` (its eigenvalues carry
    an error of about ``eps`` times their condition number).  The single sign change
    between them is bracketed down to ``rtol`` and the holding side returned, so the
    end is verified by an evaluation instead of falling back to the probe ``good``.
    With checked evaluations (:class:`_Checked`) the bracket is narrowed on the sweep's
    fast responses, and points stepped back from its holding end towards ``good``
    (relative steps 1e-9 .. 1e-1 of the bracket) are checked; the nearest that holds
    is the end (``good`` when none does).
    """
    if isinstance(evaluate, _Checked) and evaluate.fast is not None:
        fast_good, fast_bad = good, bad
        for _ in range(max_iter):
            if abs(fast_good - fast_bad) <= rtol * abs(fast_good):
                break
            mid = 0.5 * (fast_bad + fast_good)
            if fdi_values(evaluate.fast(np.array([mid])), mult, beta)[0] < 0:
                fast_good = mid
            else:
                fast_bad = mid
        if fast_good == good:
            return good
        # points stepped back from the fast end towards ``good``, one batch (the end
        # itself holds to within rounding only, too close to decide with any error bound)
        steps = np.array([1e-9, 1e-7, 1e-5, 1e-3, 1e-1])
        tries = fast_good + (good - fast_good) * steps
        ok = np.flatnonzero(_holds(evaluate, tries, mult, beta))
        return float(tries[ok[0]]) if ok.size else good
    for _ in range(max_iter):
        if abs(good - bad) <= rtol * abs(good):
            break
        mid = 0.5 * (bad + good)
        if _holds(evaluate, np.array([mid]), mult, beta)[0]:
            good = mid
        else:
            bad = mid
    return good


def _holds(evaluate, w, mult, beta):
    """Whether the inequality holds at ``w`` for the exact responses: ``evaluate`` gives
    ``(responses, error bounds)`` (:class:`.checked_response.CheckedResponse`), or
    responses alone, taken as exact."""
    if isinstance(evaluate, _Checked):
        return evaluate.upper_bounds(w, mult, beta) < 0
    got = evaluate(w)
    responses, errors = got if isinstance(got, tuple) else (got, np.zeros(np.shape(got)))
    return fdi_upper_bounds(responses, errors, mult, beta) < 0
