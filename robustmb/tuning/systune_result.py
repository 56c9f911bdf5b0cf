"""Result of structured tuning (:func:`robustmb.systune`) and its certificates."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analysis import h2norm, hinfnorm
from ..errors import RobustMBWarning, warn
from ..lft.model import UncertainModel, as_model
from .stability import proved_stable


def loop_stability(tuned):
    """Robust stability of the WHOLE tuned closed loop over the uncertainty box.

    A goal's transfer sees only the modes it observes and excites: a mode that no goal
    sees (a second loop with a fixed gain, an unobservable pole) can be unstable over
    part of the box while every goal's ``wcgain`` is finite.  ``robstab`` of the loop's
    own LFT (all its states) covers them.  A loop without states goes to
    :func:`static_loop_stability` (mu of its constant LFT coefficient): it can still
    be ill-posed over the box, or unstable through a dynamic element it closes.

    Returns
    -------
    (RobstabResult or Exception or None, bool)
        The analysis (``None`` for a loop without uncertainty, the exception
        when it failed) and whether it proved the loop stable for every value in the
        box (``certified`` on the whole frequency axis and a margin ``lower > 1``).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 3.0))
    >>> s = control.tf("s")
    >>> res, proved = loop_stability(rmb.uss(1 / (s + 2 - c)))  # pole c - 2: unstable for c > 2
    >>> proved, round(res.destabilizing["c"], 6)
    (False, 2.0)
    """
    from ..analysis import robstab

    if not (isinstance(tuned, UncertainModel) and tuned.uncertainty):
        return None, True
    try:
        if not tuned.nstates:
            # no poles of its own, but well-posedness (and the poles of dynamic
            # elements closed through it) still need a proof
            return static_loop_stability(tuned)
        res = robstab(tuned, sensitivity=False)
    except ValueError as exc:
        warn(f"robust stability of the tuned closed loop failed: {exc}", RobustMBWarning)
        return exc, False
    return res, bool(res.certified and res.lower > 1.0)


def static_loop_stability(tuned):
    """Robust stability and well-posedness of a tuned loop without states.

    A static coefficient ``M`` closed by ``Delta`` still loses well-posedness where
    ``det(I - M11 Delta) = 0``, and with dynamic elements (``ultidyn``) the closed loop
    has the poles of ``Delta(s)`` and the zeros of ``det(I - M11 Delta(s))``.  Any
    stable ``Delta(s)`` with ``||Delta||_inf <= 1`` takes, on the closed right
    half-plane (infinity included), values of norm ``<= 1`` in the complex full
    structure, and the real parameters stay real: so ``mu(M11) < 1`` for the mixed
    structure of the constant ``M11`` proves well-posedness and stability for every
    value in the box at every frequency at once.  ``mussv``'s upper bound (a D,G
    scaling certificate) gives ``mu(M11) <= upper``; the loop is proved when
    ``upper < 1``, that is the margin ``lower = 1 / upper > 1``.

    Returns
    -------
    (RobstabResult, bool)
        Margin bounds ``1 / mu_upper <= margin <= 1 / mu_lower`` (``certified`` True:
        the bound holds at every frequency), with the destabilising values of the
        ``mussv`` lower bound; and whether the loop is proved well-posed and stable.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 0.5, range=(0.0, 1.0))
    >>> loop = rmb.feedback(rmb.uss(1.0), a)  # 1 / (1 + a): well-posed for a > -1
    >>> res, proved = static_loop_stability(rmb.uss(loop))
    >>> proved, round(res.lower, 6)
    (True, 3.0)
    """
    from ..analysis.mussv import mussv
    from ..analysis.robust_stability import RobstabResult
    from ..analysis.uncertain_problem import uncertain_problem, values_from_delta

    problem = uncertain_problem(tuned, what="robust stability of the tuned closed loop")
    m11 = problem.d[: problem.nz, : problem.nw]
    dynamic = sorted(bi.name for bi in problem.blocks if bi.kind not in ("real", "complex"))
    res = mussv(m11, problem.blk, seed=0)
    mu_up, mu_lo = float(res.upper), float(res.lower)
    lower = np.inf if mu_up == 0.0 else 1.0 / mu_up
    upper = np.inf if mu_lo == 0.0 else 1.0 / mu_lo
    destab = {} if res.delta is None else values_from_delta(problem, np.asarray(res.delta), 1.0)
    what = "well-posedness and stability" if dynamic else "well-posedness"
    reason = (
        f"static loop: {what} from mu of the constant LFT coefficient M11 "
        f"(mussv bounds [{mu_lo:.6g}, {mu_up:.6g}], the same at every frequency)"
        + (f"; dynamic elements {dynamic}" if dynamic else "")
    )
    out = RobstabResult(lower, upper, np.nan, destab, {}, True, None, reason)
    return out, bool(lower > 1.0)


#: Start of the ``reason`` of a goal left uncertified because the whole loop is not
#: proved robustly stable over the box.
NOT_ROBUSTLY_STABLE = "no certificate: the tuned closed loop is not proved robustly stable"


def _not_certified(reason):
    from ..analysis.worst_case_gain import WcgainResult

    return WcgainResult(np.nan, np.inf, np.nan, {}, False, None, reason)


def certify_goals(tuned, goals, certifier):
    """Certificate of each H-infinity goal of an uncertain tuned loop, by ``certifier``.

    A goal's certificate needs two proofs: the whole closed loop is robustly stable
    over the box (:func:`loop_stability`, ``robstab`` on every state of the loop, not
    only those the goal's transfer sees), and ``certifier`` bounds the goal's
    transfer.  When the first fails, no goal is certified: each gets a result with
    ``upper = inf``, ``certified = False`` and a ``reason`` giving the margin found.

    Parameters
    ----------
    tuned : UncertainSystem
        The closed loop with the tuned values substituted (uncertainty kept).
    goals : sequence of Goal
        Soft goals then hard goals.
    certifier : callable
        ``certifier(model) -> result`` with ``.certified`` and ``.upper`` (e.g.
        ``robustmb.wcgain``), called on each goal's scaled H-infinity transfer.

    Returns
    -------
    (list, RobstabResult or Exception or None)
        Per goal: the certifier's result, ``None`` for a goal that is not an
        H-infinity goal of an uncertain loop, or the exception when the analysis
        failed (also issued as a warning, so no failure goes unnoticed); then the
        robust stability analysis of the whole loop (``None`` when not needed).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.tuning.systune_result import certify_goals
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> G = rmb.uss(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], inputs="r", outputs="y"))
    >>> T = a * G  # gain a after a first-order lag: worst case 2 at a = 2, w = 0
    >>> goal = rmb.tuning.WeightedGain("r", T.output_names[0])
    >>> certs, stab = certify_goals(T, [goal], rmb.wcgain)
    >>> bool(certs[0].certified), round(float(certs[0].lower), 6), bool(stab.lower > 1)
    (True, 2.0, True)
    """
    out, stab, proved = [], None, None
    for i, g in enumerate(goals):
        cert = None
        if isinstance(tuned, UncertainModel) and tuned.uncertainty:
            model, measure, scale, _ = g.model(tuned)
            if measure == "hinf" and isinstance(model, UncertainModel) and model.uncertainty:
                if proved is None:
                    stab, proved = loop_stability(tuned)
                if not proved:
                    why = (
                        f"robust stability of the whole closed loop: {stab}"
                        if isinstance(stab, Exception)
                        else f"the robust stability margin of the whole closed loop is in "
                        f"[{stab.lower:.6g}, {stab.upper:.6g}]"
                        + ("" if stab.certified else " (not certified on the whole axis)")
                        + f", destabilizing {stab.destabilizing}"
                    )
                    out.append(
                        _not_certified(
                            f"{NOT_ROBUSTLY_STABLE} over the box ({why}); its goals' "
                            "transfers do not see every mode"
                        )
                    )
                    continue
                try:
                    cert = certifier(model * scale if scale != 1.0 else model)
                except ValueError as exc:
                    # Keep the tuning result; the stored exception says why.
                    warn(
                        f"certificate of goal {i} ({g!r}) failed: {exc}",
                        RobustMBWarning,
                    )
                    cert = exc
        out.append(cert)
    return out, stab


def _pole_value(a, decay, damping, max_frequency, dt=0.0):
    """The ``Poles`` goal's value from numpy's eigenvalues of ``a``, written apart from
    the optimiser's pole measure (:mod:`robustmb.tuning.pole_measure`, with its
    eigenvectors and cluster projectors): ``max(1 + v / rho, 0)`` with ``v`` the worst
    of ``Re p + decay``, ``Re p + damping |p|`` and ``|p| - max_frequency`` over the
    eigenvalues ``p``, and ``rho = max(decay, 1e-3 max_frequency, 1e-3)``.  On a
    discrete loop the decay of an eigenvalue ``z`` is ``-log|z| / dt`` and its natural
    frequency ``hypot(log|z|, arg z) / dt``.

    Examples
    --------
    >>> import numpy as np
    >>> _pole_value(np.diag([-2.0, -0.5]), 1.0, 0.0, np.inf)  # 1 + (-0.5 + 1) / 1
    1.5
    >>> _pole_value(np.diag([-10.0, -20.0]), 1.0, 0.0, np.inf)  # met with room: 0
    0.0
    """
    if not a.size:
        return 0.0
    lam = np.linalg.eigvals(a)
    if dt:
        r = np.log(np.maximum(np.abs(lam), 1e-300)) / dt
        lam = r + 1j * np.angle(lam) / dt
    mag = np.abs(lam)
    viol = np.maximum(lam.real + decay, lam.real + damping * mag)
    finite = np.isfinite(max_frequency)
    if finite:
        viol = np.maximum(viol, mag - max_frequency)
    rho = max(decay, 1e-3 * max_frequency if finite else 0.0, 1e-3)
    return float(max(1.0 + viol.max() / rho, 0.0))


def _goal_value(model, measure, scale, poles, dscaled=False):
    """A goal's value on a fully substituted model, by the analysis layer and numpy
    (no optimiser code)."""
    if measure == "poles":
        return _pole_value(np.asarray(model.A), *poles)
    if measure == "h2":
        return h2norm(model) * scale
    if dscaled and model.noutputs > 1:
        return _dscaled_hinfnorm(model) * scale
    return hinfnorm(model)[0] * scale


def _dscaled_hinfnorm(sys):
    """``min_D ||D M D^-1||_inf`` by direct minimisation of the norm over ``log D``.

    A second algorithm beside :func:`robustmb.tuning.dscaling.optimal_scaling` (which
    iterates on a frequency set): Brent (two channels) or Nelder-Mead on the full
    H-infinity norm, a convex function of ``log D``.
    """
    from scipy.optimize import minimize, minimize_scalar

    a, b, c, d = (np.asarray(m, float) for m in (sys.A, sys.B, sys.C, sys.D))
    dt = sys.dt or 0.0

    def norm(z):
        z = np.clip(np.atleast_1d(z), -30.0, 30.0)  # a decoupled channel: flat towards inf
        dd = np.exp(np.concatenate(([0.0], z)))
        g = hinfnorm((a, b / dd, dd[:, None] * c, dd[:, None] * d / dd, dt), tol=1e-10)[0]
        return np.log(g)

    p = c.shape[0]
    if p == 2:
        r = minimize_scalar(norm, bounds=(-30.0, 30.0), method="bounded", options={"xatol": 1e-10})
        return float(np.exp(r.fun))
    opts = {"xatol": 1e-9, "fatol": 1e-12, "maxiter": 4000 * p}
    return float(np.exp(minimize(norm, np.zeros(p - 1), method="Nelder-Mead", options=opts).fun))


def _stable_at(m):
    """Whether a fully substituted loop is proved stable (``hinfnorm``'s test).

    A loop made complex by a ``ucomplex`` value goes to ``hinfnorm`` itself (finite
    only when proved stable); a real one to :func:`proved_stable`.
    """
    a = np.asarray(m.A)
    if np.iscomplexobj(a) and np.any(np.imag(a) != 0):
        return bool(np.isfinite(hinfnorm(m)[0]))
    return proved_stable(np.real(a).astype(float), m.dt or 0.0)


def verify_worst_cases(cl, goals, worst):
    """Each goal recomputed at its worst case found, by the analysis layer.

    ``cl`` is the tuned loop (uncertainty kept), ``goals`` the soft then hard goals and
    ``worst`` their :class:`~robustmb.tuning.worst_case_search.WorstCase`.  The loop is
    substituted at each point (independently of the search's own realisation) and the
    goal measured with ``hinfnorm``, ``h2norm`` or its eigenvalues (unscaled ``Margins``,
    as robust tuning measures it); ``inf`` where the whole loop is not proved stable
    (the search gives such a point the value ``inf``).

    Returns
    -------
    (list of float, bool)
        The values, and whether the loop is proved stable at every worst case and
        every further unstable point the search reported.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.tuning.worst_case_search import WorstCase
    >>> a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    >>> T = rmb.uss(1 / (control.tf("s") + a)); T.input_names, T.output_names = ["r"], ["y"]
    >>> goal = rmb.tuning.WeightedGain("r", "y")
    >>> verify_worst_cases(T, [goal], [WorstCase(2.0, {"a": 0.5}, None)])
    ([2.0], True)
    """
    base = as_model(cl)
    values, stable = [], True
    for g, wc in zip(goals, worst, strict=True):
        loop_ok = _stable_at(base.usubs(wc.point) if wc.point else base.nominal())
        stable &= loop_ok
        for p in wc.unstable:
            stable &= _stable_at(base.usubs(p))
        if not loop_ok:
            values.append(np.inf)
            continue
        model, measure, scale, poles = g.model(base)
        own = {n: v for n, v in wc.point.items() if n in model.uncertainty}
        sub = model.usubs(own) if own else model.nominal()
        values.append(float(_goal_value(sub, measure, scale, poles)))
    return values, bool(stable)


@dataclass
class SystuneResult:
    """Result of :func:`systune`.

    Attributes
    ----------
    closed_loop : UncertainSystem or control.StateSpace
        The closed loop with the tuned values substituted (uncertainty kept).
    values : dict
        ``{name: value}`` of the tuned parameters.
    soft, hard : list of float
        Achieved goal values (worst over the models); below 1 means met.
    certified : list
        Per goal (soft then hard): the ``wcgain`` result over the whole uncertainty box
        for H-infinity goals of an uncertain loop (``None`` otherwise; the exception when
        the analysis failed).  Certified only when the whole closed loop is also proved
        robustly stable over the box (``robust_stability``); otherwise ``upper`` is
        ``inf``, ``certified`` False and ``reason`` says why.
    active_set : list of dict
        The samples that drove the design: the uncertain values of the models tuned
        jointly (``models``; ``[{}]``, the single nominal model, for a loop without
        uncertainty).  Robust tuning's active set has the same meaning.
    active_goals : list of str
        Soft goals within 0.1 % of the worst soft value and hard goals within 0.1 % of 1
        (their ``repr``; empty for robust tuning, whose ``drivers`` name the sample per
        goal).
    dscaled : bool
        Whether multi-channel ``Margins`` goals were measured D-scaled (``False`` for
        robust tuning, which measures the unscaled bound); :meth:`verify` follows it.
    runs : list of RunRecord
        Every optimisation run, the best first.
    models : list of dict
        The uncertain values of the models tuned jointly.
    robust_stability : RobstabResult, optional
        ``robstab`` of the whole tuned closed loop (every state, not only those a
        goal's transfer sees) when an H-infinity goal was certified; ``None`` otherwise
        (the exception when the analysis failed).
    """

    closed_loop: object
    values: dict
    soft: list
    hard: list
    certified: list
    active_set: list
    runs: list = field(default_factory=list)
    models: list = field(default_factory=list)
    goals: tuple = ((), ())
    active_goals: list = field(default_factory=list)
    dscaled: bool = True
    robust_stability: object = None

    def verify(self):
        """Recompute every goal value from the tuned closed loop with the analysis layer.

        The tuned loop (tunables substituted, independently of the optimiser's
        parametrisation) is sampled at each model point, each goal's transfer is
        extracted and measured with ``hinfnorm``, ``h2norm`` or its eigenvalues.

        Returns
        -------
        dict
            ``{"soft": [...], "hard": [...], "stable": bool}`` (worst over the models).
        """
        cl = self.closed_loop
        out = {"soft": [], "hard": [], "stable": True}
        for pt in self.models:
            # hinfnorm's test (rounding bands, verified inclusion), not the sign of
            # computed eigenvalues: "stable" is True only when proved
            if not _stable_at(cl.usubs(pt) if pt else cl):
                out["stable"] = False
        base = as_model(cl)
        for key, goals in zip(("soft", "hard"), self.goals, strict=True):
            for g in goals:
                model, measure, scale, poles = g.model(base)
                # The worst over the models: a goal value may be 0 (a pole
                # requirement met with room), and a NaN must not read as met.
                worst = -np.inf
                for pt in self.models:
                    # a goal's transfer may not involve every uncertain element (or
                    # lose one once the tuned values are substituted)
                    own = {n: v for n, v in pt.items() if n in model.uncertainty}
                    sub = model.usubs(own) if own else model.nominal()
                    v = float(_goal_value(sub, measure, scale, poles, self.dscaled and g.dscaled))
                    worst = v if np.isnan(v) or np.isnan(worst) else max(worst, v)
                out[key].append(worst)
        return out
