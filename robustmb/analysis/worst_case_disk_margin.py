"""Worst-case disk margins of an uncertain loop (MATLAB's ``wcdiskmargin``).

For an uncertain loop
``L = Fu(N, Delta_u)`` the disk factors are one more LFT, ``f = Fu([[b, 1], [1, 1]], delta)``,
so the loop is ``Fu(M, diag(Delta_u, Delta_d))``.  By the main loop theorem the disk
margin stays above ``1/beta`` for every ``Delta_u`` in the unit ball when
``mu(diag(I, I/beta) M(jw)) <= 1`` at every frequency (a skewed-mu test); the smallest such
``beta`` is found by bisection and certified on the whole axis.  The upper bound is the disk
margin of an actual loop, obtained by substituting parameter values.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings

import numpy as np

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.disk_geometry import _check_skew, _skew_coefficients
from robustmb.analysis.disk_loops import (
    _is_uncertain,
    _plain,
    _response,
    _sensitivity,
    _stable,
)
from robustmb.analysis.disk_margin_results import WorstCaseDiskMargin
from robustmb.analysis.diskmargin import _channel_margins, _check_omega, diskmargin
from robustmb.analysis.mu_sweep import certified_mu_peak, default_grid
from robustmb.analysis.mussv import mussv
from robustmb.analysis.uncertain_problem import box_vertices, uncertain_problem, values_from_delta
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, UncertainTypeError
from robustmb.lft import hstack, uss, vstack
from robustmb.lft.arguments import below_nyquist

__all__ = ["wcdiskmargin"]

# The same for the worst-case (skewed-mu) problem, whose pointwise levels come from a
# bisection: a wider slack keeps the number of certified intervals small.
_WC_REL_GAP = 1e-2
# Relative accuracy of the pointwise bisection of the worst-case (skewed-mu) problem.
_BISECTION_RTOL = 1e-3
# Certification of the worst-case level: refinements of the pointwise levels after a
# failed covering, doublings of the level (default budget of wcdiskmargin's
# ``max_doublings``), then bisection steps back towards the largest failing level.
_WC_REFINEMENTS = 2
_WC_DOUBLINGS = 20
_WC_BISECTIONS = 8


def _disk_interconnection(problem, channels, skew):
    """State space of ``M`` from ``(w_u, w_d)`` to ``(z_u, z_d)`` for the uncertain loop.

    ``[z_u; y] = N [w_u; u]`` is the LFT of ``L``; the disk factors on ``channels`` are
    ``u = P w_d + v``, ``z_d = b w_d + P^T v`` with ``v = -y`` (other channels ``u = v``).
    """
    a_, b_ = _skew_coefficients(skew)
    A, B, C, D = problem.a, problem.b, problem.c, problem.d
    nw, nz = problem.nw, problem.nz
    n = D.shape[0] - nz
    k = len(channels)
    P = np.zeros((n, k))
    P[channels, np.arange(k)] = 1.0
    Bw, Bu = B[:, :nw], B[:, nw:]
    Cz, Cy = C[:nz], C[nz:]
    Dzw, Dzu, Dyw, Dyu = D[:nz, :nw], D[:nz, nw:], D[nz:, :nw], D[nz:, nw:]
    IpD = np.eye(n) + Dyu
    if np.linalg.cond(IpD) > 1e14:
        raise IllPosedError("wcdiskmargin: the feedback loop is not well posed (I + D singular)")
    E = np.linalg.inv(IpD)
    # y = E (Cy x + Dyw w_u + Dyu P w_d);  u = P w_d - y.
    y_x, y_wu, y_wd = E @ Cy, E @ Dyw, E @ Dyu @ P
    u_x, u_wu, u_wd = -y_x, -y_wu, P - y_wd
    Am = A + Bu @ u_x
    Bm = np.hstack([Bw + Bu @ u_wu, Bu @ u_wd])
    Cm = np.vstack([Cz + Dzu @ u_x, -P.T @ y_x])
    Dm = np.block([[Dzw + Dzu @ u_wu, Dzu @ u_wd], [-P.T @ y_wu, b_ * np.eye(k) - P.T @ y_wd]])
    return Am, Bm, Cm, Dm


def _scaled_rows(sysdata, nz, beta):
    A, B, C, D = sysdata
    C, D = C.copy(), D.copy()
    C[nz:] /= beta
    D[nz:] /= beta
    return A, B, C, D


def _worst_case_levels(resp, nz, nw, blk, iters=60):
    """Smallest ``beta`` with ``mu(diag(I, I/beta) M(jw)) <= 1``, bracketed per frequency.

    ``g(t) = log mu_upper(diag(I, exp(-t) I) M)`` decreases with ``t = log beta``; its root
    is bracketed, then found by regula falsi with the Illinois modification (bisection
    steps when that stalls).  The returned value is always a ``beta`` at which the upper
    bound was evaluated and found ``<= 1``.  Only the largest level matters, so frequencies
    whose bracket lies below the best lower end found so far stop being refined (their
    value stays an upper end).  ``inf`` where no level works (the uncertainty alone
    destabilises).
    """

    def g(index, t):
        scaled = resp[index].copy()
        scaled[:, nz:, :] *= np.exp(-np.asarray(t, float)).reshape(-1, 1, 1)
        mu = _mussv_upper(scaled, blk)
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(mu, 1e-300))

    count = len(resp)
    # Delta_u = 0 is in the set and delta I in the disk structure, so the level is at least
    # the spectral radius of the disk block M_dd: mu >= 1 there, a failing level known
    # without evaluating the bound (g >= 0; 0 is used in the secant steps).
    radius = np.max(np.abs(np.linalg.eigvals(resp[:, nz:, nw:])), axis=-1)
    known = radius > 0
    with np.errstate(divide="ignore"):
        t_lo = np.where(known, np.log(np.where(known, radius, 1.0)), -np.inf)
    g_lo = np.where(known, 0.0, np.inf)
    # First trial: one level common to all frequencies, above the largest known level.
    sigma = np.linalg.norm(resp[:, nz:, nw:], 2, axis=(-2, -1))
    start = np.log(1.5 * np.max(radius)) if np.any(known) else np.log(np.max(sigma) * 2 + 1e-6)
    t_hi = np.full(count, start)
    g_hi = g(np.arange(count), t_hi)
    step = np.log(2.0)
    # Bracket: move up where the bound is above 1, down where nothing below is known.
    up = np.flatnonzero(g_hi > 0)
    for _ in range(60):
        if up.size == 0:
            break
        t_lo[up], g_lo[up] = t_hi[up], g_hi[up]
        t_hi[up] += step
        g_hi[up] = g(up, t_hi[up])
        up = up[g_hi[up] > 0]
    t_hi[up] = np.inf
    best_low = np.max(t_lo[np.isfinite(t_hi)], initial=-np.inf)
    down = np.flatnonzero(np.isinf(g_lo) & np.isfinite(t_hi) & (t_hi > best_low))
    floor = t_hi - np.log(1e8)
    for _ in range(30):
        if down.size == 0:
            break
        trial = t_hi[down] - 2 * step
        values = g(down, trial)
        above = values > 0
        t_lo[down[above]], g_lo[down[above]] = trial[above], values[above]
        below = down[~above]
        t_hi[below], g_hi[below] = trial[~above], values[~above]
        down = below[t_hi[below] > floor[below]]
    side = np.zeros(count, dtype=int)
    rtol = np.log1p(_BISECTION_RTOL)
    for _ in range(iters):
        finite = np.isfinite(t_hi) & np.isfinite(t_lo)
        best_low = np.max(t_lo[finite], initial=-np.inf)
        # A bracket that cannot raise the largest level by more than the tolerance is done.
        active = np.flatnonzero(finite & (t_hi > best_low + rtol) & (t_hi - t_lo > rtol))
        if active.size == 0:
            break
        lo, hi, flo, fhi = t_lo[active], t_hi[active], g_lo[active], g_hi[active]
        secant = hi - fhi * (hi - lo) / (fhi - flo)
        width = hi - lo
        # Keep the trial well inside the bracket, else bisect.
        trial = np.where(
            np.isfinite(secant) & (secant > lo + 0.05 * width) & (secant < hi - 0.05 * width),
            secant,
            0.5 * (lo + hi),
        )
        values = g(active, trial)
        above = values > 0
        a_idx, b_idx = active[above], active[~above]
        t_lo[a_idx], g_lo[a_idx] = trial[above], values[above]
        t_hi[b_idx], g_hi[b_idx] = trial[~above], values[~above]
        # Illinois: halve the value kept at the end that did not move twice in a row.
        g_hi[a_idx[side[a_idx] == 1]] *= 0.5
        g_lo[b_idx[side[b_idx] == -1]] *= 0.5
        side[a_idx], side[b_idx] = 1, -1
    return np.exp(t_hi)


def _certifies(M, nz, blk, dt, beta):
    """Whether ``mu(diag(I, I/beta) M(jw)) <= 1`` is certified on the whole axis.

    Returns ``(True, None)`` or ``(False, w)`` with ``w`` the frequencies whose bound
    exceeded 1 (where the pointwise level is worth refining).
    """
    try:
        peak = certified_mu_peak(
            _scaled_rows(M, nz, beta), blk, dt, level=1.0, lower=False, rel_gap=_WC_REL_GAP
        )
    except np.linalg.LinAlgError:
        # The mu optimiser broke down at some frequency: no certificate at this level.
        return False, np.zeros(0)
    if peak.covered and peak.upper <= 1.0:
        return True, None
    return False, np.asarray(peak.omega)[np.asarray(peak.mu_upper) > 1.0]


def _certified_level(M, problem, blk, grid, levels, max_doublings=_WC_DOUBLINGS):
    """Smallest certified ``beta`` found (disk margin ``>= 1/beta``), or ``None``.

    The first trial is the largest pointwise level on ``grid`` with a margin of
    ``2 * _WC_REL_GAP``.  A failure first refines the pointwise levels where the
    covering failed and around the grid's largest level (the peak may lie between grid
    points), then doubles ``beta`` until a level is certified (at most
    ``max_doublings`` times).  Bisection in ``log beta`` between the largest failing
    level (a pointwise level is one: just below it the bound already exceeds 1 at that
    frequency) and the smallest certified one then stops once their ratio is at most
    ``1 + 2 * _WC_REL_GAP``, or after ``_WC_BISECTIONS`` steps.
    """
    nz, nw, dt = problem.nz, problem.nw, problem.dt
    slack = 1.0 + 2.0 * _WC_REL_GAP
    failing = float(np.max(levels))
    beta = failing * slack
    top = int(np.argmax(levels))
    near_top = np.linspace(grid[max(top - 1, 0)], grid[min(top + 1, len(grid) - 1)], 9)
    ok, over = _certifies(M, nz, blk, dt, beta)
    for _ in range(_WC_REFINEMENTS):
        if ok:
            break
        failing = max(failing, beta)
        points = np.unique(np.concatenate([near_top, over[np.argsort(over)][:16]]))
        refined = _worst_case_levels(_response(M, points, dt), nz, nw, blk)
        if not np.all(np.isfinite(refined)) or np.max(refined) * slack <= beta:
            break  # the failure is not a missed pointwise peak
        failing = max(failing, float(np.max(refined)))
        near_top = np.zeros(0)
        beta = failing * slack
        ok, over = _certifies(M, nz, blk, dt, beta)
    for _ in range(max_doublings):
        if ok:
            break
        failing = max(failing, beta)
        beta *= 2.0
        ok, _ = _certifies(M, nz, blk, dt, beta)
    if not ok:
        return None
    for _ in range(_WC_BISECTIONS):
        if beta <= failing * slack:
            break
        trial = float(np.sqrt(beta * failing))
        if _certifies(M, nz, blk, dt, trial)[0]:
            beta = trial
        else:
            failing = trial
    return beta


def _mussv_upper(stack, blk):
    """Upper bounds of mu on a stack; other random starts if the optimiser breaks down."""
    for seed in range(4):
        try:
            return np.asarray(mussv(stack, blk, lower=False, seed=seed).upper, float).reshape(-1)
        except np.linalg.LinAlgError:
            continue
    out = np.empty(len(stack))
    for k in range(len(stack)):
        for seed in range(1, 8):
            try:
                out[k] = float(np.asarray(mussv(stack[k], blk, lower=False, seed=seed).upper))
                break
            except np.linalg.LinAlgError:
                continue
        else:
            out[k] = np.inf  # no bound: treated as "not certified" by the callers
    return out


def _margin_estimate(loop, channels, skew, grid):
    """An upper bound of the disk margin of a fixed loop on the given channels (cheap).

    Exact (whole axis) for one channel; otherwise the smaller of the loop-at-a-time margins
    and ``1 / max mu_lower`` on ``grid``.
    """
    A, B, C, D, dt = as_statespace_data(_plain(loop), argname="loop")
    data = (A, B, C, D, dt, [f"ch{j}" for j in range(D.shape[0])])
    S = _sensitivity(*data[:4], data[5])
    if not _stable(S[0], dt):
        return 0.0
    idx = list(channels)
    Ssub = (S[0], S[1][:, idx], S[2][idx], S[3][np.ix_(idx, idx)])
    alpha = _channel_margins(Ssub, dt, skew, None)[0]
    best = float(np.min(alpha))
    if len(idx) > 1:
        a, _ = _skew_coefficients(skew)
        resp = _response(Ssub, grid, dt) - a * np.eye(len(idx))
        low = float(np.max(np.asarray(mussv(resp, [(1, 0)] * len(idx)).lower)))
        if low > 0:
            best = min(best, 1.0 / low)
    return best


def _candidate_values(problem, deltas, frequencies):
    """Physical values of the uncertainty parts of mu lower-bound perturbations."""
    out = []
    for delta, w0 in zip(deltas, frequencies, strict=True):
        if delta is None:
            continue
        part = np.array(delta[: problem.nw, : problem.nz], dtype=complex)
        # Bring each block into the unit ball (real blocks real).
        for bi in problem.blocks:
            block = part[bi.w, bi.z]
            size = np.linalg.norm(block, 2) if block.size else 0.0
            if bi.kind == "real":
                part[bi.w, bi.z] = np.clip(block.real, -1.0, 1.0)
            elif size > 1.0:
                part[bi.w, bi.z] = block / size
        try:
            out.append(values_from_delta(problem, part, float(w0)))
        except (ValueError, np.linalg.LinAlgError):
            continue
    return out


def _vertex_values(problem, limit=16):
    """Vertices of the real-parameter box (other elements at nominal) when few enough.

    Every element is given a value: a loop with any element left out stays uncertain.
    """
    reals = [bi for bi in problem.blocks if bi.kind == "real"]
    k = len(reals)
    if k == 0 or 2**k > limit:
        return []
    corners = box_vertices(k)
    nominal = _nominal_values(problem)
    return [
        {
            **nominal,
            **{bi.name: float(bi.element.denormalize(x)) for bi, x in zip(reals, c, strict=True)},
        }
        for c in corners
    ]


def wcdiskmargin(L, C=None, *, skew=0.0, mode="mimo", omega=None, max_doublings=_WC_DOUBLINGS):
    """Worst-case disk margin of an uncertain feedback loop (MATLAB's ``wcdiskmargin``).

    Parameters
    ----------
    L : UncertainSystem or UncertainMatrix
        Square uncertain loop transfer of ``feedback(L, I)`` (or the plant when ``C`` is
        given); python-control models are accepted as certain parts.
    C : LTI model or uncertain object, optional
        Controller ``u = -C y``: margins for simultaneous variations at the plant outputs
        and inputs (MATLAB's ``wcdiskmargin(P, C)``).
    skew : float, optional
        Skew ``sigma`` of the disk model.
    mode : {"mimo", "siso"}, optional
        ``"mimo"``: multiloop margin (all channels at once), one result.  ``"siso"``:
        loop-at-a-time margins, a list with one result per channel.
    omega : array_like, optional
        Analyse only these frequencies (no whole-axis certificate).
    max_doublings : int, optional
        Budget of the certification (default 20): how many times the level ``beta`` is
        doubled after the first trials fail (see Notes).  Each trial is a whole-axis mu
        certification, from a fraction of a second to tens of seconds on large models;
        when the budget is spent without a certificate, ``certified`` is False,
        ``lower`` is 0 and a ``RuntimeWarning`` says so.  0 tries only the levels from
        the frequency grid.

    Returns
    -------
    WorstCaseDiskMargin or list of WorstCaseDiskMargin
        ``lower`` is certified (skewed mu over the whole axis); ``upper`` is the disk margin
        of the loop at the values ``worst`` (verified by substitution).

    Raises
    ------
    UncertainTypeError
        When nothing is uncertain (use :func:`diskmargin`).
    DimensionError
        Non-square loop, bad ``mode``, ``skew`` or ``omega``.
    ArgumentError
        ``max_doublings`` not a non-negative integer.

    Notes
    -----
    The uncertainty is normalised about the centres of the declared ranges, so the set
    analysed is exactly the declared one.

    ``lower = 1/beta`` for the smallest level ``beta`` at which the skewed-mu upper bound
    was certified on the whole axis.  It is searched from the largest pointwise level of
    the frequency grid (refined where a covering fails), by doubling ``beta`` until a
    certificate is found (at most ``max_doublings`` times) and bisecting back towards the
    largest level that failed: ``lower`` is then within a factor ``1.02`` of the best
    margin this mu upper bound certifies (after at most 8 bisection steps; ``lower /
    upper`` shows the whole gap, which also contains the conservatism of the bound).
    ``certified`` is False and ``lower`` is 0 (with a ``RuntimeWarning`` when ``upper >
    0``) when no level could be certified within that budget, e.g. because the
    uncertainty alone can destabilise the loop, or because the mu upper bound cannot
    prove the robust stability of a loop that has it.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    >>> s = control.tf("s")
    >>> res = wcdiskmargin(k * 2 / (s + 1) ** 2)   # margin shrinks as k grows
    >>> res.lower <= res.upper, res.worst
    (True, {'k': 2.0})
    >>> round(res.upper, 4) == round(diskmargin(4 / (s + 1) ** 2).alpha, 4)
    True
    """
    skew = _check_skew(skew)
    omega = _check_omega(omega)
    if (
        isinstance(max_doublings, bool)
        or not isinstance(max_doublings, numbers.Integral)
        or max_doublings < 0
    ):
        raise ArgumentError(
            f"wcdiskmargin: max_doublings must be a non-negative integer; got {max_doublings!r}"
        )
    if mode not in ("mimo", "siso"):
        raise DimensionError(f"wcdiskmargin: mode must be 'mimo' or 'siso'; got {mode!r}")
    loop, names = _uncertain_loop(L, C)

    from robustmb.analysis.mussv import mussv

    problem = uncertain_problem(loop, what="wcdiskmargin")
    if omega is not None:
        below_nyquist(omega, problem.dt, "wcdiskmargin")
    n = problem.d.shape[0] - problem.nz
    if problem.d.shape[1] - problem.nw != n:
        raise DimensionError(f"wcdiskmargin: the loop transfer must be square; got {loop.shape}")
    nominal_loop = loop.nominal()
    nominal = diskmargin(nominal_loop, skew=skew, omega=omega)
    groups = [list(range(n))] if mode == "mimo" else [[j] for j in range(n)]
    results = []
    grid = omega if omega is not None else default_grid(problem.a, problem.dt)
    for chans in groups:
        M = _disk_interconnection(problem, chans, skew)
        blk = list(problem.blk) + [(1, 0)] * len(chans)
        resp = _response(M, grid, problem.dt)
        levels = _worst_case_levels(resp, problem.nz, problem.nw, blk)
        # Candidates for the worst case: mu lower-bound perturbations at the peaks of the
        # pointwise levels and on a finer grid around the highest one.
        finite_levels = np.where(np.isfinite(levels), levels, 1e6)
        order = np.argsort(-finite_levels)[:3]
        top = int(order[0])
        left = grid[max(top - 1, 0)]
        right = grid[min(top + 1, len(grid) - 1)]
        local = np.linspace(left, right, 9) if right > left else np.zeros(0)
        freqs = np.concatenate([grid[order], local])
        betas = np.concatenate([finite_levels[order], np.full(local.size, finite_levels[top])])
        scaled = _response(M, freqs, problem.dt)
        scaled[:, problem.nz :, :] /= betas[:, None, None]
        try:
            res = mussv(scaled, blk)
            deltas = [None if d is None else np.asarray(d) for d in (res.delta or [])]
        except np.linalg.LinAlgError:
            deltas = []  # the vertices and the nominal values remain candidates
        candidates = [dict(_nominal_values(problem))]
        candidates += _candidate_values(problem, deltas, list(freqs[: len(deltas)]))
        candidates += _vertex_values(problem)
        best, best_values = np.inf, candidates[0]
        for values in candidates:
            try:
                estimate = _margin_estimate(loop.usubs(values), chans, skew, grid)
            except (ValueError, np.linalg.LinAlgError):
                continue
            if estimate < best:
                best, best_values = estimate, values
        worst_loop = loop.usubs(best_values)
        worst_margin = diskmargin(worst_loop, skew=skew, omega=omega)
        if len(chans) == n:
            upper = worst_margin.upper
            frequency = worst_margin.frequency
        else:
            single = worst_margin.loop_at_a_time[chans[0]]
            upper, frequency = single.upper, single.frequency
        certified = False
        lower = 0.0
        spent = False  # the certification ran out of its budget of doublings
        # A realised margin of 0 (a loop in the set is unstable) leaves nothing to certify.
        if np.all(np.isfinite(levels)) and upper > 0:
            if omega is not None:
                # Margin over the pointwise levels (no whole-axis certificate).
                beta = float(np.max(levels)) * (1.0 + 2.0 * _WC_REL_GAP)
                lower = 1.0 / beta if beta > 0 else np.inf
            else:
                beta = _certified_level(M, problem, blk, grid, levels, int(max_doublings))
                if beta is not None:
                    lower, certified = (1.0 / beta if beta > 0 else np.inf), True
                spent = beta is None
        lower = min(lower, upper)
        if omega is None and not certified and upper > 0:
            budget = (
                f" after doubling the level max_doublings={int(max_doublings)} times (a "
                "larger budget may find one)"
                if spent
                else ""
            )
            warnings.warn(
                f"wcdiskmargin: no certificate found for channels {[names[j] for j in chans]}"
                f"{budget}; the lower bound 0 is not a certified margin (upper {upper:.4g})",
                RuntimeWarning,
                stacklevel=2,
            )
        res = WorstCaseDiskMargin(
            float(lower),
            float(upper),
            float(frequency),
            best_values,
            worst_margin,
            nominal,
            tuple(names[j] for j in chans),
            skew,
            certified,
        )
        results.append(dataclasses.replace(res, reason=_reason(res, omega is not None)))
    return results[0] if mode == "mimo" else results


def _reason(res, on_grid):
    """One sentence on the bracket ``[lower, upper]`` of a :class:`WorstCaseDiskMargin`."""
    where = "on the given frequencies only" if on_grid else "on the whole frequency axis"
    low = (
        f"lower {res.lower:.6g} from the skewed-mu upper bound {where}"
        if res.certified or on_grid
        else "lower 0: no level of the skewed-mu upper bound was certified"
    )
    text = f"wcdiskmargin: {low}; upper {res.upper:.6g}, the disk margin of the loop at worst"
    if res.is_wide:
        ratio = res.upper / res.lower if res.lower > 0 else np.inf
        text += (
            f"; the bracket is wide (upper / lower = {ratio:.3g}): the mu upper bound is "
            "loose here, the worst-case margin may lie anywhere in it"
        )
    return text


def _nominal_values(problem):
    out = {}
    for bi in problem.blocks:
        out[bi.name] = bi.element.nominal
    return out


def _uncertain_loop(L, C):
    """The uncertain loop (``L`` or ``[[0, P], [-C, 0]]``) and its channel names."""
    if C is None:
        loop = L if _is_uncertain(L) else None
        if loop is None:
            raise UncertainTypeError(
                "wcdiskmargin: the loop has no uncertain elements; use rmb.diskmargin"
            )
        loop = uss(loop) if not getattr(loop, "is_system", False) else loop
        ny, nu = loop.shape
        if ny != nu:
            raise DimensionError(
                f"wcdiskmargin: the loop transfer must be square; it has {ny} outputs and "
                f"{nu} inputs"
            )
        return loop, list(loop.input_names)
    if not (_is_uncertain(L) or _is_uncertain(C)):
        raise UncertainTypeError(
            "wcdiskmargin: neither the plant nor the controller is uncertain; use rmb.diskmargin"
        )
    P = uss(L)
    K = uss(C)
    ny, nu = P.shape
    if K.shape != (nu, ny):
        raise DimensionError(f"wcdiskmargin(P, C): the controller must be {nu}x{ny}; got {K.shape}")
    top = hstack(np.zeros((ny, ny)), P)
    bottom = hstack(-K, np.zeros((nu, nu)))
    loop = vstack(top, bottom)
    names = list(P.output_names) + list(P.input_names)
    return loop, names
