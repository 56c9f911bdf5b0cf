"""The worst-case analysis behind a report: stability, margins, worst cases, samples.

:func:`worst_case_analysis` runs, on an uncertain closed loop,

1. nominal stability (an unstable nominal loop is an input error: there is
   nothing robust to analyse);
2. the robust stability margin, :func:`robustmb.analysis.robust_stability.robstab`,
   with its destabilising parameter values, mu bounds over frequency and the
   per-parameter sensitivity of the margin;
3. the worst-case peak gain of each named performance channel,
   :func:`robustmb.analysis.worst_case_gain.wcgain` on ``system[outputs, inputs]``;
4. Monte Carlo samples of the parameters for context: the stability of each
   sample and the peak gain of each channel.

The analysis calls ``robstab`` and ``wcgain`` exactly as a user would (same
arguments), so the report's numbers are theirs.  :meth:`WorstCaseAnalysis.summary`
turns everything into plain JSON-ready data.
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import control
import numpy as np

from .._progress import ProgressBar
from ..analysis.freqresp import largest_singular_values, sigma_max_over_frequency
from ..analysis.model_family import freqresp_stack
from ..analysis.norms import hinfnorm
from ..analysis.robust_stability import robstab
from ..analysis.worst_case_disk_margin import wcdiskmargin
from ..analysis.worst_case_gain import WcgainResult, wcgain
from ..errors import (
    ArgumentError,
    DimensionError,
    SignalError,
    UncertainTypeError,
    UnstableNominalError,
)
from ..lft.model import UncertainModel, UncertainSystem, as_model
from .analysis_result import WorstCaseAnalysis
from .channel_analysis import ChannelAnalysis, normalize_channels
from .step_analysis import StepAnalysis
from .summary_data import describe_parameters


def _plotting_grid(systems, extra, dt):
    """Frequencies of the report's curves: the plots' default grid of the nominal loop and
    the samples (refined at every lightly damped pole and zero, so no resonance peak is
    drawn low), with the critical frequencies and, in discrete time, the Nyquist frequency.
    """
    from ..plotting._style import default_omega, with_frequencies

    nyq = np.pi / dt if dt else None
    grid = with_frequencies(default_omega(systems, npts=400), extra, nyq)
    return with_frequencies(grid, [nyq], nyq) if nyq else grid


def _abscissa(poles, dt):
    if poles.size == 0:
        return -np.inf
    return float(np.max(np.abs(poles)) - 1.0) if dt else float(np.max(poles.real))


# Relative agreement required between a given certificate's lower bound and the peak
# gain of the channel at its worst values: two realisations of one transfer agree to
# the H-infinity norm's accuracy (1e-8); another system's result is far off.
CERTIFICATE_RTOL = 1e-5


def check_seed(seed):
    """``seed`` as an int, or :class:`ArgumentError` unless it is a non-negative integer.

    Examples
    --------
    >>> check_seed(3)
    3
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ArgumentError(
            f"seed (of the Monte Carlo samples) must be a non-negative integer, got {seed!r}"
        )
    return int(seed)


def check_certificate_names(certificates, names):
    """Refuse certificates that are not ``{channel name: WcgainResult}`` of known channels.

    Examples
    --------
    >>> check_certificate_names(None, ["g"])
    >>> check_certificate_names({"typo": None}, ["g"])
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: certificates: unknown channel 'typo'; the channels are ['g']
    """
    if certificates is None:
        return
    if not isinstance(certificates, dict):
        raise ArgumentError(
            "certificates must be a dict {channel name: wcgain result}, got "
            f"{type(certificates).__name__}"
        )
    unknown = [k for k in certificates if k not in names]
    if unknown:
        what = "channel" if len(unknown) == 1 else "channels"
        listed = ", ".join(repr(k) for k in unknown)
        raise ArgumentError(f"certificates: unknown {what} {listed}; the channels are {names}")
    for k, cert in certificates.items():
        if cert is not None and not isinstance(cert, WcgainResult):
            raise ArgumentError(
                f"certificates[{k!r}] must be a wcgain result, got {type(cert).__name__}"
            )


