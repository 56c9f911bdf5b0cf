"""Robust stability margin of an uncertain system over the whole frequency axis.

The margin is ``1 / sup_w mu(M11(jw))`` in normalised units: ``1`` means
stable for every parameter value in the declared ranges (scaled about the
range centres, see :mod:`.uncertain_problem`).  With a ``band`` the supremum is
taken over ``wmin <= w <= wmax`` only (MATLAB's ``robstab(usys, {wmin, wmax})``),
certified on every frequency of it by :func:`.frequency_band.band_mu_peak`.

- ``lower`` (guaranteed margin) comes from a certified upper bound of mu on
  every frequency (:func:`.mu_sweep.certified_mu_peak`), or, on small all-real
  loops, from the vertex polytope of the characteristic polynomial
  (:mod:`.polytope_certificate`).
- ``upper`` comes from an actual destabilising perturbation, verified by
  substitution: the substituted system has a pole beyond the stability
  boundary by more than the rounding error of its eigenvalues, or on it (at
  ``critical_frequency``; ``inf`` when the pole comes from infinity, as when a
  leading coefficient such as a mass crosses zero).  Candidates come from the
  mu lower bound and, for real and complex parameters, from a direct search
  over the parameter box that finds the smallest scaling at which a pole
  reaches the boundary (:mod:`.destabilising_search`; this also catches the
  frequency-isolated crossings of real parameters).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._progress import ProgressBar
from ..errors import ArgumentError
from ..lft.arguments import frequencies
from .branch_and_bound import BoxCover, certify_scaled_box
from .centre_stability import centre_stability, unstable_reason
from .destabilising_search import (
    _crossing_scale,
    _diag_from,
    _parameter_search,
    _scalar_blocks,
    _search_values,
    _verified_crossing,
)
from .freqresp import freqresp
from .frequency_band import _band_level, _in_band, band_mu_peak, band_text, check_band
from .mu_sweep import MuPeak, certified_mu_peak, peak_lower_search
from .mussv import mussv_stack
from .norms_stability import UNSTABLE
from .occurrence_reduction import complete_values, reduced_problem
from .polytope_certificate import PolytopeCover, polytope_margin
from .robstab_reason import gap_note, relaxation_note, robstab_reason
from .robstab_rounding import centre_values, unresolved_bounds
from .uncertain_problem import (
    nominal_unstable_note,
    values_from_delta,
)


@dataclass
class RobstabResult:
    """Result of :func:`robstab`.

    Attributes
    ----------
    lower, upper : float
        Bounds of the robust stability margin (normalised units, 1 = the
        declared ranges).  ``lower`` is certified on the whole frequency axis
        (on every frequency of ``band`` when one is given) when ``certified`` is True.
    critical_frequency : float
        Frequency (rad/s) of the boundary pole of the destabilising perturbation; signed
        (possibly negative) for a model with complex coefficients, whose whole
        frequency axis is analysed.
    destabilizing : dict
        ``{name: value}`` in physical units (values of ``ultidyn`` elements are
        stable systems); substituting them puts a pole on the stability boundary.
    sensitivity : dict
        ``{name: s}``: the margin decreases by about ``s`` percent when that
        element's range grows by one percent about its centre.  A fraction (the values
        sum to 1); MATLAB's ``robstab`` reports ``100 s`` (percent).
    certified : bool
        Whether the frequency intervals cover the whole axis (the whole ``band``).
    mu : MuPeak
        The evidence: certified intervals, pointwise mu bounds over frequency.  When the
        boxes closed the gap, this single-box sweep was certified to ``gap_tol`` only
        (vertex polytope: at the level ``1.2 / upper``, not the default 1e-3 accuracy):
        the boxes, not this sweep, carry ``lower``.
    boxes : BoxCover or None
        The branch and bound over the parameter box, when it ran (all-real loops whose
        single-box bound left a gap above ``gap_tol``): the target scaling, whether
        it was certified, the sub-boxes certified and evaluated, the volume covered.
        A ``PolytopeCover`` when vertex polytopes certified it (small loops, no sweep).
    reason : str
        One sentence saying how the bounds arose, and why when they are degenerate:
        a closed loop that is already unstable at the centre of the ranges (margin
        0, no critical frequency), no destabilising perturbation found (``upper =
        inf``), a pole escaping to infinity (``critical_frequency = inf``), or an
        analysis restricted to a frequency grid or band.
    band : tuple or None
        ``(wmin, wmax)`` in rad/s when the analysis was restricted to that band:
        ``lower`` and ``upper`` then bound ``1 / sup mu`` over it, and the destabilising
        perturbation puts a closed-loop pole at ``critical_frequency``, in the band.
    """

    lower: float
    upper: float
    critical_frequency: float
    destabilizing: dict
    sensitivity: dict = field(default_factory=dict)
    certified: bool = False
    mu: MuPeak | None = field(default=None, repr=False)
    reason: str = ""
    boxes: BoxCover | None = field(default=None, repr=False)
    band: tuple | None = None

    @property
    def is_robustly_stable(self):
        """True when stability is guaranteed on the declared ranges (``lower > 1``)."""
        return self.lower > 1.0


def robstab(
    usys,
    *,
    omega=None,
    band=None,
    progress=False,
    sensitivity=True,
    gap_tol=5e-3,
    max_boxes=16,
    executor=None,
):
    """Robust stability margin of an uncertain system.

    Parameters
    ----------
    usys : UncertainSystem
        Closed loop with uncertain elements.
    omega : array_like, optional
        Restrict the analysis to these frequencies (no whole-axis certificate).
        By default the whole frequency axis is covered.
        These are frequency points: ``omega=(wmin, wmax)`` analyses those two
        frequencies alone; for MATLAB's interval ``{wmin, wmax}`` use ``band``.
    band : tuple (wmin, wmax), optional
        Restrict the analysis to the frequency interval ``wmin <= w <= wmax`` (rad/s;
        ``0 <= wmin < wmax <= inf``, ``wmax <= pi/dt`` in discrete time), with the
        guarantees of the whole-axis analysis on every frequency of it: ``lower`` is
        certified by frequency intervals covering the band, ends included, and
        ``upper`` is realised by values that put a closed-loop pole at a frequency of the
        closed band (a pole located beyond an end by at most 1e-8, relative, counts only
        when the values put a pole at the end itself to rounding; other poles of that
        loop may be unstable too, at frequencies outside the band).  A
        band ``(0, inf)`` (``(0, pi/dt)``) is the whole-axis analysis.  Not with
        ``omega``, nor for models with complex coefficients.  On a band the vertex
        polytopes and the branch and bound (which certify the whole axis) do not run,
        the direct parameter search only proposes a candidate for ``upper``, and
        ``sensitivity`` is not computed (the crossings it follows may leave the band).
    progress : bool
        Show a progress bar on standard error (stages and the rounds of the
        frequency sweep).
    sensitivity : bool
        Compute each element's sensitivity of the margin.
    gap_tol : float
        Relative gap ``upper / lower - 1`` at which the search for destabilising
        values stops.  When every element is a real parameter, the direct search over
        the parameter box (every corner up to 12 elements; up to 6 on models of 40 or
        more states with a non-square ``Delta``) runs first; on loops of <= 12 states
        and <= 4 elements vertex polytopes of the characteristic polynomial then
        certify the box without a sweep; else the branch and bound when the gap is
        still above ``gap_tol``; the real-mu lower bound only when it is still open.
    max_boxes : int
        Budget of the branch and bound over the parameter box (all-real loops, run
        when the gap is still above ``gap_tol``): sub-boxes swept at most.  It tries
        to certify ``upper / (1 + gap_tol)`` times the box.  A sub-box that a probe
        at its parent's failing frequency rejects (no sweep) is split without
        counting; at most ``4 * max_boxes`` sub-boxes are examined in all.  When it
        fails and the mu lower bound then finds a closer crossing, it runs once more
        (same budget) for the new target.  0 turns off every certificate over parts
        of the box, the branch and bound and the vertex-polytope step alike:
        ``lower`` is then the plain single-box mu sweep's bound (``boxes`` is None).
    executor : concurrent.futures.Executor, optional
        Certifies the sub-boxes of each generation of the branch and bound in
        parallel.

    Returns
    -------
    RobstabResult

    Raises
    ------
    ArgumentError
        When ``usys`` has no states (a ``umat`` or a static system): it has no poles to
        destabilise; a bad ``band`` (NaN, ``wmin >= wmax``, negative, above ``pi/dt``),
        or ``band`` with ``omega``.

    Notes
    -----
    A loop that is already unstable with every element at the centre of its range
    has no stability margin: the result is ``lower = upper = 0`` with no critical
    frequency (``nan``), ``destabilizing`` holds the centre values, and
    ``reason`` says so and lists the unstable poles.  This is what an open loop
    gives (for instance a signal left unconnected in :func:`~robustmb.connect`);
    read ``reason`` whenever a bound is 0, ``inf`` or ``nan``.

    A loop whose centre poles double precision cannot tell from the stability boundary
    (a pole within rounding of the axis or unit circle, or a numerically singular, nearly
    defective state matrix; :func:`.robstab_rounding.unresolved_centre`) gets ``lower =
    0``: a mu certificate there rests on rounding.  ``upper`` then comes only from values
    that put a pole beyond the boundary by more than its rounding error; ``reason`` names
    the poles.

    The margin scales every range about its centre (MATLAB's ``robstab`` scales about
    the nominal value).  When a range is asymmetric and the model is unstable at the
    nominal values but stable at the centres, the bounds (about the centre) are still
    correct, and ``reason`` ends with a note that the nominal model is unstable.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    >>> s = control.tf("s")
    >>> res = rmb.robstab(1 / (s * s + c * s + 1))
    >>> bool(0.99 < res.lower <= 1.0), round(res.upper, 6), round(res.critical_frequency, 4)
    (True, 1.0, 1.0)

    On a band away from the mode (``c = 0`` puts the poles at +-j, outside it) the
    margin is larger: the damping must change sign *and* the mode move into the band.

    >>> w = rmb.ureal("w", 1.0, range=(0.8, 1.2))
    >>> res = rmb.robstab(1 / (s * s + c * s + w * w), band=(2.0, 10.0))
    >>> bool(1.0 < res.lower <= res.upper), res.band
    (True, (2.0, 10.0))
    """
    omega = frequencies(omega, "robstab", dt=getattr(usys, "dt", None))
    if band is not None and omega is not None:
        raise ArgumentError("robstab: give band (an interval) or omega (points), not both")
    if not (isinstance(gap_tol, (int, float, np.number)) and np.isfinite(gap_tol) and gap_tol >= 0):
        raise ArgumentError(f"robstab: gap_tol must be a finite number >= 0, got {gap_tol!r}")
    if isinstance(max_boxes, bool) or not isinstance(max_boxes, (int, np.integer)) or max_boxes < 0:
        raise ArgumentError(f"robstab: max_boxes must be an integer >= 0, got {max_boxes!r}")
    problem, dropped = reduced_problem(usys, "robstab")
    band = check_band(band, problem.dt, "robstab")
    if band is not None and problem.is_complex:
        raise ArgumentError("robstab: band is not supported for models with complex coefficients")
    if problem.a.shape[0] == 0:
        # a static loop has no poles to destabilise: only its well-posedness can be
        # lost, which is mu of the LFT coefficient itself, not a stability margin
        raise ArgumentError(
            "robstab: usys has no states (a static uncertain matrix or system); robust "
            "stability concerns the poles of a dynamic loop: for the well-posedness of a "
            "static one use mussv on its LFT coefficient (lftdata)"
        )
    # stability at the rounding level (``unresolved``): lower = 0; the centre is called
    # unstable only when a pole is beyond the boundary by more than its rounding band
    # (or the exact test proves it): a computed pole beyond the boundary within rounding
    # is no witness (upper = 0 would be false on a centre that is in fact stable)
    verdict, unresolved = centre_stability(problem)
    if verdict == UNSTABLE:
        reason = unstable_reason(problem, "robstab")
        res = RobstabResult(0.0, 0.0, np.nan, centre_values(problem), {}, True, None, reason)
        res.band, res.destabilizing = band, complete_values(res.destabilizing, dropped)
        return res
    with ProgressBar(3, "robstab", enabled=bool(progress)) as bar:
        if unresolved is not None:
            upper, crit, destab, reason = unresolved_bounds(problem, unresolved, band)
            res = RobstabResult(0.0, upper, crit, destab, {}, False, None, reason)
        elif band is not None and (band[0] > 0 or band[1] < _top(problem.dt)):
            res = _band_robstab(problem, band, bar, gap_tol)
        else:  # the whole axis
            res = _robstab(problem, omega, sensitivity, bar, gap_tol, int(max_boxes), executor)
    res.band = band
    res.reason += nominal_unstable_note(problem, "robstab")
    # elements the loop does not depend on: nominal values, no influence on the margin
    res.destabilizing = complete_values(res.destabilizing, dropped)
    if res.sensitivity:
        res.sensitivity = complete_values(res.sensitivity, dict.fromkeys(dropped, 0.0))
    return res


def _top(dt):
    """The top of the frequency axis: ``pi / dt`` in discrete time, else ``inf``."""
    return np.pi / dt if dt else np.inf


def _band_robstab(problem, band, bar, gap_tol):
    """:func:`robstab` on a band: certified band sweeps for ``lower``, crossings in it for
    ``upper``.

    The direct search over the parameter box (scalar elements) runs first: its verified
    crossing bounds the whole-axis margin, which is at most the band's, so a fixed level
    just above it certified on the band (cheap: every bound stops once below the level)
    bounds the band margin from below whether or not that crossing lies in the band.
    When the crossing is in the band the gap is then closed; otherwise the free band
    sweep (with mu lower bounds at frequencies of the band) runs, and a verified crossing
    in the band fixes a level just above it, certified in turn.  A band sweep that leaves
    a gap falls back on the whole-axis sweep (``sup`` over the axis bounds the one over
    the band).  A crossing counts only if its boundary pole is in the closed band: one
    just outside an end (to :data:`_BAND_RTOL`) counts only when its unpushed values put
    a pole at the end frequency itself to rounding (:func:`.frequency_band._band_end_pole`).
    """
    bar.start("certified mu sweep over the band")
    sysdata, blk, dt = problem.m11, problem.blk, problem.dt
    scalar = bool(_scalar_blocks(problem)) and all(
        bi.kind in ("real", "complex") for bi in problem.blocks
    )
    best = {"upper": np.inf, "crit": np.nan, "destab": {}, "ill": False, "direction": None}
    outside = []  # verified crossings whose boundary pole is outside the band

    def consider(alpha, values_at, direction=None, at=None):
        if alpha >= best["upper"]:
            return
        got = _in_band(
            problem, band, alpha, values_at, _verified_crossing(problem, alpha, values_at), at
        )
        if got is None:
            return
        if got[2] is None:
            outside.append(got)
        elif got[0] < best["upper"]:
            best.update(upper=got[0], destab=got[1], crit=got[2], ill=got[3])
            best["direction"] = direction

    lowers, peak, first = [0.0], None, None
    if scalar:
        first = _parameter_search(problem, _FIRST_CAP)
        if first is not None:
            consider(first[0], _search_values(problem, *first), first[1])
            if not np.isfinite(best["upper"]) and outside:
                # a crossing outside the band still bounds the whole-axis margin from above
                peak = _band_level(problem, band, outside[-1][0], _rooms(gap_tol), bar.start)
            elif np.isfinite(best["upper"]):
                peak = _band_level(problem, band, best["upper"], _rooms(gap_tol), bar.start)
            if peak is not None:
                lowers.append(_lower_of(peak))
    whole = ""
    closed = peak is not None and np.isfinite(best["upper"])
    if not closed:
        level_peak = peak
        peak = band_mu_peak(sysdata, blk, dt, band, lower=True, progress=bar.start)
        if not peak.covered:
            other = certified_mu_peak(
                sysdata, blk, dt, lower=False, progress=bar.start, give_up=_SWEEP_GIVE_UP
            )
            if other.covered:
                peak = replace(other, lower=peak.lower, lower_frequency=peak.lower_frequency,
                               lower_delta=peak.lower_delta)  # fmt: skip
                whole = " (the band's sweep left gaps: lower is the whole-axis certificate's)"
        lowers.append(_lower_of(peak))
        if level_peak is not None and _lower_of(level_peak) > _lower_of(peak):
            peak = replace(level_peak, lower=peak.lower, lower_frequency=peak.lower_frequency,
                           lower_delta=peak.lower_delta)  # fmt: skip
            whole = ""
        bar.advance(label="destabilising parameter values")
        if peak.lower > 0 and peak.lower_delta is not None:

            def from_mu(t, delta=peak.lower_delta, w=peak.lower_frequency):
                return values_from_delta(problem, t * delta, w)

            consider(1.0 / peak.lower, from_mu, at=peak.lower_frequency)
        cap = _search_cap(max(lowers))
        if scalar and first is None and cap > _FIRST_CAP:
            again = _parameter_search(problem, cap)
            if again is not None:
                consider(again[0], _search_values(problem, *again), again[1])
        upper = best["upper"]
        if np.isfinite(upper) and upper > max(lowers) * (1.0 + gap_tol):
            fixed = _band_level(problem, band, upper, _rooms(gap_tol), bar.start)
            if fixed is not None:
                lowers.append(_lower_of(fixed))
                peak = replace(fixed, lower=peak.lower, lower_frequency=peak.lower_frequency,
                               lower_delta=peak.lower_delta)  # fmt: skip
                whole = ""
    cap = _search_cap(max(lowers))
    upper, crit, destab, ill = best["upper"], best["crit"], best["destab"], best["ill"]
    if best["direction"] is not None:
        peak = _with_search_lower(problem, peak, upper, crit, best["direction"])
    lower = float(min(max(lowers), upper))
    upper = float(upper)
    bar.advance(label="done")
    reason = robstab_reason(lower, upper, crit, peak.covered, None, cap, False, bool(ill))
    reason = reason.replace("on the whole frequency axis", f"on the band {band_text(band)}")
    reason = reason.replace("part of the frequency axis", "part of the band")
    reason = reason.replace("was found (", "with a boundary pole in the band was found (")
    if not np.isfinite(upper) and outside:
        near = min(outside, key=lambda g: g[0])
        reason += (
            f"; the closest verified crossing (scaling {near[0]:.10g}) has its boundary pole "
            f"at {near[1]!r} rad/s, outside the band ({band[0]!r}, {band[1]!r})"
        )
    reason += whole + relaxation_note(peak) + gap_note(lower, upper, gap_tol)
    return RobstabResult(lower, upper, crit, destab, {}, peak.covered, peak, reason)


# Relative room of the fixed level certified above a crossing found by the direct search
# (all-real problems): the certified gap is then this, unless the sweep fails at it.
_SEARCH_ROOM = 5e-4
# Scalings searched for a crossing before any mu bound is known.
_FIRST_CAP = 20.0
# The branch and bound runs before the mu lower-bound search when the gap left by the
# single box is at most this (relative): the single-box D,G bound of real parameters is
# typically a few percent above mu (product loop 7.4 %, pole escape 9.4 %); a larger gap
# usually means the direct search missed the worst case, and a branch and bound aimed
# at that crossing would spend its budget on sub-boxes that are not stable.
_BOXES_FIRST = 0.2
# ``certified_mu_peak``'s default relative accuracy of a free sweep's level.
_SWEEP_REL_GAP = 1e-3
# Relative room of the pointwise bound added at a verified crossing's frequency.
_PLOT_ROOM = 1e-3
# The sweep of the whole box stops (not covered) once its uncovered gaps have doubled
# in two rounds in a row: where no interval certifies (a discrete pole 5e-14 from
# z = -1), each round multiplied them by four and cost four times the last (250 s).
_SWEEP_GIVE_UP = 2.0


def _robstab(
    problem, omega, sensitivity, bar, gap_tol, max_boxes=0, executor=None, *, search_first=True
):
    """The analysis behind :func:`robstab`; ``search_first=False`` forces the free sweep
    with mu lower bounds on all-real problems too (the benchmark compares both paths)."""
    bar.start("certified mu sweep")
    # All-real problems: the direct search over the parameter box is cheap and usually
    # finds the worst case (a corner, or an interior crossing of the local search).  Its
    # crossing fixes a level just above it, which a fixed-level sweep certifies (every
    # bound stops as soon as it is below the level, far cheaper than locating the peak);
    # the real-mu lower bound (the costly part of a free sweep) runs only when the level
    # fails and the branch and bound leaves the gap above ``gap_tol``, and only where it
    # can help.
    search_first = (
        search_first
        and omega is None
        and bool(problem.blocks)
        and all(bi.kind == "real" for bi in problem.blocks)
    )
    sysdata, blk, dt = problem.m11, problem.blk, problem.dt
    upper, crit, destab, ill = np.inf, np.nan, {}, False
    peak = failed = vertex = None
    if search_first:
        found = _parameter_search(problem, _FIRST_CAP)
        if found is not None:
            got = _verified_crossing(problem, found[0], _search_values(problem, *found))
            if got is not None:
                upper, destab, crit, ill = got
                # small loops: the box by vertex polytopes, no sweep at a tight level
                # (max_boxes = 0: the plain single-box sweep bound, no box certificates)
                if max_boxes > 0:
                    vertex = polytope_margin(problem, upper, gap_tol, bar.start)
                peak = None if vertex is None else vertex[1]
                # tight first; a level failing there may still hold at the gap tolerance
                for room in sorted({min(_SEARCH_ROOM, gap_tol), gap_tol} if peak is None else ()):
                    level = (1.0 + room) / upper
                    if peak is not None and _still_above(problem, peak, level):
                        break
                    peak = certified_mu_peak(
                        sysdata, blk, dt, level=level, lower=False, progress=bar.start
                    )
                    if peak.covered:
                        break
                if not peak.covered:
                    failed, peak = peak, None
    direction = found[1] if search_first and np.isfinite(upper) else None
    # A failed level with a branch and bound to follow (the failed sweep's bounds leave
    # a gap below ``_BOXES_FIRST``): the single box need only be certified to within
    # ``gap_tol`` (swept again to the default accuracy below if the boxes stay open).
    loose = False
    if peak is None:
        loose = (
            failed is not None
            and max_boxes > 0
            and gap_tol > _SWEEP_REL_GAP
            and np.max(failed.mu_upper, initial=0.0) * upper <= 1.0 + _BOXES_FIRST
        )
        peak = certified_mu_peak(
            sysdata,
            blk,
            dt,
            omega=omega,
            lower=not search_first,
            progress=bar.start,
            give_up=_SWEEP_GIVE_UP,
            **({"rel_gap": gap_tol} if loose else {}),
        )
    if direction is not None:
        peak = _with_search_lower(problem, peak, upper, crit, direction)
    bar.advance(label="destabilising parameter values")
    lower = _lower_of(peak)
    cover = None if vertex is None else vertex[0]
    lower = lower if cover is None else max(lower, cover.target)
    cap = _search_cap(lower)
    if not search_first:
        upper, crit, destab, ill = _from_mu_lower(problem, peak, cap, upper, crit, destab, ill)
    else:
        # The branch and bound runs before the (costly) mu lower-bound search: when it
        # certifies ``upper / (1 + gap_tol)`` the gap is closed and the search cannot
        # change the answer.  Only when it fails does the search run, and the branch and
        # bound again if the search found a closer crossing (its target is set by
        # ``upper``: a loose one asks for a box that is not stable).
        # A gap far above the single box's conservatism says the search missed the
        # worst case: then the search runs first (the order only changes the effort).
        # The gap is that of the pointwise bounds (whatever the sweep's accuracy).
        boxes = _BoxRun(problem, peak, gap_tol, max_boxes, executor, bar)
        pointwise = np.max(peak.mu_upper, initial=0.0)
        if boxes.applies(lower, upper) and upper * pointwise <= 1.0 + _BOXES_FIRST:
            cover, peak, lower, upper, crit, destab, ill = boxes.run(
                lower, upper, crit, destab, ill
            )
        if loose and (cover is None or not cover.certified):
            # Both sweeps certify the whole box: keep the tighter (the default accuracy
            # may relax real parameters where the loose sweep did not need to).
            again = certified_mu_peak(
                sysdata, blk, dt, lower=False, progress=bar.start, give_up=_SWEEP_GIVE_UP
            )
            peak = again if again.upper < peak.upper else peak
            peak = _with_search_lower(problem, peak, upper, crit, boxes.direction or direction)
            boxes.peak, lower = peak, _lower_of(peak)
            cap = _search_cap(lower)
        if cover is None or not cover.certified:
            before = upper
            peak, upper, crit, destab, ill, cap = _search_lower_gap(
                problem, peak, gap_tol, upper, crit, destab, ill, cap
            )
            if (cover is None or upper < before) and boxes.applies(lower, upper):
                boxes.peak = peak
                cover, peak, lower, upper, crit, destab, ill = boxes.run(
                    lower, upper, crit, destab, ill
                )
    # ``upper`` is realised by a verified destabilising point, whatever frequencies the
    # sweep was restricted to: a grid-only ``lower`` above it is no bound, and the
    # verified point wins (a certified ``lower`` above it would be a contradiction).
    lower = float(min(lower, upper))
    upper = float(upper)
    bar.advance(label="sensitivities")
    sens = _sensitivity(problem, upper, destab, crit) if sensitivity and np.isfinite(upper) else {}
    bar.advance(label="done")
    by_polytope = isinstance(cover, PolytopeCover) and cover.certified and lower == cover.target
    ill = bool(np.isinf(crit) and destab and ill)  # as _verified_crossing found the witness
    reason = robstab_reason(lower, upper, crit, peak.covered, omega, cap, by_polytope, ill)
    reason += relaxation_note(peak)
    if cover is not None:
        reason += cover.margin_note()
    if omega is None:
        reason += gap_note(lower, upper, gap_tol)
    return RobstabResult(lower, upper, crit, destab, sens, peak.covered, peak, reason, cover)


def _rooms(gap_tol):
    """Relative rooms of a fixed level above a verified crossing: tight first."""
    return sorted({min(_SEARCH_ROOM, gap_tol), gap_tol})


def _search_cap(lower):
    """Largest scaling the direct parameter search scans: twice a multiple of the
    certified margin ``lower`` (clipped to [1, 1e3]), 20 when no margin is known."""
    return 2.0 * (max(1.0, min(lower * 4, 1e3)) if np.isfinite(lower) else 10.0)


def _lower_of(peak):
    """The margin ``1 / sup mu`` certified by a sweep (``inf`` for ``mu = 0``)."""
    if not np.isfinite(peak.upper):
        return 0.0
    return np.inf if peak.upper == 0 else 1.0 / peak.upper


def _still_above(problem, peak, level):
    """Whether a failed fixed-level sweep ``peak`` fails ``level`` too, at its worst point.

    The real-mu upper bound at the frequency of the sweep's largest bound, optimised to
    the end from a cold start, is above ``level``: a sweep at that level would fail
    there again, so it is not run.
    """
    if not len(peak.mu_upper) or np.max(peak.mu_upper) <= level:
        return False
    w = float(peak.omega[int(np.argmax(peak.mu_upper))])
    a, b, c, d = problem.m11
    resp = freqresp((a, b, c, d, problem.dt) if problem.dt else (a, b, c, d), np.array([w]))
    return bool(mussv_stack(resp, problem.blk, lower=False).upper[0] > level)


class _BoxRun:
    """The branch and bound of :func:`robstab` over the parameter box of an all-real loop."""

    def __init__(self, problem, peak, gap_tol, max_boxes, executor, bar):
        self.problem, self.peak, self.gap_tol = problem, peak, gap_tol
        self.max_boxes, self.executor, self.bar = max_boxes, executor, bar
        self.direction = None  # of the closest crossing the sub-box centres gave

    def applies(self, lower, upper):
        """Whether the gap ``[lower, upper]`` is open and a branch and bound can close it."""
        return (
            self.max_boxes > 0
            and self.peak.covered
            and bool(np.isfinite(upper))
            and upper > lower * (1.0 + self.gap_tol)
        )

    def run(self, lower, upper, crit, destab, ill):
        """Certify ``upper / (1 + gap_tol)`` times the box; returns ``(cover, peak, lower,
        upper, crit, destab, ill)`` with the closer crossings the sub-box centres gave."""
        problem, peak = self.problem, self.peak
        self.bar.start("branch and bound over the parameter box")
        state = {"upper": upper, "crit": crit, "destab": destab, "ill": ill}
        cover = certify_scaled_box(
            problem,
            _scalar_blocks(problem),
            upper / (1.0 + self.gap_tol),
            max_boxes=self.max_boxes,
            executor=self.executor,
            on_unstable=lambda point: _lower_upper(problem, point, self.gap_tol, state),
            hint=_peak_frequency(peak),
        )
        if state["upper"] < upper:
            # the branch and bound found a closer crossing: it is mu's lower bound now
            peak = _with_search_lower(
                problem, peak, state["upper"], state["crit"], state["direction"]
            )
            self.peak, self.direction = peak, state["direction"]
        if cover.certified:
            lower = max(lower, cover.target)
        return cover, peak, lower, state["upper"], state["crit"], state["destab"], state["ill"]


def _search_lower_gap(problem, peak, gap_tol, upper, crit, destab, ill, cap):
    """The mu lower-bound search of an all-real loop whose gap the search left open.

    Searches mu lower bounds at the sweep's frequencies above ``1 / upper`` (until the
    gap to ``1 / peak.upper`` is within ``gap_tol``) and tries the crossing along the
    best one as a destabilising candidate.  Returns ``(peak, upper, crit, destab, ill,
    cap)``, unchanged when the gap is already closed or nothing beats ``upper``.
    """
    lower = 0.0 if not np.isfinite(peak.upper) else 1.0 / peak.upper
    if np.isfinite(upper) and upper <= lower * (1.0 + gap_tol):
        return peak, upper, crit, destab, ill, cap
    floor = 1.0 / upper if np.isfinite(upper) else 0.0
    stop = peak.upper / (1.0 + gap_tol) if np.isfinite(peak.upper) else np.inf
    peak = peak_lower_search(problem.m11, problem.blk, problem.dt, peak, floor=floor, stop=stop)
    if peak.lower > floor:
        cap = 2.0 / peak.lower
        upper, crit, destab, ill = _from_mu_lower(problem, peak, cap, upper, crit, destab, ill)
    return peak, upper, crit, destab, ill, cap


def _with_search_lower(problem, peak, scaling, freq, direction):
    """``peak`` with the verified crossing of the search as its lower bound of mu.

    ``scaling`` is the verified scaling (the bisected crossing pushed until the
    substituted loop has a pole on or beyond the boundary), so ``lower_delta`` is a
    destabilising perturbation.  The point ``(freq, 1 / scaling)`` joins the pointwise
    bounds (with a certified upper bound there) so that plots show the lower bound.
    """
    if 1.0 / scaling <= peak.lower:
        return peak
    lower = 1.0 / scaling
    fields = dict(
        lower=lower,
        lower_frequency=freq,
        lower_delta=np.diag(scaling * _diag_from(problem, direction)),
    )
    if np.isfinite(freq):
        a, b, c, d = problem.m11
        resp = freqresp((a, b, c, d, problem.dt) if problem.dt else (a, b, c, d), np.array([freq]))
        # a plotted point: the bound may stop once within _PLOT_ROOM of the lower bound
        ub = mussv_stack(resp, problem.blk, lower=False, target=lower * (1 + _PLOT_ROOM))
        ub = float(ub.upper[0])
        if peak.covered and not lower <= ub <= peak.upper:
            # the certified peak bound holds at every frequency: it replaces a point that
            # stopped above it, or one below the lower bound (the pole frequency of a
            # pushed crossing is only near the crossing frequency)
            ub = float(peak.upper)
        if ub >= lower:
            fields.update(
                omega=np.append(peak.omega, freq),
                mu_upper=np.append(peak.mu_upper, ub),
                mu_lower=np.append(peak.mu_lower, lower),
            )
    return replace(peak, **fields)


def _peak_frequency(peak):
    """Frequency of the largest pointwise mu upper bound of a sweep (None if none)."""
    if peak is None or not len(peak.mu_upper):
        return None
    return float(peak.omega[int(np.argmax(peak.mu_upper))])


def _lower_upper(problem, point, gap_tol, state):
    """An unstable sub-box centre: verified crossing along its direction, new target."""
    scal = _scalar_blocks(problem)
    size = float(np.max(np.abs(point)))
    if size == 0:
        return None
    direction = {bi.name: float(x) / size for bi, x in zip(scal, point, strict=True)}
    alpha = _crossing_scale(problem, direction, size * (1 + 1e-9), n_scan=48)
    if alpha is None:
        return None
    got = _verified_crossing(problem, alpha, _search_values(problem, alpha, direction))
    if got is None or got[0] >= state["upper"]:
        return None
    state["upper"], state["destab"], state["crit"], state["ill"] = got
    state["direction"] = direction
    return got[0] / (1.0 + gap_tol)


def _from_mu_lower(problem, peak, cap, upper, crit, destab, ill):
    """Best verified crossing from the mu lower bound's perturbation and a parameter
    search seeded with its direction; keeps ``(upper, crit, destab, ill)`` if none is
    better (``ill``: the witness is an ill-posed loop, see :func:`_verified_crossing`)."""
    candidates = []
    mu_dirs = []
    if peak.lower > 0 and peak.lower_delta is not None:

        def from_mu(t, delta=peak.lower_delta, w=peak.lower_frequency):
            return values_from_delta(problem, t * delta, w)

        candidates.append((1.0 / peak.lower, from_mu))
        delta = peak.lower_delta
        d = {
            bi.name: float(np.real(np.mean(np.diag(delta[bi.w, bi.z])))) * peak.lower
            for bi in _scalar_blocks(problem)
        }
        if any(d.values()):
            mx = max(abs(v) for v in d.values())
            mu_dirs.append({k: v / mx for k, v in d.items()})
    found = _parameter_search(problem, cap, extra_directions=mu_dirs)
    if found is not None:
        candidates.append((found[0], _search_values(problem, *found)))
    for alpha, values_at in sorted(candidates, key=lambda c: c[0]):
        if alpha >= upper:
            break
        got = _verified_crossing(problem, alpha, values_at)
        if got is not None and got[0] < upper:
            upper, destab, crit, ill = got
    return upper, crit, destab, ill


def _sensitivity(problem, upper, destab, crit, h=1e-3):
    """Percent decrease of the margin per percent growth of each element's range.

    The margin is a minimum over perturbation directions, so (Danskin) its derivative
    is the one along the destabilising direction: with element ``i``'s range widened
    by ``(1 + h)`` the boundary crossing along that direction moves from ``upper`` to
    ``a_i`` and the sensitivity is ``(1 - a_i / upper) / h``.  The margin is
    homogeneous of degree -1 in the ranges, so the sensitivities sum to 1 (Euler).
    For scalar elements the crossing is found exactly from the closed-loop poles
    (real parameters may cross at one frequency only); when the destabilising
    perturbation involves ``ultidyn`` elements, from the peak of the mu upper bound
    around the critical frequency, with each element's columns of ``M11`` scaled.
    """
    scalar = _scalar_blocks(problem)
    # ultidyn values are systems, or zero arrays when the crossing needs none of them
    if all(
        bi.kind in ("real", "complex")
        or (isinstance(destab[bi.name], np.ndarray) and not destab[bi.name].any())
        for bi in problem.blocks
    ):
        direction = {
            bi.name: complex(bi.element.normalize(destab[bi.name])) / upper for bi in scalar
        }
        if not any(np.iscomplex(v) for v in direction.values()):
            direction = {k: v.real for k, v in direction.items()}
        base = _crossing_scale(problem, direction, 2.0 * upper, n_scan=48) or upper
        out = {bi.name: 0.0 for bi in problem.blocks}
        for bi in scalar:
            if direction[bi.name] == 0:
                continue
            widened = dict(direction)
            widened[bi.name] = direction[bi.name] * (1.0 + h)
            a_i = _crossing_scale(problem, widened, 2.0 * base, n_scan=48)
            out[bi.name] = float((1.0 - a_i / base) / h) if a_i is not None else float("nan")
        return out
    return _mu_sensitivity(problem, crit, h=1e-2)


def _mu_sensitivity(problem, crit, h):
    """Sensitivities from the local peak of the mu upper bound (continuous for ``ultidyn``)."""
    from .freqresp import freqresp
    from .mussv import mussv

    a, bw, cz, dzw = problem.m11
    w0 = max(crit, 1e-6) if np.isfinite(crit) else 1.0
    omega = w0 * np.geomspace(0.8, 1.25, 25)
    if problem.dt:  # a discrete loop's axis ends at the Nyquist frequency
        omega = np.unique(np.minimum(omega, np.pi / problem.dt))
    resp = freqresp((a, bw, cz, dzw, problem.dt) if problem.dt else (a, bw, cz, dzw), omega)
    # one stack: the responses, then the responses with each element's columns scaled
    stack = [resp]
    for bi in problem.blocks:
        widened = resp.copy()
        widened[:, :, bi.w] *= 1.0 + h
        stack.append(widened)
    mus = mussv(np.concatenate(stack), problem.blk, lower=False).upper.reshape(len(stack), -1)
    peaks = mus.max(axis=1)
    return {
        bi.name: float((1.0 - peaks[0] / p) / h) if p > 0 else 0.0
        for bi, p in zip(problem.blocks, peaks[1:], strict=True)
    }


__all__ = ["robstab", "RobstabResult"]
