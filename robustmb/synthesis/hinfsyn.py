"""Full-order H-infinity synthesis: gamma iteration with Riccati formulae, LMI fallback.

Algorithm
    1. Partition the plant and check that it is stabilisable through ``u`` and detectable
       through ``y``.  A discrete-time plant is replaced by its bilinear continuous-time
       equivalent (same H-infinity norm for every controller); with a pole at or near
       ``z = -1``, where that map is singular, the design is made on ``P(-z)`` (frequency
       response rotated by ``pi``, every norm kept) and the controller flipped back,
       ``K(z) = K'(-z)`` (:func:`.bilinear_map.flip_plant`; a plant with poles at both ``z = 1``
       and ``z = -1`` is refused, see :func:`.bilinear_map.to_continuous`).  ``D22`` is removed
       by loop shifting.  A plant without states is a matrix problem, solved exactly by
       :func:`.static.static_hinf` (Parrott's bound, a static controller).
    2. Regular problem (``D12`` full column rank, ``D21`` full row rank): bisection on
       ``gamma`` with the two-Riccati existence test (:mod:`.hinf_riccati`) to a relative
       width ``gtol``.  The controller is the central one at a level slightly above the
       smallest feasible one: the backoff grows until the controller is well conditioned
       (``cond(I - Y X / gamma^2)`` below ``cond_max``, closed-loop poles at least 1e-5
       inside the stability boundary) and its closed loop passes the verification, within
       ``rtol``.  When no level within ``rtol`` passes, levels up to twice the bracket
       top are tried (after the LMI for ``method="auto"``) and a
       :class:`~robustmb.errors.RobustMBWarning` reports the backoff; ``gamma_bracket``
       then shows the gap.
    3. Singular problem, or a Riccati controller that fails verification: the LMI
       formulation (:mod:`.lmi`) gives the optimal level and a controller.  On a singular
       plant ``method="auto"`` also takes the regularised Riccati limit: ``eps u`` is
       added to ``z`` and ``eps v`` to ``y`` (new disturbance ``v``) for a decreasing
       sequence of ``eps``; each regularised problem is regular and solved by step 2, and
       its controller is verified on the singular plant itself (its closed loop there is a
       sub-block of the regularised one, so the design level still bounds it; its
       controllers are put in Schur form and balanced, levels 1, 2 and 5 per decade
       from 1e-6 to 1e-3 above the regularised optimum are all tried and the least
       verified norm kept, see ``_riccati``); the sequence
       stops once consecutive confirmed bracket tops agree to 1e-4 and a verified
       controller is within 1e-4 of the last top.  Regularised
       controllers whose poles spread over more than 1e6 in modulus are not returned
       unless the realisation's norm and the frequency-wise one agree to 1e-6 (a loop too
       stiff for double precision shows as a disagreement).  The best verified controller of
       both routes is returned.  Neither the SDP optimum nor a regularised bracket top
       bounds the optimum from below on a singular plant: the lower end of the bracket is
       the Parrott bound.
    4. Verification: the closed loop of the returned controller with the plant the user
       gave is formed independently (:func:`.plant.closed_loop`) and its H-infinity norm
       computed with :func:`robustmb.hinfnorm`, cross-checked by ``Fl(P(jw), K(jw))``
       evaluated from ``P`` and ``K`` separately near the peak; ``.gamma`` is the larger.
"""

from __future__ import annotations

import dataclasses
import warnings

import control
import numpy as np

from robustmb._blas import single_blas_thread
from robustmb.analysis import hinfnorm
from robustmb.errors import IllPosedError, RobustMBWarning, warn

from . import hinf_riccati as ric
from .arguments import refuse_free_tunables
from .bilinear_map import (
    both_ends_note,
    controller_from_continuous,
    flip_controller,
    flip_plant,
    nyquist_flip,
    to_continuous,
)
from .gamma_bracket import bisect as _bisect
from .gamma_bracket import data_scale as _data_scale
from .gamma_bracket import transfer_scale as _transfer_scale
from .hinfsyn_result import HinfsynResult
from .lft_peak import fl_peak, fl_sigma
from .lmi import hinf_level_lmi, lmi_hinf
from .norm_certificate import HINF_TOL as _HINF_TOL
from .norm_certificate import norm_certified as _norm_certified
from .norm_certificate import second_realisation_norm as _second_realisation_norm
from .plant import (
    as_controller,
    balanced_controller,
    boundary_zeros,
    check_solvable,
    closed_loop,
    normalised_performance,
    partition_plant,
    regularise,
    shift_back,
)
from .static import static_hinf
from .synthesis_options import check_options

__all__ = ["HinfsynResult", "hinfsyn"]

