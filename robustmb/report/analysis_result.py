"""The result of a worst-case analysis: every number a report shows, its verdicts and checks.

:class:`WorstCaseAnalysis` gathers the direct results of ``robstab``,
``wcgain`` and ``wcdiskmargin``, the Monte Carlo samples and the step
responses; it states the verdicts, the conclusions, the warnings about loose
bounds and the consistency checks, and turns everything into JSON-ready data
(:meth:`WorstCaseAnalysis.summary`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analysis.disk_margin_results import WorstCaseDiskMargin
from ..analysis.robust_stability import RobstabResult
from .step_analysis import StepAnalysis
from .summary_data import jsonable, loop_margins_summary
from .verdicts import worst_verdict

GAP_FLAG = 0.02  # relative bound gap above which the report warns


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
    frequencies : numpy.ndarray or None
        The frequencies ``robstab`` and ``wcgain`` were restricted to (``omega=``), or
        ``None`` for the whole frequency axis.  On a grid the bounds hold at those
        frequencies only: nothing is certified over the axis.
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
    frequencies: np.ndarray | None = field(default=None, repr=False)

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
        from .bound_format import (
            fmt_against,
            fmt_bound,
            fmt_lower,
            fmt_point,
            fmt_spec,
            fmt_upper,
        )
        from .figures import _fmt

        out = [self.headline()]
        rs = self.robstab
        if self.verdict == "robustly stable":
            top = sorted(rs.sensitivity, key=lambda k: -abs(rs.sensitivity[k]))[:2]
            out.append(
                f"Stability holds for ranges up to {fmt_lower(rs.lower, 3, scale=100)} % of "
                f"their declared size (margin {fmt_lower(rs.lower)}); it would be lost first at "
                f"{_fmt(rs.critical_frequency)} rad/s"
                + (f", driven mostly by {' and '.join(top)}." if top else ".")
            )
        elif self.verdict == "not robustly stable":
            out.append(
                "Stability is lost inside the declared ranges: at "
                f"{fmt_upper(rs.upper, 3, scale=100)} % "
                "of their size the listed parameter values destabilise the loop."
            )
        else:
            out.append(
                f"Robust stability is not decided: the margin lies in [{fmt_lower(rs.lower)}, "
                f"{fmt_upper(rs.upper)}]."
            )
        if self.frequencies is not None:
            out.append(
                f"The analysis was restricted to {self.frequencies.size} given frequencies: "
                "its bounds hold at those frequencies only, so nothing is certified over the "
                "frequency axis."
            )
        source = {
            "worst case": "the worst case found",
            "nominal": "the nominal values",
            "sample": "a Monte Carlo sample",
            "unstable sample": "an unstable Monte Carlo sample",
        }
        for ch in self.channels:
            wc = ch.wcgain
            top = ch.worst_found
            # digits enough to show each number on its side of the specification
            spec, nom = fmt_spec(ch.spec), fmt_point(ch.nominal_peak, ch.spec)
            up, lo = fmt_against(wc.upper, "upper", ch.spec), fmt_against(top, "lower", ch.spec)
            if ch.verdict == "pass":
                out.append(
                    f"{ch.name}: the worst-case peak gain is at most {up}, within "
                    f"the specification {spec} (nominal {nom})."
                )
            elif ch.verdict == "fail":
                nominal = (
                    "already violated nominally"
                    if ch.nominal_verdict == "fail"
                    else "met nominally"
                )
                where = (
                    f" at {_fmt(wc.critical_frequency)} rad/s"
                    if ch.worst_found_source == "worst case"
                    else ""
                )
                if np.isinf(top):  # an unstable loop: no peak, no frequency, no ratio
                    found = f"{source[ch.worst_found_source]} is unstable (infinite peak gain)"
                else:  # the ratio keeps the digits that show it exceeds 1
                    found = (
                        f"peak gain at least {lo}{where} "
                        f"({source[ch.worst_found_source]}), "
                        f"{fmt_against(top / ch.spec, 'lower', 1.0, 3)} times the specification"
                    )
                out.append(
                    f"{ch.name}: the specification {spec} is {nominal} "
                    f"(peak {nom}) and violated in the worst case: {found}."
                )
            elif wc.certified:
                out.append(
                    f"{ch.name}: the worst-case peak gain lies in [{lo}, "
                    f"{up}], on both sides of the specification {spec}."
                )
            else:
                out.append(
                    f"{ch.name}: the worst-case peak gain is at least {lo} "
                    f"({source[ch.worst_found_source]}), within the specification "
                    f"{spec}, but no upper bound is certified over the frequency "
                    "axis: not decided."
                )
        if self.margins is not None and self.margins.nominal is not None:
            wm, nom = self.margins, self.margins.nominal.multiloop
            nominal = (
                f"Loop margins: the disk margin is {_fmt(nom.alpha)} nominally (gain "
                f"[{_fmt(nom.gain_margin[0])}, {_fmt(nom.gain_margin[1])}], phase "
                f"±{_fmt(nom.phase_margin, 3)}°)"
            )
            if wm.certified:
                # a guarantee: the disk and phase rounded down, the gain interval inwards
                out.append(
                    f"{nominal} and at least {fmt_lower(wm.lower)} over the ranges (gain "
                    f"[{fmt_bound(wm.gain_margin[0], 'upper')}, "
                    f"{fmt_bound(wm.gain_margin[1], 'lower')}], phase "
                    f"±{fmt_lower(wm.phase_margin, 3)}°)."
                )
            else:
                out.append(
                    f"{nominal}; over the ranges no margin is certified (wcdiskmargin found "
                    f"no certificate; lower bound {_fmt(wm.lower)}), and the parameter values "
                    f"found bring it down to {fmt_upper(wm.upper)}."
                )
        n = len(self.sample_values)
        if n:
            text = f"{n - self.n_unstable_samples} of {n} random samples are stable"
            sampled = [ch for ch in self.channels if np.isfinite(ch.worst_sample_peak)]
            pairs = [
                (ch.name, ch.worst_sample_peak / ch.wcgain.lower)
                for ch in sampled
                if 0 < ch.wcgain.lower < np.inf
            ]
            # a worst case found unstable while every sample is stable: sampling missed it
            missed = [ch.name for ch in sampled if np.isinf(ch.wcgain.lower)]
            if pairs:
                text += "; the largest sampled peak gain reaches " + ", ".join(
                    f"{_fmt(100 * r, 3)} % ({name})" for name, r in pairs
                )
                text += " of the worst case found"
            if missed:
                text += (
                    f"; no sample is unstable, while the worst case found of {', '.join(missed)} is"
                )
            if missed or (pairs and min(r for _, r in pairs) < 0.95):
                text += ": random sampling alone underestimates the worst case"
            out.append(text + ".")
        flags = self.flags()
        if flags:
            some = "1 bound is" if len(flags) == 1 else f"{len(flags)} bounds are"
            out.append(
                f"{some} not to be taken at face value (a gap above {100 * GAP_FLAG:g} %, no "
                "upper bound, or no certificate): see the warnings."
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
        if self.margins is not None and self.margins.certified:
            pairs.append(("worst-case disk margin", self.margins.lower, self.margins.upper))
        elif self.margins is not None:
            lo = self.margins.lower
            out.append(
                "worst-case disk margin: not certified"
                + ("; its lower bound 0 guarantees no margin at all" if lo == 0 else "")
                + f"; the parameter values found give {self.margins.upper:.6g}"
            )
        for what, lo, hi in pairs:
            if lo == 0 and np.isfinite(hi) and hi > 0:
                out.append(
                    f"{what}: the bounds [0, {hi:.6g}] leave the worst case undecided "
                    "(no positive lower bound)"
                )
            elif np.isfinite(lo) and np.isinf(hi):
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
            # The overall verdict: the worst of robust stability and every channel.
            "verdict": self.performance_verdict,
            "robust_performance": {
                "verdict": self.performance_verdict,
                "headline": self.headline(),
                "stability_verdict": self.stability_verdict,
                "channel_verdicts": {ch.name: ch.verdict for ch in self.channels},
            },
            "robust_stability": {
                "verdict": self.verdict,
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
                    # the largest gain realised by admissible parameter values
                    "largest_gain_found": {
                        "value": ch.worst_found,
                        "source": ch.worst_found_source,
                    },
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
            # the frequencies robstab and wcgain were restricted to ("whole axis" if none)
            "analysis_frequencies": "whole axis" if self.frequencies is None else self.frequencies,
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
