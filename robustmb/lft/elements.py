"""Uncertain elements: real parameters, complex parameters and LTI dynamics.

Every element is identified by its name and enters an LFT through a normalised
block: a real parameter ``value = center + half_width * delta`` with ``delta`` in
[-1, 1], a complex parameter ``value = nominal + radius * delta`` with
``|delta| <= 1``, and LTI dynamics ``Delta = bound * delta`` with
``||delta||_inf <= 1``.  The normalised convention is shared by mu-analysis,
reduction and sampling.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import UncertainElementError


def _finite_real(name: str, what: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise UncertainElementError(f"{what} of '{name}' must be a real number, got {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise UncertainElementError(f"{what} of '{name}' must be finite, got {value!r}")
    return value


def _text(name: str, what: str, value) -> str:
    """A unit or description: a string, kept as given."""
    if not isinstance(value, str):
        raise UncertainElementError(f"{what} of '{name}' must be a string, got {value!r}")
    return value


def _check_name(name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise UncertainElementError(
            f"an uncertain element's name must be a valid identifier string, got {name!r}"
        )
    return name


class UncertainElement:
    """Base class of uncertain elements (``ureal``, ``ucomplex``, ``ultidyn``).

    Attributes
    ----------
    name : str
        Identifier; objects built from elements of the same name share them.
    kind : {"real", "complex", "ltidyn"}
        What the normalised block is.
    block_shape : tuple of int
        ``(p, m)``: the block maps ``m`` z-channels to ``p`` w-channels.
    unit, description : str
        What the parameter is, for reports (``""`` when not given).  They
        describe the element but do not define it: two declarations under one
        name need not repeat them.

    Elements combine with ``+ - * @ /`` into uncertain objects; those operators
    are attached by :mod:`robustmb.lft.operators`, above the LFT algebra.
    """

    kind = ""
    block_shape = (1, 1)
    # numpy must hand mixed operations to the operators instead of building object arrays.
    __array_ufunc__ = None
    __array_priority__ = 1000
    # Tunable elements (robustmb.tuning.realp) share the Delta structure but are
    # design variables: nominal() and usample() leave them free.
    tunable = False
    unit = ""
    description = ""

    def _describe_as(self, unit, description):
        self.unit = _text(self.name, "unit", unit)
        self.description = _text(self.name, "description", description)

    def _definition(self) -> tuple:
        """Everything that defines the element (two elements with one name must agree)."""
        raise NotImplementedError  # pragma: no cover - abstract

    def same_as(self, other) -> bool:
        """True when ``other`` declares exactly this element."""
        return type(self) is type(other) and self._definition() == other._definition()

    @property
    def is_scalar(self) -> bool:
        return self.kind in ("real", "complex")


class ureal(UncertainElement):
    """Uncertain real parameter.

    Parameters
    ----------
    name : str
        Name of the parameter.
    nominal : float
        Nominal value; it must lie in the range and need not be its centre.
    range : (float, float), optional
        ``(lo, hi)`` with ``lo < hi``.
    percent : float or (float, float), optional
        Half-width as a percentage of ``|nominal|``; a pair ``(-pl, pu)``
        (first entry <= 0, as in MATLAB) gives an asymmetric range.
    plusminus : float or (float, float), optional
        Half-width; a pair ``(-dl, du)`` (first entry <= 0) gives
        ``[nominal - dl, nominal + du]``.  Default 1.0 when no range is given.
    unit, description : str, optional
        Physical unit and meaning of the parameter, shown by reports.

    Notes
    -----
    The element enters an LFT affinely, ``value = center + half_width * delta``
    with ``delta`` in [-1, 1] and ``center`` the middle of the range.

    Examples
    --------
    >>> import robustmb as rmb
    >>> m = rmb.ureal("m", 2.0, percent=20)
    >>> m.range
    (1.6, 2.4)
    >>> k = rmb.ureal("k", 1.0, plusminus=(-0.5, 1.0))
    >>> k.range, k.center
    ((0.5, 2.0), 1.25)
    >>> rmb.ureal("m1", 2.5, percent=20, unit="kg", description="mass of link 1").unit
    'kg'
    """

    kind = "real"

    def __init__(
        self,
        name,
        nominal,
        *,
        range=None,
        percent=None,
        plusminus=None,
        unit="",
        description="",
    ):
        self.name = _check_name(name)
        self._describe_as(unit, description)
        self.nominal = _finite_real(name, "nominal", nominal)
        given = [
            k
            for k, v in (("range", range), ("percent", percent), ("plusminus", plusminus))
            if v is not None
        ]
        if len(given) > 1:
            raise UncertainElementError(
                f"ureal '{name}': give only one of range, percent, plusminus (got {given})"
            )
        if not given:
            plusminus = 1.0
        if range is not None:
            lo, hi = self._pair(range, "range")
        elif percent is not None:
            if self.nominal == 0.0:
                raise UncertainElementError(
                    f"ureal '{name}': percent uncertainty needs a nonzero nominal value"
                )
            dlo, dhi = self._deviation(percent, "percent")
            scale = abs(self.nominal) / 100.0
            lo, hi = self.nominal - dlo * scale, self.nominal + dhi * scale
        else:
            dlo, dhi = self._deviation(plusminus, "plusminus")
            lo, hi = self.nominal - dlo, self.nominal + dhi
        if not all(math.isfinite(v) for v in (lo, hi, hi - lo, lo + hi)):
            raise UncertainElementError(
                f"ureal '{name}': the range [{lo}, {hi}] overflows double precision; "
                "rescale the parameter (e.g. choose other units)"
            )
        if not lo < hi:
            raise UncertainElementError(
                f"ureal '{name}': the range [{lo}, {hi}] is empty or has zero width"
            )
        if not lo <= self.nominal <= hi:
            raise UncertainElementError(
                f"ureal '{name}': nominal {self.nominal} lies outside the range [{lo}, {hi}]"
            )
        self.range = (lo, hi)

    def _pair(self, value, what):
        if isinstance(value, str | bytes):  # unpacking "02" would read it as (0, 2)
            raise UncertainElementError(
                f"ureal '{self.name}': {what} must be a pair (lo, hi) of numbers, got {value!r}"
            )
        try:
            lo, hi = value
        except (TypeError, ValueError):
            raise UncertainElementError(
                f"ureal '{self.name}': {what} must be a pair (lo, hi), got {value!r}"
            ) from None
        return _finite_real(self.name, what, lo), _finite_real(self.name, what, hi)

    def _deviation(self, value, what):
        """Return positive (down, up) deviations from a number or a (-down, up) pair."""
        if isinstance(value, str | bytes):  # unpacking "20" would read it as (2, 0)
            raise UncertainElementError(
                f"ureal '{self.name}': {what} must be a number or a pair (-down, up), got {value!r}"
            )
        if isinstance(value, numbers.Real):
            d = _finite_real(self.name, what, value)
            if d < 0:
                raise UncertainElementError(f"ureal '{self.name}': {what} must be >= 0, got {d}")
            return d, d
        minus, plus = self._pair(value, what)
        if minus > 0 or plus < 0:
            raise UncertainElementError(
                f"ureal '{self.name}': a {what} pair is (-down, up) with the first entry <= 0 "
                f"and the second >= 0, got {value!r}"
            )
        return -minus, plus

    @property
    def center(self) -> float:
        """Middle of the range (the value at ``delta = 0``)."""
        return 0.5 * (self.range[0] + self.range[1])

    @property
    def half_width(self) -> float:
        """Half the range's width (the LFT scale of ``delta``)."""
        return 0.5 * (self.range[1] - self.range[0])

    def normalize(self, value):
        """Map physical value(s) to ``delta`` (in [-1, 1] inside the range)."""
        value = np.asarray(value)
        if np.iscomplexobj(value) and np.any(np.imag(value) != 0):
            raise UncertainElementError(f"ureal '{self.name}' cannot take a complex value")
        value = np.real(value).astype(float)
        if not np.all(np.isfinite(value)):
            raise UncertainElementError(f"value of ureal '{self.name}' must be finite")
        # from the lower end, not the centre: exactly -1 and 1 at the ends (x / x = 1),
        # and no rounding of the centre on a narrow range far from zero
        lo, hi = self.range
        return 2.0 * ((value - lo) / (hi - lo)) - 1.0

    def denormalize(self, delta):
        """Map normalised ``delta`` to physical value(s)."""
        return self.center + self.half_width * np.asarray(delta, dtype=float)

    def sample_normalized(self, rng, n):
        return rng.uniform(-1.0, 1.0, size=n)

    def _definition(self):
        return ("real", self.nominal, self.range)

    def __repr__(self):
        return f"ureal({self.name!r}, {self.nominal!r}, range={self.range!r})"


