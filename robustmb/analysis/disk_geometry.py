"""Disks of gain/phase factors and the gain and phase margins they guarantee.

A disk margin ``alpha`` with skew ``sigma`` allows every factor
``f = (1 + a delta) / (1 - b delta)``, ``|delta| < alpha``, ``a = (1 - sigma)/2``,
``b = (1 + sigma)/2``, on a loop channel (Seiler, Packard & Gahinet, "An
introduction to disk margins", IEEE Control Systems Magazine 40(5), 2020).

Disk geometry.  ``f`` belongs to the disk when ``|f - 1| < alpha |a + b f|``.  Its real-axis
intercepts (the disk-based gain margin) are ``(1 - a alpha)/(1 + b alpha)`` and
``(1 + a alpha)/(1 - b alpha)`` (``+inf`` once ``b alpha >= 1``: the disk becomes a half
plane, then the outside of a circle).  For ``f = exp(j phi)`` the condition reads
``sin^2(phi/2) < alpha^2 / (4 + (1 - sigma^2) alpha^2)``, which gives the disk-based phase
margin; for ``sigma = 0`` it is ``2 atan(alpha/2)``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from robustmb.errors import DimensionError

__all__ = ["Disk", "dm2gm", "gm2dm"]


# Largest modulus of the skew.  The disk's real-axis intercepts amplify a relative error
# of its size by about |sigma| (for sigma -> -inf, gmin = (1 - a alpha)/(1 + b alpha) has
# a denominator of order 1/|sigma|), and a margin is known to about 1e-12: beyond 1e6 the
# gain margins would be set by rounding (at -1e15, 5/(s - 1) came out with gmin = 0
# against the true 0.2).
_SKEW_LIMIT = 1e6


def _check_skew(skew) -> float:
    if isinstance(skew, bool) or not isinstance(skew, numbers.Real):
        raise DimensionError(f"skew must be a finite real number; got {skew!r}")
    try:
        value = float(skew)
    except OverflowError:
        value = np.inf
    if not np.isfinite(value):
        raise DimensionError(f"skew must be a finite real number; got {skew!r}")
    if not abs(value) <= _SKEW_LIMIT:
        raise DimensionError(
            f"skew must have a modulus of at most 1e6 (beyond, the disk's gain margins are "
            f"set by the rounding of its size, amplified by |skew|); got {skew!r}"
        )
    return value


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


# Relative width up to which a bracket ``[lower, upper]`` of a disk margin counts as exact
# when it contains the half-plane size ``1/b``: hinfnorm's brackets are 1e-12 wide, relaxed
# tenfold at a time where its level-set test is undecided (a supremum at infinite frequency,
# as for 2 / (s + 1): 2e-9 wide).
_HALF_PLANE_RTOL = 1e-8


def _bracket_gain_margin(lower, upper, skew):
    """Gain margins ``(gmin, gmax)`` of the disks of sizes ``lower`` (vectorised).

    The intercepts jump at the edges ``alpha = 1/b`` (``gmax`` reaches ``inf`` only there,
    the disk becomes a half plane) and ``alpha = 1/a`` (``gmin`` reaches ``0`` only there;
    for ``sigma = 0`` both edges are ``2``).  When the bracket ``[lower, upper]`` of the
    margin contains an edge and is at most ``_HALF_PLANE_RTOL`` wide (relative), the
    intercepts are those of the edge, as MATLAB reports (``k/s`` has margin 2 and gain
    margin ``[0, inf]``; ``1/s`` with skew -1 has margin 1 and gain margin ``[0, 2]``),
    not the rounding level ``5e-13`` of a size ``1e-12`` below it; elsewhere those of
    ``lower``.
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    a, b = _skew_coefficients(skew)
    alpha = _snap_to_edge(lower, upper, b, skew)
    alpha = np.where(alpha == lower, _snap_to_edge(lower, upper, a, skew), alpha)
    return _intercepts(alpha, skew)


def _snap_to_edge(lower, upper, coefficient, skew):
    """``1/coefficient`` where the exact bracket ``[lower, upper]`` contains it, else
    ``lower`` (see :func:`_bracket_gain_margin`).  The width allowed shrinks with
    ``|skew|``, which amplifies the distance to the edge in the intercepts."""
    if coefficient <= 0:
        return lower
    edge = 1.0 / coefficient
    ulp = 4.0 * np.finfo(float).eps
    with np.errstate(invalid="ignore"):
        snap = (
            np.isfinite(upper)
            & (lower * (1.0 - ulp) <= edge)
            & (edge <= upper * (1.0 + ulp))
            & (upper - lower <= _HALF_PLANE_RTOL * upper / max(1.0, abs(skew)))
        )
    return np.where(snap, edge, lower)


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
