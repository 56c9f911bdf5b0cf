"""Multi-goal, multi-model structured tuning: ``systune(CL, soft, hard)``."""

from __future__ import annotations

from ..analysis import wcgain
from ..errors import ArgumentError, UncertainTypeError
from ..lft.model import as_model
from .dscaling import goal_lft
from .goals import Goal, check_h2_feedthrough, warn_no_path
from .infeasible_run import warn_infeasible
from .parametrization import ParameterVector, TunableLFT
from .robust_tuning import ROBUST_OPTIONS, _real, robust_systune
from .sample_points import check_samples, hold_complex_at_nominal
from .systune_result import SystuneResult, certify_goals
from .tuning_problem import TuningProblem
from .tuning_term import Term, check_multipeak, check_run_options, check_seed


def _sample_points(CL, samples, seed):
    """``{name: value}`` per model: the nominal values first, then the samples (checked).

    ``ucomplex`` and ``ultidyn`` elements stay at their nominal value, as in robust
    tuning's active set (the optimiser works on real models; ``wcgain``'s certificate
    covers them): drawn samples take their nominal, and a given sample that sets one
    elsewhere is an ``ArgumentError``.
    """
    if not CL.uncertainty:
        return [{}]
    nominal = {n: el.nominal for n, el in CL.uncertainty.items()}
    given = check_samples(CL.uncertainty, samples, "systune")
    if isinstance(given, int):
        drawn = CL.usample(given, seed=seed)[1] if given else []
    else:
        drawn = given
        hold_complex_at_nominal(
            CL.uncertainty,
            given,
            "systune",
            "the optimiser works on real models; result.certified covers them",
        )
    real = [n for n, el in CL.uncertainty.items() if el.kind == "real"]
    return [nominal] + [nominal | {n: p[n] for n in real} for p in drawn]


def _own(model, point):
    """The model at ``point``'s values of the elements it has (a goal's transfer may not
    involve every uncertain element of the loop), with real data when a complex
    element's nominal leaves no imaginary part."""
    own = {n: v for n, v in point.items() if n in model.uncertainty}
    return _real(model.usubs(own)) if own else model


