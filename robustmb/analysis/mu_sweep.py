"""Certified supremum of mu over the whole frequency axis.

``certified_mu_peak`` computes mu bounds on a frequency grid, then turns each
upper-bound certificate into a certified frequency *interval*
(:mod:`.frequency_intervals`).  Uncovered gaps are refined with new points, whose
bounds are optimised only to just below the level (a certificate stopped there is
far better conditioned, so valid over a far wider interval, than a tight one);
where the real-mu upper bound is discontinuous (a pole crossing the axis at
one frequency only) the gap is closed with certificates of the structure whose
real blocks are relaxed to complex ones, which are continuous in frequency and
still valid.  The result is an upper bound on ``sup_w mu(M(jw))`` that holds on
every frequency, with the intervals as evidence, and the best lower bound with
its perturbation.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .balanced_response import balanced_response_function
from .frequency_intervals import (
    _unresolved_windows,
    certified_interval,
    continuous_equivalent,
    multiplier_from_certificate,
    sweep_level,
    to_equivalent_frequency,
    to_model_frequency,
)
from .frequency_scaling import shift_scalings, sweep_frame, to_model_frequencies
from .mu_sweep_checks import check_sweep_data
from .mu_upper import n_scaling_parameters
from .mussv import mussv_stack, warm_certificates

_LOOSE = 0.5  # grid bounds below this fraction of the largest one are not tightened further
# A point placed to certify a known level is optimised only until its bound is below
# level / (1 + max(rel_gap, _ROOM)): such a bound never raises the level.  A fully
# optimised real-mu certificate is degenerate (G -> inf and extreme D leave the
# inequality almost no slack along some directions) and certifies a sliver of
# frequency around its point, even far below the level (0.7 rad/s at 227 rad/s, with
# mu 25 % below the level); one stopped early, still close to the balanced start,
# certifies an interval often a hundred times wider.
_ROOM = 1e-3
# Fewest uncovered gaps at which a sweep with ``give_up`` stops.
_GIVE_UP_GAPS = 20
# Gaps between certified intervals narrower than this, relative to their frequency, are
# the rounding of the interval ends (a few ulps), not gaps.  A wider gap is kept open
# however narrow: it can hold an isolated real-mu peak between two intervals that each
# end beside it (a 8.4e-13-wide gap held one at 9.77e-6 rad/s).
GAP_RTOL = 16 * np.finfo(float).eps


@dataclass
class MuPeak:
    """Evidence of a certified bound on ``sup_w mu``.

    Attributes
    ----------
    upper : float
        Certified upper bound of the peak of mu over all frequencies
        (``inf`` if the axis could not be covered).
    lower : float
        Largest lower bound found (attained at ``lower_frequency``).
    lower_frequency : float
    lower_delta : ndarray or None
        Perturbation of size ``sigma_max = 1/lower`` at which ``I - M Delta`` is
        singular: exactly for a mu lower bound found at a frequency; for robstab's
        direct parameter search, the verified crossing puts a closed-loop pole on or
        past the stability boundary, within its push of at most 1e-3 in scale.
    intervals : list of (float, float)
        Frequency intervals (rad/s) on which ``mu <= upper`` is certified.
    covered : bool
        Whether the intervals cover ``[0, inf]`` (``[0, pi/dt]`` in discrete time; both
        signs of frequency for models with complex coefficients).
    omega, mu_upper, mu_lower : ndarray
        Every frequency evaluated, with the pointwise bounds.  Each ``mu_upper`` value
        is certified but not necessarily tight: on the initial grid it is not tightened
        below half the largest one, and at the frequencies added to close the gaps
        between intervals it stops just below the level (all an interval needs).
        ``mu_lower`` is searched only where the upper bound exceeds the best lower
        bound found (elsewhere it is 0).
    relaxed : list of float
        Frequencies whose certificate treats the real parameters as complex ones (a
        looser but frequency-continuous bound, used only after half of the refinement
        rounds failed to close a gap).  Empty when every certificate is a real one.
    real_level : float
        The level reached before any relaxation (equal to ``upper`` when none was
        needed): ``upper / real_level - 1`` is what the relaxation cost.
    scalings : ndarray or None
        With a fixed ``level`` and a covered axis: the D,G parameters (rows of
        :class:`~.mu_upper.ScalingParametrization` for the structure, aligned with
        ``omega``) of the certificate each point ended with -- also where a later full
        re-optimisation replaced it, and for a relaxed point its complex-structure D
        parameters with G = 0.  They are meant as the evidence, to re-cover the axis
        without any optimisation when replayed at ``level``; whether they do is decided
        by :func:`~.frequency_certificate.check_frequency_certificate`, not by this
        sweep.  Passed back as
        ``start=(omega, scalings)`` to a sweep of a nearby problem (e.g. a neighbouring
        sub-box of a parameter box) they are a warm start only: every bound of that
        sweep is certified as from a cold start.
    """

    upper: float
    lower: float
    lower_frequency: float
    lower_delta: np.ndarray | None
    intervals: list
    covered: bool
    omega: np.ndarray = field(repr=False)
    mu_upper: np.ndarray = field(repr=False)
    mu_lower: np.ndarray = field(repr=False)
    relaxed: list = field(default_factory=list)
    real_level: float = np.nan
    scalings: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if np.isnan(self.real_level):
            self.real_level = self.upper


def default_grid(a, dt, n=60, *, both_signs=False):
    """Log-spaced frequencies around the system's modes, plus the modes and 0.

    With ``both_signs`` (models with complex coefficients) the grid is mirrored onto the
    negative half-axis, and the signed mode frequencies are included.

    Examples
    --------
    >>> default_grid(np.array([[-1.0]]), 0, n=5)     # the mode at 1 rad/s, two decades out
    array([0.e+00, 1.e-02, 1.e-01, 1.e+00, 1.e+01, 1.e+02])
    """
    if both_signs:
        half = default_grid(a, dt, n)
        signed = []
        if a.shape[0]:
            ev = np.linalg.eigvals(a)
            signed = ev.imag if not dt else np.angle(ev) / dt
        return np.unique(np.concatenate([half, -half, signed]))
    if a.shape[0]:
        ev = np.linalg.eigvals(a)
        if dt:
            mags = np.abs(np.angle(ev[np.abs(ev) > 0])) / dt
        else:
            mags = np.abs(ev)
        mags = mags[mags > 0]
    else:
        mags = np.zeros(0)
    lo = np.min(mags) / 100 if mags.size else 1e-2
    hi = np.max(mags) * 100 if mags.size else 1e2
    grid = np.logspace(np.log10(lo), np.log10(hi), n)
    if a.shape[0]:
        ev = np.linalg.eigvals(a)
        modes = np.abs(ev.imag) if not dt else np.abs(np.angle(ev)) / dt
        grid = np.concatenate([grid, modes[modes > 0], np.abs(ev) if not dt else []])
    grid = np.concatenate([[0.0], grid])
    if dt:
        grid = grid[grid < np.pi / dt]
        grid = np.concatenate([grid, [np.pi / dt]])
    return np.unique(grid)


def _gaps(intervals, top):
    """Uncovered sub-intervals of ``[0, top]``."""
    ivs = sorted(intervals)
    gaps, reach = [], 0.0
    for lo, hi in ivs:
        if lo > reach:
            gaps.append((reach, lo))
        reach = max(reach, hi)
    if reach < top:
        gaps.append((reach, top))
    return gaps


def _gap_points(gaps, top_finite):
    pts = []
    for lo, hi in gaps:
        hi_f = hi if np.isfinite(hi) else max(10 * max(lo, 1.0), top_finite * 10)
        if lo > 0:
            pts.extend(
                np.geomspace(lo, hi_f, 5)[1:-1] if hi_f > lo * 1.0001 else [0.5 * (lo + hi_f)]
            )
        else:
            pts.extend(np.linspace(lo, hi_f, 5)[1:-1])
        if not np.isfinite(hi):
            pts.append(hi_f)
    return np.asarray(pts, float)


def _relaxed(blk):
    """The structure with every real repeated scalar relaxed to a complex one."""
    return [(abs(r), 0) if c == 0 else (r, c) for r, c in blk]


def _half_axis_peak(
    sysdata,
    blk,
    dt=0.0,
    *,
    omega=None,
    level=None,
    lower=True,
    rel_gap=1e-3,
    max_rounds=12,
    progress=None,
    relax=True,
    start=None,
    give_up=None,
) -> MuPeak:
    """Certified ``sup_w mu(M(jw))`` for ``M`` given by ``sysdata = (A, B, C, D)``.

    Parameters
    ----------
    sysdata : tuple of ndarray
        State-space data of ``M`` (``D`` is ``n_z x n_w``).
    blk : list
        mu block structure (MATLAB ``mussv`` convention).
    dt : float
        Sampling time (0: continuous).
    omega : array_like, optional
        If given, only these frequencies are analysed (no interval certificate).
    level : float, optional
        Certify this fixed level instead of the smallest one found; the result
        is not ``covered`` when some frequency exceeds it.
    lower : bool
        Also compute mu lower bounds (and their perturbations), after the sweep, at
        the frequencies with the largest upper bounds until none is left that could
        beat the best lower bound.
    rel_gap : float
        The certified level is ``(1 + rel_gap)`` times the largest pointwise bound.
    max_rounds : int
        Refinement rounds for uncovered gaps.
    progress : callable, optional
        Called with a short message after each round.
    relax : bool
        Relax real blocks to complex ones at the new points of the second half of the
        rounds (a reported step, see ``MuPeak.relaxed``).  Off, the real structure is
        kept throughout: the branch and bound over the parameter box would rather split
        a box than accept the (often far larger) complex bound.
    start : tuple (omega, x), optional
        With ``level``: the initial grid is ``omega`` and each of its bounds is optimised
        from the D,G parameters ``x[k]`` (rows of
        :class:`~.mu_upper.ScalingParametrization` for ``blk``, e.g. scalings that
        certified a smaller level of a robust-performance problem, which stay valid at a
        larger one).  Only the effort changes: every bound is certified as without it.
    give_up : float, optional
        Stop (not covered) once the count of uncovered gaps has grown by at least this
        factor in each of two rounds in a row, to ``_GIVE_UP_GAPS`` or more (with
        ``relax``: relax at the first such growth, stop at the second).  The gaps of a
        level that mu nearly reaches, or where no interval certifies, multiply round
        after round; a caller that can split the problem or live with an uncovered sweep
        saves the last rounds.  (A few gaps may still close: 2, 6, 14, then 0.)
    """
    a, b, c, d = sysdata
    top = np.pi / dt if dt else np.inf
    ca, cb, cc, cd = continuous_equivalent(a, b, c, d, dt)

    # one decomposition of A for every evaluation of the sweep
    respond_raw = balanced_response_function(a, b, c, d, dt)
    respond = _real_at_zero(respond_raw, sysdata)
    respond_equiv = balanced_response_function(ca, cb, cc, cd) if dt else respond_raw

    grid = np.asarray(omega, float) if omega is not None else default_grid(a, dt)
    if start is not None and omega is None and level is not None:
        grid = np.asarray(start[0], float)
    else:
        start = None
    pts, ubs, lbs, certs, deltas = [], [], [], [], []
    # Two kinds of D,G parameter rows (of the real structure; None: not kept).  ``xs``:
    # where each first bound ended, the warm starts of its neighbours and of its own
    # re-optimisation.  ``rows``: those of the certificate each point ends with (a relaxed
    # point's complex-structure D parameters with G = 0 appended), the evidence handed out
    # as MuPeak.scalings.  They are kept apart because a fully re-optimised point is a
    # worse warm start for its early-stopped neighbours (measured: a real-structure sweep
    # of test_sub_box_sweeps_keep_the_real_structure leaves gaps when it warm-starts from
    # the re-optimised rows).
    xs: list = []
    rows: list = []

    def evaluate(ws, structure, relaxed, target=None, rel_target=None, with_lower=False):
        if len(ws) == 0:
            return
        if structure is blk and not with_lower and rel_target is None and target is not None:
            # Each point starts from given parameters (``start``) or from those of its
            # nearest evaluated neighbour (in log frequency): mu and its scalings vary
            # slowly with frequency, so the optimiser reaches ``target`` in a few steps.
            # Only the effort changes: every bound is certified as from a cold start.
            upper, D, G, x = warm_certificates(
                respond(ws), blk, _start_rows(ws, start, pts, xs, blk), target, with_scalings=True
            )
            for i, w in enumerate(ws):
                pts.append(float(w))
                ubs.append(float(upper[i]))
                lbs.append(0.0)
                certs.append((float(upper[i]), D[i], G[i]))
                deltas.append(None)
                xs.append(x[i])
                rows.append(x[i])
            return
        if relaxed and not with_lower and rel_target is None:
            # Cold, as mussv_stack would; the relaxed structure's D parameters are laid
            # out as the real one's (a repeated scalar block is parametrised alike, real
            # or complex), so with G = 0 appended they are a row of the real structure
            # giving the same bound: the certificate the caller keeps, (upper, D, None).
            p_real = n_scaling_parameters(blk)
            cold = np.full((len(ws), n_scaling_parameters(structure)), np.nan)
            upper, D, _, x = warm_certificates(
                respond(ws), structure, cold, target, with_scalings=True
            )
            for i, w in enumerate(ws):
                pts.append(float(w))
                ubs.append(float(upper[i]))
                lbs.append(0.0)
                certs.append((float(upper[i]), D[i], None))
                deltas.append(None)
                xs.append(None)
                rows.append(np.concatenate([x[i], np.zeros(p_real - x.shape[1])]))
            return
        # Only the largest lower bound is reported: search where it can grow.
        res = mussv_stack(
            respond(ws),
            structure,
            lower="peak" if with_lower else False,
            lower_floor=max(lbs, default=0.0),
            target=target,
            rel_target=rel_target,
        )
        for i, w in enumerate(ws):
            pts.append(float(w))
            ubs.append(float(res.upper[i]))
            lbs.append(float(res.lower[i]) if with_lower else 0.0)
            g = None if relaxed or res.G is None else res.G[i]
            certs.append((float(res.upper[i]), res.D[i], g))
            deltas.append(None if not with_lower or res.delta is None else res.delta[i])
            xs.append(None)
            rows.append(None)

    full: set = set()
    relaxed_at: list = []  # points whose certificate is of the relaxed structure

    def reoptimise(idx):
        """Bounds of points ``idx`` optimised to the end (no early stop), kept if lower.

        Each optimisation continues from the parameters its early-stopped bound ended
        at (cold where none were kept); a bound still not below the level from there
        (a poor start) is optimised again from a cold start.  Every bound is certified
        as any other.
        """
        p = n_scaling_parameters(blk)
        x0 = np.array([np.full(p, np.nan) if xs[k] is None else xs[k] for k in idx])
        resp = respond([pts[k] for k in idx])
        # the block-Newton polish (large repeated-scalar structures) only where the
        # bound is still above the level: elsewhere it costs 8-23x and certifies nothing more
        goal = near(level)
        upper, D, G, x = warm_certificates(resp, blk, x0, with_scalings=True, polish_target=goal)
        again = np.flatnonzero(~(upper <= goal) & np.all(np.isfinite(x0), axis=1))
        if again.size:
            # cold (Osborne balancing): the same optimisation as mussv_stack's, with the
            # parameters it ended at
            cold = np.full((again.size, p), np.nan)
            up2, d2, g2, x2 = warm_certificates(
                resp[again], blk, cold, with_scalings=True, polish_target=goal
            )
            better = up2 < upper[again]
            upper[again[better]], D[again[better]] = up2[better], d2[better]
            G[again[better]], x[again[better]] = g2[better], x2[better]
        for j, k in enumerate(idx):
            if upper[j] < ubs[k]:
                # the certificate and the parameters it was built from, together: the
                # parameters handed out (MuPeak.scalings) re-check to this certificate
                ubs[k] = float(upper[j])
                certs[k] = (ubs[k], D[j], G[j])
                rows[k] = x[j]
                if k in relaxed_at:  # a real-structure certificate now
                    relaxed_at.remove(k)

    def tighten_points(idx):
        """Re-optimise the bounds of points ``idx``, recorded as fully optimised."""
        full.update(idx)
        reoptimise(idx)

    def tighten_above(limit, start=0, fail_fast=False):
        """Re-optimise, to the end, the points whose early-stopped bound exceeds ``limit``.

        ``fail_fast`` (a fixed level, which fails if any bound stays above it): the
        largest bound first, and the others only if it came down to ``limit``.
        """
        idx = [k for k in range(start, len(pts)) if ubs[k] > limit]
        if fail_fast and len(idx) > 1:
            worst = max(idx, key=lambda k: ubs[k])
            reoptimise([worst])
            if ubs[worst] > limit:
                return
            idx.remove(worst)
        if idx:
            reoptimise(idx)

    def search_lower():
        """Lower bounds at the largest upper bounds (once, after the sweep)."""
        if lower:
            _search_lower(respond, blk, pts, ubs, lbs, deltas)

    if omega is not None:
        evaluate(grid, blk, False, with_lower=lower)
        k = int(np.argmax(lbs))
        return MuPeak(
            float(np.max(ubs)),
            lbs[k],
            pts[k],
            deltas[k],
            [],
            False,
            np.array(pts),
            np.array(ubs),
            np.array(lbs),
        )

    def near(level):
        # the largest bound that never raises the level (see _ROOM)
        return level / (1 + max(rel_gap, _ROOM))

    fixed = level is not None
    # Below the level a loose (still certified) bound is enough: it only has to
    # certify an interval, not set the level (see _ROOM).  Without a level, the
    # bounds close to the largest one are optimised fully: they set the level.
    if fixed:
        evaluate(grid, blk, False, target=near(level))
    else:
        evaluate(grid, blk, False, rel_target=_LOOSE)
    if not fixed:
        level = sweep_level(max(ubs), rel_gap)
    elif max(ubs) > level:
        # A loose bound above the level may only need the full optimisation.
        tighten_above(level, fail_fast=True)
        if max(ubs) > level:
            search_lower()
            return _failed(pts, ubs, lbs, deltas)
    # Certified interval of every point, and the level it was computed at.  When the
    # level rises an old interval stays valid (the frequency-domain inequality only
    # gets easier, see .frequency_intervals), so only the certificates next to the
    # uncovered gaps are widened.
    ivs: dict = {}
    at_level: dict = {}

    def certify(i):
        at_level[i] = level
        beta0, dmat, gmat = certs[i]
        if beta0 > level:
            return
        # beta0 = 0 (mu = 0) has its own limit form, in which G carries the multiplier.
        mult = multiplier_from_certificate(blk, beta0, dmat, gmat)
        nu0 = float(to_equivalent_frequency(pts[i], dt))
        iv = certified_interval((ca, cb, cc, cd), mult, level, nu0, respond_equiv)
        if iv is not None:
            lo, hi = iv
            ivs[i] = (
                float(to_model_frequency(lo, dt)),
                float(to_model_frequency(hi, dt)) if np.isfinite(hi) else (top if dt else np.inf),
            )

    def open_gaps():
        # Only a gap within the rounding of its frequency is no gap (GAP_RTOL): a wider
        # one, however narrow, can hold an isolated real-mu peak (a frequency where
        # M(jw) is real) between two intervals that each end just beside it.
        return [(lo, hi) for lo, hi in _gaps(ivs.values(), top) if hi - lo > GAP_RTOL * lo]

    if _unresolved_windows(ca).size:  # no interval enters them (a pole nearly on the axis)
        search_lower()
        return _failed(pts, ubs, lbs, deltas)
    relax_after = max_rounds // 2 if relax else max_rounds + 1
    real_level = level
    counts: list = []  # uncovered gaps after each round
    for rnd in range(max_rounds + 1):
        for i in range(len(pts)):
            if i in at_level:
                continue
            if any(lo < pts[i] < hi for lo, hi in ivs.values()):
                # inside a neighbour's interval: its own Hamiltonian is only worth
                # computing if it can widen the cover next to a gap (see stale)
                at_level[i] = -np.inf
            else:
                certify(i)
        stale = [i for i in range(len(pts)) if at_level[i] < level]
        for i in _next_to_gaps(open_gaps(), pts, stale):
            certify(i)
        gaps = open_gaps()
        if fixed and gaps and rnd >= 1:
            # A bound stopped just below a fixed level that mu nearly reaches leaves its
            # certificate almost no slack; next to a gap that persists, optimise fully.
            near_gap = [i for i in _next_to_gaps(gaps, pts, range(len(pts))) if i not in full]
            if near_gap:
                tighten_points(near_gap)
                for i in near_gap:
                    certify(i)
                gaps = open_gaps()
        if progress is not None:
            progress(f"round {rnd}: level {level:.6g}, {len(gaps)} uncovered gap(s)")
        counts.append(len(gaps))
        if give_up and counts[-1] >= _GIVE_UP_GAPS and _growing(counts, give_up):
            if not relax or rnd >= relax_after:
                search_lower()
                return _failed(pts, ubs, lbs, deltas, list(ivs.values()))
            relax_after, counts = rnd, counts[-1:]  # the relaxed bounds' chance, now
        if not gaps:
            search_lower()
            return MuPeak(
                level,
                max(lbs),
                pts[int(np.argmax(lbs))],
                deltas[int(np.argmax(lbs))],
                _merge(ivs.values()),
                True,
                np.array(pts),
                np.array(ubs),
                np.array(lbs),
                relaxed=[pts[i] for i in relaxed_at if i in ivs],
                real_level=real_level if relaxed_at else level,
                scalings=_scaling_rows(rows, blk) if fixed else None,
            )
        if rnd == max_rounds:
            break
        finite_top = max(p for p in pts if np.isfinite(p)) if pts else 1.0
        new = _gap_points(gaps, finite_top)
        if dt:
            new = new[new <= top]
        relaxed = rnd >= relax_after
        n_before = len(pts)
        evaluate(new, _relaxed(blk) if relaxed else blk, relaxed, target=near(level))
        if relaxed:
            # evaluate() kept their certificates as (upper, D, None): G = 0, valid for the
            # real structure
            relaxed_at.extend(range(n_before, len(pts)))
        new_max = max(ubs[n_before:]) if len(ubs) > n_before else 0.0
        if fixed and new_max > level and not relaxed:
            tighten_above(level, n_before, fail_fast=True)
            new_max = max(ubs[n_before:])
        elif not fixed and new_max * (1 + rel_gap) > level and not relaxed:
            # a warm-started bound above the level may be a poor start, not mu: optimise
            # it to the end (cold again if needed) before it raises the level
            tighten_above(level / (1 + rel_gap), n_before)
            new_max = max(ubs[n_before:])
        if fixed and new_max > level:
            search_lower()
            return _failed(pts, ubs, lbs, deltas)
        if not fixed and new_max * (1 + rel_gap) > level:
            # a fixed level is what the caller asked to prove: it never moves
            level = sweep_level(new_max, rel_gap)
        if not relaxed:
            real_level = level
    search_lower()
    return _failed(pts, ubs, lbs, deltas, list(ivs.values()))


def _real_at_zero(respond, sysdata):
    """``respond`` with ``M(0)`` of real-coefficient data made exactly real: the evaluation
    leaves imaginary parts of 1e-16 there, and real ``mu`` is discontinuous (on two real
    scalars, a lower bound of 1.26 where the real ``M(0)`` has ``mu = 2.89``)."""
    if any(np.iscomplexobj(x) and np.any(np.imag(x) != 0) for x in sysdata):
        return respond

    def real_zero(omega):
        M = respond(omega)
        zero = np.asarray(omega, float) == 0
        if zero.any():
            M = M.copy()
            M[zero] = M[zero].real
        return M

    return real_zero


def _growing(counts, factor):
    """Whether the last two rounds each multiplied the count of gaps by ``factor``.

    Examples
    --------
    >>> _growing([5, 18, 54], 2.0), _growing([7, 18, 25], 2.0)
    (True, False)
    """
    if len(counts) < 3 or not counts[-3]:
        return False
    return counts[-1] >= factor * counts[-2] and counts[-2] >= factor * counts[-3]


def _scaling_rows(xs, blk):
    """The kept D,G parameters as an array, one row per point (NaN where none were kept)."""
    out = np.full((len(xs), n_scaling_parameters(blk)), np.nan)
    for k, x in enumerate(xs):
        if x is not None:
            out[k] = x
    return out


def _start_rows(ws, start, pts, xs, blk):
    """Starting D,G parameters for the frequencies ``ws`` (NaN rows start cold).

    A frequency of ``start = (omega, x)`` starts from its row of ``x``; any other from
    the parameters of the nearest point (in log frequency) of ``pts`` that has some in
    ``xs``.
    """
    p = n_scaling_parameters(blk)
    out = np.full((len(ws), p), np.nan)
    known = {} if start is None else {float(w): k for k, w in enumerate(start[0])}
    have = [k for k, x in enumerate(xs) if x is not None]
    where = np.array([pts[k] for k in have], float)
    finite = where[np.isfinite(where)]
    floor = 1e-9 * max(1.0, float(np.max(finite))) if finite.size else 1.0
    log_have = np.log(np.where(np.isfinite(where), where, 1e300) + floor)
    for i, w in enumerate(ws):
        w = float(w)
        if w in known:
            out[i] = start[1][known[w]]
        elif have:
            near = int(np.argmin(np.abs(log_have - np.log(min(w, 1e300) + floor))))
            out[i] = xs[have[near]]
    return out


def _search_lower(respond, blk, pts, ubs, lbs, deltas, stop=np.inf):
    """Lower bounds at the largest upper bounds, until none of them can beat the best.

    Updates ``lbs`` and ``deltas`` in place.  Points are taken by decreasing upper
    bound in chunks of 3, 6, 12, ...; a point whose upper bound is not above the best
    lower bound found (``max(lbs)``, which may be seeded) can add nothing.  The
    search also ends once the best lower bound reaches ``stop``.
    """
    order = [k for k in np.argsort(-np.asarray(ubs), kind="stable") if ubs[k] > 0]
    size = 3
    while order:
        best = max(lbs)
        if best >= stop:
            break
        order = [k for k in order if ubs[k] > best]
        chunk, order = order[:size], order[size:]
        if not chunk:
            break
        # The upper bounds are known: getting back close to them is enough to seed
        # the lower-bound search (the last digits of the optimisation are slow).
        res = mussv_stack(
            respond([pts[k] for k in chunk]),
            blk,
            lower="peak",
            lower_floor=best,
            target=[ubs[k] * (1 + _ROOM) for k in chunk],
        )
        for j, k in enumerate(chunk):
            if res.delta[j] is not None and res.lower[j] > lbs[k]:
                lbs[k], deltas[k] = float(res.lower[j]), res.delta[j]
        size *= 2


def peak_lower_search(sysdata, blk, dt, peak, *, floor=0.0, stop=np.inf) -> MuPeak:
    """Search mu lower bounds after a sweep run without them (``lower=False``).

    Only frequencies of ``peak`` whose upper bound exceeds ``floor`` (a lower bound
    known by other means, e.g. a destabilising parameter value) are searched, by
    decreasing upper bound, and the search ends once a lower bound reaches ``stop``.
    Real-coefficient data (non-negative frequencies) only.

    Returns
    -------
    MuPeak
        ``peak`` with its lower-bound fields replaced when a bound above ``floor``
        was found; otherwise ``peak`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> data = (-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1)))
    >>> p = certified_mu_peak(data, [(-1, 0)], lower=False)
    >>> round(peak_lower_search(data, [(-1, 0)], 0.0, p).lower, 6)
    1.0
    """
    a, b, c, d = sysdata
    pts = [float(w) for w in peak.omega]
    ubs = [float(u) for u in peak.mu_upper]
    if not pts:
        return peak
    lbs = [0.0] * len(pts)
    deltas = [None] * len(pts)
    lbs[0] = float(floor)  # seeds the floor; never reported (no perturbation)

    respond = _real_at_zero(balanced_response_function(a, b, c, d, dt), sysdata)
    _search_lower(respond, blk, pts, ubs, lbs, deltas, stop=stop)
    found = [k for k in range(len(pts)) if deltas[k] is not None and lbs[k] > floor]
    if not found:
        return peak
    k = max(found, key=lambda i: lbs[i])
    return replace(
        peak,
        lower=lbs[k],
        lower_frequency=pts[k],
        lower_delta=deltas[k],
        # keeps pointwise lower bounds known before (e.g. a verified parameter crossing)
        mu_lower=np.maximum(peak.mu_lower, np.where([dl is not None for dl in deltas], lbs, 0.0)),
    )


def certified_mu_peak(sysdata, blk, dt=0.0, *, omega=None, **options) -> MuPeak:
    """Certified ``sup_w mu(M(jw))`` for ``M`` given by ``sysdata = (A, B, C, D)``.

    Real-coefficient data have ``M(-jw) = conj(M(jw))`` and the same ``mu``, so the
    half-axis ``w >= 0`` is analysed.  With complex coefficients the negative half-axis
    is analysed too, as the positive half-axis of the conjugate model
    (``conj(M(-jw)) = conj(M)(jw)`` and ``mu`` is invariant under conjugation, since the
    structure is closed under it): the result then holds signed frequencies (intervals,
    ``lower_frequency``, ``omega``).  See :func:`_half_axis_peak` for the parameters.

    Examples
    --------
    >>> import numpy as np
    >>> a, b, c, d = (np.array([[-1.0 + 1.0j]]), np.eye(1), np.eye(1), np.zeros((1, 1)))
    >>> r = certified_mu_peak((a, b, c, d), [(1, 1)])
    >>> bool(r.covered), round(r.lower, 6), round(r.lower_frequency, 4)
    (True, 1.0, 1.0)
    """
    check_sweep_data(sysdata, dt)
    # the sweep runs in the model's own frequency unit (exact: the same M, see
    # .frequency_scaling); given frequencies are mapped in, returned ones back out
    scaled, w0, log_p = sweep_frame(sysdata, blk, dt)
    if scaled is sysdata:
        return _both_half_axes(sysdata, blk, dt, omega, options)
    omega = None if omega is None else np.asarray(omega, float) / w0
    if options.get("start") is not None:
        w, x = options["start"]
        options["start"] = (np.asarray(w, float) / w0, shift_scalings(x, blk, -log_p))
    peak = _both_half_axes(scaled, blk, dt, omega, options)
    return to_model_frequencies(peak, w0, blk, log_p)


def _both_half_axes(sysdata, blk, dt, omega, options) -> MuPeak:
    """:func:`certified_mu_peak` in the frequency unit of ``sysdata``."""
    if not any(np.iscomplexobj(x) and np.any(np.imag(x) != 0) for x in sysdata):
        return _half_axis_peak(sysdata, blk, dt, omega=omega, **options)
    if omega is not None:
        # given frequencies (of either sign) are evaluated directly
        return _half_axis_peak(sysdata, blk, dt, omega=omega, **options)
    pos = _half_axis_peak(sysdata, blk, dt, **options)
    neg = _half_axis_peak(tuple(np.conj(x) for x in sysdata), blk, dt, **options)
    use_neg = neg.lower > pos.lower
    return MuPeak(
        max(pos.upper, neg.upper),
        max(pos.lower, neg.lower),
        -neg.lower_frequency if use_neg else pos.lower_frequency,
        (None if neg.lower_delta is None else np.conj(neg.lower_delta))
        if use_neg
        else pos.lower_delta,
        _merge([(-hi, -lo) for lo, hi in neg.intervals] + list(pos.intervals)),
        pos.covered and neg.covered,
        np.concatenate([-neg.omega, pos.omega]),
        np.concatenate([neg.mu_upper, pos.mu_upper]),
        np.concatenate([neg.mu_lower, pos.mu_lower]),
        relaxed=sorted([-w for w in neg.relaxed] + list(pos.relaxed)),
        real_level=max(pos.real_level, neg.real_level),
    )


def _next_to_gaps(gaps, pts, stale, per_side=2):
    """Stale points inside a gap or among the ``per_side`` nearest stale ones on each side."""
    if not gaps or not stale:
        return []
    w = np.array([pts[i] for i in stale])
    st = np.array(stale)
    pick = set()
    for lo, hi in gaps:
        pick.update(st[(w >= lo) & (w <= hi)].tolist())
        left = st[w < lo][np.argsort(-w[w < lo], kind="stable")][:per_side]
        right = st[w > hi][np.argsort(w[w > hi], kind="stable")][:per_side]
        pick.update(left.tolist())
        pick.update(right.tolist())
    return sorted(pick)


def _failed(pts, ubs, lbs, deltas, intervals=()):
    """A sweep whose level could not be certified on the whole axis."""
    k = int(np.argmax(lbs))
    return MuPeak(
        np.inf,
        lbs[k],
        pts[k],
        deltas[k],
        _merge(intervals),
        False,
        np.array(pts),
        np.array(ubs),
        np.array(lbs),
    )


def _merge(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
