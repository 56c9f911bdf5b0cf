"""Performance channels of a worst-case report: their selection and their analysis.

A channel is a named selection ``system[outputs, inputs]`` with a specification
(the largest admissible peak gain); :class:`ChannelAnalysis` holds its nominal
and worst-case peak gains, Monte Carlo peaks and singular-value curves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..analysis.worst_case_gain import WcgainResult
from ..errors import ArgumentError, SignalError
from .verdicts import DEFAULT_SPEC, gain_verdict


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
    def worst_found(self) -> float:
        """Largest peak gain realised by parameter values inside the declared set.

        The maximum of the worst case found by ``wcgain`` (``wcgain.lower``), the
        nominal peak gain and every sampled peak gain (``inf`` if a sample is
        unstable): each is the exact peak gain of one admissible parameter value,
        so the worst-case gain is at least this much.
        """
        found = [self.wcgain.lower, self.nominal_peak]
        if self.sampled_peaks.size:
            found.append(float(np.max(self.sampled_peaks)))
        return float(np.nanmax(found)) if np.any(~np.isnan(found)) else np.nan

    @property
    def worst_found_source(self) -> str:
        """Which evidence realises :attr:`worst_found` (``"worst case"``, ``"nominal"``,
        ``"sample"`` or ``"unstable sample"``)."""
        top = self.worst_found
        if np.isinf(top) and self.sampled_peaks.size and np.isinf(np.max(self.sampled_peaks)):
            return "unstable sample" if not np.isinf(self.wcgain.lower) else "worst case"
        if self.wcgain.lower >= top:
            return "worst case"
        if self.nominal_peak >= top:
            return "nominal"
        return "sample"

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"fail"`` or ``"inconclusive"``: the worst case against ``spec``.

        ``"fail"`` when any realised peak gain (:attr:`worst_found`: the worst case
        found, the nominal peak or a Monte Carlo sample, an unstable sample counting as
        infinite) exceeds ``spec``; ``"pass"`` when the certified upper bound meets it;
        see :func:`gain_verdict`.
        """
        wc = self.wcgain
        return gain_verdict(self.worst_found, wc.upper, wc.certified, self.spec)

    @property
    def nominal_verdict(self) -> str:
        """``"pass"`` or ``"fail"``: the nominal peak gain against ``spec``."""
        return "pass" if self.nominal_peak <= self.spec else "fail"

    @property
    def worst_sample_peak(self) -> float:
        """Largest sampled peak gain (a lower bound of the worst case)."""
        return float(np.max(self.sampled_peaks)) if self.sampled_peaks.size else np.nan


def _check_unambiguous(all_names, what, where, selected=None):
    """Refuse a selected signal name that several signals of the system carry: selection
    by name would take the first of them (and the default channel that one twice)."""
    all_names = list(all_names)
    for n in all_names if selected is None else selected:
        count = all_names.count(n)
        if count > 1:
            raise SignalError(
                f"{where}: the system has {count} {what}s named {n!r} (its {what}s are "
                f"{all_names}); give its {what}s distinct names"
            )


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
        for what, all_names in (("output", system.output_names), ("input", system.input_names)):
            _check_unambiguous(all_names, what, "the default channel")
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
            or not 0 < bound < np.inf
        ):
            raise ArgumentError(
                f"channel {name!r}: the specification (largest admissible peak gain) must be "
                f"a positive finite number, got {bound!r}"
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
            _check_unambiguous(all_names, what, f"channel {cname!r}", res)
            twice = [r for i, r in enumerate(res) if r in res[:i]]
            if twice:  # a repeated row or column would scale the peak gain
                raise SignalError(f"channel {cname!r}: {what} {twice[0]!r} is given more than once")
            return res

        if str(name) in [c[0] for c in out]:
            raise ArgumentError(f"channels: two channels are named {str(name)!r}")
        out.append(
            (
                str(name),
                names(outs, system.output_names, "output"),
                names(ins, system.input_names, "input"),
                float(bound),
            )
        )
    return out