# Near the optimum a closed-loop pole may approach the stability boundary (a nearly
# cancelled mode); back off until it is at least this far.
_MARGIN_MIN = 1e-5
# Relative backoffs tried past ``rtol`` when no controller within it passes verification.
_BEYOND_RTOL = (0.03, 0.1, 0.2, 0.4, 0.7, 1.0)
# Regularisation sizes tried on singular plants (relative to the plant's data, see
# ``regularise``), largest first; the sequence stops after two sizes without progress
# (or on convergence, see ``_EPS_STOP``).
_EPS_SEQUENCE = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)
# The sequence also stops once two consecutive confirmed bracket tops agree to this
# relative tolerance and a returnable controller is verified within it of the last one.
_EPS_STOP = 1e-4
# Regularised controllers whose poles spread over more than this ratio are not returned
# unless both double-precision evaluations of their norm agree (see ``_too_stiff``).
_SPREAD_MAX = 1e6
# Relative allowance for rounding in the verified norm: against 30-digit evaluations of
# Fl(P, K) from the same P and K, both double-precision norms erred by up to 2.1e-7 on the
# regularised controllers of HE1, AC7 and a random plant (pole spreads up to 5e5).
_ROUNDING = 1e-6


# Relative allowance of the verification: a controller is accepted when its closed-loop
# norm is at most its design level times ``1 + _SLACK``.
_SLACK = 1e-6
# The same for the regularised route's controllers (see ``_riccati``).
_REG_SLACK = 1e-4


def _verify(plant, K, gamma_design, slack=_SLACK, cl=None):
    """Closed loop, its norm, whether it is stable with norm below the design level, the
    peak frequency, and the two evaluations ``(hinfnorm of the realisation, frequency-wise
    peak)`` the norm is the larger of (``_too_stiff`` compares them; the second is ``nan``
    and the norm the realisation's alone when ``ok`` is False).  ``cl``: the closed loop
    when the caller has already formed it.

    Acceptance (``ok``) compares :func:`robustmb.hinfnorm` of the closed-loop realisation
    (an attained value ``h``, the norm certified at most ``h (1 + _HINF_TOL)``) with the
    design level.  The norm returned is the larger of ``h (1 + _HINF_TOL)`` and the peak
    of ``sigma_max(Fl(P(jw), K(jw)))`` near the reported peak (``P`` and ``K`` evaluated
    separately, see :func:`.lft_peak.fl_peak`), times ``1 + _ROUNDING``: on a stiff loop the
    realisation's norm can fall below the true one (a regularised controller with poles at
    3.2e8: 1.3e-5 below the 60-digit peak).  Warnings of :func:`robustmb.hinfnorm` are
    dropped for a rejected controller; for an accepted one they are re-issued unless the
    closed loop's norm in a second realisation (:func:`_second_realisation_norm`) is
    computed without warning, and then the larger attained value is used (an accepted
    design, not a certified norm: ``gamma_certified`` reads the given realisation only).
    """
    cl = closed_loop(plant, K) if cl is None else cl
    # hinfnorm's warnings (an unbounded peak, a pole near the axis) concern this candidate
    # only: they are passed on for an accepted one and dropped for a rejected one, which
    # the caller discards
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        norm, peak = hinfnorm(cl, tol=_HINF_TOL)
    norm, peak = float(norm), float(peak)
    ok = bool(np.isfinite(norm) and norm <= gamma_design * (1 + slack))
    if ok and caught:
        # a warning about this realisation (S&P Ex. 2.11: a nearly defective pole pair
        # at -20 +- 0.066j of a loop with a controller pole at -1.5e6 was reported "within
        # 0 of the axis, no upper bound"); the realisation with its slow and fast modes
        # decoupled has the same transfer function, and when its norm is certified
        # without warning the larger attained value is kept and the warning dropped
        second = _second_realisation_norm(cl)
        if second is not None:
            norm, caught = max(norm, second), []
            ok = norm <= gamma_design * (1 + slack)
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    evals = (norm, np.nan)
    if ok:
        # the frequency-wise evaluation only for a controller that passed: every caller
        # discards the others
        fl, wpk = fl_peak(plant, K, peak)
        evals = (norm, fl)
        if fl > norm:
            peak = wpk
        norm = max(norm * (1 + _HINF_TOL), fl) * (1 + _ROUNDING)
    return cl, norm, ok, peak, evals


def _too_stiff(plant, cand):
    """Whether a regularised candidate is too stiff to return: its poles spread over more
    than ``_SPREAD_MAX`` and the two double-precision evaluations of its norm (the
    realisation's :func:`robustmb.hinfnorm`, the frequency-wise ``Fl(P, K)`` peak) differ
    by more than ``_ROUNDING`` relative.  (AC7's regularised controllers spread over
    2.4e7 to 4.4e7 and both evaluations agree with 30-digit ones to 1e-10: kept.)
    The two evaluations are the ones ``_verify`` made of the candidate (``cand[5]``)."""
    if _pole_spread(cand[0], plant.dt) <= _SPREAD_MAX:
        return False
    norm, fl = cand[5]
    return not abs(fl - norm) <= _ROUNDING * max(norm, fl)


