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

import time
import warnings
from dataclasses import dataclass, field

import control
import numpy as np

from .._progress import ProgressBar
from ..analysis.diskmargin import WorstCaseDiskMargin, wcdiskmargin
from ..analysis.freqresp import largest_singular_values, sigma_max_over_frequency
from ..analysis.model_family import freqresp_stack
from ..analysis.norms import hinfnorm
from ..analysis.robust_stability import RobstabResult, robstab
from ..analysis.worst_case_gain import WcgainResult, wcgain
from ..errors import (
    ArgumentError,
    DimensionError,
    SignalError,
    UncertainTypeError,
    UnstableNominalError,
)
from ..lft.model import UncertainSystem
from .summary_data import (  # noqa: F401  (re-exported)
    describe_parameters,
    jsonable,
    loop_margins_summary,
    plotting_grid,
)

GAP_FLAG = 0.02  # relative bound gap above which the report warns
N_STEP_SAMPLES = 20  # random samples drawn in the step-response figure
DEFAULT_SPEC = 1.0  # weighted channels: a peak gain at most 1 meets the specification

#: Verdicts from best to worst; a combined verdict is the worst of its parts.
VERDICT_ORDER = ("pass", "inconclusive", "fail")


def worst_verdict(verdicts) -> str:
    """The least favourable of ``"pass"``, ``"inconclusive"`` and ``"fail"`` (``"pass"`` if none).

    Examples
    --------
    >>> worst_verdict(["pass", "inconclusive", "pass"]), worst_verdict([])
    ('inconclusive', 'pass')
    """
    return max(verdicts, key=VERDICT_ORDER.index, default="pass")


def gain_verdict(lower, upper, certified, spec) -> str:
    """Pass/fail verdict of a worst-case peak gain against its specification ``gain <= spec``.

    ``"pass"`` when the certified upper bound meets the specification (true for
    every parameter value), ``"fail"`` when the verified lower bound exceeds it
    (parameter values that violate it were found), ``"inconclusive"`` otherwise.

    Examples
    --------
    >>> gain_verdict(0.8, 0.9, True, 1.0), gain_verdict(1.2, 1.3, True, 1.0)
    ('pass', 'fail')
    >>> gain_verdict(0.9, 1.1, True, 1.0), gain_verdict(0.8, 0.9, False, 1.0)
    ('inconclusive', 'inconclusive')
    """
    if lower > spec:
        return "fail"
    if certified and upper <= spec:
        return "pass"
    return "inconclusive"


