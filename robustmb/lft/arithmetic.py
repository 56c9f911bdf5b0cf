"""Arithmetic of uncertain operands, python-control transfer functions included.

``k / (s + a)`` written with ``s = control.tf('s')`` is transfer-function
arithmetic with uncertain coefficients (:mod:`.rational`); everything else is
exact LFT algebra (:mod:`.algebra`).  Each function here tries the first and
falls back to the second, so the operators of uncertain objects
(:mod:`.operators`) and the interconnections :func:`series` and
:func:`parallel` accept either kind of operand.
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from ..errors import ArgumentError, UncertainTypeError
from . import algebra
from .model import UncertainModel, as_model
from .rational import UncertainRational, maybe_rational

_OPS = {"add": "+", "mul": "*", "matmul": "@", "div": "/"}


def _describe(x):
    if isinstance(x, UncertainRational):
        return f"<uncertain rational of degrees {len(x.num) - 1}/{len(x.den) - 1}>"
    if isinstance(x, UncertainModel):
        return f"{type(x).__name__} {x.name!r} {x.shape[0]}x{x.shape[1]}"
    return type(x).__name__


def _check_proper(op, *xs):
    """Refuse an improper rational operand, naming the operation it is in."""
    for x in xs:
        if isinstance(x, UncertainRational) and not x.is_proper:
            raise UncertainTypeError(
                f"cannot compute '{' '.join(_describe(v) for v in xs[:1])} {_OPS[op]} "
                f"{' '.join(_describe(v) for v in xs[1:])}': the operand {_describe(x)} is an "
                f"improper transfer function (numerator degree {len(x.num) - 1} above "
                f"denominator degree {len(x.den) - 1}) with no state-space realization. "
                "Group the expression so that it meets a proper factor first, e.g. "
                "G / (s * (tau * s + 1)) rather than G * s / (...)"
            )


def negate(x):
    """``-x``.

    A python-control transfer function is negated by python-control: ``a - s``
    is ``a + (-s)``, and the improper ``-s`` has no state-space realization
    until it meets ``a``.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> s = control.tf("s")
    >>> a = rmb.ureal("a", 2.0)
    >>> G = (a - s) / (s + a)
    >>> complex(G.nominal()(0.0))
    (1+0j)
    """
    rat = maybe_rational("neg", x, None)
    if rat is not None:
        return rat
    if isinstance(x, control.TransferFunction):
        return -x
    return algebra.negate(x)


def add(x, y):
    """``x + y`` with scalar expansion of 1x1 operands.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> (a + 2).nominal()
    array([[3.]])
    >>> s = control.tf("s")
    >>> (1 / (s + a)).blocks  # transfer-function arithmetic: one occurrence of a
    {'a': 1}
    """
    rat = maybe_rational("add", x, y)
    if rat is not None:
        return rat
    _check_proper("add", x, y)
    return algebra.add(x, y)


def _is_rational(*xs):
    """An uncertain rational among the operands: a number scales it in rational
    arithmetic (``(c s) * 2 / s``), since the improper ``c s`` has no LFT yet."""
    return any(isinstance(x, UncertainRational) for x in xs)


def _number(x):
    """A 0-d numpy array or scalar as a Python number (rational coefficients are numbers)."""
    return x.item() if isinstance(x, np.ndarray | np.generic) and np.ndim(x) == 0 else x


def matmul(x, y):
    """Matrix product / series connection ``x @ y`` (``y`` acts first)."""
    scalar = algebra.is_scalar_number(x) or algebra.is_scalar_number(y)
    if scalar and not _is_rational(x, y):
        return algebra.matmul(x, y)
    rat = maybe_rational("mul", _number(x), _number(y))
    if rat is not None:
        return rat
    _check_proper("matmul", x, y)
    return algebra.matmul(x, y)


def multiply(x, y):
    """``x * y``: matrix product, or entrywise scaling when one operand is 1x1."""
    scalar = algebra.is_scalar_number(x) or algebra.is_scalar_number(y)
    if scalar and not _is_rational(x, y):
        return algebra.matmul(x, y)
    rat = maybe_rational("mul", _number(x), _number(y))
    if rat is not None:
        return rat
    _check_proper("mul", x, y)
    return algebra.multiply(x, y)


def divide(x, y):
    """``x / y`` for a scalar or square ``y`` (``x @ inv(y)``; scalar ``y`` scales)."""
    if algebra.is_scalar_number(y) and not (_is_rational(x) and y != 0):
        return algebra.divide(x, y)
    rat = maybe_rational("div", x, _number(y))
    if rat is not None:
        return rat
    if isinstance(y, control.TransferFunction):
        # 1/y is computed in transfer-function arithmetic, where an improper y
        # (such as s + 3) still has a proper inverse.
        return multiply(x, 1 / y)
    if isinstance(y, UncertainRational) and y._inv().is_proper:
        # x / (s (tau s + 1)): the uncertain polynomial's inverse is proper.
        return multiply(x, y._inv()._to_model())
    _check_proper("div", x, y)
    return algebra.divide(x, y)


def power(x, k):
    """Integer power of a square object (negative powers invert)."""
    if isinstance(k, numbers.Integral):
        rat = maybe_rational("pow", x, int(k))
        if rat is not None:
            return rat
    return algebra.power(x, k)


def series(*systems):
    """Series connection ``systems[-1] @ … @ systems[0]`` (first acts first).

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0)
    >>> rmb.series(k, 3.0).nominal()
    array([[6.]])
    """
    if not systems:
        raise ArgumentError("series() needs at least one system")
    out = systems[0]
    for s in systems[1:]:
        out = matmul(s, out)
    return as_model(out)


def parallel(*systems):
    """Parallel connection (sum of the outputs).

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 2.0)
    >>> rmb.parallel(k, 3.0).nominal()
    array([[5.]])
    """
    if not systems:
        raise ArgumentError("parallel() needs at least one system")
    out = systems[0]
    for s in systems[1:]:
        out = add(out, s)
    return as_model(out)


__all__ = ["add", "divide", "matmul", "multiply", "negate", "parallel", "power", "series"]