def _pole_spread(K, dt):
    """``max |p| / min |p|`` over the controller poles (continuous-time equivalents for a
    discrete controller, by the bilinear map); 1 for a static gain, ``inf`` with a pole
    at the origin."""
    poles = np.linalg.eigvals(np.asarray(K[0], float))
    if poles.size == 0:
        return 1.0
    if dt:
        with np.errstate(divide="ignore", invalid="ignore"):
            poles = (poles - 1.0) / (poles + 1.0)
    mags = np.abs(poles)
    if not np.all(np.isfinite(mags)) or mags.min() == 0.0:
        return np.inf
    return float(mags.max() / mags.min())


def _stability_margin(cl):
    """Distance of the closed-loop poles from the stability boundary (relative)."""
    poles = np.linalg.eigvals(cl.A)
    if poles.size == 0:
        return np.inf
    if cl.dt:
        return float(1.0 - np.max(np.abs(poles)))
    return float(-np.max(poles.real) / max(np.max(np.abs(poles)), 1.0))


def _parrott_bound(plant, peak):
    """Lower bound on ``||Fl(P, K)||_inf`` valid for every controller ``K``.

    At each sampled frequency ``Fl(P, K) = P11 + P12 Q P21`` for some ``Q``, so the part
    of ``P11`` in the complement of ``range(P12)`` (or of the row space of ``P21``) is out
    of reach.  The complement is taken orthogonal to the first ``m2`` left singular
    vectors of ``P12`` (to the first ``p2`` right ones of ``P21``): when ``P12`` is rank
    deficient that is a subspace of the true complement, so the bound stays valid.
    Frequencies: the closed-loop ``peak``, the natural frequencies of ``A``, 0 and infinity.
    At infinity in continuous time ``P = D`` exactly, and rows of ``D12`` (columns of
    ``D21``) that are exactly zero keep the rows (columns) of ``D11`` whatever the
    controller: that bound holds for a rank-deficient ``D12`` too (``mixsyn`` without
    ``W2``: ``D12 = 0``, the optimum at least ``|W1(inf)|``).
    """
    n, m1, m2, p1, p2 = plant.dims
    exact = 0.0
    if not plant.dt and p1 and m1:
        rows, cols = ~np.any(plant.D12, axis=1), ~np.any(plant.D21, axis=0)
        if rows.any():
            exact = float(np.linalg.norm(plant.D11[rows], 2))
        if cols.any():
            exact = max(exact, float(np.linalg.norm(plant.D11[:, cols], 2)))
    if (p1 <= m2 and m1 <= p2) or p1 == 0 or m1 == 0:
        return exact
    lam = np.linalg.eigvals(plant.A) if n else np.zeros(0)
    if plant.dt:
        theta = np.r_[0.0, np.pi, peak * plant.dt, np.angle(lam)]
        pts = np.exp(1j * theta)
    else:
        pts = 1j * np.r_[0.0, peak, np.abs(lam)]
    pts = pts[np.isfinite(pts)]
    if n:
        # the resolvent is not defined on a pole: drop such points
        gap = np.abs(pts[:, None] - lam[None, :]).min(axis=1)
        pts = pts[gap > 1e-8 * max(1.0, np.abs(lam).max())]
    B = np.hstack([plant.B1, plant.B2])
    C = np.vstack([plant.C1, plant.C2])
    D = np.block([[plant.D11, plant.D12], [plant.D21, plant.D22]])
    G = np.empty((0, p1 + p2, m1 + m2), complex)
    if n and pts.size:
        R = np.linalg.solve(pts[:, None, None] * np.eye(n) - plant.A, B)  # batched resolvent
        G = C @ R + D
    if not plant.dt or not n:
        G = np.concatenate([G, D[None].astype(complex)])  # infinity (or a static plant)
    P11, P12, P21 = G[:, :p1, :m1], G[:, :p1, m1:], G[:, p1:, :m1]
    bound = 0.0
    if p1 > m2:
        U = np.linalg.svd(P12)[0] if m2 else np.broadcast_to(np.eye(p1), (len(G), p1, p1))
        left = np.swapaxes(U[:, :, m2:].conj(), 1, 2) @ P11
        bound = max(bound, float(np.linalg.norm(left, 2, axis=(1, 2)).max()))
    if m1 > p2:
        Vh = np.linalg.svd(P21)[2] if p2 else np.broadcast_to(np.eye(m1), (len(G), m1, m1))
        right = P11 @ np.swapaxes(Vh[:, p2:, :].conj(), 1, 2)
        bound = max(bound, float(np.linalg.norm(right, 2, axis=(1, 2)).max()))
    return max(bound, exact)