def check_certificate(name, cert, sub):
    """Refuse a given ``wcgain`` result that cannot belong to the channel ``sub``.

    Its lower bound is a realised gain: the peak gain of ``sub`` at its worst values
    (over the whole axis; at most that when it was computed on a frequency grid),
    never below the nominal peak gain when certified on the whole axis, and never
    above its upper bound.  Its worst values name exactly the channel's uncertain
    elements and lie in their ranges.  A certified finite upper bound is re-proved on
    ``sub`` itself (:func:`reverified_upper`): the result's stored mu evidence (the
    frequencies and D,G scalings of its whole-axis sweep) must show
    ``sup ||sub||_inf <= upper`` for this channel's elements and ranges, so a result
    of another transfer or of narrower ranges is refused.

    Returns
    -------
    WcgainResult
        ``cert`` itself, or (when its upper bound was lowered by a branch and bound
        whose sub-box certificates are not kept) a copy whose upper bound is the
        smallest level its mu evidence re-proves on ``sub``.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> G = rmb.uss(1 / (control.tf("s") ** 2 + c * control.tf("s") + 1))
    >>> res = rmb.wcgain(G)
    >>> check_certificate("g", res, G) is res
    True
    >>> check_certificate("g", rmb.wcgain(0.1 * G), G)
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: certificates['g']: ...
    """
    lower, upper = float(cert.lower), float(cert.upper)
    problems = _element_problems(cert, sub)
    if problems:  # the worst values do not even substitute into this channel
        _refuse(name, problems)
    at_worst = sub.usubs(dict(cert.worst)) if cert.worst else sub.nominal()
    peak = float(hinfnorm(at_worst)[0])
    nominal = float(hinfnorm(sub.nominal())[0])
    tol = CERTIFICATE_RTOL
    if not lower <= upper * (1 + tol):
        problems.append(f"its lower bound {lower:.6g} exceeds its upper bound {upper:.6g}")
    if cert.certified and not lower >= nominal * (1 - tol):
        problems.append(
            f"its lower bound {lower:.6g} is below the channel's nominal peak gain {nominal:.6g}"
        )
    if cert.certified:
        reproduced = lower == peak or abs(lower - peak) <= tol * max(abs(peak), 1e-300)
    else:  # a bound over given frequencies is at most the peak over the axis
        reproduced = lower <= peak * (1 + tol)
    if not reproduced:
        problems.append(
            f"substituting its worst values gives the peak gain {peak:.6g}, not its lower "
            f"bound {lower:.6g}"
        )
    if problems:
        _refuse(name, problems)
    if not (cert.certified and np.isfinite(upper)):
        return cert  # nothing certified above the realised gain: nothing to re-prove
    verified, why = reverified_upper(cert, sub)
    if verified is None:
        _refuse(name, [why])
    if verified == upper:
        return cert
    note = (
        f"; the sub-box bound {upper:.6g} of its branch and bound is not kept in the "
        f"result: the report uses {verified:.6g}, re-proved on this channel by its mu "
        "evidence"
    )
    return dataclasses.replace(cert, upper=verified, reason=cert.reason + note)


def _refuse(name, problems):
    raise ArgumentError(
        f"certificates[{name!r}]: not a wcgain result of this channel: " + "; ".join(problems)
    )


def _element_problems(cert, sub):
    """What differs between the certificate's worst values and the channel's elements."""
    if not cert.worst:
        return []
    own = as_model(sub).uncertainty
    names, given = sorted(own), sorted(cert.worst)
    if names != given:
        return [f"its worst values name the elements {given}, the channel has {names}"]
    out = []
    for n in names:
        el, v = own[n], cert.worst[n]
        if el.kind == "real" and np.ndim(v) == 0:
            lo, hi = (float(x) for x in el.range)
            x = float(np.real(v))
            if not lo - 1e-9 * max(1.0, abs(lo)) <= x <= hi + 1e-9 * max(1.0, abs(hi)):
                out.append(
                    f"its worst value {n} = {x:.6g} lies outside the range [{lo:.6g}, {hi:.6g}]"
                )
    return out


