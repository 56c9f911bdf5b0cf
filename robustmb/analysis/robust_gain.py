"""Robust performance margin: the largest uncertainty scaling keeping the peak gain below gamma.

:func:`robgain` is the dual question of :func:`.worst_case_gain.wcgain`: for a fixed
bound ``gamma`` on the peak gain, bisection on the scaling ``alpha`` of the uncertainty
box with the pointwise mu test of ``diag(alpha I, 1/gamma) M(jw)``, a whole-axis
certificate of the final scaling, and an upper bound realised by parameter values whose
actual peak gain reaches ``gamma`` (MATLAB's ``robgain``).  With a ``band`` the gain is
that of the frequency response over ``wmin <= w <= wmax`` (MATLAB's
``robgain(usys, gamma, {wmin, wmax})``), certified on every frequency of the band.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._progress import ProgressBar
from ..errors import ArgumentError
from ..lft.arguments import frequencies, real_number
from .branch_and_bound import BoxCover
from .centre_stability import centre_stability, undecided_centre_reason, unstable_reason
from .destabilising_search import _parameter_search, _scalar_blocks, _verified_crossing
from .frequency_band import band_grid, band_text, check_band
from .gain_boxes import (
    _box_options,
    _margin_boxes,
    _peak_of,
    _real_blocks,
    first_reaching_scale,
)
from .mu_sweep import default_grid
from .mu_upper import n_scaling_parameters
from .mussv import mussv, mussv_stack
from .norms_stability import UNSTABLE
from .occurrence_reduction import complete_values, reduced_problem
from .uncertain_problem import (
    nominal_unstable_note,
    values_from_delta,
)
from .worst_case_gain import (
    _augmented_blk,
    _below_one,
    _centre_values,
    _certify_level,
    _responses,
    _scaled,
    _worst_case_search,
    whole_axis,
)


@dataclass
class RobgainResult:
    """Result of :func:`robgain`: bounds of the largest uncertainty scaling keeping gain < gamma.

    Attributes
    ----------
    lower, upper : float
        Bounds of the margin (normalised units, 1 = the declared ranges).
    critical_frequency : float
        Frequency of the peak gain of ``worst``.
    gamma : float
    certified : bool
    worst : dict
        ``{name: value}`` at scaling ``upper`` whose peak gain reaches ``gamma``.
    reason : str
        One sentence saying how the bounds arose, and why when they are degenerate.
    boxes : BoxCover or None
        The branch and bound over the parameter box, when it ran: the scaling
        ``target`` it tried to certify with peak gain below ``gamma`` on every
        sub-box, whether it did, the sub-boxes certified and swept, the volume covered.
    band : tuple or None
        ``(wmin, wmax)`` in rad/s when the gain was restricted to that band.
    """

    lower: float
    upper: float
    critical_frequency: float
    gamma: float
    certified: bool = False
    worst: dict = field(default_factory=dict)
    reason: str = ""
    boxes: BoxCover | None = field(default=None, repr=False)
    band: tuple | None = None


def _block_size(problem, delta):
    """Size of a normalised perturbation in the structure: its largest block norm."""
    return max((float(np.linalg.norm(delta[bi.w, bi.z], 2)) for bi in problem.blocks), default=0.0)


def _mu_gain_witness(problem, gamma, alpha, grid, resp, below, n_freq=5, iters=40, omega=None):
    """Smallest scaling ``t`` found along a mu-lower-bound direction with peak gain >= gamma.

    At the frequencies where the robust-performance mu upper bound for scaling
    ``alpha`` is largest, the lower bound's perturbation (uncertainty part) is a
    direction; the scaling along it is bisected on the actual peak gain of the
    substituted system (``inf`` when unstable, which also reaches ``gamma``; with
    ``omega``, the largest gain over those frequencies).
    Returns ``(t, frequency, values)`` or None when nothing below ``below`` is found.
    """
    blk = _augmented_blk(problem)
    stack = _scaled(resp, problem, gamma, alpha)
    ub = mussv_stack(stack, blk, lower=False).upper
    order = np.argsort(ub)[::-1][:n_freq]
    res = mussv(stack[order], blk)
    if res.delta is None:
        return None
    best = None
    for j in np.argsort(res.lower)[::-1]:
        if res.lower[j] <= 0:
            break
        du = alpha * np.asarray(res.delta[j])[: problem.nw, : problem.nz]
        size = _block_size(problem, du)
        if size == 0:
            continue
        direction, w0 = du / size, float(grid[order[j]])

        def peak(t, direction=direction, w0=w0):
            try:
                return _peak_of(problem, values_from_delta(problem, t * direction, w0), omega)
            except ValueError:  # an ill-posed substitution: not a member of the set
                return -np.inf, np.nan

        limit = below if best is None else best[0]
        t_hi = min(size * 4.0, limit) if np.isfinite(limit) else size * 4.0
        g_hi, f_hi = peak(t_hi)
        if not g_hi >= gamma:
            continue
        t_hi, f_hi = first_reaching_scale(peak, gamma, t_hi, f_hi, iters)
        if best is None or t_hi < best[0]:
            best = (t_hi, f_hi, values_from_delta(problem, t_hi * direction, w0))
    return best


def robgain(
    usys,
    gamma,
    *,
    omega=None,
    band=None,
    progress=False,
    gap_tol=5e-3,
    max_boxes=16,
    executor=None,
):
    """Robust performance margin: largest uncertainty scaling with peak gain below ``gamma``.

    Parameters
    ----------
    usys : UncertainSystem
    gamma : float
        Required bound on the peak gain (positive).
    omega : array_like, optional
        Restrict to these frequencies (no whole-axis certificate).
        These are frequency points: ``omega=(wmin, wmax)`` analyses those two
        frequencies alone; for MATLAB's interval ``{wmin, wmax}`` use ``band``.
    band : tuple (wmin, wmax), optional
        Restrict to the frequency interval ``wmin <= w <= wmax`` (rad/s;
        ``0 <= wmin < wmax <= inf``, ``wmax <= pi/dt`` in discrete time): the margin
        keeps the gain of the frequency response below ``gamma`` on the band, ``lower``
        certified on every frequency of it (ends included) as the whole-axis ``lower``
        is on the axis, ``upper`` realised by ``worst``, whose gain reaches ``gamma`` at
        ``critical_frequency`` (in the band).  Stability is not part of the claim (an
        unstable member does not reach ``gamma`` on the band by being unstable).  A
        band ``(0, inf)`` (``(0, pi/dt)``) is the whole-axis analysis.  Not with
        ``omega``, nor for models with complex coefficients; the branch and bound
        does not run on a band.
    progress : bool
        Show a progress bar on standard error.
    gap_tol : float
        Relative gap ``upper / lower - 1`` the branch and bound aims at.
    max_boxes : int
        Budget of the branch and bound over the parameter box (sub-boxes swept at
        most, not counting sub-boxes rejected by the probe at their parent's failing
        frequency; 0 turns it off).  It runs when every element is a real parameter and
        the certified scaling leaves a gap above ``gap_tol``: it certifies that the
        peak gain stays below ``gamma`` on every re-centred sub-box of
        ``upper / (1 + gap_tol)`` times the box; a sub-box centre reaching ``gamma``
        gives a smaller realised ``upper`` (bisection along its direction on the
        actual peak gain) and a smaller target.
    executor : concurrent.futures.Executor, optional
        Certifies the sub-boxes of each generation of the branch and bound in
        parallel.

    Returns
    -------
    RobgainResult
        ``upper`` is realised by parameter values (``worst``) whose actual peak gain
        reaches ``gamma`` (an unstable member counts, with infinite gain: the robust
        stability crossing bounds the margin too).  ``lower`` is certified on the whole
        frequency axis when ``certified``: the scaling found on the frequency grid is
        certified by a whole-axis sweep, refined at the frequencies where the sweep
        fails; when no scaling is certified, ``lower`` is 0 and ``reason`` says so.
        With ``omega``, ``lower`` holds on those frequencies only.  Always
        ``lower <= upper``.

    Notes
    -----
    A loop unstable with every element at the centre of its range has margin 0
    (``lower = upper = 0``, no critical frequency, ``worst`` the centre values), and
    ``reason`` says so and lists the unstable poles.  So has a loop whose peak gain at
    the centre already reaches ``gamma`` (``certified``, ``worst`` the centre values, the critical
    frequency that of the centre's peak).  The margin scales every range about its
    centre; when the model is unstable at the nominal values of an asymmetric range
    (but not at the centres) ``reason`` ends with a note saying so.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> res = rmb.robgain(k / (s + 1), 1.25)
    >>> round(res.lower, 2), round(res.upper, 2)
    (0.5, 0.5)
    >>> res.lower <= 0.5 <= res.upper  # the exact margin: k = 1.25 reaches gamma
    True

    On the band [1, 10] rad/s the gain ``k / sqrt(1 + w^2)`` is largest at 1 rad/s, so
    ``k`` may reach ``1.25 sqrt(2)``: the margin is ``(1.25 sqrt(2) - 1) / 0.5 = 1.536``.

    >>> res = rmb.robgain(k / (s + 1), 1.25, band=(1.0, 10.0))
    >>> bool(1.53 < res.lower <= 1.5355 <= res.upper < 1.54), res.band
    (True, (1.0, 10.0))
    """
    gamma = real_number(gamma, "gamma", "robgain", positive=True)
    omega = frequencies(omega, "robgain", dt=getattr(usys, "dt", None))
    if band is not None and omega is not None:
        raise ArgumentError("robgain: give band (an interval) or omega (points), not both")
    gap_tol, max_boxes = _box_options(gap_tol, max_boxes, "robgain")
    problem, dropped = reduced_problem(usys, "robgain")
    band = check_band(band, problem.dt, "robgain")
    if band is not None and problem.is_complex:
        raise ArgumentError("robgain: band is not supported for models with complex coefficients")
    inner = band if band is not None and not whole_axis(band, problem.dt) else None
    verdict, unresolved = centre_stability(problem)
    if verdict == UNSTABLE:
        reason = unstable_reason(problem, "robgain") + "; the margin is 0"
        centre = complete_values(_centre_values(problem), dropped)
        return RobgainResult(0.0, 0.0, np.nan, float(gamma), True, centre, reason, band=band)
    if unresolved is not None:
        # poles within rounding of the boundary: no frequency response is trusted
        reason = undecided_centre_reason(problem, unresolved, verdict, "robgain")
        reason += ": the margin lies in [0, inf]"
        centre = complete_values(_centre_values(problem), dropped)
        return RobgainResult(0.0, np.inf, np.nan, float(gamma), False, centre, reason, band=band)
    centre = _centre_values(problem)
    dense = None if inner is None else band_grid(problem.a, problem.dt, inner, n=400)
    g0, f0 = _peak_of(problem, centre, dense)
    if g0 >= gamma:
        # the margin is 0 exactly: the centre itself (scaling 0) reaches gamma
        reason = (
            f"robgain: the peak gain at the centre of the ranges, {g0:.6g} at {f0:.6g} "
            f"rad/s, already reaches gamma = {gamma:.6g}; the margin is 0"
        )
        centre = complete_values(centre, dropped)
        return RobgainResult(0.0, 0.0, f0, float(gamma), True, centre, reason, band=band)
    with ProgressBar(3, "robgain", enabled=bool(progress)) as bar:
        res = _robgain(problem, gamma, omega, bar, gap_tol, max_boxes, executor, inner)
    res.band = band
    res.reason += nominal_unstable_note(problem, "robgain")
    res.worst = complete_values(res.worst, dropped)
    return res


# Largest scaling searched for a destabilising crossing when no gain witness is known.
_SEARCH_CAP = 20.0
# Rounds of the whole-axis certificate: each failure adds the frequencies the sweep failed
# at to the grid and bisects the scaling again there.
_CERTIFY_ROUNDS = 8


def _direction_values(problem, direction):
    """Physical values at ``t`` times a normalised direction of the scalar parameters."""

    def values_at(t):
        out = {
            bi.name: bi.element.denormalize(t * direction[bi.name]).item()
            for bi in _scalar_blocks(problem)
        }
        for bi in problem.blocks:
            if bi.name not in out:  # dynamic blocks at zero (scalars have no .shape)
                out[bi.name] = np.zeros(bi.element.shape)
        return out

    return values_at


def _stability_witness(problem, gamma, cap, iters=40):
    """Smallest scaling found with peak gain ``>= gamma`` along the direction of the
    smallest destabilising crossing of the scalar parameters (robstab's direct search).

    An unstable member has infinite gain, so the robust stability margin bounds the
    performance margin from above; the gain usually reaches ``gamma`` earlier along the
    same direction (bisection on the actual peak gain).  Returns ``(t, frequency,
    values)`` or None.
    """
    found = _parameter_search(problem, cap)
    if found is None:
        return None
    alpha, direction = found
    values_at = _direction_values(problem, direction)
    got = _verified_crossing(problem, alpha, lambda t: values_at(t * alpha))
    if got is None:
        return None

    def peak(t):
        try:
            return _peak_of(problem, values_at(t))
        except ValueError:  # an ill-posed substitution: not a member of the set
            return -np.inf, np.nan

    t_hi = got[0]
    g_hi, f_hi = peak(t_hi)
    if not g_hi >= gamma:
        return None
    t_hi, f_hi = first_reaching_scale(peak, gamma, t_hi, f_hi, iters)
    return t_hi, f_hi, values_at(t_hi)


def _bisect_scaling(ok, lo, hi):
    """Largest scaling ``lo`` with ``ok(lo)`` (``hi`` fails) to 1e-4 relative."""
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        if hi - lo <= 1e-4 * hi:
            break
    return lo, hi


def _robgain(problem, gamma, omega, bar, gap_tol=5e-3, max_boxes=0, executor=None, band=None):
    bar.start("bisection on the uncertainty scaling")
    # on a band, gains are realised on its dense grid (ends, modes, 400 log points)
    dense = None if band is None else band_grid(problem.a, problem.dt, band, n=400)
    if band is not None:
        grid = band_grid(problem.a, problem.dt, band)
    elif omega is not None:
        grid = np.asarray(omega, float)
    else:
        grid = default_grid(problem.a, problem.dt, both_signs=problem.is_complex)
    resp = _responses(problem, grid)
    blk = _augmented_blk(problem)

    def checker(resp):
        # each level's D,G optimisation starts where the previous level's ended
        xw = np.full((len(resp), n_scaling_parameters(blk)), np.nan)
        every = np.arange(len(resp))
        return lambda alpha: bool(
            np.all(_below_one(_scaled(resp, problem, gamma, alpha), blk, xw, every))
        )

    ok = checker(resp)
    lo, hi = 0.0, 1.0
    while ok(hi) and hi < 1e6:
        lo, hi = hi, hi * 2
    lo, hi = _bisect_scaling(ok, lo, hi)
    bar.advance(label="whole-axis certificate")
    # The grid's scaling is no bound: the whole-axis sweep certifies it, or names the
    # frequencies where it fails, at which the scaling is bisected again.
    certified, tried = False, lo
    if omega is None and lo > 0:
        for _ in range(_CERTIFY_ROUNDS):
            alpha = lo / 1.001
            tried = alpha
            peak = _certify_level(problem, gamma, alpha=alpha, progress=bar.start, band=band)
            if peak.covered:
                lo, certified = alpha, True
                break
            new = np.setdiff1d(peak.omega[~(peak.mu_upper <= 1.0)], grid)
            ok_new = checker(_responses(problem, new)) if new.size else None
            if ok_new is None or ok_new(alpha):
                lo = alpha / 1.01  # no new failing frequency: a smaller scaling
                continue
            grid = np.union1d(grid, new)
            resp = _responses(problem, grid)
            lo, hi = _bisect_scaling(ok_new, 0.0, alpha)
        if not certified:
            lo = 0.0
    bar.advance(label="parameter values reaching gamma")
    # Upper bound: smallest scaling at which an actual parameter set reaches gamma (no
    # point below a certified scaling can; below an uncertified one any may).
    upper, crit, worst = np.inf, np.nan, {}
    a_lo, a_hi = (lo if certified else 0.0), max(hi, lo) * 4
    g, f, vals, k = _worst_case_search(problem, alpha=a_hi, omega=dense)
    if g >= gamma:
        for _ in range(40):
            mid = 0.5 * (a_lo + a_hi)
            # Any point reaching gamma decides the step: start with the last witness.
            gm, fm, vm, km = _worst_case_search(
                problem, alpha=mid, enough=gamma, first=k, omega=dense
            )
            if gm >= gamma:
                a_hi, f, vals, k = mid, fm, vm, km
            else:
                a_lo = mid
            if a_hi - a_lo <= 1e-6 * a_hi:
                break
        upper, crit, worst = a_hi, f, vals
    # The mu lower bound of the robust-performance problem just above the certified
    # scaling gives a witness for any block kind (ultidyn included), checked by the
    # actual peak gain of the substituted system.
    witness = _mu_gain_witness(problem, gamma, max(hi, lo), grid, resp, upper, omega=dense)
    if witness is not None:
        upper, crit, worst = witness
    # An unstable member has infinite gain: the destabilising crossing of the scalar
    # parameters bounds the margin too, and the gain reaches gamma before it.
    # (not on a band: instability does not make the gain on the band reach gamma)
    witness = (
        None
        if band is not None
        else _stability_witness(problem, gamma, upper if np.isfinite(upper) else _SEARCH_CAP)
    )
    if witness is not None and witness[0] < upper:
        upper, crit, worst = witness
    scal = _real_blocks(problem)
    cover, lo_source = None, None
    if (
        certified
        and band is None
        and max_boxes > 0
        and scal is not None
        and np.isfinite(upper)
        and upper > lo * (1.0 + gap_tol)
    ):
        bar.start("branch and bound over the parameter box")
        (upper, crit, worst), cover = _margin_boxes(
            problem, scal, float(gamma), (upper, crit, worst), gap_tol, max_boxes, executor
        )
        if cover.certified and cover.target > lo:
            lo, lo_source = cover.target, "from the branch and bound over the parameter box"
    bar.advance(label="done")
    # ``upper`` is realised by parameter values: a lower bound above it is no bound (on
    # given frequencies only, the grid's scaling may be)
    lo = min(lo, upper)
    if certified or omega is not None:
        where = (
            "mu on the given frequencies only"
            if not certified
            else "mu on the whole frequency axis"
            if band is None
            else f"mu on the band {band_text(band)}"
        )
        low = f"lower bound {lo:.6g} {lo_source or 'from ' + where}"
    else:
        low = (
            f"lower bound 0: the {'band' if band else 'whole-axis'} certificate of mu failed "
            f"at every scaling "
            f"tried (down to {tried:.6g}, after {_CERTIFY_ROUNDS} rounds of refinement at "
            "the failing frequencies), so no positive scaling is certified"
        )
    reason = f"robgain: {low}; " + (
        f"upper bound {upper:.6g} realised by worst, whose peak gain reaches gamma"
        + ("" if band is None else " in the band")
        if np.isfinite(upper)
        else "no perturbation reaching gamma was found, so upper = inf"
    )
    if cover is not None:
        reason += cover.margin_note()
    return RobgainResult(
        float(lo), float(upper), crit, float(gamma), certified, worst, reason, cover
    )


__all__ = ["robgain", "RobgainResult"]