def _certified_lower(plant, norm, peak, lower):
    """``(lower bracket, certified)``: the numerical ``lower`` or the Parrott bound."""
    bound = _parrott_bound(plant, peak if np.isfinite(peak) else 0.0)
    if bound >= lower:
        # clamp: a bound above the verified achieved norm can only be rounding
        return min(bound, norm), True
    return lower, lower <= 0.0


def _back_to_plant(K, cplant, discrete, balance=False):
    K = shift_back(K, cplant.D22)
    K = controller_from_continuous(K) if discrete else K
    return balanced_controller(K) if balance else K


def _riccati(plant, cplant, rtol, gtol, cond_max, history, balance=False, unit=1.0):
    """Bisection and backoff on ``cplant``, controllers verified on ``plant``.

    ``unit``: the factor of :func:`.plant.normalised_performance` (levels in error
    messages are divided by it, to quote them in the units of the plant as given).

    ``balance``: the regularised route (``cplant`` the regularised plant): controllers in
    the realisation of :func:`.plant.balanced_controller`; levels at backoffs 1, 2 and 5
    per decade from 1e-6 to 1e-3, all deferred, the one of least verified norm returned;
    a controller accepted when its verified norm is within ``_REG_SLACK`` of its design
    level (its central controller is ill conditioned, cond ~ 1e9 on AC7, and its loop
    misses the level by up to 3e-5 at random: a verified norm counts, not the design
    level).
    """
    slack = _REG_SLACK if balance else _SLACK
    P0 = cplant.with_d22_zero()
    N = ric.normalise(P0)
    lo, hi = _bisect(N, gtol, history, unit=unit)
    # Undecided verdicts may have pulled the upper end below a level no controller beats;
    # back off from that level instead.
    hi = max(hi, min(_parrott_bound(plant, 0.0), hi * (1 + rtol)))
    # the regularised route tries levels 1, 2 and 5 per decade from 1e-6 to 1e-3 and keeps
    # the best verified one: near the optimum its central controllers are erratic (AC7
    # at eps = 1e-7, backoff 1e-4: levels 1.3e-7 apart gave loops 1e-7 to 3e-5 above
    # their levels, and at backoff 1e-5 one exceeded by 1.7e-4, 30-digit check)
    if balance:
        steps = tuple(k * 10.0**e for e in range(-6, -3) for k in (1, 2, 5)) + (1e-3,)
        backoffs = [b for b in (*steps, 3e-3, 1e-2, 3e-2, 0.1) if b < rtol]
    else:
        backoffs = [b for b in (10 * gtol, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1) if b < rtol]
    backoffs.append(rtol)
    # Beyond rtol, only if no level within it gave a verified controller: a geometric
    # sequence up to twice the bracket top (the result's bracket shows the gap).
    beyond = [b for b in _BEYOND_RTOL if b > rtol]
    # A well-conditioned controller (cond and stability margin, both cheap) is verified at
    # once and returned when it passes.  The others are fallbacks, returned only when no
    # well-conditioned one passes: the first (lowest level) that passes verification,
    # within rtol if any, else beyond it.  They are verified only when that is needed.
    # The regularised route (``balance``) defers every controller and returns the one of
    # least verified norm (:func:`_first_verified` with ``best=True``).
    pick = dict(slack=slack, best=balance)
    deferred = []
    for i, b in enumerate(backoffs + beyond):
        if i == len(backoffs):
            fallback = _first_verified(plant, deferred, **pick)
            if fallback is not None:
                return lo, hi, fallback
            deferred = []
        g = hi * (1 + b)
        t = ric.gamma_test(N.plant, g)
        if not t.feasible:
            continue
        Ah, Bh, Ch, Dh, cond = ric.central_controller(N.plant, g, t)
        Kn = (Ah, Bh @ N.Ty, N.Tu @ Ch, N.Tu @ Dh @ N.Ty)
        try:
            K = _back_to_plant(Kn, cplant, plant.dt > 0, balance)
            cl = closed_loop(plant, K)
            if not balance and cond <= cond_max and _stability_margin(cl) >= _MARGIN_MIN:
                cl, norm, ok, peak, evals = _verify(plant, K, g, slack, cl=cl)
                if ok:
                    return lo, hi, (K, cl, norm, g, peak, evals)
                continue
        except (IllPosedError, np.linalg.LinAlgError):
            continue
        deferred.append((K, cl, g))
    return lo, hi, _first_verified(plant, deferred, **pick)