# A branch-and-bound upper bound is lower than the level of the whole-axis sweep whose
# evidence the result keeps; that level is searched up to this factor above it.
_LEVEL_SEARCH_FACTOR = 4.0


def reverified_upper(cert, sub):
    """The smallest level at which ``cert``'s mu evidence proves the gain bound on ``sub``.

    The evidence of a certified :func:`~robustmb.analysis.worst_case_gain.wcgain` upper
    bound ``gamma`` is a whole-axis sweep proving ``mu < 1`` for the performance problem
    ``diag(I, 1/gamma) M`` (``M`` the channel's LFT, uncertainty channels first) with
    the structure of the elements plus a full performance block: its frequencies and
    D,G scalings.  They are re-checked here on ``sub``'s own ``M`` without any
    optimisation (:func:`~robustmb.analysis.frequency_certificate.check_frequency_certificate`,
    which trusts none of the stored numbers): at ``gamma = cert.upper`` first, and,
    when the result's branch and bound lowered its upper bound below the sweep's level,
    at the smallest level found by bisection up to four times that bound.

    Returns
    -------
    (float or None, str)
        The re-proved level (``cert.upper`` when it holds) and, when none holds, why.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> s = control.tf("s")
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> res = rmb.wcgain(1 / (s * s + c * s + 1))
    >>> reverified_upper(res, rmb.uss(1 / (s * s + c * s + 1)))[0] == res.upper
    True
    """
    from ..analysis.frequency_certificate import check_frequency_certificate
    from ..analysis.uncertain_problem import uncertain_problem

    mu = cert.mu
    if mu is None or mu.scalings is None or not mu.covered:
        return None, (
            "its upper bound carries no whole-axis mu evidence that can be re-checked on "
            "this channel (a result assembled from sub-box bounds, say): pass no "
            "certificate for it and the report computes its own"
        )
    problem = uncertain_problem(sub, what=f"certificate of channel {sub.name!r}")
    if problem.dt or problem.is_complex:
        return None, (
            "its mu evidence cannot be re-checked on a discrete-time or complex channel: "
            "pass no certificate for it and the report computes its own"
        )
    ny, nu = problem.model.shape
    blk = problem.blk + [(nu, ny)]

    def holds(gamma):
        try:
            chk = check_frequency_certificate(
                problem.performance(gamma), blk, 1.0, mu.omega, mu.scalings
            )
        except DimensionError:
            return None  # another block structure: other element kinds or sizes
        return chk.covered

    upper = float(cert.upper)
    first = holds(upper)
    if first is None:
        return None, (
            f"its mu evidence is for another uncertainty structure (D,G scalings of "
            f"{np.shape(mu.scalings)[1]} parameters per frequency) than the channel's "
            f"elements {[b.name for b in problem.blocks]} (kinds "
            f"{[b.kind for b in problem.blocks]})"
        )
    if first:
        return upper, ""
    fails = (
        f"its mu evidence does not prove the upper bound {upper:.6g} on this channel "
        "(another transfer or other element ranges)"
    )
    if cert.boxes is None or not cert.boxes.certified:
        return None, fails
    top = upper * _LEVEL_SEARCH_FACTOR
    if not holds(top):
        return None, fails + f", nor any level up to {top:.6g}"
    lo, hi = upper, top
    while hi > lo * (1 + 1e-4):
        mid = np.sqrt(lo * hi)
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return float(hi), ""


