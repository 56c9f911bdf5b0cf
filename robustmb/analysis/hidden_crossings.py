"""Eigenvalue clusters that rounding may have moved off the axis: where a level-set test
proves nothing.

The level-set test of :func:`.norms.hinfnorm` reads crossings of a level from the
imaginary-axis (unit-circle) eigenvalues of a Hamiltonian matrix or pencil.  A defective
cluster of ``m`` eigenvalues is scattered by rounding over about ``eps^(1/m) ||H||``: for
identical lightly damped modes in series the level changes ``H`` by less than that, and a
crossing can hide off the axis.  :class:`ClusterScreen` finds such clusters (a cheap screen,
then eigenvector-based rounding radii), returns the frequency windows where the test is
inconclusive, and maximises the response there with refined solves, also around clusters
of poles.  The same eigenvector-based radii expose a second blind spot, of stiff models:
isolated eigenvalues whose rounding (``||H||`` set by the fast poles) reaches the axis.
Those windows are first put to the level-set test of the inverted model ``G(1/s)``
(:mod:`.inverted_level`), whose slow modes are its large ones: where it decides them
with its own rounding radii, the level is proved.  Otherwise the response is maximised
on a logarithmic grid and, if the test stays inconclusive, no upper bound is certified.
Slow eigenvalues inside the crossing band are among them when their radius exceeds the
band and a tenth of ``|lambda|``: evaluating the response at their imaginary parts then
locates nothing.  The attained value is
re-evaluated by refined solves, with the ends of the axis (``z = +-1``, where poles
crowd the plain evaluation's accuracy away), before a level is tested from it.  It is a
mixin of the level-set search, whose matrices and responses it uses.

A second blind spot is the float grid of frequencies (angles): poles closer to the
imaginary axis (unit circle) than about ``sqrt(m / tol) spacing(w) / 3`` for ``m`` of them
curve the response so much that its peak between evaluable points may exceed every sample
by more than ``tol`` (:func:`unresolved_circle_poles`); no upper bound is certified there.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from robustmb.analysis._norm_common import _AXIS_RTOL, _AXIS_SQRT_FACTOR, _EPS
from robustmb.analysis._peak_polish import parabolic_peak
from robustmb.analysis.balancing import pole_bands
from robustmb.analysis.inverted_level import InvertedLevelTest, meets
from robustmb.analysis.norms_stability import (
    _eigenvalues,
    cluster_rounding,
    eigenvalue_rounding,
    pole_discs,
)
from robustmb.analysis.refined_response import refined_response
from robustmb.errors import warn

# the loosest relative gap to which a level the test left undecided is relaxed
_COARSEST_RTOL = 1e-6

__all__ = ["ClusterScreen", "discs_resolve_peaks", "merged_windows", "unresolved_circle_poles"]


class ClusterScreen:
    """Windows where a level-set test may have missed a crossing, and a search there.

    Uses the host's ``_tested`` (the last test: level, kind, eigenvalues, scale),
    ``discrete``, ``real``, ``dt``, ``A``, ``similar`` (matrices with the eigenvalues of
    ``A``), ``B``, ``C``, ``direct``, ``poles``, ``sigma``, ``_fold``, ``_external``,
    ``_hamiltonian``, ``_continuous_pencil`` and ``_discrete_pencil``.
    """

    def _hidden_crossings(self, level):
        """Windows ``(centre, half_width)`` (internal frequencies) where the test at
        ``level`` may have missed a crossing; empty when it is conclusive.

        A defective cluster of ``m`` eigenvalues is scattered by rounding over about
        ``eps^(1/m) ||H||`` (for identical lightly damped modes in series the level
        enters ``H`` below ``eps ||H||`` and the scatter swamps the crossings).  The cheap
        screen :func:`.norms_stability.cluster_rounding` (clusters of three or more:
        coalescing pairs are covered by the ``sqrt(eps)`` band) selects the cases where
        the eigenvectors' estimate ``10 eps ||H|| kappa_i`` is computed; an eigenvalue
        within that radius of the axis (unit circle) may be a crossing anywhere within
        the radius.
        """
        if self._tested is None or self._tested[0] != level:
            return []
        _, kind, eigenvalues, scale = self._tested
        eigenvalues = eigenvalues[np.isfinite(eigenvalues)]
        if eigenvalues.size < 3:
            return []
        distance = self._boundary_distance(eigenvalues)
        # the screen's radius is at most eps^(1/8) scale: farther eigenvalues are clear
        if not np.any(distance <= 2.0 * _EPS**0.125 * scale):
            return []
        screen = cluster_rounding(eigenvalues, scale)
        suspect = (screen > 1.001 * np.sqrt(_EPS) * scale) & (distance <= 2.0 * screen)
        if not suspect.any():
            return []
        try:
            eigenvalues, radius = self._eigenvalue_radii(kind, level, scale)
        except (np.linalg.LinAlgError, ValueError):
            return [
                (float(c), float(2.0 * r)) for c, r in self._windows(eigenvalues, screen, suspect)
            ]
        distance = self._boundary_distance(eigenvalues)
        # a cluster at its own rounding scale: three or more eigenvalues within twice the
        # radius (an isolated ill-conditioned eigenvalue of a stiff model is not one), and
        # a local one: a radius beyond a tenth of |lambda| (the slow eigenvalues of a
        # stiff model, ||H|| >> |lambda|) locates nothing; those are screened by
        # _rounding_blind_spots instead
        gaps = np.abs(eigenvalues[:, None] - eigenvalues[None, :])
        clustered = np.sum(gaps <= 2.0 * radius[:, None], axis=1) >= 3
        local = radius <= 0.1 * np.abs(eigenvalues)
        return self._windows(eigenvalues, radius, clustered & local & (distance <= radius))

    # set when the response near eigenvalues the test took as candidate crossings was
    # found above a level the test had passed: the test is no proof on this model
    _missed = False

    def _rounding_blind_spots(self, level):
        """Windows ``(centre, half_width)`` of eigenvalues of the test at ``level`` whose
        rounding radius ``10 eps ||M|| kappa_i`` reaches the axis (unit circle), clustered
        or not; empty when every eigenvalue is farther from it than its radius.

        The slow eigenvalues of a stiff model's level-set matrix carry absolute errors
        of order ``eps ||H|| kappa_i``, with ``||H||`` set by the fast poles; where the
        response is also flat near the level (a peak barely above ``sigma_max(D)``),
        ``kappa_i`` is large as well and a crossing pair can be moved far off the axis:
        "no crossing" then proves nothing.  The same happens without stiffness: two
        slow, lightly damped poles of a complex model (``-4.5e-8 -+ 3e-7 j`` next to
        ``-1.2e-5 + 1.2e-4 j``, ``||H|| ~ 1``) give the Hamiltonian at a level just
        above the peak eigenvalues with ``kappa_i ~ 1e10``, scattered by ``1e-5``, far
        beyond the ``sqrt(eps)`` band.  So every continuous-time test is examined (the
        radii cost one eigendecomposition with eigenvectors per level examined); the
        discrete-time test is not.  Once the test has
        been caught missing a peak (``_missed``), the eigenvalues of
        :meth:`_unlocated_candidates` are blind spots too.
        """
        return self._open_windows(level, with_unlocated=self._missed)

    def _open_windows(self, level, with_unlocated):
        """Windows ``(centre, radius)`` of the eigenvalues whose rounding reaches the axis
        outside the crossing band and, if ``with_unlocated``, of the candidates inside it
        that locate nothing (:func:`_unlocated`); ``[(0, inf)]`` without radii."""
        radii = self._band_radii(level)
        if radii is None:
            return []
        if not radii:
            # the radii are unavailable: nothing is proved anywhere
            return [(0.0, np.inf)]
        eigenvalues, radius, distance, band = radii
        # eigenvalues inside the crossing band were taken as candidate crossings and the
        # response was evaluated there (a pair coalescing at a peak just below the level)
        selected = (distance > band) & (distance <= radius)
        if with_unlocated:
            selected |= _unlocated(eigenvalues, radius, distance, band)
        return self._windows(eigenvalues, radius, selected)

    def _unlocated_candidates(self, level):
        """Windows ``(centre, half_width)`` around eigenvalues inside the crossing band
        whose rounding radius exceeds the band and a tenth of ``|lambda|``.

        They were taken as candidate crossings and the response was evaluated at their
        imaginary parts, which locates nothing when the radius dwarfs ``|lambda|`` (the
        slow eigenvalues of a stiff model, radius and band set by the fast poles'
        ``||H||``): a crossing pair at ``+-j w`` is split into a real pair near ``+-w``
        by a perturbation of size about ``w``.  The windows reach ``4 |lambda|`` (at most
        the radius) on either side; the caller searches the response there and, if it
        exceeds the level the test passed, sets ``_missed``.
        """
        radii = self._band_radii(level)
        if not radii:
            return [] if radii is None else [(0.0, np.inf)]
        eigenvalues, radius, distance, band = radii
        half = np.minimum(radius, 4.0 * np.abs(eigenvalues))
        return self._windows(eigenvalues, half, _unlocated(eigenvalues, radius, distance, band))

    def _undecided_windows(self, level):
        """Windows ``(centre, radius)`` of every eigenvalue of the test at ``level`` that
        the test does not decide: rounding reaching the axis outside the crossing band
        (:meth:`_rounding_blind_spots`) or a candidate inside it that locates nothing
        (:meth:`_unlocated_candidates`), each over its full rounding radius."""
        return self._open_windows(level, with_unlocated=True)

    _inverted = None
    # the relative accuracy of the local searches (the host's tol, set by its run)
    _tol = 1e-8

    def _inverted_verdict(self, level):
        """Whether the level-set test of the inverted model ``G(1/s)`` decides the
        windows the test at ``level`` leaves open (:mod:`.inverted_level`):
        ``("proved", -inf, nan)``, ``("refuted", value, frequency)`` with an accurately
        evaluated ``value > level``, or ``("undecided", -inf, nan)``.

        The windows are proved free of crossings when no window of the inverted test
        meets them, or when those that do locate their crossings and the accurate
        response at those crossings, and at the midpoints between consecutive ones, stays
        at or below ``level`` (the level-set iteration's own rule for its candidates),
        unless a pole lies closer to those windows than ten times their width
        (:meth:`_resonances_within`): a resonance narrower than the windows fits between
        the evaluations, so there the windows are searched, which refutes the level or
        leaves it undecided (a 2-state model with poles ``-3.5e-9 +- 5.04e-4 j`` had a
        level ``6.5e-11`` below its peak "proved" by evaluations ``1e-13`` off it)."""
        undecided = ("undecided", -np.inf, np.nan)
        windows = self._undecided_windows(level)
        if not windows:
            return ("proved", -np.inf, np.nan)
        if self.discrete:
            return undecided
        if self._inverted is None:
            self._inverted = InvertedLevelTest(self.A, self.B, self.C, self.D, real=self.real)
        intervals = self._inverted.windows(level)
        if intervals is None:
            return undecided
        touching = meets(intervals, windows, self.real)
        if not touching:
            return ("proved", -np.inf, np.nan)
        if not all(located for _, _, located, _ in touching):
            return undecided
        near = self._resonances_within(touching)
        if near:
            # a pole closer to a window than its width: the response can rise and fall
            # by more than its own size between the located crossings, so evaluations
            # there decide nothing; a search may refute the level, never prove it
            spans = [(0.5 * (low + high), 0.5 * (high - low)) for low, high, *_ in touching]
            value, at = self._search_windows(spans + near, self._tol)
            if value > level:
                return ("refuted", float(value), float(at))
            return undecided
        crossings = self._fold(np.array([omega for *_, omega in touching]))
        points = self._fold(np.concatenate([crossings, 0.5 * (crossings[1:] + crossings[:-1])]))
        values = self._accurate_sigma(points)
        best = int(np.argmax(values))
        if not np.all(np.isfinite(values)):
            return undecided
        if values[best] <= level:
            return ("proved", -np.inf, np.nan)
        return ("refuted", float(values[best]), float(points[best]))

    def _resonances_within(self, intervals):
        """Windows ``(centre, half_width)`` around the poles closer to one of the
        ``omega`` intervals ``(low, high, ...)`` than ten times its width (distance from
        ``j omega`` in the interval to the pole); empty when there is none.

        Evaluating the response at a located crossing and at the midpoints between
        crossings decides an interval only where the response varies slowly across it.
        Near a pole at distance ``r`` the response changes by about ``width / r`` of its
        size across the interval: for a lightly damped pole inside it (``r`` its damping,
        far below the width) the whole resonance peak fits between two evaluations.
        """
        poles = _eigenvalues(self.A)
        if poles.size == 0:
            return []
        centre = np.abs(poles.imag) if self.real else poles.imag
        damping = np.abs(poles.real)
        selected = np.zeros(poles.size, dtype=bool)
        for low, high, *_ in intervals:
            width = high - low
            if not np.isfinite(width):
                return [(float(c), float(4.0 * d)) for c, d in zip(centre, damping, strict=True)]
            gap = np.maximum(np.maximum(low - centre, centre - high), 0.0)
            selected |= np.hypot(gap, damping) <= 10.0 * width
        return [
            (float(c), float(max(4.0 * d, _EPS * abs(c))))
            for c, d in zip(centre[selected], damping[selected], strict=True)
        ]

    def _band_radii(self, level):
        """``(eigenvalues, radius, distance, band)`` of the test at ``level``; None where
        the screen does not apply, ``()`` where the radii are unavailable."""
        if self._tested is None or self._tested[0] != level:
            return None
        _, kind, _, scale = self._tested
        if self.discrete:
            return None
        try:
            eigenvalues, radius = self._eigenvalue_radii(kind, level, scale)
        except (np.linalg.LinAlgError, ValueError):
            return ()
        keep = np.isfinite(eigenvalues)
        eigenvalues, radius = eigenvalues[keep], radius[keep]
        distance = self._boundary_distance(eigenvalues)
        band = _AXIS_RTOL * np.abs(eigenvalues) + _AXIS_SQRT_FACTOR * np.sqrt(_EPS) * scale
        return eigenvalues, radius, distance, band

    def _blind_spot_grid(self, windows):
        """Frequencies covering the windows where the level-set test is blind: 16 per
        decade, logarithmically spaced, between a hundredth of the slowest and a hundred
        times the fastest pole (the response of a proper model is flat to first order
        outside), plus the pole frequencies; the whole half circle in discrete time."""
        poles = self.poles
        if self.discrete:
            grid = np.linspace(0.0, np.pi, 2001)
            natural = np.angle(poles)
        else:
            magnitude = np.abs(poles)
            positive = magnitude[magnitude > 0]
            low = positive.min() / 100.0 if positive.size else 1e-2
            high = positive.max() * 100.0 if positive.size else 1e2
            count = int(np.ceil(16 * np.log10(high / low))) + 1
            grid = np.concatenate([[0.0], np.geomspace(low, high, count)])
            natural = np.concatenate([magnitude, poles.imag])
            if not self.real:
                # G(-j w) differs from conj G(j w): both half axes
                grid, natural = np.concatenate([-grid, grid]), np.concatenate([-magnitude, natural])
        spans = merged_windows([(abs(c) if self.real else c, h) for c, h in windows])
        candidates = np.concatenate([grid, natural])
        inside = np.zeros(candidates.size, dtype=bool)
        for centre, half in spans:
            inside |= np.abs(candidates - centre) <= half
            if not self.real:
                continue
            inside |= np.abs(candidates + centre) <= half
        return self._fold(candidates[inside])

    def _search_blind_spots(self, windows, tol):
        """Largest accurately evaluated ``sigma_max`` on :meth:`_blind_spot_grid`, then
        the parabolic local maximisation from its three best local maxima.  Returns
        ``(value, frequency)``."""
        grid = self._blind_spot_grid(windows)
        if grid.size == 0:
            return -np.inf, np.nan
        values = self._accurate_sigma(grid)
        interior = np.ones(grid.size, dtype=bool)
        interior[1:] &= values[1:] >= values[:-1]
        interior[:-1] &= values[:-1] >= values[1:]
        peaks = np.flatnonzero(interior)
        peaks = peaks[np.argsort(values[peaks])[::-1][:3]]
        best, where = -np.inf, np.nan
        for j in peaks:
            window = slice(max(j - 1, 0), j + 2)
            value, frequency = parabolic_peak(
                self._accurate_sigma,
                grid[window],
                values[window],
                float(values[j]),
                float(grid[j]),
                tol=tol,
            )
            if value > best:
                best, where = value, frequency
        return best, where

    def _coarser_level(self, lower, tol):
        """A level ``lower (1 + r)``, ``r = 10 tol, 100 tol, ...`` up to ``_COARSEST_RTOL``,
        that the level-set test certifies with no eigenvalue within its rounding error of
        the axis (``inf`` if none).

        The rounding radii of the test's eigenvalues grow as the level approaches the
        peak (for a supremum ``sigma_max(D)`` at infinite frequency, as ``1 / r``): a level
        a little higher may be decided where ``lower (1 + tol)`` was not, and then bounds
        the norm with the same standard of proof, only more loosely.
        """
        rel = 10.0 * tol
        while rel <= _COARSEST_RTOL:
            level = lower * (1.0 + rel)
            crossings = self.crossing_frequencies(level)
            if crossings.size and np.max(self.sigma(self.test_frequencies(crossings))) > level:
                return np.inf  # a genuine crossing: the searches missed a higher peak
            if not self._hidden_crossings(level) and (
                not self._undecided_windows(level) or self._inverted_verdict(level)[0] == "proved"
            ):
                return level
            rel *= 10.0
        return np.inf

    def _blind_spots_resolved(self, upper, hidden, blind):
        """``upper``, or ``inf`` with a ``RuntimeWarning`` when the last level-set test left
        clustered eigenvalues (``hidden``) or eigenvalues whose rounding reaches the axis
        (``blind``) that the searches could not settle."""
        if hidden and np.isfinite(upper):
            where = ", ".join(
                f"[{self._external(c - h):.9g}, {self._external(c + h):.9g}]"
                for c, h in merged_windows(hidden)[:4]
            )
            warn(
                f"hinfnorm: in {where} rad/s the Hamiltonian has clustered eigenvalues "
                "closer to the imaginary axis than their rounding (a repeated, nearly "
                "defective lightly damped mode), so the level-set test cannot exclude a "
                "higher peak there; the norm returned is the largest value a local search "
                "found, not a certified bound (upper = inf)",
                RuntimeWarning,
            )
            upper = np.inf
        if blind and np.isfinite(upper):
            warn(
                "hinfnorm: at the last level tested, eigenvalues of the level-set test lie "
                "closer to the imaginary axis than their rounding "
                "error (a stiff model, a peak barely above sigma_max(D), or a resonance "
                "narrower than that error), and the test on the inverted model G(1/s) does "
                "not decide those frequencies either, so "
                "neither can exclude a higher peak; the norm returned is the largest value "
                "a search of the response found, not a certified bound (upper = inf)",
                RuntimeWarning,
            )
            upper = np.inf
        return upper

    def _boundary_distance(self, eigenvalues):
        if self.discrete:
            return np.abs(np.abs(eigenvalues) - 1.0)
        return np.abs(eigenvalues.real)

    def _windows(self, eigenvalues, radius, selected):
        """``(centre, half_width)`` frequency windows of the selected eigenvalues."""
        if self.discrete:
            centres = np.angle(eigenvalues[selected])
            halves = radius[selected] / np.maximum(np.abs(eigenvalues[selected]), _EPS)
        else:
            centres, halves = eigenvalues[selected].imag, radius[selected]
        if self.real:
            centres = np.abs(centres)
        return [(float(c), float(h)) for c, h in zip(centres, halves, strict=True)]

    def _eigenvalue_radii(self, kind, level, scale):
        """Eigenvalues of the tested matrix (pencil) at ``level`` and their rounding
        radii ``10 eps (||M|| + |lambda| ||E||) kappa_i``, from left and right
        eigenvectors."""
        if kind == "hamiltonian":
            H = self._hamiltonian(level)
            if H is None:
                raise np.linalg.LinAlgError("Hamiltonian not formed")
            return eigenvalue_rounding(H, scale)
        if kind == "pencil":
            M, E = self._continuous_pencil(level)
        else:
            M, E = self._discrete_pencil(level)
        (alpha, beta), vl, vr = scipy.linalg.eig(
            M, E, left=True, right=True, check_finite=False, homogeneous_eigvals=True
        )
        # drop the infinite eigenvalues (m + p of them in continuous time, as in the
        # crossing test; in discrete time those with beta at rounding level)
        finiteness = np.abs(beta) / np.maximum(np.abs(alpha) + np.abs(beta), np.finfo(float).tiny)
        if kind == "pencil":
            keep = np.argsort(finiteness)[self.B.shape[1] + self.C.shape[0] :]
        else:
            keep = np.flatnonzero(finiteness > _EPS)
        w = alpha[keep] / beta[keep]
        vl, vr = vl[:, keep], vr[:, keep]
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (
                np.linalg.norm(vl, axis=0)
                * np.linalg.norm(vr, axis=0)
                / np.abs(np.sum(vl.conj() * (E @ vr), axis=0))
            )
        size_m, size_e = np.linalg.norm(M, 1), np.linalg.norm(E, 1)
        radius = 10.0 * _EPS * (size_m + np.abs(w) * size_e) * kappa
        return w, np.where(np.isfinite(radius), radius, np.inf)

    def _pole_cluster_windows(self):
        """Windows around clusters of poles (two or more within their Hoelder radius):
        the peak of identical lightly damped modes lies within a few damping widths of
        the cluster, whose centroid is accurate even where the poles are not."""
        poles = _eigenvalues(self.A)
        size = float(np.abs(self.A).sum(axis=0).max())
        radius = cluster_rounding(poles, size)
        clustered = radius > 1.001 * _EPS * size
        if not clustered.any():
            return []
        width = np.maximum(self._boundary_distance(poles), radius)
        return self._windows(poles, 4.0 * width, clustered)

    def _search_windows(self, windows, tol):
        """Largest accurately evaluated ``sigma_max`` over the windows: a grid fine
        enough for the window's features (at most 201 points) and then the parabolic
        local maximisation from its best point.  Returns ``(value, frequency)``."""
        best, where = -np.inf, np.nan
        limit = np.pi if self.discrete else np.inf
        for centre, half in merged_windows(windows):
            count = 41 if half > 0 else 1
            grid = np.linspace(centre - half, centre + half, count)
            grid = self._fold(grid[np.abs(grid) <= limit])
            if grid.size == 0:
                continue
            values = self._accurate_sigma(grid)
            j = int(np.argmax(values))
            value, frequency = parabolic_peak(
                self._accurate_sigma, grid, values, float(values[j]), float(grid[j]), tol=tol
            )
            if value > best:
                best, where = value, frequency
        return best, where

    def _circle_resolved(self, upper, tol):
        """``upper``, or ``inf`` with a ``RuntimeWarning`` when a pole is closer to the
        stability boundary than the evaluable frequencies (angles) can resolve
        (:func:`unresolved_circle_poles`): the peak between two of them may exceed every
        value the level-set test compared the level with."""
        if not np.isfinite(upper):
            return upper
        poles, gap = unresolved_circle_poles(self.A, tol, discrete=self.discrete)
        if poles.size == 0:
            return upper
        # the first-order bands are wide for a nearly defective pair of a stiff model;
        # verified discs, in any of the similar coordinates, may still prove every pole
        # resolved (the raw matrix often gives far tighter discs than the balanced one)
        candidates = [self.A, *self.similar]
        candidates += [M.T for M in candidates]
        if any(discs_resolve_peaks(M, tol, self.discrete) for M in candidates):
            return upper
        k = int(np.argmin(gap))
        at = abs(float(np.angle(poles[k]))) if self.discrete else abs(float(poles[k].imag))
        boundary = "unit circle" if self.discrete else "imaginary axis"
        warn(
            f"hinfnorm: a pole at {self._external(at):.9g} rad/s is within "
            f"{max(float(gap[k]), 0.0):.1e} (less its rounding) of the {boundary}, closer "
            "than the spacing of the frequencies a response can be evaluated at allows for "
            "tol; the peak between two of them is not bounded, so no upper bound is "
            "certified (upper = inf)",
            RuntimeWarning,
        )
        return np.inf

    def _attained(self, lower, frequency, tol):
        """The best of ``sigma_max`` at ``frequency`` and at the ends of the axis (``0``,
        and ``pi`` in discrete time): ``(value, frequency)``.

        Without refinement the response of a model with poles near ``z = +-1`` (or a
        stiff one) carries relative errors up to ``eps cond(z I - A)``, ``1e-7`` and
        more: the value returned as attained must be one the model reaches, and a peak
        at an end of the axis that the plain evaluation underestimates must be tested
        from its accurate value.  Each point is solved once; where the first-order
        error estimate ``eps (cond(z I - A) ||C|| ||X|| + ||D||)`` of that solve
        exceeds ``1e-3 tol`` of its value, it is recomputed by refined solves.  Models
        evaluated by refined solves throughout (``direct``) return ``(lower, frequency)``.
        """
        if self.direct or not np.isfinite(frequency):
            return lower, frequency
        ends = [0.0, np.pi] if self.discrete else [0.0]
        points = np.array([frequency, *[w for w in ends if w != frequency]])
        z = np.exp(1j * points) if self.discrete else 1j * points
        n = self.A.shape[0]
        shifted = z[:, None, None] * np.eye(n) - self.A
        try:
            X = np.linalg.solve(shifted, np.broadcast_to(self.B, (z.size,) + self.B.shape))
            condition = np.linalg.cond(shifted)
            values = np.linalg.svd(self.C @ X + self.D, compute_uv=False)[:, 0]
            size_cx = np.linalg.norm(self.C, 2) * np.linalg.norm(X, 2, axis=(1, 2))
            bound = _EPS * (condition * size_cx + np.linalg.norm(self.D, 2))
            rough = ~(np.isfinite(bound) & np.isfinite(values) & (bound <= 1e-3 * tol * values))
        except np.linalg.LinAlgError:
            values, rough = np.full(z.size, -np.inf), np.ones(z.size, dtype=bool)
        if rough.any():
            try:
                refined, _ = refined_response(
                    self.A, self.B, self.C, self.D, z[rough], on_circle=self.discrete
                )
                values[rough] = np.linalg.svd(refined, compute_uv=False)[:, 0]
            except np.linalg.LinAlgError:
                values[rough] = -np.inf
        values = np.where(np.isfinite(values), values, -np.inf)
        if not np.isfinite(values[0]):
            return lower, frequency
        best = int(np.argmax(values))
        return float(values[best]), float(points[best])

    def _accurate_sigma(self, frequencies):
        """``sigma_max`` from solves refined in double-double, whatever the model."""
        direct, self.direct = self.direct, True
        try:
            return self.sigma(np.asarray(frequencies, dtype=float))
        finally:
            self.direct = direct


def _unlocated(eigenvalues, radius, distance, band):
    """Eigenvalues inside the crossing band whose radius exceeds ``|lambda| / 10`` and
    either the band or the eigenvalue's distance from the axis (a radius below the band
    can still dwarf ``|lambda|``: its imaginary part then locates no crossing)."""
    reaches = (radius > band) | (radius >= distance)
    wide = reaches & (radius > 0.1 * np.abs(eigenvalues))
    return (distance <= band) & wide


def merged_windows(windows):
    """``(centre, half_width)`` windows with overlapping ones merged.

    Examples
    --------
    >>> [(round(c, 12), round(h, 12)) for c, h in merged_windows([(1, 0.5), (1.8, 0.5), (5, 0.25)])]
    [(1.4, 0.9), (5.0, 0.25)]
    """
    spans = sorted((c - h, c + h) for c, h in windows if np.isfinite(c) and np.isfinite(h))
    merged = []
    for left, right in spans:
        if merged and left <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], right)
        else:
            merged.append([left, right])
    return [(0.5 * (a + b), 0.5 * (b - a)) for a, b in merged]


def _sampling_loss(poles, distance, discrete):
    """Per-pole terms ``w_k`` whose sum bounds the relative sampling loss of a peak.

    See :func:`unresolved_circle_poles` for the derivation.  ``distance`` is each
    pole's proved (or first-order) distance to the boundary; zero gives ``inf``.
    """
    distance = np.asarray(distance, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if discrete:
            # u(theta) <= spacing(pi) + 2 eps for every angle in [0, pi]
            step = float(np.spacing(np.pi)) + 2 * _EPS
            w = (step / distance) ** 2 / 8.0
            # a real pole 0 < p < 1 curves the response only near z = 1, where the
            # angles are spaced eps * theta (z = 1 exact): |e^{j t} - p|^2 >=
            # 4 p (t / pi)^2 gives the term <= (2 eps)^2 pi^2 / (32 p)
            real = (poles.imag == 0) & (poles.real >= 0.5)
            near_one = (2 * _EPS) ** 2 * np.pi**2 / (32.0 * np.abs(poles.real))
            w = np.where(real, np.minimum(w, near_one), w)
        else:
            # u(w) <= eps |w| + tiny (spacing of a float, subnormals included) and
            # max_w u(w)^2 / (d^2 + (w - b)^2) <= (eps |p|)^2 / d^2 + (tiny / d)^2
            size = np.abs(poles) * (1.0 + 4 * _EPS)
            w = ((_EPS * size / distance) ** 2 + (_TINY_STEP / distance) ** 2) / 8.0
    w = np.where(distance > 0, w, np.inf)
    return np.where(np.isnan(w), np.inf, w)


_TINY_STEP = 2.0**-1074  # the spacing of the smallest floats


def _loss_budget(tol):
    """Largest loss in ``log sigma_max`` for which ``(1 + tol)`` times the sampled
    value still bounds the peak: ``log(1 + tol)``, less the rounding of the sums."""
    return float(np.log1p(tol)) * (1.0 - 1e-6)


def unresolved_circle_poles(A, tol, discrete=True):
    """Poles of a discrete-time ``A`` whose peak on the unit circle the floating-point
    angles cannot resolve to ``tol`` (with ``discrete=False``: poles of a continuous-time
    ``A`` whose peak on the imaginary axis the floating-point frequencies cannot
    resolve).

    The loss bound counts every pole, not each one alone.  On the boundary, with
    ``s = j w`` (discrete: ``z = exp(j w)``), ``sigma_max(G) = max_{|x|=|y|=1} |y^* G x|``
    and ``G = N / a`` with ``a(s) = det(s I - A) = prod (s - p_k)``.  Fix the unit
    vectors ``x, y`` attaining ``sigma_max`` at the peak ``w*`` and let
    ``h(w) = log|y^* N x| - sum_k log|j w - p_k|``: ``h <= log sigma_max`` everywhere,
    with equality and hence ``h'(w*) = 0`` at the peak.  A sample within ``u / 2`` of
    ``w*`` (``u`` the spacing of the evaluable frequencies there) then loses at most
    ``(u / 2)^2 / 2 * max(-h'')`` in ``log sigma_max`` (relative loss below that).  Each
    pole adds to ``-h''`` the term ``(d^2 - x^2) / (d^2 + x^2)^2 <= 1 / (d^2 + x^2)``
    (``d`` its distance to the axis, ``x = w - Im p``; discrete:
    ``|p| cos t / |e^{jt} - p|^2 <= 1 / d^2``), so the loss is at most
    ``sum_k w_k`` with

    * continuous: ``w_k = (eps |p_k| / d_k)^2 / 8`` (``u(w) <= eps |w|`` and
      ``w^2 / (d^2 + (w - b)^2) <= |p|^2 / d^2``, plus a term for subnormal spacings);
    * discrete: ``w_k = (u / d_k)^2 / 8`` with ``u = spacing(pi) + 2 eps`` (the float
      angles plus the rounding of ``exp``); a real pole in ``[1/2, 1)`` only acts near
      ``z = 1``, which is exact, and contributes ``(2 eps)^2 pi^2 / (32 p)`` at most.

    A cluster of ``m`` poles at one distance ``d`` thus loses ``m`` times one pole's
    share, and the peak is resolved when ``sum_k w_k <= log(1 + tol)`` (then
    ``(1 + tol)`` times the best sample bounds it).  The zeros of ``y^* N x``
    are left out: a zero of it near the axis lowers ``h`` only in a dip whose slope
    ``1 / |x|`` the poles cannot balance at a maximum unless some ``d_k`` is of the
    order of ``u`` (``sum_k 1 / (2 d_k) >= 2 / u``), which the rule excludes with a
    margin of ``1 / sqrt(tol)``.  ``d`` is ``-Re p`` (discrete: ``1 - |p|``) less the
    pole's first-order rounding band (:func:`.balancing.pole_bands`), zero if that is
    negative.

    Parameters
    ----------
    A : numpy.ndarray
        Square state matrix of a stable model.
    tol : float
        Relative accuracy sought for the peak.
    discrete : bool, optional
        Unit circle (True) or imaginary axis (False).

    Returns
    -------
    poles, gap : numpy.ndarray
        When the total loss exceeds ``tol``: the poles whose share exceeds ``tol / n``
        (the largest contributors; at least one) and their distances ``d``, largest
        share first; empty when the peak is resolved.

    Examples
    --------
    >>> import numpy as np
    >>> r = 1 - 2.0**-45
    >>> poles, gap = unresolved_circle_poles(r * np.array([[0.0, -1.0], [1.0, 0.0]]), 1e-8)
    >>> poles.size
    2
    >>> unresolved_circle_poles(np.array([[0.0, -0.5], [0.5, 0.0]]), 1e-8)[0].size
    0
    """
    if A.shape[0] == 0:
        return np.zeros(0, dtype=complex), np.zeros(0)
    poles, distance, band = pole_bands(A, 1.0 if discrete else 0.0)
    gap = np.maximum(-distance - band, 0.0)
    share = _sampling_loss(poles, gap, discrete)
    if float(np.sum(share)) <= _loss_budget(tol):
        return np.zeros(0, dtype=complex), np.zeros(0)
    order = np.argsort(-share, kind="stable")
    keep = order[share[order] > tol / share.size]
    keep = keep if keep.size else order[:1]
    return poles[keep], gap[keep]


def discs_resolve_peaks(A, tol, discrete=True):
    """Whether verified discs around the poles prove every peak resolved by the floats.

    :func:`.norms_stability.pole_discs` gives discs whose union holds every eigenvalue
    of ``A`` exactly (Gershgorin discs of a similar matrix, rounding bounded).  Each
    connected component of the union is bounded as a whole: ``d`` the smallest distance
    of its points to the boundary (``-max(Re c + r)``; discrete: ``1 - max(|c| + r)``,
    both rounded down) and ``|p| <= max(|c| + r)``.  The loss bound of
    :func:`unresolved_circle_poles` sums a term per pole; how many eigenvalues each
    component holds is not counted here, so every one of the ``n`` eigenvalues is
    charged the largest term of any component: ``n * max_c w_c <= tol`` proves every
    peak resolved.  False where the discs are not available (an ill-conditioned
    eigenvector matrix).

    Parameters
    ----------
    A : numpy.ndarray
        Square state matrix of a stable model.
    tol : float
        Relative accuracy sought for the peak.
    discrete : bool, optional
        Unit circle (True) or imaginary axis (False).

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[-20.0, 1e-3], [-10.0, -20.0]])     # poles -20 +- 0.1j
    >>> discs_resolve_peaks(A, 1e-8, discrete=False)
    True
    >>> discs_resolve_peaks(np.array([[-1e-20, 1.0], [-1.0, -1e-20]]), 1e-8, discrete=False)
    False
    """
    discs = pole_discs(np.asarray(A))
    if discs is None:
        return False
    centres, radii = discs
    n = centres.size
    # connected components of the union of discs (overlap: |c_i - c_j| <= r_i + r_j)
    label = np.arange(n)
    touching = np.abs(centres[:, None] - centres[None, :]) <= (radii[:, None] + radii[None, :])
    for _ in range(n):
        merged = np.array([label[touching[i]].min() for i in range(n)])
        if np.array_equal(merged, label):
            break
        label = merged
    rounding = 8 * _EPS  # relative rounding of the sums below
    worst = 0.0
    for component in np.unique(label):
        members = label == component
        reach = float(np.max(np.abs(centres[members]) + radii[members])) * (1.0 + rounding)
        if discrete:
            gap = (1.0 - reach) * (1.0 - 2 * _EPS)
            pole = np.array([complex(0.0, 1.0)])  # not real: the general term
        else:
            edge = float(np.max(centres[members].real + radii[members]))
            # edge < 0: its rounding is removed from the gap, never added to it
            gap = (-edge - abs(edge) * rounding) * (1.0 - 2 * _EPS)
            pole = np.array([complex(0.0, reach)])
        if not gap > 0:
            return False
        worst = max(worst, float(_sampling_loss(pole, np.array([gap]), discrete)[0]))
    return n * worst <= _loss_budget(tol)