def _first_verified(plant, deferred, slack=None, best=False):
    """The first ``(K, cl, g)`` of ``deferred`` whose closed loop passes verification at
    its design level ``g``, as a candidate tuple, or None.

    A candidate is first screened by :func:`_exceeds`: a frequency-wise value above its
    level means :func:`_verify` could only reject it (S&P Ex. 2.11: the first fallbacks'
    closed loops peak at 0 rad/s within about 1e-6 of their levels, on either side
    depending on rounding), so the full norm computation
    is spent on candidates that may pass only.
    """
    slack = _SLACK if slack is None else slack
    seen = [0.0]  # frequencies where earlier candidates peaked
    found = None
    for K, cl, g in deferred:
        level = g * (1 + slack)
        if found is not None:
            level = min(level, found[2])
        try:
            if _exceeds(plant, K, cl, level, seen):
                continue
            cl, norm, ok, peak, evals = _verify(plant, K, g, slack, cl=cl)
        except (IllPosedError, np.linalg.LinAlgError):
            continue
        if np.isfinite(peak):
            seen.append(peak)
        if ok and (found is None or norm < found[2]):
            found = (K, cl, norm, g, peak, evals)
            if not best:
                break
    return found


def _exceeds(plant, K, cl, level, seen):
    """Whether ``sigma_max(Fl(P(jw), K(jw)))`` exceeds ``level`` at one of a few
    frequencies: ``seen``, the peak frequency SLICOT's AB13DD proposes for the closed-loop
    realisation (a frequency only, its value is not used) and the closed-loop natural
    frequencies.  A value above the level is attained, so the norm exceeds the level (up
    to the rounding of one evaluation, the accuracy :func:`_verify`'s own frequency-wise
    check relies on)."""
    w = list(seen)
    poles = np.linalg.eigvals(cl.A) if cl.nstates else np.zeros(0)
    if plant.dt:
        w += list(np.abs(np.angle(poles[poles != 0])) / plant.dt)
    else:
        w += list(np.abs(poles))
    try:
        import slycot

        n, m, p = cl.nstates, cl.ninputs, cl.noutputs
        if n and m and p:
            _, fpeak = slycot.ab13dd(
                "D" if plant.dt else "C", "I", "N", "D" if np.any(cl.D) else "Z",
                n, m, p, cl.A.copy(), np.eye(n), cl.B.copy(), cl.C.copy(), cl.D.copy(), 1e-6,
            )  # fmt: skip
            if np.isfinite(fpeak) and fpeak >= 0:
                w.append(float(fpeak) / (plant.dt or 1.0))
    except Exception:  # noqa: BLE001  (no seed frequency is all a failure costs)
        pass
    w = np.asarray(w, float)
    w = w[np.isfinite(w)]
    if plant.dt:
        w = w[w <= np.pi / plant.dt]
    return bool(np.max(fl_sigma(plant, K, w), initial=-np.inf) > level)


def _lmi(plant, cplant, rtol):
    P0 = cplant.with_d22_zero()
    gopt, T = hinf_level_lmi(P0)
    info = {"T": T}
    # the smaller of the realisation-independent scale and the data norm (a slow pole
    # makes the former large, rescaled states the latter)
    scale = min(_transfer_scale(P0), _data_scale(P0))
    if gopt < 1e-6 * scale:
        # An optimum that is numerically zero (z can be decoupled from w): no relative
        # backoff helps, the controller is sought at small absolute levels instead.
        levels = [1e-6 * scale, 1e-5 * scale, 1e-4 * scale]
    else:
        levels = sorted({gopt * (1 + min(b, rtol)) for b in (1e-4, 1e-3, 1e-2, 3e-2, 0.1)})
    for level in levels:
        try:
            _, g, Kc, _ = lmi_hinf(P0, gamma=level, T=T)
            K = _back_to_plant(Kc, cplant, plant.dt > 0)
            cl, norm, ok, peak, evals = _verify(plant, K, g)
        except (IllPosedError, np.linalg.LinAlgError):
            continue
        if ok:
            return gopt, info, (K, cl, norm, g, peak, evals)
    return gopt, info, None