class ucomplex(UncertainElement):
    """Uncertain complex parameter in the disc ``|value - nominal| <= radius``.

    ``unit`` and ``description`` (strings, optional) are shown by reports.

    Examples
    --------
    >>> import robustmb as rmb
    >>> c = rmb.ucomplex("c", 1 + 2j, radius=0.5)
    >>> c.nominal, c.radius
    ((1+2j), 0.5)
    """

    kind = "complex"

    def __init__(self, name, nominal, *, radius=1.0, unit="", description=""):
        self.name = _check_name(name)
        self._describe_as(unit, description)
        if isinstance(nominal, bool) or not isinstance(nominal, numbers.Complex):
            raise UncertainElementError(
                f"nominal of ucomplex '{name}' must be a number, got {nominal!r}"
            )
        if not (math.isfinite(nominal.real) and math.isfinite(nominal.imag)):
            raise UncertainElementError(f"nominal of ucomplex '{name}' must be finite")
        self.nominal = complex(nominal)
        self.radius = _finite_real(name, "radius", radius)
        if self.radius <= 0:
            raise UncertainElementError(f"ucomplex '{name}': radius must be > 0, got {radius}")

    def normalize(self, value):
        value = np.asarray(value, dtype=complex)
        if not np.all(np.isfinite(value)):
            raise UncertainElementError(f"value of ucomplex '{self.name}' must be finite")
        return (value - self.nominal) / self.radius

    def denormalize(self, delta):
        return self.nominal + self.radius * np.asarray(delta, dtype=complex)

    def sample_normalized(self, rng, n):
        # Uniform in the unit disc: radius sqrt(U) makes the area density uniform.
        return np.sqrt(rng.uniform(0, 1, n)) * np.exp(2j * np.pi * rng.uniform(0, 1, n))

    def _definition(self):
        return ("complex", self.nominal, self.radius)

    def __repr__(self):
        return f"ucomplex({self.name!r}, {self.nominal!r}, radius={self.radius!r})"


