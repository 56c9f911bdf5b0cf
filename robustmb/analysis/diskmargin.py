"""Disk margins of feedback loops: loop-at-a-time, multiloop and worst case over uncertainty.

Model (Seiler, Packard & Gahinet, "An introduction to disk margins", IEEE Control Systems
Magazine 40(5), 2020).  In the negative-feedback loop ``feedback(L, I)`` the input channel
``j`` of ``L`` is multiplied by a gain/phase factor

    f_j = (1 + a delta_j) / (1 - b delta_j),   a = (1 - sigma)/2,  b = (1 + sigma)/2,

with ``|delta_j| < alpha``; ``sigma`` is the *skew* (0: balanced, 1: based on ``S``,
-1: based on ``T``).  For a fixed ``alpha`` the factors fill the disk ``D(alpha, sigma)``
(:class:`Disk`).  With ``S = (I + L)^-1`` and ``F = diag(f_j)``,

    I + L F = (I + L) (I - (S - a I) Delta) (I - b Delta)^-1,   Delta = diag(delta_j),

so a stable nominal loop stays stable for every ``|delta_j| < alpha`` exactly when
``alpha <= 1 / sup_w mu_Delta(S(jw) + (sigma - 1)/2 I)``.  For one channel ``mu`` is the
modulus and the margin is ``1 / ||S + (sigma - 1)/2||_inf``, computed here with the exact
level-set peak-gain algorithm over the whole frequency axis (:func:`.norms.hinfnorm`).
Loop-at-a-time margins use ``S_jj``: with the other loops closed, ``det(I + L F_j)`` for a
factor on channel ``j`` only is ``det(I + L) (1 - (S_jj - a) delta_j) / (1 - b delta_j)``.
Multiloop margins need ``mu`` with one complex scalar per channel: the bound is certified on
every frequency by :func:`.mu_sweep.certified_mu_peak`.

Disk geometry.  ``f`` belongs to the disk when ``|f - 1| < alpha |a + b f|``.  Its real-axis
intercepts (the disk-based gain margin) are ``(1 - a alpha)/(1 + b alpha)`` and
``(1 + a alpha)/(1 - b alpha)`` (``+inf`` once ``b alpha >= 1``: the disk becomes a half
plane, then the outside of a circle).  For ``f = exp(j phi)`` the condition reads
``sin^2(phi/2) < alpha^2 / (4 + (1 - sigma^2) alpha^2)``, which gives the disk-based phase
margin; for ``sigma = 0`` it is ``2 atan(alpha/2)``.

Worst case over uncertainty (MATLAB's ``wcdiskmargin``).  For an uncertain loop
``L = Fu(N, Delta_u)`` the disk factors are one more LFT, ``f = Fu([[b, 1], [1, 1]], delta)``,
so the loop is ``Fu(M, diag(Delta_u, Delta_d))``.  By the main loop theorem the disk
margin stays above ``1/beta`` for every ``Delta_u`` in the unit ball when
``mu(diag(I, I/beta) M(jw)) <= 1`` at every frequency (a skewed-mu test); the smallest such
``beta`` is found by bisection and certified on the whole axis.  The upper bound is the disk
margin of an actual loop, obtained by substituting parameter values.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.balancing import pole_bands
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.norms import hinfnorm
from robustmb.errors import DimensionError, IllPosedError, UncertainTypeError
from robustmb.lft.complex_statespace import ComplexStateSpace

__all__ = [
    "Disk",
    "DiskMargin",
    "LoopMargins",
    "DiskMarginResult",
    "WorstCaseDiskMargin",
    "diskmargin",
    "wcdiskmargin",
    "dm2gm",
    "gm2dm",
]

# Relative slack of the whole-axis mu certificate: the certified level is this much above
# the largest pointwise upper bound.
_MU_REL_GAP = 1e-3
# The same for the worst-case (skewed-mu) problem, whose pointwise levels come from a
# bisection: a wider slack keeps the number of certified intervals small.
_WC_REL_GAP = 1e-2
# Relative accuracy of the pointwise bisection of the worst-case (skewed-mu) problem.
_BISECTION_RTOL = 1e-3


# ---------------------------------------------------------------------------------------
# Disk geometry
# ---------------------------------------------------------------------------------------
def _check_skew(skew) -> float:
    if isinstance(skew, bool) or not isinstance(skew, numbers.Real) or not np.isfinite(skew):
        raise DimensionError(f"skew must be a finite real number; got {skew!r}")
    return float(skew)


def _skew_coefficients(skew: float) -> tuple[float, float]:
    """``(a, b) = ((1 - sigma)/2, (1 + sigma)/2)``."""
    return 0.5 * (1.0 - skew), 0.5 * (1.0 + skew)


def _intercepts(alpha, skew):
    """Real-axis interval ``(gmin, gmax)`` of the disk around 1 (vectorised, inf allowed)."""
    alpha = np.asarray(alpha, dtype=float)
    a, b = _skew_coefficients(skew)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        finite = np.isfinite(alpha)
        al = np.where(finite, alpha, 0.0)
        low_den = 1.0 + b * al
        high_den = 1.0 - b * al
        gmin = np.where(low_den > 0, (1.0 - a * al) / np.where(low_den > 0, low_den, 1.0), -np.inf)
        gmax = np.where(
            high_den > 0, (1.0 + a * al) / np.where(high_den > 0, high_den, 1.0), np.inf
        )
        # alpha = inf: limits of the formulas along the real axis.
        gmin_inf = -a / b if b > 0 else -np.inf
        gmax_inf = np.inf if b >= 0 else -a / b
        gmin = np.where(finite, gmin, gmin_inf)
        gmax = np.where(finite, gmax, gmax_inf)
    return gmin, gmax


def _phase_margin_deg(alpha, skew):
    """Largest ``phi`` (degrees) with ``exp(j phi')`` in the disk for every ``|phi'| < phi``."""
    alpha = np.asarray(alpha, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        den = 4.0 + (1.0 - skew**2) * alpha**2
        ratio = np.where(den > 0, alpha**2 / np.where(den > 0, den, 1.0), np.inf)
        # alpha = inf: ratio -> 1 / (1 - sigma^2) when |sigma| < 1, every phase otherwise.
        ratio = np.where(np.isinf(alpha), 1.0 / (1.0 - skew**2) if abs(skew) < 1 else np.inf, ratio)
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    return np.degrees(2.0 * np.arcsin(np.sqrt(np.clip(ratio, 0.0, 1.0))))


def dm2gm(alpha, skew=0.0):
    """Disk-based gain and phase margins of the disk of size ``alpha`` and skew ``skew``.

    The counterpart of MATLAB's ``dm2gm``.

    Parameters
    ----------
    alpha : float or array_like
        Disk size(s), ``>= 0`` (``inf`` allowed).
    skew : float, optional
        Skew ``sigma`` of the disk.

    Returns
    -------
    gain_margin : numpy.ndarray
        ``(..., 2)`` array of the real-axis intercepts ``[gmin, gmax]`` around 1: the loop
        tolerates every real gain factor in between.  ``gmin`` may be ``<= 0`` (then every
        gain decrease, including opening the loop, is tolerated) and ``gmax`` is ``inf``
        once ``(1 + sigma) alpha >= 2``.
    phase_margin : numpy.ndarray
        Disk-based phase margin in degrees (the loop tolerates ``exp(j phi)`` for
        ``|phi| <`` this value); at most 180.

    Raises
    ------
    DimensionError
        For a negative or NaN ``alpha`` or a non-finite ``skew``.

    Examples
    --------
    >>> gm, pm = dm2gm(0.6646)                      # MathWorks gm2dm example: about 6 dB
    >>> round(float(20 * np.log10(gm[1])), 2), round(float(pm), 2)
    (6.0, 36.76)
    >>> gm, pm = dm2gm(2.0)                         # L = k/s: [0, inf] and 90 degrees
    >>> gm.tolist(), round(float(pm), 10)
    ([0.0, inf], 90.0)
    """
    skew = _check_skew(skew)
    alpha = np.asarray(alpha, dtype=float)
    if np.any(np.isnan(alpha)) or np.any(alpha < 0):
        raise DimensionError(f"alpha must be >= 0 (inf allowed); got {alpha!r}")
    gmin, gmax = _intercepts(alpha, skew)
    return np.stack([gmin, gmax], axis=-1), _phase_margin_deg(alpha, skew)


def gm2dm(gain_margin):
    """Disk size and skew of the disk with real-axis intercepts ``[gmin, gmax]``.

    The counterpart of MATLAB's ``gm2dm``: ``dm2gm(*gm2dm([gmin, gmax]))`` returns the
    same interval.

    Parameters
    ----------
    gain_margin : float or sequence of two floats
        ``[gmin, gmax]`` with ``0 <= gmin < 1 < gmax <= inf``; a single number ``g > 1``
        means ``[1/g, g]``.

    Returns
    -------
    alpha : float
        Disk size.
    skew : float
        Skew ``sigma`` (0 for a symmetric interval ``[1/g, g]``).

    Raises
    ------
    DimensionError
        When the interval does not contain 1 strictly inside ``[0, inf]``.

    Examples
    --------
    >>> alpha, skew = gm2dm(10 ** (6 / 20))        # +-6 dB
    >>> round(alpha, 4), skew
    (0.6646, 0.0)
    >>> alpha, skew = gm2dm([0.5, np.inf])
    >>> alpha, skew
    (1.0, 1.0)
    """
    values = np.atleast_1d(np.asarray(gain_margin, dtype=float))
    if values.shape == (1,):
        g = float(values[0])
        if not g > 1:
            raise DimensionError(f"a symmetric gain margin g must be > 1; got {g!r}")
        values = np.array([1.0 / g, g])
    if values.shape != (2,):
        raise DimensionError(f"gain_margin must be g or [gmin, gmax]; got shape {values.shape}")
    gmin, gmax = float(values[0]), float(values[1])
    if not (0.0 <= gmin < 1.0 < gmax):
        raise DimensionError(f"gain_margin must satisfy 0 <= gmin < 1 < gmax; got {values}")
    # delta(f) = (f - 1)/(a + b f) maps gmax to alpha and gmin to -alpha; a + b = 1.
    if np.isinf(gmax):
        b = 1.0 / (2.0 * (1.0 - gmin))
        alpha = 1.0 / b
    else:
        b = (gmax + gmin - 2.0) / (2.0 * (gmax - 1.0) * (1.0 - gmin))
        alpha = (gmax - 1.0) / ((1.0 - b) + b * gmax)
    return float(alpha), float(2.0 * b - 1.0)


@dataclass(frozen=True)
class Disk:
    """The disk ``D(alpha, sigma)``: gain/phase factors ``(1 + a d)/(1 - b d)``, ``|d| < alpha``.

    Attributes
    ----------
    alpha : float
        Disk size (``>= 0``).
    skew : float
        Skew ``sigma``; ``a = (1 - sigma)/2``, ``b = (1 + sigma)/2``.

    Examples
    --------
    >>> d = Disk(0.5, 0.0)
    >>> [round(g, 4) for g in d.gain_margin], round(d.phase_margin, 4)
    ([0.6, 1.6667], 28.0725)
    >>> d.contains([1.0, 0.7, 0.5, np.exp(1j * np.radians(28.0))]).tolist()
    [True, True, False, True]
    >>> d.kind, round(d.center, 4), round(d.radius, 4)
    ('disk', 1.1333, 0.5333)
    """

    alpha: float
    skew: float = 0.0

    def __post_init__(self):
        _check_skew(self.skew)
        if not (isinstance(self.alpha, numbers.Real) and self.alpha >= 0):
            raise DimensionError(f"Disk: alpha must be a number >= 0; got {self.alpha!r}")

    @property
    def gain_margin(self) -> tuple[float, float]:
        """``(gmin, gmax)``: real-axis intercepts around 1 (see :func:`dm2gm`)."""
        gmin, gmax = _intercepts(self.alpha, self.skew)
        return float(gmin), float(gmax)

    @property
    def phase_margin(self) -> float:
        """Disk-based phase margin in degrees."""
        return float(_phase_margin_deg(self.alpha, self.skew))

    @property
    def kind(self) -> str:
        """``"disk"``, ``"half-plane"`` or ``"exterior"`` (outside of a circle)."""
        _, b = _skew_coefficients(self.skew)
        product = b * self.alpha
        if np.isclose(product, 1.0, rtol=1e-12, atol=0.0):
            return "half-plane"
        return "exterior" if product > 1.0 else "disk"

    def _boundary_reals(self):
        a, b = _skew_coefficients(self.skew)
        al = self.alpha
        return (1.0 + a * al) / (1.0 - b * al), (1.0 - a * al) / (1.0 + b * al)

    @property
    def center(self) -> float:
        """Centre of the boundary circle (``nan`` for a half plane)."""
        if self.kind == "half-plane" or not np.isfinite(self.alpha):
            return float("nan")
        right, left = self._boundary_reals()
        return float(0.5 * (right + left))

    @property
    def radius(self) -> float:
        """Radius of the boundary circle (``inf`` for a half plane)."""
        if self.kind == "half-plane" or not np.isfinite(self.alpha):
            return float("inf")
        right, left = self._boundary_reals()
        return float(0.5 * abs(right - left))

    def factor(self, delta):
        """The gain/phase factor ``f = (1 + a delta)/(1 - b delta)`` of a normalised ``delta``."""
        a, b = _skew_coefficients(self.skew)
        return _factor(delta, a, b)

    def contains(self, f) -> np.ndarray:
        """Whether each factor ``f`` lies in the (open) disk: ``|f - 1| < alpha |a + b f|``."""
        a, b = _skew_coefficients(self.skew)
        f = np.asarray(f, dtype=complex)
        return np.abs(f - 1.0) < self.alpha * np.abs(a + b * f)

    def boundary(self, n: int = 200) -> np.ndarray:
        """``n`` points of the boundary ``f(alpha exp(j theta))`` (may include ``inf``)."""
        theta = np.linspace(0.0, 2.0 * np.pi, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.factor(self.alpha * np.exp(1j * theta))


def _factor(delta, a, b):
    delta = np.asarray(delta, dtype=complex)
    with np.errstate(divide="ignore", invalid="ignore"):
        den = 1.0 - b * delta
        return np.where(den == 0, np.inf + 0j, (1.0 + a * delta) / np.where(den == 0, 1.0, den))


# ---------------------------------------------------------------------------------------
# Result objects
# ---------------------------------------------------------------------------------------
def _fmt(x: float) -> str:
    return "inf" if np.isinf(x) else f"{x:.4g}"


@dataclass(frozen=True, repr=False)
class DiskMargin:
    """A disk margin: one loop, or several loops perturbed at once (multiloop).

    Attributes
    ----------
    alpha : float
        Guaranteed disk margin (equal to ``lower``, as MATLAB's ``DiskMargin``).
    lower, upper : float
        Bounds of the margin.  ``lower`` holds on the whole frequency axis (when
        ``certified``); ``upper`` is realised by ``worst_perturbation``.  Equal for a
        single loop (exact computation).
    frequency : float
        Critical frequency in rad/s: where ``worst_perturbation`` puts a closed-loop pole on
        the stability boundary (``nan`` when the nominal loop is unstable and no boundary
        pole exists, ``inf`` for the limit ``w -> inf``).
    gain_margin : tuple of float
        Disk-based gain margin ``(gmin, gmax)`` of the disk of size ``alpha``.
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
        """Disk-based gain margin ``(gmin, gmax)`` (absolute gain factors)."""
        return self.disk.gain_margin

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
            if self.lower == self.upper
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
        Disk margin and critical frequency (rad/s) per channel, shape ``(n,)``.
    worst_perturbation : numpy.ndarray
        Destabilising factor ``f_j`` per channel, shape ``(n,)``.
    skew : float
    stable : bool
        Whether the nominal closed loop is stable.

    Examples
    --------
    >>> import control
    >>> P = control.ss([[0, 10], [-10, 0]], np.eye(2), [[1, 10], [-10, 1]], 0)
    >>> res = diskmargin(P)                        # spinning satellite, K = I
    >>> np.round(res.loop_at_a_time.alpha, 6).tolist()
    [2.0, 2.0]
    >>> np.round(res.loop_at_a_time.phase_margin, 6).tolist()
    [90.0, 90.0]
    """

    channels: tuple
    alpha: np.ndarray
    frequency: np.ndarray
    worst_perturbation: np.ndarray
    skew: float
    stable: bool = True
    certified: bool = True

    def __len__(self) -> int:
        return len(self.channels)

    def __getitem__(self, key) -> DiskMargin:
        j = self.channels.index(key) if isinstance(key, str) else int(key)
        f = self.worst_perturbation[j]
        a, b = _skew_coefficients(self.skew)
        delta = (f - 1.0) / (a + b * f) if np.isfinite(f) else 1.0 / b
        return DiskMargin(
            float(self.alpha[j]),
            float(self.alpha[j]),
            float(self.alpha[j]),
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
        """``(n, 2)`` array of disk-based gain margins ``[gmin, gmax]`` per channel."""
        return dm2gm(self.alpha, self.skew)[0]

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
        return self.disk.gain_margin

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
            f"{'' if self.certified else ', not certified on the whole axis'})"
        )


# ---------------------------------------------------------------------------------------
# Loops in state space
# ---------------------------------------------------------------------------------------
def _is_uncertain(obj) -> bool:
    if isinstance(obj, ComplexStateSpace):
        return False
    module = type(obj).__module__ or ""
    return module.startswith("robustmb.lft") or (
        hasattr(obj, "blocks") and hasattr(obj, "uncertainty") and hasattr(obj, "nominal")
    )


def _plain(sys):
    """Complex-coefficient systems (from substituting ``ucomplex`` values) as a tuple."""
    if isinstance(sys, ComplexStateSpace):
        return (sys.A, sys.B, sys.C, sys.D, 0.0 if sys.dt in (None, False) else sys.dt)
    return sys


def _labels(sys, attr: str, n: int, prefix: str) -> list[str]:
    labels = getattr(sys, attr, None)
    if labels is not None and len(labels) == n and all(isinstance(x, str) for x in labels):
        return list(labels)
    return [f"{prefix}[{j}]" for j in range(n)]


def _loop_data(L, C, argname="L"):
    """``(A, B, C, D, dt, channels)`` of the loop ``L`` or of ``[[0, P], [-C, 0]]``."""
    for obj, name in ((L, argname), (C, "C")):
        if obj is not None and _is_uncertain(obj):
            raise UncertainTypeError(
                f"diskmargin: {name} is uncertain ({type(obj).__name__}); use "
                f"rmb.wcdiskmargin for the worst case over its uncertainty, or pass "
                f"{name}.nominal() for the nominal margins"
            )
    if C is None:
        A, B, Cm, D, dt = as_statespace_data(_plain(L), argname=argname)
        p, m = D.shape
        if p != m:
            raise DimensionError(
                f"diskmargin: the loop transfer {argname} must be square; it has {p} outputs "
                f"and {m} inputs"
            )
        if m == 0:
            raise DimensionError(f"diskmargin: the loop transfer {argname} has no channels")
        return A, B, Cm, D, dt, _labels(L, "input_labels", m, "u")
    Ap, Bp, Cp, Dp, dtp = as_statespace_data(_plain(L), argname="P")
    Ac, Bc, Cc, Dc, dtc = as_statespace_data(_plain(C), argname="C")
    ny, nu = Dp.shape
    if Dc.shape != (nu, ny):
        raise DimensionError(
            f"diskmargin(P, C): the controller must be {nu}x{ny} (plant inputs x plant "
            f"outputs) for a plant with {ny} outputs and {nu} inputs; got {Dc.shape}"
        )
    if dtp != dtc and dtp and dtc:
        raise DimensionError(f"diskmargin(P, C): sampling times differ ({dtp} and {dtc})")
    if Ap.shape[0] == 0 and dtc:
        dtp = dtc
    if Ac.shape[0] == 0 and dtp:
        dtc = dtp
    if dtp != dtc:
        raise DimensionError(f"diskmargin(P, C): sampling times differ ({dtp} and {dtc})")
    n_p, n_c = Ap.shape[0], Ac.shape[0]
    dtype = np.result_type(Ap, Ac, Dp, Dc, float)
    A = np.zeros((n_p + n_c, n_p + n_c), dtype)
    A[:n_p, :n_p], A[n_p:, n_p:] = Ap, Ac
    B = np.zeros((n_p + n_c, ny + nu), dtype)
    B[:n_p, ny:], B[n_p:, :ny] = Bp, Bc
    Cm = np.zeros((ny + nu, n_p + n_c), dtype)
    Cm[:ny, :n_p], Cm[ny:, n_p:] = Cp, -Cc
    D = np.zeros((ny + nu, ny + nu), dtype)
    D[:ny, ny:], D[ny:, :ny] = Dp, -Dc
    channels = _labels(L, "output_labels", ny, "y") + _labels(L, "input_labels", nu, "u")
    return A, B, Cm, D, dtp, channels


def _sensitivity(A, B, C, D, channels):
    """State space of ``S = (I + L)^-1`` (input side of ``L``)."""
    n = D.shape[0]
    IpD = np.eye(n) + D
    if np.linalg.cond(IpD) > 1e14:
        raise IllPosedError(
            f"diskmargin: the feedback loop is not well posed: I + D of the loop transfer is "
            f"singular (channels {channels})"
        )
    E_C = np.linalg.solve(IpD, C)
    E = np.linalg.inv(IpD)
    return A - B @ E_C, B @ E, -E_C, E


def _stable(A, dt) -> bool:
    if A.shape[0] == 0:
        return True
    # poles of the balanced A: a stiff loop's slow poles keep their relative accuracy
    ev = pole_bands(A, dt)[0]
    if dt:
        return bool(np.all(np.abs(ev) < 1.0))
    return bool(np.all(ev.real < 0.0))


def _response(sysdata, omega, dt):
    A, B, C, D = sysdata
    data = (A, B, C, D, dt) if dt else (A, B, C, D)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return freqresp(data, np.asarray(omega, dtype=float))


# ---------------------------------------------------------------------------------------
# Loop-at-a-time (exact, whole axis) and multiloop (mu, certified whole axis)
# ---------------------------------------------------------------------------------------
def _channel_margins(S, dt, skew, omega):
    """Loop-at-a-time margins ``1 / ||S_jj - a||`` and their critical data per channel."""
    As, Bs, Cs, Ds = S
    n = Ds.shape[0]
    a, b = _skew_coefficients(skew)
    alpha = np.empty(n)
    freq = np.empty(n)
    factors = np.empty(n, dtype=complex)
    for j in range(n):
        sub = (As, Bs[:, [j]], Cs[[j]], Ds[[j]][:, [j]] - a)
        if omega is None:
            gamma, w0 = hinfnorm(sub + (dt,))
        else:
            values = np.abs(_response(sub, omega, dt)[:, 0, 0])
            k = int(np.argmax(values))
            gamma, w0 = float(values[k]), float(omega[k])
        if gamma == 0.0:
            alpha[j], freq[j], factors[j] = np.inf, np.nan, np.nan
            continue
        alpha[j], freq[j] = 1.0 / gamma, w0
        s0 = _response(sub, [w0], dt)[0, 0, 0]
        delta0 = 1.0 / s0
        factors[j] = _factor(delta0, a, b)
    return alpha, freq, factors


def _unstable_margin(channels, skew, omega_boundary=np.nan) -> DiskMargin:
    return DiskMargin(
        0.0,
        0.0,
        0.0,
        float(omega_boundary),
        skew,
        tuple(channels),
        np.zeros(0, complex),
        np.zeros(0, complex),
        True,
        False,
    )


def _boundary_frequency(A, dt) -> float:
    """Frequency of the closed-loop pole nearest the stability boundary (unstable loops)."""
    ev = np.linalg.eigvals(A)
    if dt:
        k = int(np.argmin(np.abs(np.abs(ev) - 1.0)))
        return float(abs(np.angle(ev[k])) / dt)
    k = int(np.argmin(np.abs(ev.real)))
    return float(abs(ev[k].imag))


def _multiloop_margin(S, dt, skew, channels, loop_alpha, loop_freq, loop_f, omega):
    """Multiloop margin from mu with one complex scalar per channel."""
    from robustmb.analysis.mu_sweep import certified_mu_peak, default_grid

    As, Bs, Cs, Ds = S
    n = Ds.shape[0]
    a, b = _skew_coefficients(skew)
    M = (As, Bs, Cs, Ds - a * np.eye(n))
    blk = [(1, 0)] * n
    grid = omega if omega is not None else default_grid(As, dt)
    complex_data = any(np.iscomplexobj(X) and np.any(np.imag(X)) for X in M)
    if complex_data:
        # Complex coefficients: |M(-jw)| differs from |M(jw)|, and the interval covering
        # assumes a real model.  Grid both signs; certify with ||M||_inf below.
        grid = np.concatenate([-grid[::-1], grid])
        if dt:
            grid = grid[grid > -np.pi / dt]
    peak = _mu_peak_or_none(certified_mu_peak, M, blk, dt, omega=grid)
    if omega is not None:
        mu_upper = float(peak.upper) if peak is not None else np.inf
        certified = False
    else:
        # mu <= sigma_max at every frequency, so ||M||_inf certifies the whole axis too;
        # when it is as good as the grid values, no interval covering is needed.
        gamma, _ = hinfnorm(M + (dt,))
        mu_upper, certified = gamma, True
        needs_cover = peak is not None and peak.upper * (1.0 + _MU_REL_GAP) < gamma
        if needs_cover and not complex_data:
            # (Complex coefficients: the interval covering assumes a real model.)
            cover = _mu_peak_or_none(certified_mu_peak, M, blk, dt, rel_gap=_MU_REL_GAP)
            if cover is not None and cover.covered:
                mu_upper = min(float(cover.upper), gamma)
                if cover.lower > peak.lower:
                    peak = cover
            else:
                warnings.warn(
                    "diskmargin: the mu certificate did not cover the whole frequency axis; "
                    "the multiloop lower bound falls back to 1/||S + (skew-1)/2 I||_inf",
                    RuntimeWarning,
                    stacklevel=3,
                )
    lower = 0.0 if not np.isfinite(mu_upper) else (np.inf if mu_upper == 0 else 1.0 / mu_upper)
    # Upper bound: the mu lower bound, or a single-channel perturbation if that is smaller.
    j = int(np.argmin(loop_alpha))
    upper, frequency = float(loop_alpha[j]), float(loop_freq[j])
    delta = np.zeros(n, dtype=complex)
    factors = np.ones(n, dtype=complex)
    if np.isfinite(upper):
        delta[j] = (loop_f[j] - 1.0) / (a + b * loop_f[j]) if np.isfinite(loop_f[j]) else 1 / b
        factors[j] = loop_f[j]
    if (
        peak is not None
        and peak.lower > 0
        and 1.0 / peak.lower < upper
        and peak.lower_delta is not None
    ):
        upper, frequency = 1.0 / float(peak.lower), float(peak.lower_frequency)
        delta = np.diag(np.asarray(peak.lower_delta)).astype(complex)
        factors = _factor(delta, a, b)
    lower = min(lower, upper)
    return DiskMargin(
        lower, lower, upper, frequency, skew, tuple(channels), factors, delta, certified, True
    )


def _mu_peak_or_none(certified_mu_peak, *args, **kwargs):
    """``certified_mu_peak`` or None when the mu optimiser breaks down numerically."""
    try:
        return certified_mu_peak(*args, **kwargs)
    except np.linalg.LinAlgError:
        return None


def _margins_of_loop(data, skew, omega, *, multiloop=True):
    """``(LoopMargins, DiskMargin)`` of a loop given as ``(A, B, C, D, dt, channels)``."""
    A, B, Cm, D, dt, channels = data
    n = D.shape[0]
    S = _sensitivity(A, B, Cm, D, channels)
    if not _stable(S[0], dt):
        w_b = _boundary_frequency(S[0], dt)
        loops = LoopMargins(
            tuple(channels),
            np.zeros(n),
            np.full(n, w_b),
            np.full(n, np.nan + 0j),
            skew,
            False,
            True,
        )
        return loops, _unstable_margin(channels, skew, w_b)
    alpha, freq, factors = _channel_margins(S, dt, skew, omega)
    certified = omega is None
    loops = LoopMargins(tuple(channels), alpha, freq, factors, skew, True, certified)
    if n == 1:
        return loops, loops[0]
    if not multiloop:
        return loops, None
    return loops, _multiloop_margin(S, dt, skew, channels, alpha, freq, factors, omega)


def _check_omega(omega):
    if omega is None:
        return None
    omega = np.atleast_1d(np.asarray(omega, dtype=float))
    if omega.ndim != 1 or omega.size == 0 or np.any(np.isnan(omega)) or np.any(omega < 0):
        raise DimensionError(
            f"omega must be a non-empty 1-D array of frequencies >= 0; got {omega}"
        )
    return omega


def diskmargin(L, C=None, *, skew=0.0, omega=None) -> DiskMarginResult:
    """Disk-based stability margins of the negative-feedback loop ``feedback(L, I)``.

    Parameters
    ----------
    L : control.StateSpace, control.TransferFunction, array_like or tuple
        Square loop transfer (``L = C P`` for margins at the plant inputs, ``L = P C`` at
        the outputs), continuous or discrete time; or the plant ``P`` when ``C`` is given.
    C : LTI model, optional
        Controller of the loop ``u = -C y``, ``y = P u``.  Then the channels are the plant
        outputs followed by the plant inputs (MATLAB's ``diskmargin(P, C)``): the multiloop
        margin perturbs all of them at once, ``output`` / ``input`` perturb one side only.
    skew : float, optional
        Skew ``sigma`` of the disk (0: balanced gain increase/decrease; > 0 biased towards
        gain increase; 1 gives ``1/||S||_inf``, -1 gives ``1/||T||_inf``).
    omega : array_like, optional
        Analyse only these frequencies (rad/s) instead of the whole axis: the margins are
        then upper bounds of the true ones (the minimum over the given frequencies).

    Returns
    -------
    DiskMarginResult
        ``loop_at_a_time`` (exact, per channel) and ``multiloop`` (``lower``/``upper``
        bounds from mu; exact for a single loop).

    Raises
    ------
    DimensionError
        Non-square loop, mismatched plant/controller sizes or sampling times, bad ``skew``
        or ``omega``.
    IllPosedError
        When ``I + L(inf)`` is singular.
    UncertainTypeError
        For uncertain loops (use :func:`wcdiskmargin`).

    Notes
    -----
    When the nominal closed loop is unstable every margin is 0 (``stable`` is False).
    Loop-at-a-time and single-loop margins are exact to the relative tolerance of
    :func:`.norms.hinfnorm`.  The multiloop ``lower`` bound is certified on every frequency;
    ``upper`` is the size of an actual destabilising perturbation (never above the smallest
    loop-at-a-time margin).

    Examples
    --------
    >>> import control
    >>> L = control.tf(25, [1, 10, 10, 10])      # Seiler, Packard & Gahinet (2020)
    >>> dm = diskmargin(L)
    >>> round(dm.alpha, 4), round(dm.frequency, 3), round(dm.phase_margin, 2)
    (0.4581, 1.955, 25.8)
    >>> [round(g, 4) for g in dm.gain_margin]
    [0.6273, 1.5942]
    >>> f = dm.worst_perturbation[0]               # puts a closed-loop pole at j*frequency
    >>> bool(abs(1 + f * control.evalfr(L, 1j * dm.frequency)) < 1e-8)
    True
    """
    skew = _check_skew(skew)
    omega = _check_omega(omega)
    data = _loop_data(L, C)
    loops, multi = _margins_of_loop(data, skew, omega)
    output = input_ = None
    if C is not None:
        A, B, Cm, D, dt, channels = data
        ny = _as_dims(L)[0]
        output = _one_side(L, C, skew, omega, side="output", channels=channels[:ny])
        input_ = _one_side(L, C, skew, omega, side="input", channels=channels[ny:])
    return DiskMarginResult(loops, multi, skew, output, input_)


def _as_dims(P):
    return as_statespace_data(_plain(P), argname="P")[3].shape


def _series_data(first, second):
    """``second * first`` (first applied first) as plain state-space data."""
    A1, B1, C1, D1, dt1 = first
    A2, B2, C2, D2, dt2 = second
    n1, n2 = A1.shape[0], A2.shape[0]
    dtype = np.result_type(A1, A2, D1, D2, float)
    A = np.zeros((n1 + n2, n1 + n2), dtype)
    A[:n1, :n1] = A1
    A[n1:, :n1] = B2 @ C1
    A[n1:, n1:] = A2
    B = np.vstack([B1, B2 @ D1])
    C = np.hstack([D2 @ C1, C2])
    D = D2 @ D1
    return A, B, C, D, dt1 or dt2


def _one_side(P, C, skew, omega, *, side, channels):
    """Multiloop margin at the plant outputs (loop ``P C``) or inputs (loop ``C P``)."""
    p = as_statespace_data(_plain(P), argname="P")
    c = as_statespace_data(_plain(C), argname="C")
    A, B, Cm, D, dt = _series_data(c, p) if side == "output" else _series_data(p, c)
    _, multi = _margins_of_loop((A, B, Cm, D, dt, list(channels)), skew, omega)
    return multi


# ---------------------------------------------------------------------------------------
# Worst case over uncertainty
# ---------------------------------------------------------------------------------------
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


def _mussv_upper(stack, blk):
    """Upper bounds of mu on a stack; other random starts if the optimiser breaks down."""
    from robustmb.analysis.mussv import mussv

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
    alpha, _, _ = _channel_margins(Ssub, dt, skew, None)
    best = float(np.min(alpha))
    if len(idx) > 1:
        from robustmb.analysis.mussv import mussv

        a, _ = _skew_coefficients(skew)
        resp = _response(Ssub, grid, dt) - a * np.eye(len(idx))
        low = float(np.max(np.asarray(mussv(resp, [(1, 0)] * len(idx)).lower)))
        if low > 0:
            best = min(best, 1.0 / low)
    return best


def _candidate_values(problem, deltas, frequencies):
    """Physical values of the uncertainty parts of mu lower-bound perturbations."""
    from robustmb.analysis.uncertain_problem import values_from_delta

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
    """Vertices of the real-parameter box (other elements at nominal) when few enough."""
    reals = [bi for bi in problem.blocks if bi.kind == "real"]
    k = len(reals)
    if k == 0 or 2**k > limit:
        return []
    from robustmb.analysis.uncertain_problem import box_vertices

    corners = box_vertices(k)
    return [
        {bi.name: float(bi.element.denormalize(x)) for bi, x in zip(reals, c, strict=True)}
        for c in corners
    ]


def wcdiskmargin(L, C=None, *, skew=0.0, mode="mimo", omega=None):
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

    Notes
    -----
    The uncertainty is normalised about the centres of the declared ranges, so the set
    analysed is exactly the declared one.  A ``lower`` of 0 means that the uncertainty alone
    can destabilise the loop (or that no certificate was found).

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
    if mode not in ("mimo", "siso"):
        raise DimensionError(f"wcdiskmargin: mode must be 'mimo' or 'siso'; got {mode!r}")
    loop, names = _uncertain_loop(L, C)

    from robustmb.analysis.mu_sweep import certified_mu_peak, default_grid
    from robustmb.analysis.mussv import mussv
    from robustmb.analysis.uncertain_problem import uncertain_problem

    problem = uncertain_problem(loop, what="wcdiskmargin")
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
        certified = False
        lower = 0.0
        if np.all(np.isfinite(levels)):
            # Margin over the pointwise levels so that the certified level stays <= 1.
            beta = float(np.max(levels)) * (1.0 + 2.0 * _WC_REL_GAP)
            if omega is not None:
                lower = 1.0 / beta if beta > 0 else np.inf
            else:
                for _ in range(6):
                    try:
                        peak = certified_mu_peak(
                            _scaled_rows(M, problem.nz, beta),
                            blk,
                            problem.dt,
                            rel_gap=_WC_REL_GAP,
                        )
                    except np.linalg.LinAlgError:
                        # The mu optimiser broke down on some frequency: try another level.
                        beta *= 1.0 + _WC_REL_GAP
                        continue
                    if peak.covered and peak.upper <= 1.0:
                        lower, certified = (1.0 / beta if beta > 0 else np.inf), True
                        break
                    grow = peak.upper**2 if np.isfinite(peak.upper) else 2.0
                    beta *= max(1.0 + _WC_REL_GAP, grow)
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
        lower = min(lower, upper)
        results.append(
            WorstCaseDiskMargin(
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
        )
    return results[0] if mode == "mimo" else results


def _nominal_values(problem):
    out = {}
    for bi in problem.blocks:
        out[bi.name] = bi.element.nominal
    return out


def _uncertain_loop(L, C):
    """The uncertain loop (``L`` or ``[[0, P], [-C, 0]]``) and its channel names."""
    from robustmb.lft import hstack, uss, vstack

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