def normalize_step(system, step, what="step"):
    """``(outputs, inputs)`` of the step responses, checked against ``system``'s signals.

    ``what`` names the argument in the messages (``"--step"`` on the command line).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=10)
    >>> G = rmb.uss(k * control.tf([1], [1, 1]))
    >>> G.input_names, G.output_names = ["u"], ["y"]
    >>> normalize_step(G, ("y", "u"))
    (['y'], ['u'])
    >>> normalize_step(G, ("x", "u"))
    Traceback (most recent call last):
    ...
    robustmb.errors.SignalError: step: unknown output 'x'; the system's outputs are ['y']
    """
    if not isinstance(step, list | tuple) or len(step) != 2:
        raise SignalError(f"{what}: expected (outputs, inputs), got {step!r}")
    try:
        ((_, outs, ins, _),) = normalize_channels(system, {what: tuple(step)})
    except SignalError as exc:
        # normalize_channels speaks of a "channel": here the argument is named
        raise SignalError(str(exc).replace(f"channel {what!r}: ", f"{what}: ", 1)) from None
    return outs, ins


def _check_loop(loop):
    """Refuse a ``loop`` that is neither an uncertain system nor a ``(P, C)`` pair of systems."""
    if loop is None:
        return
    parts = loop if isinstance(loop, tuple) else (loop,)
    if not (1 <= len(parts) <= 2) or not all(
        isinstance(p, UncertainModel | control.LTI | np.ndarray | int | float) for p in parts
    ):
        raise ArgumentError(
            "loop must be the loop transfer L (an uncertain system, robustmb.uss) or a pair "
            f"(P, C) of systems, got {loop!r:.80}"
        )
    if not any(isinstance(p, UncertainModel) and p.blocks for p in parts):
        raise ArgumentError("loop: the loop transfer has no uncertain elements")


