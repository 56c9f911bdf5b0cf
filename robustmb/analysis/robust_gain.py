"""Robust performance margin: the largest uncertainty scaling keeping the peak gain below gamma.

:func:`robgain` is the dual question of :func:`.worst_case_gain.wcgain`: for a fixed
bound ``gamma`` on the peak gain, bisection on the scaling ``alpha`` of the uncertainty
box with the pointwise mu test of ``diag(alpha I, 1/gamma) M(jw)``, a whole-axis
certificate of the final scaling, and an upper bound realised by parameter values whose
actual peak gain reaches ``gamma`` (MATLAB's ``robgain``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._progress import ProgressBar
from ..lft.arguments import frequencies, real_number
from .branch_and_bound import BoxCover
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
from .uncertain_problem import uncertain_problem, unstable_centre_reason, values_from_delta
from .worst_case_gain import (
    _augmented_blk,
    _below_one,
    _certify_level,
    _responses,
    _scaled,
    _worst_case_search,
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
    """

    lower: float
    upper: float
    critical_frequency: float
    gamma: float
    certified: bool = False
    worst: dict = field(default_factory=dict)
    reason: str = ""
    boxes: BoxCover | None = field(default=None, repr=False)


def _block_size(problem, delta):
    """Size of a normalised perturbation in the structure: its largest block norm."""
    return max((float(np.linalg.norm(delta[bi.w, bi.z], 2)) for bi in problem.blocks), default=0.0)


def _mu_gain_witness(problem, gamma, alpha, grid, resp, below, n_freq=5, iters=40):
    """Smallest scaling ``t`` found along a mu-lower-bound direction with peak gain >= gamma.

    At the frequencies where the robust-performance mu upper bound for scaling
    ``alpha`` is largest, the lower bound's perturbation (uncertainty part) is a
    direction; the scaling along it is bisected on the actual peak gain of the
    substituted system (``inf`` when unstable, which also reaches ``gamma``).
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
                return _peak_of(problem, values_from_delta(problem, t * direction, w0))
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


def robgain(usys, gamma, *, omega=None, progress=False, gap_tol=5e-3, max_boxes=16, executor=None):
    """Robust performance margin: largest uncertainty scaling with peak gain below ``gamma``.

    Parameters
    ----------
    usys : UncertainSystem
    gamma : float
        Required bound on the peak gain (positive).
    omega : array_like, optional
        Restrict to these frequencies (no whole-axis certificate).
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
        ``lower`` is certified (whole frequency axis when ``certified``);
        ``upper`` is realised by parameter values (``worst``) whose actual
        peak gain reaches ``gamma``.

    Notes
    -----
    A loop unstable with every element at the centre of its range has margin 0
    (``lower = upper = 0``, no critical frequency), and ``reason`` says so and
    lists the unstable poles.

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
    """
    gamma = real_number(gamma, "gamma", "robgain", positive=True)
    omega = frequencies(omega, "robgain")
    gap_tol, max_boxes = _box_options(gap_tol, max_boxes, "robgain")
    problem = uncertain_problem(usys, what="robgain")
    if not problem.centre_stable:
        reason = unstable_centre_reason(problem, "robgain") + "; the margin is 0"
        return RobgainResult(0.0, 0.0, np.nan, float(gamma), True, {}, reason)
    with ProgressBar(3, "robgain", enabled=bool(progress)) as bar:
        return _robgain(problem, gamma, omega, bar, gap_tol, max_boxes, executor)


def _robgain(problem, gamma, omega, bar, gap_tol=5e-3, max_boxes=0, executor=None):
    bar.start("bisection on the uncertainty scaling")
    grid = (
        np.asarray(omega, float)
        if omega is not None
        else default_grid(problem.a, problem.dt, both_signs=problem.is_complex)
    )
    resp = _responses(problem, grid)
    blk = _augmented_blk(problem)

    # each level's D,G optimisation starts where the previous level's ended
    xw = np.full((len(grid), n_scaling_parameters(blk)), np.nan)
    every = np.arange(len(grid))

    def ok(alpha):
        return bool(np.all(_below_one(_scaled(resp, problem, gamma, alpha), blk, xw, every)))

    lo, hi = 0.0, 1.0
    while ok(hi) and hi < 1e6:
        lo, hi = hi, hi * 2
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        if hi - lo <= 1e-4 * hi:
            break
    bar.advance(label="whole-axis certificate")
    certified = False
    if omega is None and lo > 0:
        lo /= 1.001
        for _ in range(6):
            peak = _certify_level(problem, gamma, alpha=lo, progress=bar.start)
            if peak.covered:
                certified = True
                break
            lo /= 1.01
    bar.advance(label="parameter values reaching gamma")
    # Upper bound: smallest scaling at which an actual parameter set reaches gamma.
    upper, crit, worst = np.inf, np.nan, {}
    a_lo, a_hi = lo, max(hi, lo) * 4
    g, f, vals, k = _worst_case_search(problem, alpha=a_hi)
    if g >= gamma:
        for _ in range(40):
            mid = 0.5 * (a_lo + a_hi)
            # Any point reaching gamma decides the step: start with the last witness.
            gm, fm, vm, km = _worst_case_search(problem, alpha=mid, enough=gamma, first=k)
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
    witness = _mu_gain_witness(problem, gamma, max(hi, lo), grid, resp, upper)
    if witness is not None:
        upper, crit, worst = witness
    scal = _real_blocks(problem)
    cover, lo_source = None, None
    if (
        certified
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
    where = (
        "on the whole frequency axis"
        if certified
        else "on the given frequencies only"
        if omega is not None
        else "on a frequency grid only (not certified)"
    )
    reason = f"robgain: lower bound {lo:.6g} {lo_source or 'from mu ' + where}; " + (
        f"upper bound {upper:.6g} realised by worst, whose peak gain reaches gamma"
        if np.isfinite(upper)
        else "no perturbation reaching gamma was found, so upper = inf"
    )
    if cover is not None:
        reason += cover.margin_note()
    return RobgainResult(lo, max(upper, lo), crit, float(gamma), certified, worst, reason, cover)


__all__ = ["robgain", "RobgainResult"]
