"""Worst-case peak gain over the whole frequency axis (the margin form is in robust_gain).

With the performance block ``Delta_p`` (a full complex block from the outputs
back to the inputs), the main loop theorem gives: if
``mu_[Delta, Delta_p](diag(I, 1/gamma) M(jw)) <= 1`` at every frequency, the
peak gain ``||Fu(M, Delta)||_inf`` is at most ``gamma`` for every ``Delta`` in
the unit ball.  ``wcgain`` finds the smallest certified ``gamma`` (pointwise
bisection on a grid, then a whole-axis certificate of the final level by
:func:`.mu_sweep.certified_mu_peak`), and a lower bound that is the actual
peak gain of a substituted system (the worst case found).  With a ``band`` the gain is
that of the frequency response over ``wmin <= w <= wmax`` only (MATLAB's
``wcgain(usys, {wmin, wmax})``), the level certified on every frequency of the band by
:func:`.frequency_band.band_mu_peak`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from .._progress import ProgressBar
from ..errors import ArgumentError
from ..lft.arguments import frequencies
from .branch_and_bound import BoxCover
from .centre_stability import centre_stability, undecided_centre_reason, unstable_reason
from .freqresp import freqresp
from .frequency_band import band_grid, band_mu_peak, band_text, check_band
from .gain_boxes import (
    _box_options,
    _gain_boxes,
    _gain_cover_note,
    _peak_of,
    _point_values,
    _real_blocks,
    _split_option,
    ill_posed_member,
)
from .gain_levels import level_ratio_from_scalings
from .mu_sweep import MuPeak, certified_mu_peak, default_grid
from .mu_upper import n_scaling_parameters
from .mussv import mussv, mussv_stack, warm_upper_bounds
from .norms_stability import UNSTABLE
from .occurrence_reduction import complete_values, reduced_problem
from .uncertain_problem import (
    box_vertices,
    nominal_unstable_note,
    values_from_delta,
)

_BELOW_ONE = 1.0 - 1e-6  # stop the mu optimisation once this far below 1


@dataclass
class WcgainResult:
    """Result of :func:`wcgain`.

    Attributes
    ----------
    lower, upper : float
        Bounds of the worst-case peak gain over the uncertainty set.  ``lower``
        is the peak gain of the substituted system ``worst``; ``upper`` is
        certified on the whole frequency axis when ``certified`` is True.
    critical_frequency : float
        Frequency of the worst-case peak (in the band, when one is given).
    worst : dict
        ``{name: value}`` achieving ``lower``.
    reason : str
        One sentence saying how the bounds arose, and why when they are degenerate
        (a loop unstable at the centre of the ranges, a loop not robustly stable
        over the set, no whole-axis certificate).
    boxes : BoxCover or None
        The branch and bound over the parameter box, when it ran (real parameters
        whose single-box bound left a gap above ``gap_tol``): the level ``gamma`` it
        tried to certify on every sub-box, whether it did (``certified``), the
        sub-boxes certified and swept, the volume covered.
    band : tuple or None
        ``(wmin, wmax)`` in rad/s when the gain was restricted to that band.
    """

    lower: float
    upper: float
    critical_frequency: float
    worst: dict
    certified: bool = False
    mu: MuPeak | None = field(default=None, repr=False)
    reason: str = ""
    boxes: BoxCover | None = field(default=None, repr=False)
    band: tuple | None = None


def _augmented_blk(problem):
    ny, nu = problem.model.shape
    return problem.blk + [(nu, ny)]


def _responses(problem, omega):
    a, b, c, d = problem.a, problem.b, problem.c, problem.d
    data = (a, b, c, d, problem.dt) if problem.dt else (a, b, c, d)
    return freqresp(data, omega)


def _scaled(resp, problem, gamma, alpha=1.0):
    """``diag(I, 1/gamma) M diag(alpha I, I)`` on a response stack (per-frequency gammas)."""
    out = resp.copy()
    g = np.asarray(gamma, float).reshape(-1, 1, 1) if np.ndim(gamma) else gamma
    out[:, problem.nz :, :] /= g
    out[:, :, : problem.nw] *= alpha
    return out


def _levels_upper(stack, blk, warm=None, idx=None):
    """Certified D,G bounds of ``mu(stack[k])``, each optimisation stopped once below 1.

    With ``warm`` (an ``(N, p)`` array of D,G parameters, NaN rows where none is known
    yet) and ``idx`` (the rows of ``warm`` that ``stack`` belongs to), the optimiser
    starts from ``warm[idx]`` and the parameters it ends at are stored back there: the
    levels of a bisection reuse each other's scalings.  Only the effort changes; the
    bounds are certified the same way.
    """
    if len(stack) == 0:
        return np.zeros(0)
    if warm is None:
        return mussv_stack(stack, blk, lower=False, target=_BELOW_ONE).upper
    upper, x = warm_upper_bounds(stack, blk, target=_BELOW_ONE, x0=warm[idx])
    warm[idx] = x
    return upper


def _below_one(stack, blk, warm=None, idx=None):
    """``mu(stack[k]) <= 1`` certified for each ``k`` (see :func:`_levels_upper`)."""
    return _levels_upper(stack, blk, warm, idx) <= 1


def pointwise_gain_bounds(
    problem,
    omega,
    *,
    alpha=1.0,
    iters=40,
    floor=0.0,
    warm=True,
    rtol=1e-4,
    settle=1e-3,
    scalings=None,
):
    """Upper bound of the worst-case gain at each frequency (vectorised bisection).

    Only the largest value is used by the callers, so the bisection stops refining a
    frequency once its certified bound is below ``floor`` (a gain already realised) or
    below the bracket's lower end at another one (the largest bound cannot be there),
    and once its bracket is narrower than ``rtol`` (relative).  The first level tried
    is ``floor * (1 + settle)`` (when ``floor > 0``): most frequencies are certified
    there in one round.
    With ``warm``, each level's D,G optimisation starts from the scalings the previous
    level ended at, frequency by frequency (see :func:`_levels_upper`), and a level that
    fails hands its scalings to :func:`.gain_levels.level_ratio_from_scalings`: the
    level at which those same scalings bound mu by 1 is certified at once (by the usual
    D,G check, the optimiser started there), which closes the bracket from above
    without a bisection step.  Every returned value is a level whose certificate was
    checked; the bracket's lower ends are levels the optimiser failed at (no claim).
    With ``warm``, ``scalings`` (an ``(N, p)`` array, optional) receives the D,G
    parameters that certified each returned bound (they certify any larger level too).
    A frequency where the uncertainty part's own D,G bound is above 1 gets ``inf`` at
    once (no level can be certified there by a single box).
    """
    resp = _responses(problem, omega)
    blk = _augmented_blk(problem)
    n = len(omega)
    xw = np.full((n, n_scaling_parameters(blk)), np.nan) if warm else None
    nominal_gain = np.linalg.norm(resp[:, problem.nz :, problem.nw :], 2, axis=(-2, -1))
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    settled = floor * (1 + settle)
    # A frequency certified just above the realised gain cannot hold a larger level:
    # trying that level first settles most frequencies in one round.
    trial = np.maximum(np.maximum(nominal_gain, 1e-6) * 2.0 + 1e-6, settled)
    if floor > 0:
        trial[:] = settled
    grown = np.zeros(n, dtype=int)
    # A D,G certificate of any level restricts to one of the uncertainty part alone (the
    # performance rows only add a positive semidefinite term).  Where the optimiser's
    # bound of the latter stays above 1, growing the level 40 times is wasted: the
    # frequency gets inf at once (conservative when that bound is not the optimal one).
    if problem.nz and problem.blk:
        rs = mussv_stack(alpha * resp[:, : problem.nz, : problem.nw], problem.blk,
                         lower=False, target=_BELOW_ONE).upper  # fmt: skip
        trial[~(rs <= 1)] = np.inf
    for _ in range(iters + 40):
        floor_now = max(settled, float(np.max(lo, where=np.isfinite(hi), initial=0.0)))
        closed = np.isfinite(hi) & ((hi - lo <= rtol * hi) | (hi <= floor_now))
        todo = np.isfinite(trial) & ~closed
        idx = np.flatnonzero(todo)
        if idx.size == 0:
            break
        scaled = _scaled(resp[idx], problem, trial[idx], alpha)
        up = _levels_upper(scaled, blk, xw, idx)
        ok = up <= 1
        hi[idx[ok]] = trial[idx[ok]]
        if scalings is not None and xw is not None:
            scalings[idx[ok]] = xw[idx[ok]]
        bad = idx[~ok]
        lo[bad] = trial[bad]
        if bad.size and xw is not None:
            # the scalings the failing levels ended at certify a larger level
            stack = scaled[~ok]
            ratio, x_new = level_ratio_from_scalings(stack, blk, problem.nz, xw[bad], _BELOW_ONE)
            cand = trial[bad] * ratio * (1 + 1e-9)
            fin = np.flatnonzero(np.isfinite(cand) & (cand < hi[bad]))
            if fin.size:
                rows = bad[fin]
                xw[rows] = x_new[fin]
                ok_c = _below_one(_scaled(resp[rows], problem, cand[fin], alpha), blk, xw, rows)
                hi[rows[ok_c]] = cand[fin][ok_c]
                if scalings is not None:
                    scalings[rows[ok_c]] = xw[rows[ok_c]]
        # next levels: grow where nothing is certified yet, else bisect the bracket
        nxt = np.where(np.isfinite(hi), 0.5 * (lo + hi), lo * 4.0)
        grow = ~np.isfinite(hi)
        grown[grow & todo] += 1
        nxt[grow & (grown > 40)] = np.inf
        trial = np.where(todo, nxt, trial)
    return hi


def _certify_level(problem, gamma, alpha=1.0, progress=None, start=None, band=None):
    """Whole-axis certificate that the gain stays below ``gamma`` (scaling ``alpha``).

    ``start = (omega, x)``: D,G parameters certifying levels at most ``gamma`` at the
    frequencies ``omega`` (of the same scaling ``alpha``); the sweep starts from them.
    With ``band``, the certificate covers that band only (``start`` unused).
    """
    if band is not None:
        data = problem.performance(gamma, alpha)
        return band_mu_peak(data, _augmented_blk(problem), problem.dt, band, level=1.0,
                            lower=False, progress=progress)  # fmt: skip
    return certified_mu_peak(
        problem.performance(gamma, alpha),
        _augmented_blk(problem),
        problem.dt,
        level=1.0,
        lower=False,
        progress=progress,
        start=start,
    )


def _worst_case_search(
    problem, n_random=40, seed=0, alpha=1.0, *, enough=None, first=None, omega=None
):
    """Largest actual peak gain over vertices and random points of the scalar box.

    Returns ``(gain, frequency, values, index)``, ``index`` numbering the points (the
    same points for every ``alpha``).  With ``enough``, the search ends at the first
    point whose gain reaches it (point ``first`` is tried before the others).  With
    ``omega``, gains are peaks over those frequencies only.
    """
    rng = np.random.default_rng(seed)
    scal = [bi for bi in problem.blocks if bi.kind == "real"]
    fixed = {
        bi.name: (bi.element.nominal if bi.kind == "complex" else np.zeros(bi.element.shape))
        for bi in problem.blocks
        if bi.kind != "real"
    }
    pts = []
    k = len(scal)
    if k and k <= 6:
        pts.extend(box_vertices(k))
    pts.extend(rng.uniform(-1, 1, (n_random, k)))
    order = list(range(len(pts)))
    if first is not None:
        order.remove(first)
        order.insert(0, first)
    best = (-np.inf, np.nan, None, None)
    for i in order:
        vals = {
            bi.name: bi.element.denormalize(alpha * x).item()
            for bi, x in zip(scal, pts[i], strict=True)
        } | fixed
        try:
            g, f = _peak_of(problem, vals, omega)
        except ValueError:
            continue
        if g > best[0]:
            best = (g, f, vals, i)
        if enough is not None and g >= enough:
            break
    return best


def wcgain(
    usys,
    *,
    omega=None,
    band=None,
    progress=False,
    gap_tol=5e-3,
    max_boxes=16,
    executor=None,
    initial_split=None,
):
    """Worst-case peak gain of an uncertain system.

    Parameters
    ----------
    usys : UncertainSystem
    omega : array_like, optional
        Restrict to these frequencies: both bounds then refer to the largest gain over
        them (no whole-axis certificate).
        These are frequency points: ``omega=(wmin, wmax)`` analyses those two
        frequencies alone; for MATLAB's interval ``{wmin, wmax}`` use ``band``.
    band : tuple (wmin, wmax), optional
        Restrict to the frequency interval ``wmin <= w <= wmax`` (rad/s;
        ``0 <= wmin < wmax <= inf``, ``wmax <= pi/dt`` in discrete time): both bounds
        refer to ``sup`` over the set and the band of the gain of the frequency
        response, ``upper`` certified on every frequency of the band (ends included)
        as the whole-axis ``upper`` is on the axis, ``lower`` the gain of ``worst`` at
        ``critical_frequency`` (in the band).  Stability is not part of the claim (a
        member unstable elsewhere has a finite frequency response on the band).  A
        band ``(0, inf)`` (``(0, pi/dt)``) is the whole-axis analysis.  Not with
        ``omega``, nor for models with complex coefficients; the branch and bound
        does not run on a band.
    progress : bool
        Show a progress bar on standard error (stages and the rounds of the
        whole-axis certificate).
    gap_tol : float
        Relative gap ``upper / lower - 1`` the branch and bound aims at.
    max_boxes : int
        Budget of the branch and bound over the parameter box (sub-boxes swept at
        most, not counting sub-boxes rejected by the probe at their parent's failing
        frequency; 0 turns it off: ``upper`` is the plain single-box bound).  It runs
        when every element is a real parameter and the single-box certificate leaves
        a gap above ``gap_tol``: each sub-box is re-centred (its centre closed into
        the loop, performance channels included) and the level ``lower * (1 +
        gap_tol)`` is certified on it by a whole-axis sweep; a sub-box that fails is
        split along the element that weighs most at the failing frequency, and a
        sub-box centre with a larger gain raises ``lower`` (a gain of the substituted
        system) and the level.
    executor : concurrent.futures.Executor, optional
        Certifies the sub-boxes of each generation of the branch and bound in
        parallel.
    initial_split : dict, optional
        ``{element name: pieces}``: the branch and bound starts from the grid of equal
        sub-boxes these cut the box into (the other elements whole) instead of the
        whole box, e.g. ``{"t1": 8, "t2": 8}`` for scheduling parameters repeated many
        times in the LFT, which make the single-box bound loose.  Real parameters only;
        these sub-boxes count in ``max_boxes``, which must hold them all.  Used only when
        the branch and bound runs.

    Returns
    -------
    WcgainResult

    Notes
    -----
    A loop unstable with every element at the centre of its range has infinite
    gain: the result is ``lower = upper = inf`` with no critical frequency, ``worst``
    the centre values, and ``reason`` says so and lists the unstable poles (an open
    loop, for instance from a signal left unconnected, gives this).  A loop found unstable at some
    point of the ranges (a vertex, a sample, or a sub-box centre of the branch and
    bound) is not robustly stable: ``lower = upper = inf``, ``worst`` is that point.
    ``upper = inf`` with a finite ``lower`` means no finite level could be certified
    and robust stability was neither proved nor disproved; ``reason`` says why.  When
    the single-box mu bound certifies no finite level (it can reach 1 for a robustly
    stable loop of real parameters), the branch and bound still runs from the level
    ``lower * (1 + gap_tol)``.  When the model is unstable at the nominal values of
    an asymmetric range (but not at the centres) ``reason`` ends with a note saying so.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    >>> s = control.tf("s")
    >>> res = rmb.wcgain(k / (s + 1))
    >>> round(res.lower, 4), res.upper >= res.lower, round(res.critical_frequency, 4)
    (2.0, True, 0.0)

    Over the band [2, 10] rad/s the gain of ``k / (s + 1)`` is largest at 2 rad/s:
    ``2 / sqrt(5)`` at ``k = 2``.

    >>> res = rmb.wcgain(k / (s + 1), band=(2.0, 10.0))
    >>> round(res.lower, 4), bool(res.lower <= res.upper <= 1.003 * res.lower), res.band
    (0.8944, True, (2.0, 10.0))
    """
    omega = frequencies(omega, "wcgain", dt=getattr(usys, "dt", None))
    if band is not None and omega is not None:
        raise ArgumentError("wcgain: give band (an interval) or omega (points), not both")
    gap_tol, max_boxes = _box_options(gap_tol, max_boxes, "wcgain")
    problem, dropped = reduced_problem(usys, "wcgain")
    band = check_band(band, problem.dt, "wcgain")
    if band is not None and problem.is_complex:
        raise ArgumentError("wcgain: band is not supported for models with complex coefficients")
    split = _split_option(initial_split, problem, "wcgain", max_boxes)
    verdict, unresolved = centre_stability(problem)
    if verdict == UNSTABLE:
        reason = unstable_reason(problem, "wcgain") + "; the gain is infinite"
        centre = complete_values(_centre_values(problem), dropped)
        return WcgainResult(np.inf, np.inf, np.nan, centre, True, None, reason, band=band)
    if unresolved is not None:
        # poles within rounding of the boundary: no frequency response is trusted
        reason = undecided_centre_reason(problem, unresolved, verdict, "wcgain")
        centre = complete_values(_centre_values(problem), dropped)
        return WcgainResult(0.0, np.inf, np.nan, centre, False, None, reason, band=band)
    inner = band if band is not None and not whole_axis(band, problem.dt) else None
    with ProgressBar(3, "wcgain", enabled=bool(progress)) as bar:
        res = _wcgain(problem, omega, bar, gap_tol, max_boxes, executor, split, inner)
    res.band = band
    res.reason += nominal_unstable_note(problem, "wcgain")
    res.worst = complete_values(res.worst, dropped)
    return res


def whole_axis(band, dt):
    """Whether ``band`` is the whole frequency axis (``[0, inf]``, ``[0, pi/dt]``).

    Examples
    --------
    >>> whole_axis((0.0, float("inf")), 0.0), whole_axis((0.0, 3.0), 0.0)
    (True, False)
    """
    return band[0] == 0 and band[1] >= (np.pi / dt if dt else np.inf)


def _wcgain(problem, omega, bar, gap_tol=5e-3, max_boxes=0, executor=None, split=None, band=None):
    bar.start("worst case over vertices and samples")
    if band is not None:
        # realised gains over the band: at its ends, its modes and a dense log grid
        omega = band_grid(problem.a, problem.dt, band, n=400)
        g_lo, f_lo, worst, _ = _worst_case_search(problem, omega=omega)
        grid = band_grid(problem.a, problem.dt, band)
        if np.isfinite(f_lo):
            grid = np.union1d(grid, [f_lo])
    elif omega is not None:
        # bounds of the largest gain over these frequencies (lower and upper alike)
        grid = np.asarray(omega, float)
        g_lo, f_lo, worst, _ = _worst_case_search(problem, omega=grid)
    else:
        g_lo, f_lo, worst, _ = _worst_case_search(problem)
        # a loss of well-posedness in the box (a pole through infinity), which samples miss
        ill = ill_posed_member(problem) if np.isfinite(g_lo) else None
        if ill is not None and ill[0] is None:
            reason = f"wcgain: the loop is ill-posed at {_values_text(ill[3])}, so upper = inf"
            return WcgainResult(g_lo, np.inf, f_lo, worst or {}, False, None, reason)
        g_lo, f_lo, worst = ill[:3] if ill is not None else (g_lo, f_lo, worst)
        grid = default_grid(problem.a, problem.dt, both_signs=problem.is_complex)
        if np.isfinite(f_lo) and f_lo > 0:
            # the peak frequency of the worst case found so far is a likely peak of mu
            grid = np.union1d(grid, [f_lo])
    if not np.isfinite(g_lo) and omega is None and band is None:
        # a realised unstable point: the worst-case gain is infinite, nothing to bound
        return _unbounded(problem, (g_lo, f_lo, worst), "", None, omega, 0.0, 0, None, bar, None)
    bar.advance(label=f"pointwise bounds at {len(grid)} frequencies")
    # The single-box level only decides whether the branch and bound runs (and is its
    # fallback): bisect it to a tenth of the gap aimed at, and try first the largest
    # level that would need no branch and bound (the certified level is 1.001 times
    # the grid's largest bound).
    # On given frequencies the grid's bound is the answer: bisect it as tightly as before.
    # (a band, which runs no branch and bound, sets ``omega`` to its dense grid)
    rtol = max(1e-4, 0.1 * gap_tol) if omega is None else 1e-4
    settle = (1.0 + gap_tol) / 1.001 * (1.0 - 1e-12) - 1.0
    settle = settle if settle >= 1e-4 and omega is None else 1e-3
    x_grid = np.full((len(grid), n_scaling_parameters(_augmented_blk(problem))), np.nan)
    gam = pointwise_gain_bounds(
        problem, grid, floor=g_lo, rtol=rtol, settle=settle, scalings=x_grid
    )
    bar.advance(label="whole-axis certificate")
    # Candidate from the mu lower bound of the augmented problem at the grid peak.
    # (at the largest finite bound: an inf one gives no scaled matrix to search)
    k = int(np.argmax(np.where(np.isfinite(gam), gam, -np.inf)))
    if np.isfinite(gam[k]):
        resp = _scaled(_responses(problem, grid[k : k + 1]), problem, gam[k])
        res = mussv(resp, _augmented_blk(problem))
        if res.delta is not None and res.lower[0] > 0:
            delta = res.delta[0][: problem.nw, : problem.nz] * res.lower[0]
            if np.linalg.norm(delta, 2) <= 1 + 1e-9:
                vals = values_from_delta(problem, delta, grid[k])
                try:
                    g2, f2 = _peak_of(problem, vals, omega)
                    if g2 > g_lo:
                        g_lo, f_lo, worst = g2, f2, vals
                except ValueError:
                    # An ill-posed substitution is not a member of the set: no candidate.
                    pass
    if band is not None:
        return _band_result(problem, band, grid, gam, (g_lo, f_lo, worst), rtol, bar)
    if not np.all(np.isfinite(gam)):
        why = (
            "the single-box mu bound certifies no finite gain level at some frequencies "
            "(its bound for the uncertainty block alone reaches 1 there)"
        )
        # the frequency nearest the worst case's peak where the single box fails
        bad = grid[~np.isfinite(gam)]
        hint = float(bad[int(np.argmin(np.abs(bad - f_lo)))]) if np.isfinite(f_lo) else None
        return _unbounded(
            problem, (g_lo, f_lo, worst), why, None, omega, gap_tol, max_boxes, executor, bar, hint,
            split,
        )  # fmt: skip
    if omega is not None:
        reason = "wcgain: bounds of the largest gain over the given frequencies only"
        return WcgainResult(g_lo, float(np.max(gam)), f_lo, worst or {}, False, None, reason)
    # Certify a level slightly above the grid's; a failure names new frequencies,
    # where the pointwise bounds are recomputed.
    # no level below a realised gain can be certified
    level = max(float(np.max(gam)), g_lo) * 1.001
    peak = None
    growth = 0.01
    for _ in range(6):
        # the grid's certificates hold at every larger level: the sweep starts there
        start = (grid, x_grid) if np.all(np.isfinite(x_grid)) and not problem.is_complex else None
        peak = _certify_level(problem, level, progress=bar.start, start=start)
        if peak.covered:
            reason = (
                "wcgain: upper certified on the whole frequency axis by mu; lower is the "
                "peak gain of the substituted worst case"
            )
            scal = _real_blocks(problem)
            cover = None
            if max_boxes > 0 and scal is not None and level > g_lo * (1.0 + gap_tol):
                bar.start("branch and bound over the parameter box")
                # the grid frequency with the largest certified gain bound
                hint = float(grid[int(np.argmax(gam))])
                (g_lo, f_lo, worst), cover = _gain_boxes(
                    problem, scal, (g_lo, f_lo, worst), level, gap_tol, max_boxes, executor,
                    hint, split,
                )  # fmt: skip
                if cover.certified:
                    level = min(level, cover.gamma)
                reason += _gain_cover_note(cover)
            bar.advance(label="done")
            return WcgainResult(g_lo, level, f_lo, worst or {}, True, peak, reason, cover)
        # where the sweep certified mu <= 1 the gain is below the level already: only
        # the frequencies it failed at can raise it
        failed = peak.omega[~(peak.mu_upper <= 1.0)]
        extra = (
            pointwise_gain_bounds(problem, failed, floor=g_lo, rtol=rtol)
            if failed.size
            else np.zeros(0)
        )
        if not np.all(np.isfinite(extra)):
            why = (
                "the single-box mu bound certifies no finite gain level at frequencies "
                "the whole-axis sweep found (its bound for the uncertainty block alone "
                "reaches 1 there)"
            )
            hint = float(failed[~np.isfinite(extra)][0])
            return _unbounded(
                problem, (g_lo, f_lo, worst), why, peak, omega, gap_tol, max_boxes, executor,
                bar, hint, split,
            )  # fmt: skip
        # The pointwise bounds at the failed frequencies can all sit below the level
        # (the sweep's interval certificates then cover only slivers of a band where mu
        # is within a few per mille of it): raise the level geometrically too, so that a
        # finite level is certified (1 %, 4 %, 16 %, 64 %, ... above the last).
        level = max(level * (1.0 + growth), float(np.max(extra, initial=0.0)) * 1.001)
        growth *= 4.0
    why = "the single-box whole-axis certificate of a finite level failed"
    return _unbounded(
        problem, (g_lo, f_lo, worst), why, peak, omega, gap_tol, max_boxes, executor, bar, None,
        split,
    )  # fmt: skip


def _band_result(problem, band, grid, gam, lower, rtol, bar):
    """wcgain on a band: the level of the band grid certified on the whole band by
    :func:`_certify_level`, raised at the frequencies where the band sweep fails."""
    g_lo, f_lo, worst = lower
    where = band_text(band)
    if not np.all(np.isfinite(gam)):
        reason = (
            f"wcgain: the single-box mu bound certifies no finite gain level at some "
            f"frequencies of the band {where} (its bound for the uncertainty block alone "
            "reaches 1 there), so upper = inf; lower is the gain of the substituted worst "
            "case in the band"
        )
        return WcgainResult(g_lo, np.inf, f_lo, worst or {}, False, None, reason)
    level = max(float(np.max(gam)), g_lo) * 1.001
    growth, peak = 0.01, None
    for _ in range(6):
        peak = _certify_level(problem, level, progress=bar.start, band=band)
        if peak.covered:
            reason = (
                f"wcgain: upper certified on the band {where} by mu; lower is the gain of "
                "the substituted worst case at a frequency of the band"
            )
            bar.advance(label="done")
            return WcgainResult(g_lo, level, f_lo, worst or {}, True, peak, reason)
        failed = peak.omega[~(peak.mu_upper <= 1.0)]
        extra = pointwise_gain_bounds(problem, failed, floor=g_lo, rtol=rtol)
        if not np.all(np.isfinite(extra)):
            break
        level = max(level * (1.0 + growth), float(np.max(extra, initial=0.0)) * 1.001)
        growth *= 4.0
    reason = (
        f"wcgain: the certificate of a finite level on the band {where} failed, so upper "
        "= inf; lower is the gain of the substituted worst case in the band"
    )
    return WcgainResult(g_lo, np.inf, f_lo, worst or {}, False, peak, reason)


def _values_text(values):
    """``name = value`` pairs; a dynamic (``ultidyn``) value is a system, named by its size."""

    def text(v):
        if isinstance(v, numbers.Number):
            return f"{v:.6g}"
        states = getattr(v, "nstates", None)
        return f"an LTI system with {states} states" if states is not None else repr(v)

    return ", ".join(f"{k} = {text(v)}" for k, v in values.items())


def _unbounded(
    problem, lower, why, peak, omega, gap_tol, max_boxes, executor, bar, hint, split=None
):
    """wcgain when the single box certifies no finite level: say whether the loop is not
    robustly stable (a realised unstable point) or the bound is just not closed; with real
    parameters only, the branch and bound over the box may still certify a finite level."""
    g_lo, f_lo, worst = lower
    worst = worst or {}
    if not np.isfinite(g_lo):
        reason = (
            f"wcgain: the loop is not robustly stable over the ranges: it is unstable at "
            f"worst ({_values_text(worst)}), so the worst-case gain is infinite"
        )
        return WcgainResult(g_lo, np.inf, f_lo, worst, True, peak, reason)
    scal = _real_blocks(problem)
    if omega is not None or scal is None or max_boxes == 0:
        without = (
            "bounds over given frequencies"
            if omega is not None
            else "max_boxes = 0"
            if scal is not None
            else "the elements are not all real parameters"
        )
        reason = (
            f"wcgain: {why}, and no branch and bound over the parameter box ran "
            f"({without}), so upper = inf; robust stability is neither proved nor "
            "disproved here (see robstab)"
        )
        return WcgainResult(g_lo, np.inf, f_lo, worst, False, peak, reason)
    # Robust stability is not disproved: split the box, certifying the level
    # lower * (1 + gap_tol) (raised by larger gains at sub-box centres) on each sub-box.
    bar.start("branch and bound over the parameter box")
    (g_lo, f_lo, worst), cover = _gain_boxes(
        problem, scal, (g_lo, f_lo, worst), np.inf, gap_tol, max_boxes, executor, hint, split
    )
    worst = worst or {}
    if cover.certified:
        reason = (
            f"wcgain: {why}; branch and bound certified the level {cover.gamma:.6g} on "
            f"the whole box with {cover.boxes} sub-boxes ({cover.evaluated} swept) on the "
            "whole frequency axis; lower is the peak gain of the substituted worst case"
        )
        bar.advance(label="done")
        return WcgainResult(g_lo, max(cover.gamma, g_lo), f_lo, worst, True, peak, reason, cover)
    if cover.destabilizing is not None:
        point = _point_values(problem, scal, cover.destabilizing)
        try:
            g_bad, f_bad = _peak_of(problem, point)
        except ValueError:  # ill-posed: not a member of the set, the loop is not robust
            reason = (
                f"wcgain: the loop is not robustly well-posed over the ranges: it is "
                f"ill-posed at {_values_text(point)}, so upper = inf"
            )
            return WcgainResult(g_lo, np.inf, f_lo, worst, False, peak, reason, cover)
        if not np.isfinite(g_bad):
            reason = (
                f"wcgain: the loop is not robustly stable over the ranges: it is unstable "
                f"at worst ({_values_text(point)}), found by the branch and bound over the "
                "parameter box, so the worst-case gain is infinite"
            )
            return WcgainResult(np.inf, np.inf, f_bad, point, True, peak, reason, cover)
    reason = (
        f"wcgain: {why}; branch and bound did not close the bound within "
        f"{cover.sweeps} (the level {cover.gamma:.6g} certified on "
        f"{100 * cover.coverage:.3g} % of the box, no unstable point found), so upper = inf; "
        "robust stability is neither proved nor disproved here (see robstab; a larger "
        "max_boxes may close it)"
    )
    return WcgainResult(g_lo, np.inf, f_lo, worst, False, peak, reason, cover)


def _centre_values(problem):
    """Physical values with every element at the centre of its range (``Delta = 0``)."""
    return {
        bi.name: (
            bi.element.denormalize(0.0).item()
            if bi.kind == "real"
            else bi.element.nominal
            if bi.kind == "complex"
            else np.zeros(bi.element.shape)
        )
        for bi in problem.blocks
    }


__all__ = ["wcgain", "WcgainResult"]