def systune(
    CL,
    soft,
    hard=(),
    *,
    random_start=0,
    seed=None,
    samples=None,
    progress=False,
    maxiter=1000,
    certify=True,
    robust=None,
    multipeak=True,
    **robust_options,
):
    """Tune the parameters of a closed loop for soft and hard goals.

    Minimises the worst normalised soft goal subject to every hard goal being met
    (below 1) and the closed loop being stable, over all the models.

    Parameters
    ----------
    CL : UncertainSystem
        Closed loop with tunable parameters (and possibly uncertain elements), with
        named signals (build it with ``rmb.connect``, loop-opening locations with
        :func:`robustmb.tuning.analysis_point`).
    soft, hard : Goal or sequence of Goal
        Goals from :mod:`robustmb.tuning` (``WeightedGain``, ``Gain``, ``Tracking``,
        ``Rejection``, ``Sensitivity``, ``Margins``, ``Poles``, ``Variance``).
    random_start : int
        Extra runs from random points (>= 0).
    seed : int, optional
        Seed of the random starts and of the uncertainty samples.
    samples : int or list of dict, optional
        For an uncertain loop: the nominal model plus ``samples`` random samples (or
        the given points) are tuned jointly.  A given point names uncertain elements of
        the loop with values inside their ranges (an ``ArgumentError`` otherwise); the
        elements it leaves out take their nominal value.  ``ucomplex`` and ``ultidyn``
        elements stay at their nominal in every sample (``certified`` covers them).
    progress : bool
        Show a progress bar.
    maxiter : int
        BFGS iterations per run and phase (>= 1).
    certify : bool
        For an uncertain loop, compute ``wcgain`` of each H-infinity goal over the
        whole uncertainty box (``result.certified``), after ``robstab`` of the whole
        tuned loop (``result.robust_stability``; a loop without states: mu of its
        constant LFT coefficient, for well-posedness and dynamic elements): a loop not
        proved robustly stable over the box certifies no goal.
    robust : bool, optional
        Active-set robust tuning (:func:`robustmb.tuning.robust_tuning.robust_systune`):
        tune on an active set of samples, add the worst case found over the box until
        none violates, then certify.  Default: when the loop holds uncertain or
        scheduling elements and ``samples`` is not given.  ``robust=False`` tunes the
        nominal model (and ``samples``) only.
    multipeak : bool
        Take the multi-peak step of Apkarian and Noll (2006) where several peaks, goals
        or models are active at once (:func:`robustmb.tuning.multipeak.multipeak_direction`);
        ``False``: plain nonsmooth BFGS on one subgradient.  Robust tuning always uses
        the multi-peak step (``multipeak=False`` is refused there).
    **robust_options
        Options of the robust engine: ``max_rounds``, ``n_random``, ``n_local``,
        ``rtol``, ``certify_splits``, ``initial``, ``max_add``, ``hard_margin``,
        ``scan_levels``, ``certify_budget``, ``polish``, ``start``, ``checkpoint`` (see
        :func:`robustmb.tuning.robust_tuning.robust_systune`); they need robust tuning
        (to resume from a checkpoint with ``samples=``, pass ``robust=True``).  Any
        other keyword raises ``UncertainTypeError``.

    Returns
    -------
    SystuneResult
        ``active_set`` lists the models tuned jointly (``[{}]`` without uncertainty;
        the nominal values, then ``samples``), ``active_goals`` the goals at the worst
        value.  A :class:`~robustmb.tuning.robust_tuning.RobustSystuneResult` for robust
        tuning: ``active_set`` (the samples), ``worst_found``, ``certified_values``,
        ``drivers``, ``history``, ``converged``.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.tuning import Tracking, analysis_point, Margins
    >>> G = control.ss(control.tf([1.0], [1.0, 1.0, 0.0]), inputs="u", outputs="y", name="G")
    >>> C = rmb.tunable_pid("C", form="pd", tf=0.01)
    >>> C.input_names, C.output_names = ["e"], ["u_in"]
    >>> S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    >>> CL = rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    >>> res = rmb.systune(CL, [Tracking("r", "y", 1.0)], [Margins("u", 6, 45)], seed=0)
    >>> chk = res.verify()
    >>> chk["stable"] and abs(chk["soft"][0] - res.soft[0]) < 1e-6 and res.hard[0] < 1
    True
    """
    soft = [soft] if isinstance(soft, Goal) else list(soft)
    hard = [hard] if isinstance(hard, Goal) else list(hard)
    for g in soft + hard:
        if not isinstance(g, Goal):
            raise UncertainTypeError(f"systune: goals must be robustmb.tuning goals, got {g!r}")
    if not soft and not hard:
        raise ArgumentError("systune: no goal given (soft and hard are both empty)")
    if isinstance(CL, (list, tuple)):
        raise UncertainTypeError(
            "systune: CL is one closed loop; to tune several models jointly, give one "
            "uncertain loop and samples= (or a list of plants to hinfstruct)"
        )
    cl = as_model(CL)
    if not cl.tunables:
        raise UncertainTypeError(f"systune: {cl.name!r} has no tunable parameters")
    seed = check_seed("systune", seed)
    check_run_options("systune", random_start, maxiter, ParameterVector(cl.tunables))
    unknown = sorted(set(robust_options) - set(ROBUST_OPTIONS))
    if unknown:
        # the same error on every path, as Python's for an unexpected keyword
        raise UncertainTypeError(
            f"systune: unexpected keyword argument(s) {unknown}; the robust engine's options "
            f"are {list(ROBUST_OPTIONS)}"
        )
    if robust is None:
        robust = bool(cl.uncertainty) and samples is None
    check_multipeak(multipeak, "systune")
    for g in soft + hard:
        model, measure = g.model(cl)[:2]
        check_h2_feedthrough(g, model, measure, "systune")
        warn_no_path(g, model, "systune", cl.name)
    if robust and cl.uncertainty:
        if not multipeak:
            raise ArgumentError(
                "systune: multipeak=False applies to nominal or sampled tuning, not to robust "
                "tuning (pass robust=False or samples)"
            )
        return robust_systune(
            cl,
            soft,
            hard,
            random_start=random_start,
            seed=seed,
            samples=samples,
            progress=progress,
            maxiter=maxiter,
            certify=certify,
            **robust_options,
        )
    if robust_options:
        hint = (
            " (pass robust=True to resume robust tuning from a checkpoint)"
            if "initial" in robust_options and cl.uncertainty
            else ""
        )
        raise UncertainTypeError(
            f"systune: {sorted(robust_options)} apply to robust tuning of an uncertain loop{hint}"
        )
    params = ParameterVector(cl.tunables)
    points = _sample_points(cl, samples, seed)

    def terms(goals):
        out = []
        for i, g in enumerate(goals):
            model, measure, scale, poles = g.model(cl)
            for pt in points:
                lft = goal_lft(g, model, TunableLFT(_own(model, pt), params))
                out.append(Term(lft, measure, scale, poles, f"{i}", band=g.band))
        return out

    loops = [TunableLFT(_own(cl, pt), params) for pt in points]
    problem = TuningProblem(params, terms(soft), terms(hard), loops, multipeak=multipeak)
    runs, best = problem.solve(
        random_start=random_start, seed=seed, progress=progress, maxiter=maxiter
    )
    runs = [runs[best]] + [r for i, r in enumerate(runs) if i != best]
    # one name per hard term (a goal on each model)
    names = [f"hard goal {i} ({g!r})" for i, g in enumerate(hard) for _ in points]
    warn_infeasible("systune", problem, runs[0], names)
    x = runs[0].x
    values = params.values(x)
    tuned = cl.usubs(values)
    sv, hv = problem.values(x)
    npt = len(points)
    soft_v = [max(sv[i * npt : (i + 1) * npt]) for i in range(len(soft))]
    hard_v = [max(hv[i * npt : (i + 1) * npt]) for i in range(len(hard))]
    worst = max(soft_v, default=0.0)
    active = [repr(g) for g, v in zip(soft, soft_v, strict=True) if v >= worst * (1 - 1e-3)]
    active += [repr(g) for g, v in zip(hard, hard_v, strict=True) if v >= 1 - 1e-3]
    certified, stability = (
        certify_goals(tuned, soft + hard, wcgain)
        if certify
        else ([None] * (len(soft) + len(hard)), None)
    )
    return SystuneResult(
        tuned,
        values,
        soft_v,
        hard_v,
        certified,
        [dict(p) for p in points],
        runs,
        points,
        (tuple(soft), tuple(hard)),
        active,
        robust_stability=stability,
    )