def _regularised(plant, cplant, rtol, gtol, cond_max):
    """Best controller of the regularised Riccati problems, verified on ``plant``.

    Returns ``(candidate or None, runs, gamma_eps)``: ``runs`` as in
    ``HinfsynResult.regularised`` and ``gamma_eps`` the smallest regularised bracket top
    confirmed by a verified controller within ``rtol`` of it (``inf`` if none).
    """
    best, runs, stale, top, prev = None, [], 0, np.inf, np.nan
    for eps in _EPS_SEQUENCE:
        Pe = regularise(cplant, eps)
        if not ric.is_regular(Pe.with_d22_zero()):
            break
        try:
            with single_blas_thread():
                _, hi, cand = _riccati(plant, Pe, rtol, gtol, cond_max, [], balance=True)
        except (IllPosedError, np.linalg.LinAlgError):
            hi, cand = np.nan, None
        # ``_riccati`` verified the controller on ``plant`` (not on ``Pe``) at its level
        norm = cand[2] if cand is not None else np.inf
        # a bracket top counts only when a controller verified on ``plant`` came within
        # rtol of it: undecided verdicts can pull a top below the optimum (DIS1 at
        # eps = 1e-7: 4.15799 with no controller below 4.468; the limit is 4.159278), and
        # with no verified controller at all it says nothing about ``plant`` (random
        # plant: a top of 0.797 where the optimum is about 29.7)
        confirmed = bool(norm <= hi * (1 + rtol))
        runs.append((eps, float(hi) if confirmed else np.nan, float(norm)))
        if cand is not None and _too_stiff(plant, cand):
            # not returned (random plant, eps = 1e-6: poles up to 3.2e8, the realisation's
            # norm 1.3e-5 below the 60-digit peak); its norm, the larger of both
            # evaluations, still confirms the bracket top below
            cand = None
        if confirmed:
            top = min(top, hi)
        if (
            best is not None
            and confirmed
            and abs(prev - hi) <= _EPS_STOP * hi
            and min(best[2], norm if cand is not None else np.inf) <= hi * (1 + _EPS_STOP)
        ):
            # converged: the confirmed tops moved by less than _EPS_STOP since the previous
            # size and a returnable controller is within _EPS_STOP of the current one (the
            # tops fall about linearly in eps, so the next size could gain about a tenth
            # of the last move)
            if cand is not None and norm < best[2]:
                best = cand
            break
        prev = hi if confirmed else np.nan
        if cand is not None and (best is None or norm < best[2] * (1 - 10 * gtol)):
            best, stale = cand, 0
        else:
            if cand is not None and norm < best[2]:
                best = cand
            stale += 1
            if stale == 2:
                break
    return best, runs, top


def _riccati_result(plant, cplant, cand, lo, hi, history):
    K, cl, norm, g, peak = cand[:5]
    if norm < lo:
        # A verified controller below a level the test called infeasible: the test's
        # verdicts are not reliable on this plant, keep only the sure bound.
        lo = ric.d_bound(ric.normalise(cplant.with_d22_zero()).plant)
    lo, certified = _certified_lower(plant, norm, peak, lo)
    return HinfsynResult(
        as_controller(K, plant.controller_dt),
        norm,
        (lo, norm),
        cl,
        "riccati",
        g,
        hi,
        history,
        certified,
    )


def _warn_beyond(result, rtol, unit=1.0):
    """Warn that ``result`` (levels on the normalised plant) was designed beyond ``rtol``;
    the levels are quoted divided by ``unit`` (in the units of the plant as given)."""
    hi, design = result.gamma_opt, result.gamma_design
    warn(
        f"hinfsyn: no controller within rtol={rtol:g} of the bracket top {hi / unit:.6g} "
        f"passed the closed-loop verification; returning one designed at "
        f"{design / unit:.6g} (backoff {design / hi - 1:.3g}) with verified norm "
        f"{result.gamma / unit:.6g}, bracket {result.gamma_bracket[0] / unit:.6g} to "
        f"{result.gamma / unit:.6g}",
        RobustMBWarning,
    )


def _zeros_note(plant):
    """Why no controller may exist: invariant zeros on the stability boundary, if any."""
    zeros = boundary_zeros(plant)
    if not zeros:
        return ""
    return (
        "; " + "; ".join(zeros) + " (an invariant zero on the stability boundary: the Riccati "
        "equations have no stabilising solution at any level, and the optimum, when finite, "
        "need not be attained by a stabilising controller; move the zero off the boundary, "
        "e.g. with a weight on the channel)"
    )


def _static_result(plant):
    """A plant without states: the matrix problem of :func:`.static.static_hinf`, solved
    exactly (Parrott's bound is the optimum, also over dynamic controllers)."""
    K, cl, norm, bound = static_hinf(plant)
    K = as_controller(K, plant.controller_dt)
    bracket = (min(bound, norm), norm)
    return HinfsynResult(K, norm, bracket, cl, "static", norm, bound, [], True)