@dataclass
class ChannelAnalysis:
    """Worst-case analysis of one performance channel ``system[outputs, inputs]``.

    Attributes
    ----------
    name : str
    outputs, inputs : list of str
    spec : float
        Specification: the channel's peak gain must be at most ``spec`` for
        every parameter value (1 for a weighted channel).
    nominal_peak, nominal_peak_frequency : float
        Peak gain (H-infinity norm) of the nominal channel and where it is attained.
    wcgain : WcgainResult
        The direct result of ``wcgain(system[outputs, inputs])``.
    sampled_peaks : numpy.ndarray
        Peak gain of the channel for each Monte Carlo sample (``inf`` if unstable).
    sigma_nominal, sigma_worst : numpy.ndarray
        Largest singular value over the plotting grid, nominal and worst case.
    sigma_samples : numpy.ndarray
        ``(n_samples, n_omega)``: the same for each sample.
    """

    name: str
    outputs: list
    inputs: list
    nominal_peak: float
    nominal_peak_frequency: float
    wcgain: WcgainResult
    sampled_peaks: np.ndarray = field(repr=False)
    sigma_nominal: np.ndarray = field(repr=False)
    sigma_worst: np.ndarray = field(repr=False)
    sigma_samples: np.ndarray = field(repr=False)
    spec: float = DEFAULT_SPEC

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"fail"`` or ``"inconclusive"``: the worst case against ``spec``.

        See :func:`gain_verdict`.
        """
        wc = self.wcgain
        return gain_verdict(wc.lower, wc.upper, wc.certified, self.spec)

    @property
    def nominal_verdict(self) -> str:
        """``"pass"`` or ``"fail"``: the nominal peak gain against ``spec``."""
        return "pass" if self.nominal_peak <= self.spec else "fail"

    @property
    def worst_sample_peak(self) -> float:
        """Largest sampled peak gain (a lower bound of the worst case)."""
        return float(np.max(self.sampled_peaks)) if self.sampled_peaks.size else np.nan


def overshoot(y, final):
    """Percent overshoot of a step response ``y`` settling at ``final`` (0 if none).

    Examples
    --------
    >>> round(overshoot([0.0, 1.2, 0.9, 1.0], 1.0), 9)
    20.0
    """
    y = np.asarray(y, float)
    if final == 0 or not np.isfinite(final):
        return float("nan")
    return float(max(0.0, 100.0 * (np.max(y / final) - 1.0)))


@dataclass
class StepAnalysis:
    """Step responses of ``system[outputs, inputs]``: nominal and the worst case of a channel.

    Attributes
    ----------
    outputs, inputs : list of str
    system : UncertainSystem
        The selection ``system[outputs, inputs]`` (drawn by :func:`robustmb.plotting.step`).
    worst_channel : str
        The performance channel whose worst-case parameter values are used.
    worst_values : dict
    time : numpy.ndarray
    nominal, worst : numpy.ndarray
        ``(ny, nu, n_time)`` step responses.
    """

    outputs: list
    inputs: list
    system: object = field(repr=False)
    worst_channel: str
    worst_values: dict
    time: np.ndarray = field(repr=False)
    nominal: np.ndarray = field(repr=False)
    worst: np.ndarray = field(repr=False)

    def metrics(self):
        """``[{input, output, final, overshoot_nominal, overshoot_worst, ...}]`` per diagonal pair.

        Final values are the DC gains; overshoots in percent of them; peaks are
        the largest response values.
        """
        nom_sys, worst_sys = self.system.nominal(), self.system.usubs(self.worst_values)
        dc_nom = np.atleast_2d(np.asarray(control.dcgain(nom_sys), float))
        dc_worst = np.atleast_2d(np.asarray(control.dcgain(worst_sys), float))
        out = []
        for i, o in enumerate(self.outputs):
            for j, u in enumerate(self.inputs):
                if len(self.outputs) == len(self.inputs) and i != j:
                    continue  # square selections: the diagonal (reference -> its output)
                out.append(
                    {
                        "input": u,
                        "output": o,
                        "final_nominal": float(dc_nom[i, j]),
                        "final_worst": float(dc_worst[i, j]),
                        "peak_nominal": float(np.max(self.nominal[i, j])),
                        "peak_worst": float(np.max(self.worst[i, j])),
                        "overshoot_nominal": overshoot(self.nominal[i, j], dc_nom[i, j]),
                        "overshoot_worst": overshoot(self.worst[i, j], dc_worst[i, j]),
                    }
                )
        return out


@dataclass
class WorstCaseAnalysis:
    """Everything a worst-case report shows (see :func:`worst_case_analysis`).

    Attributes
    ----------
    title : str
    system_name : str
    input_names, output_names : list of str
    nstates : int
    dt : float
        Sampling time (0 for continuous time).
    parameters : dict
        ``{name: description}`` of each uncertain element (kind, nominal,
        range / radius / bound, occurrences).
    nominal_poles : numpy.ndarray
    robstab : RobstabResult
        The direct result of ``robstab(system)``.
    channels : list of ChannelAnalysis
    omega : numpy.ndarray
        Frequency grid (rad/s) of the singular-value curves.
    sample_values : list of dict
        Parameter values of the Monte Carlo samples (physical units).
    sample_abscissa : numpy.ndarray
        Largest pole real part of each sample (modulus minus 1 in discrete time).
    seed : int
    timings : dict
        Seconds spent in each step.
    notes : str
    margins : WorstCaseDiskMargin or None
        The direct result of ``wcdiskmargin(loop)`` (multiloop disk, gain and
        phase margins, nominal and worst case) when a loop transfer was given.
    loop_description : str
        Where the loop is broken (shown with the margins).
    step : StepAnalysis or None
        Step responses, when a step selection was given.
    """

    title: str
    system_name: str
    input_names: list
    output_names: list
    nstates: int
    dt: float
    parameters: dict
    nominal_poles: np.ndarray
    robstab: RobstabResult
    channels: list
    omega: np.ndarray = field(repr=False)
    sample_values: list = field(repr=False)
    sample_abscissa: np.ndarray = field(repr=False)
    seed: int = 0
    timings: dict = field(default_factory=dict)
    notes: str = ""
    margins: WorstCaseDiskMargin | None = None
    loop_description: str = ""
    step: StepAnalysis | None = None

    @property
    def verdict(self) -> str:
        """``"robustly stable"``, ``"not robustly stable"`` or ``"inconclusive"``.

        Robustly stable means certified stable on the whole declared set
        (``robstab.lower > 1`` on the whole frequency axis); not robustly stable
        means a verified destabilising value lies inside it (``robstab.upper <= 1``).
        """
        rs = self.robstab
        if rs.certified and rs.lower > 1.0:
            return "robustly stable"
        if rs.upper <= 1.0:
            return "not robustly stable"
        return "inconclusive"

    @property
    def stability_verdict(self) -> str:
        """:attr:`verdict` as ``"pass"``, ``"fail"`` or ``"inconclusive"``."""
        return {"robustly stable": "pass", "not robustly stable": "fail"}.get(
            self.verdict, "inconclusive"
        )

    @property
    def performance_verdict(self) -> str:
        """Robust performance: ``"pass"``, ``"fail"`` or ``"inconclusive"``.

        The least favourable of the robust stability verdict and of every
        channel's verdict (:attr:`ChannelAnalysis.verdict`), so it is never
        better than the worst channel.
        """
        return worst_verdict([self.stability_verdict] + [ch.verdict for ch in self.channels])

    def headline(self) -> str:
        """One sentence stating :attr:`performance_verdict` and what decides it."""
        v = self.performance_verdict
        failing = [ch.name for ch in self.channels if ch.verdict == "fail"]
        open_ = [ch.name for ch in self.channels if ch.verdict == "inconclusive"]
        if v == "pass":
            what = "every channel meets its specification" if self.channels else "no channel"
            return f"Robust performance met: robustly stable and {what} for every parameter value."
        parts = []
        if self.stability_verdict == "fail":
            parts.append("not robustly stable")
        elif self.stability_verdict == "inconclusive":
            parts.append("robust stability not established")
        if failing:
            parts.append("specification violated by " + ", ".join(failing))
        if v == "fail":
            return "Robust performance NOT met: " + "; ".join(parts) + "."
        if open_:
            parts.append("not decided for " + ", ".join(open_))
        return "Robust performance inconclusive: " + "; ".join(parts) + "."

    def sampling_description(self) -> str:
        """How the Monte Carlo samples were drawn (one sentence)."""
        n = len(self.sample_values)
        kinds = {d["kind"] for d in self.parameters.values()}
        how = []
        if "real" in kinds:
            how.append("each real parameter uniformly over its declared range")
        if "complex" in kinds:
            how.append("each complex parameter uniformly in its disc")
        if kinds - {"real", "complex"}:
            how.append(
                "each dynamic uncertainty as a stable first-order all-pass times a random "
                "contraction of norm at most its bound"
            )
        return (
            f"{n} samples drawn independently (usample, seed {self.seed}): " + "; ".join(how) + "."
        )

    def conclusions(self) -> list:
        """Short conclusions generated from the numbers, one sentence each."""
        from .figures import _fmt

        out = [self.headline()]
        rs = self.robstab
        if self.verdict == "robustly stable":
            top = sorted(rs.sensitivity, key=lambda k: -abs(rs.sensitivity[k]))[:2]
            out.append(
                f"Stability holds for ranges up to {_fmt(100 * rs.lower, 3)} % of their "
                f"declared size (margin {_fmt(rs.lower)}); it would be lost first at "
                f"{_fmt(rs.critical_frequency)} rad/s"
                + (f", driven mostly by {' and '.join(top)}." if top else ".")
            )
        elif self.verdict == "not robustly stable":
            out.append(
                f"Stability is lost inside the declared ranges: at {_fmt(100 * rs.upper, 3)} % "
                "of their size the listed parameter values destabilise the loop."
            )
        else:
            out.append(
                f"Robust stability is not decided: the margin lies in [{_fmt(rs.lower)}, "
                f"{_fmt(rs.upper)}]."
            )
        for ch in self.channels:
            wc = ch.wcgain
            if ch.verdict == "pass":
                out.append(
                    f"{ch.name}: the worst-case peak gain is at most {_fmt(wc.upper)}, within "
                    f"the specification {_fmt(ch.spec)} (nominal {_fmt(ch.nominal_peak)})."
                )
            elif ch.verdict == "fail":
                nominal = (
                    "already violated nominally"
                    if ch.nominal_verdict == "fail"
                    else "met nominally"
                )
                out.append(
                    f"{ch.name}: the specification {_fmt(ch.spec)} is {nominal} "
                    f"(peak {_fmt(ch.nominal_peak)}) and violated in the worst case: peak "
                    f"gain at least {_fmt(wc.lower)} at {_fmt(wc.critical_frequency)} rad/s, "
                    f"{_fmt(wc.lower / ch.spec, 3)} times the specification."
                )
            else:
                out.append(
                    f"{ch.name}: the worst-case peak gain lies in [{_fmt(wc.lower)}, "
                    f"{_fmt(wc.upper)}], on both sides of the specification {_fmt(ch.spec)}."
                )
        if self.margins is not None and self.margins.nominal is not None:
            wm, nom = self.margins, self.margins.nominal.multiloop
            out.append(
                f"Loop margins: the disk margin drops from {_fmt(nom.alpha)} nominally (gain "
                f"[{_fmt(nom.gain_margin[0])}, {_fmt(nom.gain_margin[1])}], phase "
                f"±{_fmt(nom.phase_margin, 3)}°) to at least {_fmt(wm.lower)} over the "
                f"ranges (gain [{_fmt(wm.gain_margin[0])}, {_fmt(wm.gain_margin[1])}], "
                f"phase ±{_fmt(wm.phase_margin, 3)}°)."
            )
        n = len(self.sample_values)
        if n:
            text = f"{n - self.n_unstable_samples} of {n} random samples are stable"
            pairs = [
                (ch.name, ch.worst_sample_peak / ch.wcgain.lower)
                for ch in self.channels
                if np.isfinite(ch.worst_sample_peak) and ch.wcgain.lower > 0
            ]
            if pairs:
                text += "; the largest sampled peak gain reaches " + ", ".join(
                    f"{_fmt(100 * r, 3)} % ({name})" for name, r in pairs
                )
                text += " of the worst case found"
                if min(r for _, r in pairs) < 0.95:
                    text += ": random sampling alone underestimates the worst case"
            out.append(text + ".")
        flags = self.flags()
        if flags:
            out.append(
                f"{len(flags)} bound(s) have a gap above {100 * GAP_FLAG:g} %: see the warnings."
            )
        return out

    @property
    def n_unstable_samples(self) -> int:
        """Number of Monte Carlo samples with a pole on or beyond the stability boundary."""
        return int(np.sum(self.sample_abscissa >= 0))

    def flags(self) -> list:
        """Warnings about bounds the reader should not take at face value.

        A gap between a lower and an upper bound wider than :data:`GAP_FLAG`
        (relative) means the worst case shown may be well below the true one (or
        the certified bound well above it); an infinite upper bound means no
        worst case or destabilising value was found.  Each entry is one sentence.
        """
        out = []
        pairs = [("robust stability margin", self.robstab.lower, self.robstab.upper)]
        pairs += [
            (f"{ch.name}: worst-case gain", ch.wcgain.lower, ch.wcgain.upper)
            for ch in self.channels
        ]
        if self.margins is not None:
            pairs.append(("worst-case disk margin", self.margins.lower, self.margins.upper))
        for what, lo, hi in pairs:
            if np.isfinite(lo) and np.isinf(hi):
                out.append(
                    f"{what}: no upper bound was found (upper = inf); only {lo:.6g} is known"
                )
            elif np.isfinite(hi) and lo > 0 and hi > lo * (1 + GAP_FLAG):
                out.append(
                    f"{what}: the bounds [{lo:.6g}, {hi:.6g}] differ by "
                    f"{100 * (hi / lo - 1):.3g} %, more than {100 * GAP_FLAG:g} %: "
                    "the values shown may not be the worst case"
                )
        return out

    def checks(self) -> list:
        """Consistency checks of the results against each other: ``(text, passed)``.

        - every sample is stable when stability is certified;
        - every sampled peak gain is below the certified worst-case bound, and
          the worst case found is at least the nominal peak gain;
        - the sensitivities sum to about 1: scaling every range by ``t``
          divides the margin by ``t``, so the percent changes per percent of
          range growth add up to exactly 1 (Euler's relation); the band
          ``[0.75, 1.25]`` leaves room for finite-difference estimates.
        """
        out = []
        sens = self.robstab.sensitivity
        if sens:
            total = float(sum(sens.values()))
            out.append(
                (
                    f"the parameter sensitivities sum to {total:.3g}, close to 1 as the "
                    "margin's homogeneity requires",
                    0.75 <= total <= 1.25,
                )
            )
        n = len(self.sample_values)
        if n and self.robstab.certified and self.robstab.lower > 1.0:
            out.append(
                (
                    f"every one of the {n} samples is stable, as certified by robstab",
                    self.n_unstable_samples == 0,
                )
            )
        for ch in self.channels:
            wc = ch.wcgain
            stable_peaks = ch.sampled_peaks[np.isfinite(ch.sampled_peaks)]
            if wc.certified and np.isfinite(wc.upper) and stable_peaks.size:
                out.append(
                    (
                        f"{ch.name}: every sampled peak gain is at most the certified "
                        f"worst-case bound {wc.upper:.6g}",
                        bool(np.max(stable_peaks) <= wc.upper * (1 + 1e-9)),
                    )
                )
            if np.isfinite(wc.lower):
                out.append(
                    (
                        f"{ch.name}: the worst-case lower bound is at least the nominal "
                        f"peak gain {ch.nominal_peak:.6g}",
                        bool(wc.lower >= ch.nominal_peak * (1 - 1e-6)),
                    )
                )
        return out

    def summary(self) -> dict:
        """Every number of the analysis as plain JSON-ready data.

        Non-finite floats become the strings ``"inf"``, ``"-inf"`` and
        ``"nan"``; complex numbers ``{"re": .., "im": ..}``; LTI values
        (``ultidyn`` worst cases) ``{"A", "B", "C", "D", "dt"}``.
        """
        rs = self.robstab
        mu = rs.mu
        data = {
            "title": self.title,
            "system": {
                "name": self.system_name,
                "inputs": self.input_names,
                "outputs": self.output_names,
                "nstates": self.nstates,
                "dt": self.dt,
                "nominal_poles": self.nominal_poles,
            },
            "parameters": self.parameters,
            "verdict": self.verdict,
            "robust_performance": {
                "verdict": self.performance_verdict,
                "headline": self.headline(),
                "stability_verdict": self.stability_verdict,
                "channel_verdicts": {ch.name: ch.verdict for ch in self.channels},
            },
            "robust_stability": {
                "lower": rs.lower,
                "upper": rs.upper,
                "critical_frequency": rs.critical_frequency,
                "certified": rs.certified,
                "destabilizing": rs.destabilizing,
                "sensitivity": rs.sensitivity,
                "mu": None
                if mu is None
                else {
                    "upper": mu.upper,
                    "lower": mu.lower,
                    "lower_frequency": mu.lower_frequency,
                    "intervals": mu.intervals,
                    "covered": mu.covered,
                    "omega": mu.omega,
                    "mu_upper": mu.mu_upper,
                    "mu_lower": mu.mu_lower,
                },
            },
            "channels": [
                {
                    "name": ch.name,
                    "outputs": ch.outputs,
                    "inputs": ch.inputs,
                    "specification": {"max_peak_gain": ch.spec},
                    "verdict": ch.verdict,
                    "nominal_verdict": ch.nominal_verdict,
                    "nominal_peak": ch.nominal_peak,
                    "nominal_peak_frequency": ch.nominal_peak_frequency,
                    "worst_case": {
                        "lower": ch.wcgain.lower,
                        "upper": ch.wcgain.upper,
                        "critical_frequency": ch.wcgain.critical_frequency,
                        "certified": ch.wcgain.certified,
                        "worst": ch.wcgain.worst,
                    },
                    "sampled_peaks": ch.sampled_peaks,
                    "sigma_nominal": ch.sigma_nominal,
                    "sigma_worst": ch.sigma_worst,
                }
                for ch in self.channels
            ],
            "omega": self.omega,
            "conclusions": self.conclusions(),
            "monte_carlo": {
                "how": self.sampling_description(),
                "seed": self.seed,
                "n_samples": len(self.sample_values),
                "n_unstable": self.n_unstable_samples,
                "values": self.sample_values,
                "abscissa": self.sample_abscissa,
            },
            "loop_margins": None
            if self.margins is None
            else loop_margins_summary(self.margins, self.loop_description),
            "step_response": None
            if self.step is None
            else {
                "outputs": self.step.outputs,
                "inputs": self.step.inputs,
                "worst_case_of": self.step.worst_channel,
                "worst_values": self.step.worst_values,
                "metrics": self.step.metrics(),
            },
            "checks": [{"check": text, "passed": ok} for text, ok in self.checks()],
            "flags": self.flags(),
            "timings": self.timings,
            "notes": self.notes,
        }
        return jsonable(data)


def _abscissa(poles, dt):
    if poles.size == 0:
        return -np.inf
    return float(np.max(np.abs(poles)) - 1.0) if dt else float(np.max(poles.real))


def normalize_channels(system, channels):
    """``[(name, outputs, inputs, spec)]`` from a ``{name: (outputs, inputs[, spec])}`` mapping.

    ``None`` gives one channel with every input and output of ``system``; ``{}``
    gives none.  ``spec`` is the largest admissible peak gain of the channel
    (default :data:`DEFAULT_SPEC` = 1, the convention of weighted channels).
    Signals may be names or indices; unknown names raise :class:`SignalError`.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0, percent=10)
    >>> G = rmb.uss(k * control.tf([1], [1, 1]))
    >>> G.input_names, G.output_names = ["u"], ["y"]
    >>> normalize_channels(G, None)
    [('u -> y', ['y'], ['u'], 1.0)]
    >>> normalize_channels(G, {"t": ("y", "u", 2.5)})
    [('t', ['y'], ['u'], 2.5)]
    """
    if channels is None:
        name = f"{', '.join(system.input_names)} -> {', '.join(system.output_names)}"
        return [(name, list(system.output_names), list(system.input_names), DEFAULT_SPEC)]
    if not isinstance(channels, dict):
        raise SignalError(
            f"channels must be a dict {{name: (outputs, inputs)}}, got {type(channels).__name__}"
        )
    out = []
    for name, spec in channels.items():
        if not isinstance(spec, list | tuple) or len(spec) not in (2, 3):
            raise SignalError(
                f"channel {name!r}: expected (outputs, inputs) or (outputs, inputs, spec), "
                f"got {spec!r}"
            )
        outs, ins = ([s] if isinstance(s, str | int) else list(s) for s in spec[:2])
        bound = spec[2] if len(spec) == 3 else DEFAULT_SPEC
        if (
            isinstance(bound, bool)
            or not isinstance(bound, int | float | np.integer | np.floating)
            or not bound > 0
        ):
            raise ArgumentError(
                f"channel {name!r}: the specification (largest admissible peak gain) must be "
                f"a positive number, got {bound!r}"
            )

        def names(sel, all_names, what, cname=name):
            res = []
            for s in sel:
                if isinstance(s, int) and not isinstance(s, bool) and 0 <= s < len(all_names):
                    res.append(all_names[s])
                elif s in all_names:
                    res.append(s)
                else:
                    raise SignalError(
                        f"channel {cname!r}: unknown {what} {s!r}; the system's {what}s are "
                        f"{all_names}"
                    )
            if not res:
                raise SignalError(f"channel {cname!r}: no {what}s given")
            return res

        out.append(
            (
                str(name),
                names(outs, system.output_names, "output"),
                names(ins, system.input_names, "input"),
                float(bound),
            )
        )
    return out


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
        Seed of the samples.
    omega : array_like, optional
        Passed to ``robstab`` and ``wcgain``: restrict the analysis to these
        frequencies.  By default the whole frequency axis is covered and the
        bounds are certified.
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
        that certified its goals): used as is instead of a new ``wcgain`` call.

    Returns
    -------
    WorstCaseAnalysis

    Raises
    ------
    UncertainTypeError
        ``system`` is not an uncertain system with uncertain elements.
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
    if not isinstance(n_samples, int | np.integer) or n_samples < 0:
        raise DimensionError(f"n_samples must be a non-negative integer, got {n_samples!r}")
    chans = normalize_channels(system, channels)
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
        given = (certificates or {}).get(name)
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

        (_, s_outs, s_ins, _), *_ = normalize_channels(system, {"step": tuple(step)[:2]})
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
    grid = plotting_grid(poles, extra, dt=dt)
    samples, values = system.usample(n_samples, seed=seed) if n_samples else ([], [])
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
        seed=int(seed),
        timings=timings,
        notes=notes,
        margins=margins,
        loop_description=loop_description,
        step=step_data,
    )