class ultidyn(UncertainElement):
    """Unstructured LTI uncertainty ``Delta`` of shape ``(ny, nu)`` with ``||Delta||_inf <= bound``.

    ``shape`` is a pair of positive integers, or one integer ``n`` for an
    ``n x n`` block.

    Its nominal value is zero.  Samples are stable first-order all-pass
    systems times a random contraction, so each sample's peak gain is known
    exactly (at most ``bound``).  ``unit`` and ``description`` (strings,
    optional) are shown by reports.

    Examples
    --------
    >>> import robustmb as rmb
    >>> d = rmb.ultidyn("d", (2, 3), bound=0.1)
    >>> d.shape, d.bound
    ((2, 3), 0.1)
    >>> rmb.ultidyn("e", 1).shape
    (1, 1)
    """

    kind = "ltidyn"

    def __init__(self, name, shape, *, bound=1.0, unit="", description=""):
        self.name = _check_name(name)
        self._describe_as(unit, description)
        if isinstance(shape, str):
            raise UncertainElementError(
                f"ultidyn '{name}': shape must be a pair (ny, nu) or one integer, got {shape!r}"
            )
        if isinstance(shape, numbers.Number) and not isinstance(shape, bool):
            shape = (shape, shape)  # ultidyn("D", n): an n x n block, as MATLAB's iosize n
        try:
            dims = tuple(shape)
        except TypeError:
            dims = ()
        if len(dims) != 2:
            raise UncertainElementError(
                f"ultidyn '{name}': shape must be a pair (ny, nu) or one integer, got {shape!r}"
            )
        for what, v in zip(("ny", "nu"), dims, strict=True):
            if (
                isinstance(v, bool)
                or not isinstance(v, numbers.Real)
                or not math.isfinite(v)
                or v != int(v)
            ):
                raise UncertainElementError(
                    f"ultidyn '{name}': shape entry {what} must be an integer, got {v!r}"
                )
            if v < 1:
                raise UncertainElementError(
                    f"ultidyn '{name}': shape entry {what} must be >= 1, got {v!r}"
                )
        ny, nu = (int(v) for v in dims)
        self.shape = (ny, nu)
        self.block_shape = (ny, nu)
        self.bound = _finite_real(name, "bound", bound)
        if self.bound <= 0:
            raise UncertainElementError(f"ultidyn '{name}': bound must be > 0, got {bound}")

    @property
    def nominal(self):
        return np.zeros(self.shape)

    def _definition(self):
        return ("ltidyn", self.shape, self.bound)

    def __repr__(self):
        return f"ultidyn({self.name!r}, {self.shape!r}, bound={self.bound!r})"
