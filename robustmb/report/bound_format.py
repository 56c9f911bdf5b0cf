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

__all__ = ["fmt_bound", "fmt_lower", "fmt_upper", "special_text"]


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
