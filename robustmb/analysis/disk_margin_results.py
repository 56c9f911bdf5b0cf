"""Result objects of the disk-margin analyses: one margin, a loop's margins, the worst case.

:class:`DiskMargin` is one margin with its critical frequency and destabilising
factors, :class:`LoopMargins` the loop-at-a-time and multiloop margins of one
loop, :class:`DiskMarginResult` what :func:`~.diskmargin.diskmargin` returns and
:class:`WorstCaseDiskMargin` what :func:`~.worst_case_disk_margin.wcdiskmargin`
returns.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from robustmb.analysis.disk_geometry import (
    Disk,
    _bracket_gain_margin,
    _skew_coefficients,
    dm2gm,
)
from robustmb.errors import ArgumentError, DimensionError, SignalError

__all__ = ["DiskMargin", "DiskMarginResult", "LoopMargins", "WorstCaseDiskMargin"]


def _fmt(x: float) -> str:
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"


def _delta_of_factor(f, skew) -> complex:
    """The normalised ``delta = (f - 1)/(a + b f)`` of a factor ``f`` of the disk model.

    ``f = inf`` is ``delta = 1/b``; a NaN factor (a channel without a destabilising
    perturbation, margin ``inf``) has a NaN ``delta``, as has ``f = inf`` when ``b = 0``
    (skew -1: no finite ``delta`` gives an infinite factor).
    """
    a, b = _skew_coefficients(skew)
    if np.isfinite(f):
        return (f - 1.0) / (a + b * f)
    if np.isinf(f) and b != 0:
        return 1.0 / b
    return complex(np.nan, np.nan)


@dataclass(frozen=True, repr=False)
class DiskMargin:
    """A disk margin: one loop, or several loops perturbed at once (multiloop).

    Attributes
    ----------
    alpha : float
        Guaranteed disk margin (equal to ``lower``, as MATLAB's ``DiskMargin``).
    lower, upper : float
        Bounds of the margin.  ``lower`` holds on the whole frequency axis (when
        ``certified``); ``upper`` is realised by ``worst_perturbation``.  For a single
        loop they are one over the ends of :func:`~robustmb.hinfnorm`'s bracket (a
        relative gap of at most ``1e-12``).
    frequency : float
        Critical frequency in rad/s: where ``worst_perturbation`` puts a closed-loop pole on
        the stability boundary (``inf`` for the limit ``w -> inf``).  When the nominal
        loop is unstable: ``|Im p|`` of the closed-loop pole ``p`` nearest the imaginary
        axis (discrete time: ``|angle(p)| / dt`` of the pole nearest the unit circle),
        where the instability is closest to being removed.
    gain_margin : tuple of float
        Disk-based gain margin ``(gmin, gmax)`` of the disk of size ``alpha`` (of the
        half plane when the exact bracket contains it, see the property).
    phase_margin : float
        Disk-based phase margin in degrees (tolerated phase variation ``+-phase_margin``).
    skew : float
        Skew ``sigma`` of the disk model.
    channels : tuple of str
        The perturbed loop channels.
    worst_perturbation : numpy.ndarray
        Complex gain/phase factors ``f_j`` (one per channel) of disk size ``upper`` for which
        ``I + L(j frequency) diag(f)`` is singular.  Empty when the nominal loop is unstable.
    delta : numpy.ndarray
        The normalised ``delta_j`` of ``worst_perturbation``.
    certified : bool
        Whether ``lower`` was certified on the whole frequency axis (always True for a
        single loop; False when only given frequencies were analysed).
    stable : bool
        Whether the nominal closed loop is stable (all margins are 0 otherwise).

    Examples
    --------
    >>> import control
    >>> from robustmb.analysis.diskmargin import diskmargin
    >>> m = diskmargin(control.tf(4, [1, 2, 1])).multiloop
    >>> round(m.alpha, 4), [round(g, 3) for g in m.gain_margin], round(m.phase_margin, 2)
    (0.9717, [0.346, 2.89], 51.83)
    >>> # The worst perturbation is on the boundary of the disk (in delta coordinates).
    >>> m.disk.contains(m.disk.factor([0.999, 1.001] * m.delta)).tolist()
    [True, False]
    """

    alpha: float
    lower: float
    upper: float
    frequency: float
    skew: float
    channels: tuple
    worst_perturbation: np.ndarray = field(default_factory=lambda: np.zeros(0, complex))
    delta: np.ndarray = field(default_factory=lambda: np.zeros(0, complex))
    certified: bool = True
    stable: bool = True

    @property
    def disk(self) -> Disk:
        """The guaranteed disk of gain/phase variations, ``Disk(alpha, skew)``."""
        return Disk(self.alpha, self.skew)

    @property
    def gain_margin(self) -> tuple[float, float]:
        """Disk-based gain margin ``(gmin, gmax)`` (absolute gain factors).

        Those of the disk of size ``alpha``, except when ``[lower, upper]`` is exact up to
        a relative ``1e-8`` and contains the half-plane size ``2/(1 + skew)``: then those
        of the half plane (``[0, inf]`` for skew 0, as MATLAB reports), not the rounding
        level ``[5e-13, 2e12]`` of a size ``1e-12`` below it.
        """
        gmin, gmax = _bracket_gain_margin(self.lower, self.upper, self.skew)
        return float(gmin), float(gmax)

    @property
    def gain_margin_db(self) -> tuple[float, float]:
        """The gain margin in dB (``-inf`` for ``gmin <= 0``)."""
        gmin, gmax = self.gain_margin
        with np.errstate(divide="ignore"):
            low = 20.0 * np.log10(gmin) if gmin > 0 else -np.inf
            return float(low), float(20.0 * np.log10(gmax))

    @property
    def phase_margin(self) -> float:
        """Disk-based phase margin in degrees."""
        return self.disk.phase_margin

    @property
    def critical_frequency(self) -> float:
        """Alias of ``frequency``."""
        return self.frequency

    def __repr__(self) -> str:
        gmin, gmax = self.gain_margin
        bounds = (
            ""
            if _fmt(self.lower) == _fmt(self.upper)
            else f" (bounds [{_fmt(self.lower)}, {_fmt(self.upper)}])"
        )
        note = "" if self.certified else ", not certified on the whole axis"
        if not self.stable:
            note += ", nominal closed loop unstable"
        return (
            f"DiskMargin(alpha={_fmt(self.alpha)}{bounds}, gain_margin=[{_fmt(gmin)}, "
            f"{_fmt(gmax)}], phase_margin=+-{self.phase_margin:.4g} deg, "
            f"frequency={_fmt(self.frequency)} rad/s, skew={self.skew:g}, "
            f"channels={list(self.channels)}{note})"
        )


@dataclass(frozen=True, repr=False)
class LoopMargins:
    """Loop-at-a-time disk margins: one loop broken at a time, the others closed.

    Attributes
    ----------
    channels : tuple of str
        Channel names.
    alpha, frequency : numpy.ndarray
        Guaranteed disk margin (when ``certified``) and critical frequency (rad/s) per
        channel, shape ``(n,)``.
    worst_perturbation : numpy.ndarray
        Destabilising factor ``f_j`` per channel, shape ``(n,)``, of disk size ``upper``.
    skew : float
    stable : bool
        Whether the nominal closed loop is stable.
    certified : bool
        Whether ``alpha`` was certified on the whole frequency axis.
    upper : numpy.ndarray
        Size of ``worst_perturbation`` per channel: the margin lies in ``[alpha, upper]``
        (a relative gap of at most ``1e-12`` from :func:`~robustmb.hinfnorm`'s bracket;
        equal to ``alpha`` when not given).

    Examples
    --------
    >>> import control
    >>> from robustmb.analysis.diskmargin import diskmargin
    >>> P = control.ss([[0, 10], [-10, 0]], np.eye(2), [[1, 10], [-10, 1]], 0)
    >>> res = diskmargin(P)                        # spinning satellite, K = I
    >>> np.round(res.loop_at_a_time.alpha, 6).tolist()
    [2.0, 2.0]
    >>> np.round(res.loop_at_a_time.phase_margin, 6).tolist()
    [90.0, 90.0]
    >>> res.loop_at_a_time["u[1]"].gain_margin     # alpha = 2: the half plane Re f > 0
    (0.0, inf)
    """

    channels: tuple
    alpha: np.ndarray
    frequency: np.ndarray
    worst_perturbation: np.ndarray
    skew: float
    stable: bool = True
    certified: bool = True
    upper: np.ndarray | None = None

    def __post_init__(self):
        if self.upper is None:
            object.__setattr__(self, "upper", np.asarray(self.alpha))

    def __len__(self) -> int:
        return len(self.channels)

    def _index(self, key) -> int:
        """Position of a channel given by name or by (possibly negative) index."""
        n = len(self.channels)
        if isinstance(key, str):
            if key not in self.channels:
                raise SignalError(
                    f"LoopMargins: unknown channel {key!r}; the channels are {list(self.channels)}"
                )
            return self.channels.index(key)
        if isinstance(key, bool) or not isinstance(key, numbers.Integral):
            raise ArgumentError(
                f"LoopMargins: a channel is selected by name or integer index; got {key!r} "
                f"(channels {list(self.channels)})"
            )
        if not -n <= int(key) < n:
            raise DimensionError(
                f"LoopMargins: channel index {int(key)} is out of range for {n} channels "
                f"{list(self.channels)}"
            )
        return int(key) % n

    def __getitem__(self, key) -> DiskMargin:
        """The margin of one channel, by name or index (``SignalError`` for an unknown
        name, ``DimensionError`` for an index out of range, ``ArgumentError`` otherwise;
        each message lists the channels)."""
        j = self._index(key)
        f = self.worst_perturbation[j]
        delta = _delta_of_factor(f, self.skew)
        return DiskMargin(
            float(self.alpha[j]),
            float(self.alpha[j]),
            float(self.upper[j]),
            float(self.frequency[j]),
            self.skew,
            (self.channels[j],),
            np.array([f]),
            np.array([delta]),
            self.certified,
            self.stable,
        )

    @property
    def gain_margin(self) -> np.ndarray:
        """``(n, 2)`` array of disk-based gain margins ``[gmin, gmax]`` per channel.

        Those of ``alpha``, or of the half plane when the bracket ``[alpha, upper]``
        contains it (the rule of :attr:`DiskMargin.gain_margin`).
        """
        gmin, gmax = _bracket_gain_margin(self.alpha, self.upper, self.skew)
        return np.stack([gmin, gmax], axis=-1)

    @property
    def gain_margin_db(self) -> np.ndarray:
        """The gain margins in dB (``-inf`` for ``gmin <= 0``)."""
        gm = self.gain_margin
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(gm > 0, 20.0 * np.log10(np.where(gm > 0, gm, 1.0)), -np.inf)

    @property
    def phase_margin(self) -> np.ndarray:
        """Disk-based phase margins in degrees per channel."""
        return dm2gm(self.alpha, self.skew)[1]

    def __repr__(self) -> str:
        lines = [f"LoopMargins(skew={self.skew:g}{'' if self.stable else ', unstable'})"]
        lines.append(
            f"  {'channel':<12}{'alpha':>10}{'gmin':>10}{'gmax':>10}{'pm (deg)':>10}"
            f"{'freq (rad/s)':>14}"
        )
        gm, pm = self.gain_margin, self.phase_margin
        for j, name in enumerate(self.channels):
            lines.append(
                f"  {name:<12}{_fmt(self.alpha[j]):>10}{_fmt(gm[j, 0]):>10}{_fmt(gm[j, 1]):>10}"
                f"{pm[j]:>10.4g}{_fmt(self.frequency[j]):>14}"
            )
        return "\n".join(lines)


@dataclass(frozen=True, repr=False)
class DiskMarginResult:
    """Result of :func:`diskmargin`: loop-at-a-time and multiloop disk margins.

    The fields ``alpha``, ``lower``, ``upper``, ``frequency``, ``gain_margin``,
    ``gain_margin_db``, ``phase_margin``, ``disk`` and ``worst_perturbation`` are those of
    ``multiloop`` (for a single loop they equal the loop-at-a-time margin).

    Attributes
    ----------
    loop_at_a_time : LoopMargins
        One channel perturbed at a time (MATLAB's ``DM``).
    multiloop : DiskMargin
        Every channel perturbed independently and at once (MATLAB's ``MM``; with a
        controller, MATLAB's ``MMIO``: plant outputs and inputs together).
    output, input : DiskMargin or None
        With ``diskmargin(P, C)``: multiloop margins at the plant outputs only (loop
        ``P C``) and at the plant inputs only (loop ``C P``).
    skew : float
    """

    loop_at_a_time: LoopMargins
    multiloop: DiskMargin
    skew: float
    output: DiskMargin | None = None
    input: DiskMargin | None = None

    @property
    def alpha(self) -> float:
        """Guaranteed multiloop disk margin."""
        return self.multiloop.alpha

    @property
    def lower(self) -> float:
        return self.multiloop.lower

    @property
    def upper(self) -> float:
        return self.multiloop.upper

    @property
    def frequency(self) -> float:
        return self.multiloop.frequency

    @property
    def critical_frequency(self) -> float:
        return self.multiloop.frequency

    @property
    def gain_margin(self) -> tuple[float, float]:
        return self.multiloop.gain_margin

    @property
    def gain_margin_db(self) -> tuple[float, float]:
        return self.multiloop.gain_margin_db

    @property
    def phase_margin(self) -> float:
        return self.multiloop.phase_margin

    @property
    def disk(self) -> Disk:
        return self.multiloop.disk

    @property
    def worst_perturbation(self) -> np.ndarray:
        return self.multiloop.worst_perturbation

    @property
    def stable(self) -> bool:
        return self.multiloop.stable

    def __repr__(self) -> str:
        lines = ["DiskMarginResult(", "  multiloop: " + repr(self.multiloop)]
        if self.output is not None:
            lines.append("  output:    " + repr(self.output))
        if self.input is not None:
            lines.append("  input:     " + repr(self.input))
        lines.extend("  " + line for line in repr(self.loop_at_a_time).splitlines())
        lines.append(")")
        return "\n".join(lines)


# Ratio ``upper / lower`` above which a worst-case disk margin bracket is called wide.
WIDE_BRACKET = 1.1


@dataclass(frozen=True, repr=False)
class WorstCaseDiskMargin:
    """Result of :func:`wcdiskmargin`: disk margin over the uncertainty set.

    Attributes
    ----------
    lower : float
        Certified: for every value of the uncertain elements in their declared ranges the
        disk margin is at least ``lower`` (whole frequency axis when ``certified``).
    upper : float
        The disk margin (its verified upper bound) of the loop at the values ``worst``.
    alpha : float
        Guaranteed worst-case disk margin (equal to ``lower``).
    frequency : float
        Critical frequency (rad/s) of the loop at ``worst``.
    worst : dict
        ``{name: value}`` in physical units (``ultidyn`` values are stable systems).
    worst_margin : DiskMarginResult
        Disk margins of the loop at ``worst`` (recomputed by :func:`diskmargin`).
    nominal : DiskMarginResult
        Disk margins of the loop at the nominal values.
    channels : tuple of str
        The perturbed channels.
    skew : float
    certified : bool
    reason : str
        How the bracket arose; it says so when the bracket is wide (``upper`` more than
        :data:`WIDE_BRACKET` times ``lower``, or ``lower`` 0): the worst-case margin may
        then lie anywhere in it.
    """

    lower: float
    upper: float
    frequency: float
    worst: dict
    worst_margin: DiskMarginResult | None
    nominal: DiskMarginResult | None
    channels: tuple
    skew: float
    certified: bool
    reason: str = ""

    @property
    def is_wide(self) -> bool:
        """Whether ``upper`` exceeds ``lower`` by more than :data:`WIDE_BRACKET` (or
        ``lower`` is 0 with ``upper`` positive): a bracket too wide to locate the margin."""
        return bool(self.upper > 0 and not self.upper <= WIDE_BRACKET * self.lower)

    @property
    def alpha(self) -> float:
        return self.lower

    @property
    def critical_frequency(self) -> float:
        return self.frequency

    @property
    def disk(self) -> Disk:
        """The disk of gain/phase variations guaranteed over the uncertainty set."""
        return Disk(self.lower, self.skew)

    @property
    def gain_margin(self) -> tuple[float, float]:
        """Gain margin of ``lower`` (the rule of :attr:`DiskMargin.gain_margin`)."""
        gmin, gmax = _bracket_gain_margin(self.lower, self.upper, self.skew)
        return float(gmin), float(gmax)

    @property
    def phase_margin(self) -> float:
        return self.disk.phase_margin

    def __repr__(self) -> str:
        gmin, gmax = self.gain_margin
        worst = {
            k: (v if isinstance(v, numbers.Number) else type(v).__name__)
            for k, v in self.worst.items()
        }
        return (
            f"WorstCaseDiskMargin(alpha in [{_fmt(self.lower)}, {_fmt(self.upper)}], "
            f"gain_margin=[{_fmt(gmin)}, {_fmt(gmax)}], phase_margin=+-"
            f"{self.phase_margin:.4g} deg, frequency={_fmt(self.frequency)} rad/s, "
            f"skew={self.skew:g}, channels={list(self.channels)}, worst={worst}"
            f"{'' if self.certified else ', not certified on the whole axis'}"
            f"{', wide bracket' if self.is_wide else ''})"
        )