def hinfsyn(P, nmeas, ncon, *, method="auto", rtol=0.01, gtol=1e-7, cond_max=1e6):
    """Full-order H-infinity optimal controller with a verified closed-loop norm.

    Parameters
    ----------
    P : control.StateSpace, control.TransferFunction or uncertain system
        Generalised plant with inputs ``[w; u]`` and outputs ``[z; y]``; for an uncertain
        system its nominal is used.  Continuous or discrete time.
    nmeas, ncon : int or sequence of str
        Number of measurements ``y`` (last outputs) and controls ``u`` (last inputs), or
        their signal names.
    method : {"auto", "riccati", "lmi"}
        ``"auto"`` uses the Riccati formulae when ``D12`` and ``D21`` have full rank and
        falls back to the LMI otherwise or when the Riccati controller fails verification;
        on a singular plant it also solves the regularised Riccati problems (``eps u`` in
        ``z``, ``eps v`` in ``y``, decreasing ``eps``) and returns the best controller
        verified on the plant itself.
    rtol : float
        Largest relative backoff from the optimal level allowed for a better conditioned
        controller (default 1 %).  If no controller within it passes the verification,
        the Riccati path tries levels up to twice the bracket top and warns.
    gtol : float
        Relative width of the bisection on the optimal level (Riccati path), in
        ``(0, rtol)``; the bisection also stops when the bracket cannot be narrowed in
        double precision.
    cond_max : float
        Largest acceptable ``cond(I - Y X / gamma^2)`` of the Riccati central controller.

    Returns
    -------
    HinfsynResult
        ``.controller``, ``.gamma`` (verified closed-loop norm), ``.gamma_bracket``,
        ``.closed_loop`` and diagnostics.

    Warns
    -----
    RobustMBWarning
        When the returned controller was designed beyond ``rtol`` (see ``rtol``).  Its
        levels, like those of the errors below and of the result, are in the units of
        ``P`` as given (the design runs on a plant whose ``z`` and ``w`` are rescaled by
        powers of two, see :func:`.plant.normalised_performance`).

    Raises
    ------
    FreeTunableError
        For a ``P`` with free tunable parameters (checked first).
    IllPosedError
        When the plant is not stabilisable through ``u`` or detectable through ``y``, or no
        controller could be verified.
    DimensionError, SignalError
        For a wrong partition.
    ArgumentError
        For a ``method`` not listed, ``rtol`` outside (0, 1), ``gtol`` outside
        (0, ``rtol``), ``cond_max`` below 1, or ``nmeas`` / ``ncon`` neither a count nor
        signal names.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> res = rmb.hinfsyn(P, 1, 1)          # the optimum is 0: z can be cancelled exactly
    >>> K = control.tf(res.controller)
    >>> bool(np.allclose(K.num[0][0], [-1.0]) and np.allclose(K.den[0][0], [1.0, 3.0]))
    True
    >>> bool(res.gamma <= 1e-6 and res.gamma_bracket[1] == res.gamma)
    True
    """
    refuse_free_tunables(P, "P", "hinfsyn")
    check_options("hinfsyn", method=method, rtol=rtol, gtol=gtol, cond_max=cond_max)
    given = partition_plant(P, nmeas, ncon)
    plant, scale = normalised_performance(given)
    if plant.A.shape[0] == 0:
        return _unscaled(_static_result(plant), given, scale)
    check_solvable(plant)
    try:
        res = _solve_discrete_or_continuous(plant, method, rtol, gtol, cond_max, scale)
    except IllPosedError as exc:
        note = both_ends_note(plant)
        if not note or "both z = 1 and z = -1" in str(exc):
            raise
        raise IllPosedError(str(exc) + note) from exc
    return _unscaled(res, given, scale)


def _unscaled(res, plant, scale):
    """The result on the normalised plant (:func:`normalised_performance`) in the units of
    the plant as given: every level divided by ``scale`` (a power of 2: exact), the closed
    loop formed with the given plant, with its ``w`` / ``z`` signal names."""
    K = res.controller
    cl = closed_loop(plant, (K.A, K.B, K.C, K.D))
    if not _norm_certified(cl):
        warn(
            "hinfsyn: no upper bound on the closed loop's H-infinity norm is certified "
            "(hinfnorm of its own realisation); gamma is the largest value found and may lie "
            "below the true norm (gamma_certified = False)",
            RobustMBWarning,
        )
        res = dataclasses.replace(res, gamma_certified=False)
    n_w, n_z = plant.B1.shape[1], plant.C1.shape[0]
    if plant.input_names and plant.output_names:
        cl = control.ss(cl.A, cl.B, cl.C, cl.D, cl.dt, inputs=list(plant.input_names[:n_w]),
                        outputs=list(plant.output_names[:n_z]))  # fmt: skip
    if scale == 1.0:
        return dataclasses.replace(res, closed_loop=cl)
    return dataclasses.replace(
        res,
        gamma=res.gamma / scale,
        gamma_bracket=tuple(g / scale for g in res.gamma_bracket),
        closed_loop=cl,
        gamma_design=res.gamma_design / scale,
        gamma_opt=res.gamma_opt / scale,
        history=[(g / scale, *rest) for g, *rest in res.history],
        regularised=[(eps, g / scale, n / scale) for eps, g, n in res.regularised],
    )


