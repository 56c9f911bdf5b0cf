"""Robust tuning on an active set of parameter samples, then a certificate over the box.

When the closed loop holds uncertain or scheduling elements, :func:`robust_systune`
alternates two steps:

1. *tune* the tunable parameters jointly on an active set of parameter samples
   (initially the nominal point, plus any given samples);
2. *search* the worst case of every goal over the whole box: the vertices and random
   points of the real parameters, then local (projected quasi-Newton) ascent of the
   goal's peak gain from the worst of them, with the exact gradient of the peak gain
   with respect to the normalised parameters.  Loops with ``ucomplex`` or ``ultidyn``
   elements also take ``wcgain``'s worst case (its mu lower bound) on a frequency grid;
   such elements stay at their nominal value in the active set (the tuning works on
   real models), so their worst case is covered by the certificate, not by the tuning.

A goal whose worst case found exceeds its active-set value (a hard goal: reaches 1;
a soft goal: exceeds the active-set objective by ``rtol``), or a point where the loop
is unstable, adds that point to the active set and the loop is retuned from the
current design.  When nothing violates, each H-infinity goal is *certified* with
:func:`robustmb.wcgain` over the whole box and the whole frequency axis; the
certificate can be sharpened by splitting the ranges of chosen real parameters into
sub-boxes (the bound is the largest sub-box bound, each certified).

The certificate is a frozen-parameter one: it covers every constant value of the
parameters in their ranges (no bound on their rates of variation).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from ..analysis import hinfnorm, wcgain
from ..errors import ArgumentError, warn
from ..lft.model import UncertainModel, as_model
from .checkpoint import check_checkpoint, read_checkpoint, write_checkpoint
from .goal_certificate import certify_goal, check_splits
from .parametrization import ParameterVector, TunableLFT
from .sample_points import check_samples
from .systune_result import (
    NOT_ROBUSTLY_STABLE,
    SystuneResult,
    certify_goals,
    verify_worst_cases,
)
from .tuning_problem import TuningProblem
from .tuning_term import Term, pole_requirement
from .worst_case_search import WorstCase, search_worst_case

__all__ = [
    "RobustSystuneResult",
    "WorstCase",
    "certify_goal",
    "read_checkpoint",
    "robust_systune",
    "search_worst_case",
]


#: Keyword options of :func:`robust_systune` beyond those of ``systune`` itself.
ROBUST_OPTIONS = (
    "max_rounds",
    "n_random",
    "n_local",
    "rtol",
    "certify_splits",
    "initial",
    "max_add",
    "hard_margin",
    "scan_levels",
    "certify_budget",
    "polish",
    "start",
    "checkpoint",
)

#: A certified value below the worst case found by more than this relative amount is a
#: contradiction (within it, rounding: the certified value is raised to the value found).
CONTRADICTION_RTOL = 1e-9

#: ``start="hard"``: the worst hard goal (relative to its tuning level) is minimised
#: until it falls below this value.
HARD_START_LEVEL = 0.9


# ---------------------------------------------------------------------------- engine
@dataclass
class RobustSystuneResult(SystuneResult):
    """Result of robust tuning (:func:`robustmb.systune` on an uncertain loop).

    Besides the fields of :class:`~robustmb.tuning.SystuneResult` (``soft`` and
    ``hard`` are the values over the active set; ``models`` is the active set):

    Attributes
    ----------
    active_set : list of dict
        The parameter samples tuned jointly (physical values), the nominal first.
    worst_found : list of WorstCase
        Per goal (soft then hard): the worst case found by the final search over the
        box (a lower bound of the goal's worst value).
    certified_values : list of float
        Per goal: the certified upper bound of its worst value over the box and the
        frequency axis (``wcgain``), ``nan`` for goals without a certificate.  A bound
        needs the whole closed loop proved robustly stable over the box
        (``robust_stability``, ``robstab`` on every state of the loop, including modes
        no goal's transfer sees; for a loop without states, mu of its constant LFT
        coefficient proves well-posedness and the stability of dynamic elements closed
        through it): otherwise every value is ``inf`` and each
        ``certified`` entry is uncertified with its ``reason``.  A bound is never below
        the worst case found: one below it by more than rounding contradicts the search
        and is reported (``nan``, uncertified, with a warning), not certified.
    drivers : list of int
        Per goal: the index in ``active_set`` of the sample where the goal is largest
        for the tuned design (the sample that drove it).
    history : list of dict
        Per round: active-set size, active-set goal values, worst cases found, time.
    time : float
        Wall time (seconds), ``certify_time`` the part spent certifying.
    converged : bool
        Whether the last worst-case search found no violation: every goal's worst case
        found is below its limit (a hard goal: below 1; a soft goal: within ``rtol`` of
        the active-set objective).  ``False`` when ``max_rounds`` ran out, or when the
        violating points were already in the active set (a ``ucomplex`` or ``ultidyn``
        worst case, held at its nominal there), with a ``RuntimeWarning`` naming the
        goals: ``soft`` and ``hard`` (active-set values) then understate those goals'
        worst values over the box, read ``worst_found`` and ``certified_values``.
    violated : list of int
        The goals (soft then hard indices) whose worst case found violates at the end.
    """

    worst_found: list = field(default_factory=list)
    certified_values: list = field(default_factory=list)
    drivers: list = field(default_factory=list)
    history: list = field(default_factory=list)
    time: float = 0.0
    certify_time: float = 0.0
    converged: bool = True
    violated: list = field(default_factory=list)

    def verify(self):
        """:meth:`SystuneResult.verify` on the active set (samples, not the box), plus
        ``"worst_found"``: each goal recomputed at its worst case found (``inf`` where
        the loop is not proved stable).  ``"stable"`` also needs the loop proved stable
        at every worst case and unstable point found; over the whole box, read
        ``robust_stability``."""
        out = super().verify()
        out["worst_found"], stable = verify_worst_cases(
            self.closed_loop, self.goals[0] + self.goals[1], self.worst_found
        )
        out["stable"] = out["stable"] and stable
        return out


def _normalised(point, names, elements):
    return np.array([float(elements[n].normalize(point[n])) for n in names])


def robust_systune(
    cl,
    soft,
    hard=(),
    *,
    random_start=0,
    seed=None,
    samples=None,
    progress=False,
    maxiter=1000,
    certify=True,
    max_rounds=20,
    n_random=64,
    n_local=3,
    rtol=1e-3,
    certify_splits=None,
    initial=None,
    max_add=4,
    hard_margin=1.0,
    scan_levels=2,
    certify_budget=None,
    polish="final",
    start="nominal",
    checkpoint=None,
):
    """Active-set robust tuning of ``cl`` and the certificate of each goal (module doc).

    Called by :func:`robustmb.systune` for a loop with uncertain or scheduling
    elements; the arguments are those of ``systune``, and

    max_rounds : int
        Tune-and-search rounds at most.  When they run out with a violation (or the
        violating points are already in the active set), the result says so
        (``converged`` False, ``violated``) and a ``RuntimeWarning`` names the goals.
    n_random, n_local : int
        Random points and local ascents of each worst-case search (integers >= 0).
    rtol : float
        A soft goal violates when its worst case exceeds the active-set objective by
        this relative amount (> 0).
    certify_splits : dict, optional
        ``{name: pieces}``: certify on sub-boxes (see :func:`certify_goal`); names of
        real parameters of the loop, pieces integers >= 1.
    certify_budget : float, optional
        Seconds per goal for the sub-box certificates (checked between sub-boxes).
    polish : {"final", True, False}
        Gradient sampling where BFGS stops, in every round (``True``), never, or
        (``"final"``) only once the search finds no violation: that design is polished
        on the same active set and searched again.
    start : {"nominal", "hard"}
        How the random starts of the first round meet several initial samples:
        ``"nominal"`` tunes them on the nominal point first, ``"hard"`` minimises the
        worst hard goal over the whole initial set first (a scheduled controller that
        must meet a hard goal at the corners of its range from the start).
    initial : dict, optional
        ``{tunable name: value}`` to start the first round from (others keep theirs).
    checkpoint : str or path-like, optional
        A JSON file rewritten after every round with the design (``values``), the
        active set it was tuned on and the history so far: a stopped run resumes with
        ``systune(CL, soft, hard, initial=ck["values"], samples=ck["active_set"][1:],
        robust=True)`` (:func:`read_checkpoint`; ``robust=True`` is needed because
        ``samples=`` alone selects sampled, not robust, tuning).
    max_add : int
        Samples added per goal and round at most: the worst case found, then the most
        unstable points (the loop is unstable somewhere) or further points violating
        the goal, kept apart from each other.
    hard_margin : float
        Hard goals are tuned below this level on the active set (``0.97``: 3 % of slack
        for the parameter values between the samples); a hard goal violates when its
        worst case found reaches 1.
    scan_levels : int
        Points per parameter axis of the grid scanned by each worst-case search (``2``:
        the vertices; ``3``: also the edge and face centres), see
        :func:`search_worst_case`.

    Returns
    -------
    RobustSystuneResult

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.tuning import WeightedGain
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> G = rmb.uss(1 / (s - a)); G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    >>> K = rmb.tunable_gain("K", 1, 1); K.input_names, K.output_names = ["e"], ["u"]
    >>> S = control.ss([], [], [], [[1, -1, 0, 0], [0, 0, 1, 1]], name="S",
    ...                inputs=["r", "y", "u", "d"], outputs=["e", "v"])
    >>> CL = rmb.connect([G, K, S], None, ["r", "d"], ["y", "u"])
    >>> goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    >>> res = rmb.systune(CL, goals, seed=0)
    >>> round(float(res.values["K"][0, 0]), 3), round(max(res.soft), 3)
    (4.0, 1.0)
    >>> [round(p["a"], 3) for p in res.active_set]
    [1.0, 1.5]
    """
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ArgumentError(f"systune: max_rounds must be an integer >= 1, got {max_rounds!r}")
    if start not in ("nominal", "hard"):
        raise ArgumentError(f"systune: start must be 'nominal' or 'hard', got {start!r}")
    if polish not in ("final", True, False):
        raise ArgumentError(f"systune: polish must be 'final', True or False, got {polish!r}")
    if isinstance(hard_margin, bool) or not (
        isinstance(hard_margin, int | float) and 0 < hard_margin <= 1
    ):
        raise ArgumentError(f"systune: hard_margin must be in (0, 1], got {hard_margin!r}")
    for name, value, least in (
        ("scan_levels", scan_levels, 2),
        ("max_add", max_add, 1),
        ("n_random", n_random, 0),
        ("n_local", n_local, 0),
    ):
        if (
            isinstance(value, bool | np.bool_)
            or not isinstance(value, int | np.integer)
            or (value < least)
        ):
            raise ArgumentError(f"systune: {name} must be an integer >= {least}, got {value!r}")
    if certify_budget is not None and (
        isinstance(certify_budget, bool)
        or not (isinstance(certify_budget, int | float) and certify_budget > 0)
    ):
        raise ArgumentError(
            f"systune: certify_budget must be a positive number of seconds, got {certify_budget!r}"
        )
    if isinstance(rtol, bool | np.bool_) or not (
        isinstance(rtol, int | float | np.integer | np.floating) and 0 < rtol < np.inf
    ):
        raise ArgumentError(f"systune: rtol must be a finite number > 0, got {rtol!r}")
    t_start = time.perf_counter()
    cl = as_model(cl)
    elements = dict(cl.uncertainty)
    real = {n: el for n, el in elements.items() if el.kind == "real"}
    check_splits(certify_splits, real)
    other = {n: el for n, el in elements.items() if el.kind != "real"}
    names = list(real)
    goals = list(soft) + list(hard)
    nsoft = len(soft)
    params = ParameterVector(cl.tunables)
    rng_seed = 0 if seed is None else seed
    # checked before any tuning: a bad start or an unwritable checkpoint fails at once
    x_init = None if initial is None else _initial_vector(params, initial)
    if checkpoint is not None:
        check_checkpoint(checkpoint)

    points = [{n: el.nominal for n, el in elements.items()}]
    nominal_other = {n: el.nominal for n, el in other.items()}
    # the sampled path's checks: names of the loop, values inside the box
    samples = check_samples(elements, samples, "systune")
    if samples:
        drawn = cl.usample(samples, seed=seed)[1] if isinstance(samples, int) else samples
        # ucomplex / ultidyn elements stay at their nominal in the active set (their worst
        # cases enter the search and the certificate only): the optimiser works on real models.
        points += [
            {n: dict(p).get(n, el.nominal) for n, el in real.items()} | nominal_other for p in drawn
        ]
    models = [g.model(cl) for g in goals]

    def build(pts):
        sterms, hterms = [], []
        for i, ((m, measure, scale, poles), goal) in enumerate(zip(models, goals, strict=True)):
            # Hard goals are tuned below hard_margin (slack between the samples).
            sc = scale if i < nsoft else scale / hard_margin
            for pt in pts:
                # a goal's transfer may not involve every uncertain element
                own = {n: v for n, v in pt.items() if n in m.uncertainty}
                lft = TunableLFT(_real(m.usubs(own) if own else m), params)
                t = Term(lft, measure, sc, poles, f"{i}", band=goal.band)
                (sterms if i < nsoft else hterms).append(t)
        loops = [TunableLFT(_real(cl.usubs(pt)), params) for pt in pts]
        return TuningProblem(params, sterms, hterms, loops)

    history, runs, x = [], [], None
    worst = []
    target = None
    polish_now = polish is True
    for rnd in range(max_rounds):
        t0 = time.perf_counter()
        polished = polish_now
        problem = build(points)
        if x is None:
            rng = np.random.default_rng(seed)
            x0 = params.initial() if x_init is None else x_init
            starts = [x0] + [problem.random_point(rng, x0) for _ in range(random_start)]
            # Several initial samples, no initial design: with start="nominal" the
            # starts are tuned on the nominal point alone (a problem random starts
            # solve far more often); with start="hard" the worst hard goal over the
            # whole initial set is minimised first (no soft goal, no barrier).  The
            # best is then continued on the whole initial set.  A given initial
            # design is continued on the whole set directly.
            first = problem
            if len(points) > 1 and not initial and start == "nominal":
                first = build(points[:1])
            elif start == "hard" and problem.hard and not initial:
                hard_only = TuningProblem(params, problem.hard, [], problem.loops)
                # Stop once every hard goal is met with room to spare (0.9 of its
                # tuning level): pushed further, a goal that falls monotonically with a
                # gain (d -> y under high gain) drives the gain towards infinity, and
                # the soft stage must then walk all the way back.
                starts = [
                    hard_only.run(s, maxiter=maxiter, polish=False, stop_below=HARD_START_LEVEL).x
                    for s in starts
                ]
            rr = []
            for s in starts:
                rr.append(_run(first, s, maxiter, None, polished))
                if progress:
                    print(
                        f"robust tuning start {len(rr)}"
                        f"{' (nominal)' if first is not problem else ''}: {rr[-1].value:.6g} "
                        f"({rr[-1].message}, {rr[-1].time:.1f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
            best = int(np.argmin([r.value for r in rr]))
            runs = [rr[best]] + [r for i, r in enumerate(rr) if i != best]
            if first is not problem:
                v0 = runs[0].value
                target = v0 if np.isfinite(v0) and v0 > 0 else None
                runs = [_run(problem, runs[0].x, maxiter, target, polished)] + runs
                if progress:
                    print(
                        f"robust tuning on the {len(points)} initial samples: "
                        f"{runs[0].value:.6g} ({runs[0].message})",
                        file=sys.stderr,
                        flush=True,
                    )
        else:
            # Warm start from the previous design (feasibility restored if needed).
            runs = [_run(problem, x, maxiter, target, polished)] + runs
        x = runs[0].x
        sv, hv = problem.values(x)
        hv = [v * hard_margin for v in hv]  # the hard goals' own values
        tuned_points = list(points)  # the samples the design was tuned (and evaluated) on
        npt = len(points)
        act = [max(v[i * npt : (i + 1) * npt]) for v, i in _goal_slices(sv, hv, nsoft, goals)]
        objective = max(act[:nsoft], default=0.0)
        target = objective if np.isfinite(objective) and objective > 0 else None
        tuned = cl.usubs(params.values(x))
        limits = [objective * (1 + rtol)] * nsoft + [1.0] * (len(goals) - nsoft)
        worst = _search_all(
            tuned, goals, real, other, names, points, rng_seed + rnd, n_random, n_local,
            limits, scan_levels, max_add, nsoft,
        )  # fmt: skip
        violated = []
        for i, wc in enumerate(worst):
            # a hard goal is not met at 1; a soft goal violates above its limit (a
            # worst case equal to an objective of 0 is not above it); nan violates, and so
            # does a non-finite worst case or objective (an unstable design: inf <= inf is
            # no convergence)
            met = wc.value < limits[i] if i >= nsoft else wc.value <= limits[i]
            if not (met and np.isfinite(wc.value) and np.isfinite(act[i])):
                violated.append(i)
        history.append(
            {
                "round": rnd,
                "active_set_size": npt,
                "active": act,
                "worst_found": [w.value for w in worst],
                "violated": violated,
                "polished": polished,
                "time": time.perf_counter() - t0,
            }
        )
        if checkpoint is not None:
            write_checkpoint(checkpoint, params.values(x), tuned_points, history)
        if progress:
            h = history[-1]
            print(
                f"robust tuning round {rnd}: {npt} samples, active {np.round(act, 4).tolist()}, "
                f"worst found {np.round(h['worst_found'], 4).tolist()}, {h['time']:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        if not violated:
            if polished or polish is False:
                break
            polish_now = True  # polish this design on the same samples, then search again
            continue
        added = 0
        for i in violated:
            # The worst case, then the most unstable points or further violating ones
            # (up to max_add per goal, apart from each other).
            for k, p in enumerate([worst[i].point] + worst[i].unstable + worst[i].above):
                if k >= max_add:
                    break
                # ucomplex / ultidyn elements stay at their nominal in the active set
                # (their worst cases enter the search and the certificate only).
                p = {n: p[n] for n in real} | nominal_other
                if not any(_same_point(p, q, real) for q in points):
                    points.append(p)
                    added += 1
        if not added:
            break
        polish_now = polish is True  # new samples: unpolished rounds until none violates

    values = params.values(x)
    tuned = cl.usubs(values)
    npt = len(tuned_points)
    drivers = []
    for i in range(len(goals)):
        vals = (sv if i < nsoft else hv)[
            (i if i < nsoft else i - nsoft) * npt : ((i if i < nsoft else i - nsoft) + 1) * npt
        ]
        drivers.append(int(np.argmax(vals)))
    soft_v, hard_v = act[:nsoft], act[nsoft:]
    t_cert = time.perf_counter()

    def certifier(m):
        # split only the parameters this goal's transfer has
        splits = {n: k for n, k in (certify_splits or {}).items() if n in m.uncertainty}
        return certify_goal(m, splits=splits, progress=progress, budget=certify_budget)

    violated = history[-1]["violated"] if history else []
    if violated:
        _warn_not_converged(goals, nsoft, violated, worst, act, limits)
    certified, stability = (
        certify_goals(tuned, goals, certifier) if certify else ([None] * len(goals), None)
    )
    certified, cvals = _certified_values(goals, certified, worst)
    t_end = time.perf_counter()
    return RobustSystuneResult(
        tuned,
        values,
        soft_v,
        hard_v,
        certified,
        tuned_points,
        runs,
        tuned_points,
        (tuple(soft), tuple(hard)),
        worst_found=worst,
        certified_values=cvals,
        drivers=drivers,
        history=history,
        time=t_end - t_start,
        certify_time=t_end - t_cert,
        dscaled=False,
        robust_stability=stability,
        converged=not violated,
        violated=list(violated),
    )


def _warn_not_converged(goals, nsoft, violated, worst, act, limits):
    """RuntimeWarning: the design ends with goals whose worst case found violates."""
    parts = []
    for i in violated:
        kind, j = ("soft", i) if i < nsoft else ("hard", i - nsoft)
        what = (
            "the design is not stable on the active set (no stabilising design found)"
            if not np.isfinite(act[i])
            else f"worst case found {worst[i].value:.6g} >= 1: NOT met over the box"
            if i >= nsoft
            else f"worst case found {worst[i].value:.6g} above the active-set objective "
            f"{limits[i]:.6g} (with rtol)"
        )
        parts.append(
            f"{kind} goal {j} ({goals[i]!r}): active-set value {act[i]:.6g}, {what} "
            f"at {worst[i].point}"
        )
    warn(
        "robust tuning did not converge (max_rounds ran out, or the violating points were "
        "already in the active set): " + "; ".join(parts),
        RuntimeWarning,
    )


def _certified_values(goals, certified, worst):
    """Per goal: the certified bound, never below the worst case found.

    A bound below the search's own lower bound by more than rounding is a contradiction
    between two computations: it is reported (a warning, the entry replaced by an
    uncertified result naming both values), not certified.
    """
    from ..analysis.worst_case_gain import WcgainResult

    out, values = [], []
    for i, c in enumerate(certified):
        if c is None or isinstance(c, Exception) or not c.certified:
            out.append(c)
            # inf: the whole loop is not proved robustly stable (a goal's worst value
            # may be unbounded); nan: no certificate for this goal
            unstable = getattr(c, "reason", "").startswith(NOT_ROBUSTLY_STABLE)
            values.append(np.inf if unstable else np.nan)
            continue
        found = worst[i].value if i < len(worst) else -np.inf
        upper = float(c.upper)
        # (a nan search value bounds nothing: the certificate stands on its own)
        if not (np.isnan(found) or found <= upper * (1 + CONTRADICTION_RTOL)):
            why = (
                f"contradiction: the certified upper bound {upper:.10g} is below the worst "
                f"case found {found:.10g} at {worst[i].point}; no certificate"
            )
            warn(f"goal {i} ({goals[i]!r}): {why}", RuntimeWarning)
            out.append(
                WcgainResult(c.lower, np.inf, c.critical_frequency, c.worst, False, None, why)
            )
            values.append(np.nan)
            continue
        out.append(c)
        values.append(upper if np.isnan(found) else max(upper, float(found)))
    return out, values


def _run(problem, x0, maxiter, target, polish=True):
    """One run: soft goals minimised subject to hard goals below 1 and stable loops.

    With hard goals, a min-max stage first minimises ``max(soft / t, hard)`` (the
    hard goals enter the maximum instead of a barrier, so the iterates slide along
    them), lowering the target ``t`` below the soft value reached while the maximum
    stays below 1; then the barrier problem (soft objective, hard goals < 1) polishes
    the best feasible point.
    """
    if not problem.hard:
        return problem.run(x0, maxiter=maxiter, polish=polish)
    t_start = time.perf_counter()
    x = np.asarray(x0, float)
    sv, _ = problem.values(x)
    t = target if target else (max(sv) if sv and np.all(np.isfinite(sv)) else 1.0)
    best, hist = None, []
    for _ in range(4):
        scaled = [
            Term(term.lft, term.measure, term.scale / t, term.poles, term.label, band=term.band)
            for term in problem.soft
        ]
        mm = TuningProblem(problem.params, scaled + problem.hard, [], problem.loops)
        r = mm.run(x, maxiter=maxiter, polish=False)  # the barrier run below polishes
        hist += r.history
        if not np.isfinite(r.value):
            break
        x = r.x
        sv, hv = problem.values(x)
        s_val, h_val = max(sv, default=0.0), max(hv)
        if h_val < 1.0 and (best is None or s_val < best[0]):
            best = (s_val, x.copy())
        if r.value >= 1.0 - 1e-6:
            if best is not None:
                break
            t *= 2.0 * r.value  # the hard goals cannot follow this target: relax it
        else:
            t = 0.9 * s_val
    if best is None:
        return problem.run(x, maxiter=maxiter, polish=polish)
    r = problem.run(best[1], maxiter=maxiter, polish=polish)
    if not r.value <= best[0]:
        r.x, r.value = best[1], best[0]
    r.start, r.history = np.asarray(x0, float), hist + r.history
    r.time = time.perf_counter() - t_start
    return r


def _real(model):
    """The model with real data when its imaginary parts vanish (a ucomplex at nominal)."""
    r = model._real
    mats = (r.a, r.b, r.c, r.d)
    if not any(np.iscomplexobj(x) for x in mats) or any(np.any(np.imag(x) != 0) for x in mats):
        return model
    from ..lft.realization import make_realization

    real = make_realization(*(np.real(x) for x in mats), r.blocks)
    return model._like(
        real,
        dt=model.dt,
        input_names=model.input_names,
        output_names=model.output_names,
        name=model.name,
    )


def _initial_vector(params, initial):
    """The parameter vector with the given ``{name: value}`` replacing initial values.

    Every value must be numeric, finite, of the tunable's shape (a scalar for a 1x1
    matrix is fine), inside its bounds and equal to its fixed entries; else
    :class:`~robustmb.errors.ArgumentError` naming the parameter.

    Examples
    --------
    >>> import robustmb as rmb
    >>> from robustmb.tuning.parametrization import ParameterVector
    >>> params = ParameterVector({"k": rmb.realp("k", 1.0, minimum=0.0)})
    >>> _initial_vector(params, {"k": 2.0}).tolist()
    [2.0]
    >>> try:
    ...     _initial_vector(params, {"k": -1.0})
    ... except rmb.errors.ArgumentError as e:
    ...     print(e)
    systune: initial value of 'k' [-1.0] lies outside its bounds [0.0, inf]
    """
    if not isinstance(initial, dict):
        raise ArgumentError(
            f"systune: initial must be a dict {{tunable name: value}}, got {type(initial).__name__}"
        )
    x = params.initial()
    for name, value in initial.items():
        if name not in params.tunables:
            raise ArgumentError(
                f"systune: initial names {name!r}, not a tunable of the loop "
                f"({sorted(params.tunables)})"
            )
        el = params.tunables[name]
        k = params.offsets[name]
        try:
            if isinstance(value, bool | np.bool_):
                raise TypeError
            val = np.asarray(value)
            if val.dtype == object or val.dtype == bool or np.iscomplexobj(val):
                raise TypeError
            val = val.astype(float)
        except (TypeError, ValueError):
            raise ArgumentError(
                f"systune: initial value of {name!r} must be real numbers, got {value!r}"
            ) from None
        if val.shape != el.value.shape:
            if val.size == 1 and el.value.size == 1:
                val = val.reshape(el.value.shape)  # a scalar for a 1x1 block
            else:
                raise ArgumentError(
                    f"systune: initial value of {name!r} has shape {val.shape}, the tunable "
                    f"{el.value.shape}"
                )
        if not np.all(np.isfinite(val)):
            raise ArgumentError(f"systune: initial value of {name!r} must be finite, got {value!r}")
        if np.any(val < el.minimum) or np.any(val > el.maximum):
            lo = el.minimum.tolist() if el.minimum.ndim else float(el.minimum)
            hi = el.maximum.tolist() if el.maximum.ndim else float(el.maximum)
            raise ArgumentError(
                f"systune: initial value of {name!r} {np.atleast_1d(val).tolist()} lies outside "
                f"its bounds [{lo}, {hi}]"
            )
        fixed = ~el.free
        if np.any(val[fixed] != el.value[fixed]):
            raise ArgumentError(
                f"systune: initial value of {name!r} differs from its fixed (free=False) "
                f"entries {el.value[fixed].tolist()}"
            )
        x[k : k + el.nfree] = val[el.free].ravel()
    return x


def _goal_slices(sv, hv, nsoft, goals):
    for i in range(len(goals)):
        yield (sv, i) if i < nsoft else (hv, i - nsoft)


def _same_point(p, q, real):
    return all(
        abs(float(real[n].normalize(p[n])) - float(real[n].normalize(q[n]))) < 1e-6 for n in real
    )


def _search_all(
    tuned, goals, real, other, names, points, seed, n_random, n_local, limits, levels, n_keep, nsoft
):
    """Worst case of every goal of the tuned loop over the box (lower bounds)."""
    out = []
    extra = [_normalised(p, names, real) for p in points]
    nominal_other = {n: el.nominal for n, el in other.items()}
    for i, (g, limit) in enumerate(zip(goals, limits, strict=True)):
        hard = i >= nsoft
        m, measure, scale, poles = g.model(tuned)
        m = as_model(m)
        loop = tuned
        if other:
            # Non-real elements at their nominal for the real search; wcgain's mu lower
            # bound (below) explores them.
            m = _real(
                as_model(m.usubs({n: v for n, v in nominal_other.items() if n in m.uncertainty}))
            )
            loop = _real(as_model(tuned.usubs(nominal_other)))
        if not m.uncertainty and not loop.uncertainty:
            val = _fixed_value(m, measure, scale, poles)
            out.append(WorstCase(val, {}, np.zeros(0), 1))
            continue
        # Keep every real element in the map (some may not enter this transfer).
        wc = search_worst_case(
            m,
            real,
            measure,
            scale,
            poles,
            loop=loop,
            n_random=n_random,
            n_local=n_local,
            seed=seed,
            extra=extra,
            levels=levels,
            max_vertices=4096,
            # Hard goals (and stability) take several violating points per round; a
            # soft goal its worst case only (its limit moves with the design).
            limit=limit if hard else None,
            n_keep=n_keep,
        )
        wc.point.update(nominal_other)
        full = as_model(g.model(tuned)[0])
        # (a tuned design may cancel the goal's dependence on the non-real elements)
        if other and measure == "hinf" and any(n in full.uncertainty for n in other):
            res = wcgain(full * scale if scale != 1.0 else full, omega=_search_grid(full))
            if res.lower > wc.value and res.worst:
                wc = WorstCase(float(res.lower), dict(res.worst), wc.delta, wc.evaluations, [])
        out.append(wc)
    return out


def _search_grid(model, n=60):
    """Frequencies for a lower-bound search: two decades around the nominal poles.

    Capped at the Nyquist frequency ``pi / dt`` for a discrete model.
    """
    sys = model.nominal() if isinstance(model, UncertainModel) else model
    a = np.asarray(sys.A)
    dt = 0.0 if not sys.dt else float(sys.dt)
    lam = np.linalg.eigvals(a) if a.size else np.zeros(0)
    if dt:
        lam = np.log(lam[lam != 0]) / dt
    mag = np.abs(lam[np.abs(lam) > 0])
    lo, hi = (mag.min() / 100.0, mag.max() * 100.0) if mag.size else (1e-3, 1e4)
    if dt:
        hi = min(hi, np.pi / dt)
        lo = min(lo, hi / 1e4)
    return np.geomspace(lo, hi, n)


def _fixed_value(m, measure, scale, poles):
    sys = m.nominal() if isinstance(m, UncertainModel) else m
    if measure == "poles":
        return pole_requirement(np.asarray(sys.A), *poles)[0]
    if measure == "h2":
        from ..analysis import h2norm

        return h2norm(sys) * scale
    return hinfnorm(sys)[0] * scale
