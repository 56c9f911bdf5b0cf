"""Printed bounds rounded outwards: a lower bound never shown above, an upper never below.

A certified bound printed to a few significant digits must still be a bound: rounding
to nearest can turn the stability margin ``0.1999999`` into "0.2" (ranges of 20 %
guaranteed stable, while parameters within 20 % may destabilise).  Lower bounds are
therefore rounded towards ``-inf`` and upper bounds towards ``+inf``, on the exact
binary value of the float (:class:`decimal.Decimal`), so no representation error can
round the wrong way.
"""

from __future__ import annotations

import decimal

import numpy as np

from ..errors import ArgumentError

__all__ = [
    "fmt_against",
    "fmt_bound",
    "fmt_lower",
    "fmt_point",
    "fmt_spec",
    "fmt_upper",
    "special_text",
]


def special_text(x):
    """The report's text for a value that is not an ordinary number, else None:
    ``None`` -> ``"-"``, NaN -> ``"n/a"``, infinities -> ``"inf"`` / ``"-inf"``.

    Examples
    --------
    >>> special_text(None), special_text(float("nan")), special_text(-float("inf"))
    ('-', 'n/a', '-inf')
    >>> special_text(1.5) is None
    True
    """
    if x is None:
        return "-"
    x = float(x)
    if np.isnan(x):
        return "n/a"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return None


def fmt_bound(x, side, digits=4, scale=1):
    """``scale * x`` with ``digits`` significant digits, rounded down (``side="lower"``) or up.

    ``scale`` (an integer, e.g. 100 for a percentage) multiplies the exact value, so the
    product is not rounded before the outward rounding.

    ``None`` gives ``"-"``, NaN ``"n/a"``, infinities ``"inf"`` / ``"-inf"`` (as the
    report's other numbers).

    Examples
    --------
    >>> fmt_bound(0.19999999, "lower"), fmt_bound(0.19999999, "upper")
    ('0.1999', '0.2')
    >>> fmt_bound(2.0000000002, "upper"), fmt_bound(-1.23456, "lower")
    ('2.001', '-1.235')
    >>> fmt_bound(9.99951, "upper"), fmt_bound(123456.7, "lower")
    ('10', '1.234e+05')
    >>> fmt_bound(0.2, "lower"), fmt_bound(float("inf"), "upper")
    ('0.2', 'inf')
    """
    if side not in ("lower", "upper"):
        raise ArgumentError(f"side must be 'lower' or 'upper', got {side!r}")
    special = special_text(x)
    if special is not None:
        return special
    x = float(x)
    if x == 0:
        return "0"
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        exact = decimal.Decimal(x) * int(scale)  # the float's exact binary value, scaled
    quantum = decimal.Decimal(1).scaleb(exact.adjusted() - digits + 1)
    mode = decimal.ROUND_FLOOR if side == "lower" else decimal.ROUND_CEILING
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        rounded = exact.quantize(quantum, rounding=mode)
    # the rounded decimal has at most `digits` significant digits: the float nearest to
    # it prints back as exactly those digits (in the usual format), except where floats
    # are coarser than that (subnormals): the decimal itself is printed then
    text = f"{float(rounded):.{digits}g}"
    return text if decimal.Decimal(text) == rounded else f"{rounded.normalize():g}"


def fmt_lower(x, digits=4, scale=1):
    """A lower bound rounded down (see :func:`fmt_bound`).

    Examples
    --------
    >>> fmt_lower(19.99990001, 3), fmt_lower(0.1999999, 3, scale=100)
    ('19.9', '19.9')
    """
    return fmt_bound(x, "lower", digits, scale)


def fmt_upper(x, digits=4, scale=1):
    """An upper bound rounded up (see :func:`fmt_bound`).

    Examples
    --------
    >>> fmt_upper(1.370681, 3)
    '1.38'
    """
    return fmt_bound(x, "upper", digits, scale)


def fmt_spec(x):
    """A specification (a number the user gave) printed exactly: the shortest text that
    reads back as the same float, without a trailing ``.0``.

    Examples
    --------
    >>> fmt_spec(1.00004), fmt_spec(2.0), fmt_spec(1.6)
    ('1.00004', '2', '1.6')
    """
    special = special_text(x)
    if special is not None:
        return special
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def fmt_against(x, side, spec, digits=4):
    """A bound rounded outwards (:func:`fmt_bound`) with enough digits to show on which
    side of ``spec`` it lies: an upper bound that meets the specification is never printed
    above it, a lower bound that exceeds it never printed at or below it.

    When no rounding to 17 digits or fewer does (a bound within a few units in the last
    place of ``spec``), the shortest text that reads back as ``x`` itself is printed.

    Examples
    --------
    >>> fmt_upper(1.00002), fmt_against(1.00002, "upper", 1.00004)
    ('1.001', '1.00002')
    >>> fmt_lower(1.00001), fmt_against(1.00001, "lower", 1.0)
    ('1', '1.00001')
    >>> fmt_against(0.5, "upper", 1.0), fmt_against(1.00004, "upper", 1.00004)
    ('0.5', '1.00004')
    >>> fmt_against(float("inf"), "lower", 1.0)
    'inf'
    """
    text = fmt_bound(x, side, digits)
    if special_text(x) is not None or special_text(spec) is not None:
        return text
    x, exact_spec = float(x), decimal.Decimal(float(spec))
    for d in range(digits, 18):
        text = fmt_bound(x, side, d)
        shown = decimal.Decimal(text)  # compared exactly with the float spec
        if side == "upper" and (x > spec or shown <= exact_spec):
            return text
        if side == "lower" and (x <= spec or shown > exact_spec):
            return text
    return fmt_spec(x)


def fmt_point(x, spec, digits=4):
    """A computed value (e.g. a nominal peak gain, neither bound) rounded to nearest, with
    enough digits to show on which side of ``spec`` it lies (see :func:`fmt_against`).

    Examples
    --------
    >>> fmt_point(1.00006, 1.00005), fmt_point(1.00004, 1.00005), fmt_point(0.5, 1)
    ('1.0001', '1', '0.5')
    """
    special = special_text(x)
    if special is not None:
        return special
    x, spec = float(x), float(spec)
    for d in range(digits, 18):
        text = f"{x:.{d}g}"  # to nearest: a value, not a bound
        if (float(text) > spec) == (x > spec):
            return text
    return fmt_spec(x)