def worst_case_analysis(
    system,
    channels=None,
    *,
    n_samples=100,
    seed=0,
    omega=None,
    title=None,
    notes="",
    progress=False,
    loop=None,
    loop_description="",
    step=None,
    certificates=None,
):
    """Run the analyses of a worst-case report on an uncertain closed loop.

    Parameters
    ----------
    system : UncertainSystem
        Closed loop with uncertain elements (its states include the controller).
    channels : dict, optional
        ``{name: (outputs, inputs)}`` or ``{name: (outputs, inputs, spec)}``
        performance channels, by signal name or index; their worst-case peak
        gains are computed and compared with ``spec``, the largest admissible
        peak gain (default 1, the convention of weighted channels).  Default (``None``):
        one channel from every input to every output; ``{}``: no channel
        (stability only).
    n_samples : int
        Monte Carlo samples (0 for none).
    seed : int
        Seed of the samples (a non-negative integer).
    omega : array_like, optional
        Passed to ``robstab`` and ``wcgain``: restrict the analysis to these
        frequencies.  By default the whole frequency axis is covered and the
        bounds are certified; on a grid they hold at its frequencies only, so
        nothing is certified (no channel passes).
    title : str, optional
    notes : str
        Free text shown in the report.
    progress : bool or ProgressBar
        Show a progress bar on standard error.
    loop : UncertainSystem or tuple, optional
        The uncertain loop transfer ``L`` of ``feedback(L, I)`` broken where
        the margins are wanted (``L = C P`` at the plant inputs), or ``(P, C)``:
        its nominal and worst-case disk, gain and phase margins are computed
        with ``wcdiskmargin`` (multiloop, skew 0).
    loop_description : str
        Where the loop is broken, shown with the margins.
    step : tuple, optional
        ``(outputs, inputs)``: step responses of ``system[outputs, inputs]``
        at the nominal values and at the worst-case values of the first
        performance channel (overshoots in the summary; the figure adds
        random samples).
    certificates : dict, optional
        ``{channel name: wcgain result}`` already computed on exactly
        ``system[outputs, inputs]`` of that channel (e.g. by a robust tuning
        that certified its goals): used instead of a new ``wcgain`` call, once
        checked against the channel (:func:`check_certificate`).

    Returns
    -------
    WorstCaseAnalysis

    Raises
    ------
    UncertainTypeError
        ``system`` is not an uncertain system with uncertain elements.
    ArgumentError
        A bad ``seed``, specification or certificate (an unknown channel name, or a
        result that is not one of its channel).
    SignalError
        Unknown signal in ``channels``.
    UnstableNominalError
        The nominal closed loop is unstable.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    >>> s = control.tf("s")
    >>> res = worst_case_analysis(1 / (s * s + c * s + 1), n_samples=5)
    >>> res.verdict, round(res.robstab.upper, 3), round(res.channels[0].wcgain.lower, 3)
    ('robustly stable', 2.0, 2.066)
    >>> res.channels[0].verdict, res.performance_verdict  # peak gain 2.07 > spec 1
    ('fail', 'fail')
    """
    if not isinstance(system, UncertainSystem):
        what = type(system).__name__
        hint = (
            " (a certain python-control model: declare its uncertain parameters with "
            "rmb.ureal and build it with rmb.uss)"
            if isinstance(system, control.LTI)
            else ""
        )
        raise UncertainTypeError(
            f"worst_case_analysis needs an uncertain system (robustmb.uss), got {what}{hint}"
        )
    if not system.blocks:
        raise UncertainTypeError(
            f"worst_case_analysis: system {system.name!r} has no uncertain elements"
        )
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 0:
        raise ArgumentError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    seed = check_seed(seed)
    chans = normalize_channels(system, channels)
    # the cheap arguments are checked before any analysis: a typo fails at once
    step_signals = None if step is None else normalize_step(system, step)
    _check_loop(loop)
    check_certificate_names(certificates, [c[0] for c in chans])
    timings = {}
    n_steps = 3 + len(chans)
    bar = (
        progress
        if isinstance(progress, ProgressBar)
        else ProgressBar(n_steps, "robustmb report", enabled=bool(progress))
    )

    # 1. Nominal stability.
    bar.start("nominal stability")
    t0 = time.perf_counter()
    nominal = system.nominal()
    dt = float(nominal.dt or 0.0)
    poles = np.asarray(nominal.poles()) if nominal.nstates else np.zeros(0, complex)
    if _abscissa(poles, dt) >= 0:
        bad = poles[(np.abs(poles) >= 1) if dt else (poles.real >= 0)]
        raise UnstableNominalError(
            f"the nominal closed loop {system.name!r} is unstable: poles "
            f"{np.array2string(np.sort_complex(bad), precision=4)}; a worst-case report "
            "needs a stabilising controller"
        )
    timings["nominal"] = time.perf_counter() - t0
    bar.advance()
    # Given certificates, checked before the long analyses: a wrong one fails at once.
    checked = {}
    for name, outs, ins, _ in chans:
        if (certificates or {}).get(name) is not None:
            checked[name] = check_certificate(name, certificates[name], system[outs, ins])

    # 2. Robust stability (direct call, default options).
    bar.start("robust stability margin (robstab)")
    t0 = time.perf_counter()
    rs = robstab(system, omega=omega)
    timings["robstab"] = time.perf_counter() - t0
    bar.advance()

    # 3. Worst-case gain of each channel (direct calls).
    subsystems, wcs = [], []
    for name, outs, ins, _ in chans:
        bar.start(f"worst-case gain: {name} (wcgain)")
        t0 = time.perf_counter()
        sub = system[outs, ins]
        subsystems.append(sub)
        given = checked.get(name)
        wcs.append(given if given is not None else wcgain(sub, omega=omega))
        timings[f"wcgain {name}"] = time.perf_counter() - t0
        bar.advance()

    # 3b. Loop margins (direct call).
    margins = None
    if loop is not None:
        bar.note("loop margins (wcdiskmargin)")
        t0 = time.perf_counter()
        margins = wcdiskmargin(*loop) if isinstance(loop, tuple) else wcdiskmargin(loop)
        timings["wcdiskmargin"] = time.perf_counter() - t0

    # 3c. Step responses at the nominal and worst-case values.
    step_data = None
    if step is not None:
        from ..plotting.time import default_time

        s_outs, s_ins = step_signals
        ssys = system[s_outs, s_ins]
        if wcs and wcs[0].worst:
            wname, wvals = chans[0][0], dict(wcs[0].worst)
        else:
            wname, wvals = "robust stability", dict(rs.destabilizing)
        nom_ss, worst_ss = ssys.nominal(), ssys.usubs(wvals)
        t = default_time([nom_ss, worst_ss])
        ny, nu = len(s_outs), len(s_ins)

        def resp(g):
            r = control.step_response(g, T=t, squeeze=False).outputs
            return np.asarray(r).reshape(ny, nu, -1)

        step_data = StepAnalysis(s_outs, s_ins, ssys, wname, wvals, t, resp(nom_ss), resp(worst_ss))

    # 4. Monte Carlo samples, plotting data.
    bar.start(f"Monte Carlo samples ({n_samples})")
    t0 = time.perf_counter()
    extra = [rs.critical_frequency] + [w.critical_frequency for w in wcs]
    samples, values = system.usample(n_samples, seed=seed) if n_samples else ([], [])
    grid = _plotting_grid([nominal, *samples], extra, dt)
    abscissa = np.array(
        [
            _abscissa(np.linalg.eigvals(np.asarray(smp.A)), dt) if smp.nstates else -np.inf
            for smp in samples
        ]
    )
    results = []
    for (name, outs, ins, spec), sub, wc in zip(chans, subsystems, wcs, strict=True):
        sub_nom = sub.nominal()
        g_nom, f_nom = hinfnorm(sub_nom)
        sig_nom = sigma_max_over_frequency(sub_nom, grid)
        sig_worst = (
            sigma_max_over_frequency(sub.usubs(wc.worst), grid)
            if wc.worst
            else np.full(grid.shape, np.nan)
        )
        rows = [system.output_names.index(o) for o in outs]
        cols = [system.input_names.index(i) for i in ins]
        peaks = np.empty(len(samples))
        sig_s = np.empty((len(samples), grid.size))
        if samples:
            bar.note(f"Monte Carlo: {name}, {len(samples)} samples")
            # the samples share their size: one batched analysis of the whole family
            parts = [
                control.ss(
                    smp.A,
                    np.asarray(smp.B)[:, cols],
                    np.asarray(smp.C)[rows],
                    np.asarray(smp.D)[np.ix_(rows, cols)],
                    smp.dt,
                )
                for smp in samples
            ]
            peaks[:] = hinfnorm(parts)[0]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a sample's pole on the grid
                response = freqresp_stack(parts, grid)
            sig_s[:] = largest_singular_values(
                response.reshape((-1,) + response.shape[2:])
            ).reshape(len(samples), grid.size)
        results.append(
            ChannelAnalysis(
                name,
                outs,
                ins,
                float(g_nom),
                float(f_nom),
                wc,
                peaks,
                sig_nom,
                sig_worst,
                sig_s,
                spec=spec,
            )
        )
    timings["monte_carlo"] = time.perf_counter() - t0
    bar.advance(label="analysis done")
    if not isinstance(progress, ProgressBar):
        bar.close()
    return WorstCaseAnalysis(
        title=title or f"Worst-case report: {system.name}",
        system_name=system.name,
        input_names=list(system.input_names),
        output_names=list(system.output_names),
        nstates=int(system.nstates),
        dt=dt,
        parameters=describe_parameters(system),
        nominal_poles=poles,
        robstab=rs,
        channels=results,
        omega=grid,
        sample_values=values,
        sample_abscissa=abscissa,
        seed=seed,
        frequencies=None if omega is None else np.asarray(omega, float).ravel(),
        timings=timings,
        notes=notes,
        margins=margins,
        loop_description=loop_description,
        step=step_data,
    )