def _solve_discrete_or_continuous(plant, method, rtol, gtol, cond_max, unit=1.0):
    """:func:`_solve`, on ``P(-z)`` for a discrete plant with a pole near ``z = -1``."""
    if nyquist_flip(plant):
        # a pole at (or near) z = -1, where the bilinear map is singular: design on
        # P(-z) (frequency response rotated by pi, every norm kept), K(z) = K'(-z)
        res = _solve(flip_plant(plant), method, rtol, gtol, cond_max, unit)
        K = flip_controller((res.controller.A, res.controller.B, res.controller.C,
                             res.controller.D))  # fmt: skip
        return dataclasses.replace(
            res,
            controller=as_controller(K, plant.controller_dt),
            closed_loop=closed_loop(plant, K),
        )
    return _solve(plant, method, rtol, gtol, cond_max, unit)


def _solve(plant, method, rtol, gtol, cond_max, unit=1.0):
    """:func:`hinfsyn` on a partitioned, solvable plant with states, normalised by
    :func:`.plant.normalised_performance`: ``unit`` is its factor, by which the levels
    quoted in warnings and errors are divided (the result itself stays normalised)."""
    cplant = to_continuous(plant) if plant.dt > 0 else plant
    history: list = []
    late = None
    regular = ric.is_regular(cplant.with_d22_zero())
    if method == "riccati" and not regular:
        raise IllPosedError(
            "method='riccati' needs D12 of full column rank and D21 of full row rank; "
            "use method='lmi' (or 'auto') for this singular plant"
        )
    if method in ("auto", "riccati") and regular:
        try:
            with single_blas_thread():
                lo, hi, cand = _riccati(plant, cplant, rtol, gtol, cond_max, history, unit=unit)
        except IllPosedError as exc:
            if method == "riccati":
                raise IllPosedError(str(exc) + _zeros_note(plant)) from None
            cand = None
        if cand is not None:
            result = _riccati_result(plant, cplant, cand, lo, hi, history)
            if cand[3] <= hi * (1 + rtol) * (1 + 1e-12):
                return result
            if method == "riccati":
                _warn_beyond(result, rtol, unit)
                return result
            late = result  # beyond rtol: the LMI gets its chance first
        elif method == "riccati":
            raise IllPosedError(
                "no Riccati controller passed the closed-loop verification at levels from "
                f"the bracket top {hi / unit:.6g} (existence test infeasible at "
                f"{lo / unit:.6g}) up to {2 * hi / unit:.6g}; a controller may exist at a "
                "higher level: try a larger rtol or method='lmi'" + _zeros_note(plant)
            )
    second_route = method == "auto" and not regular
    try:
        gopt, info, cand = _lmi(plant, cplant, rtol)
    except IllPosedError as exc:
        if not second_route:
            raise
        gopt, cand = np.inf, None  # the SDP failed: the regularised route may still succeed
        lmi_error = exc
    else:
        lmi_error = None
    runs, gopt_estimate, chosen = [], gopt, "lmi"
    if second_route:
        # The SDP level is not reliable on singular plants (HE1: a regularised controller
        # beats it by 7e-4): the regularised Riccati limit is a second route.
        reg, runs, top = _regularised(plant, cplant, rtol, gtol, cond_max)
        gopt_estimate = min(gopt, top)
        if reg is not None and (cand is None or reg[2] < cand[2]):
            cand, chosen = reg, "regularised"
    if cand is None and late is not None:
        _warn_beyond(late, rtol, unit)
        return late
    if cand is None:
        raise IllPosedError(
            "no LMI controller"
            + (" and no regularised Riccati controller" if second_route else "")
            + " passed the closed-loop verification"
            + (f" (the LMI solve failed: {lmi_error})" if lmi_error is not None else "")
            + _zeros_note(plant)
        ) from lmi_error
    K, cl, norm, g, peak = cand[:5]
    # Neither the SDP optimum nor a regularised bracket top is a lower bound (HE1: the SDP
    # level 0.0736233 lies above a verified regularised controller's 0.0736166): they stay
    # in gamma_opt, the lower end is the Parrott bound (0 when there is none), certified
    # when it reaches the SDP level (less its tolerance), the regularised top or the norm.
    bound = _parrott_bound(plant, peak if np.isfinite(peak) else 0.0)
    certified = bound >= min(gopt * (1 - 1e-6), gopt_estimate, norm)
    lower = min(bound, norm)  # clamp: a bound above the verified norm can only be rounding
    return HinfsynResult(
        as_controller(K, plant.controller_dt), norm, (lower, norm), cl, chosen, g, gopt_estimate,
        history, certified, runs,
    )  # fmt: skip
