"""The operators and operation methods of uncertain objects, attached last.

The data model (:mod:`.elements`, :mod:`.model`, :mod:`.rational`) sits at the
bottom of the LFT core and the operations (:mod:`.algebra`,
:mod:`.substitution`, :mod:`.structural`, ...) above it.  The methods that run
an operation -- ``+ - * @ /``, powers, negation, transpose, ``nominal``,
``usubs``, ``usample`` and ``X[outputs, inputs]`` -- are attached to the data
classes here, at the top, so that no module imports one above it.
:mod:`robustmb.lft` imports this module, so the classes always have them.

``*`` and ``@`` are both the matrix product (series connection), as in
python-control; a 1x1 operand multiplies every entry of the other.  numpy
arrays and python-control systems on the left defer to these methods
(``__array_ufunc__ = None`` on the classes).  python-control's
``TransferFunction.__truediv__`` raises on an operand it cannot convert instead of
returning ``NotImplemented``; it is wrapped so that ``G / a`` with an uncertain ``a``
reaches ``a.__rtruediv__`` (every other operand goes to the original unchanged).
"""

from __future__ import annotations

import functools

import control

from ..errors import DimensionError
from . import algebra, arithmetic, substitution
from .elements import UncertainElement
from .model import UncertainModel, as_model, index_positions
from .rational import UncertainRational
from .structural import sminreal


def _add(self, other):
    return arithmetic.add(self, other)


def _radd(self, other):
    return arithmetic.add(other, self)


def _sub(self, other):
    return arithmetic.add(self, arithmetic.negate(other))


def _rsub(self, other):
    return arithmetic.add(other, arithmetic.negate(self))


def _neg(self):
    return arithmetic.negate(self)


def _pos(self):
    return as_model(self)


def _mul(self, other):
    return arithmetic.multiply(self, other)


def _rmul(self, other):
    return arithmetic.multiply(other, self)


def _matmul(self, other):
    return arithmetic.matmul(self, other)


def _rmatmul(self, other):
    return arithmetic.matmul(other, self)


def _truediv(self, other):
    return arithmetic.divide(self, other)


def _rtruediv(self, other):
    return arithmetic.divide(other, self)


def _pow(self, power):
    return arithmetic.power(self, power)


def _transpose(self):
    """Transpose (every element must be a scalar parameter)."""
    return algebra.transpose(self)


#: Operators of every uncertain object: elements, models and uncertain rationals.
OPERATORS = {
    "__add__": _add,
    "__radd__": _radd,
    "__sub__": _sub,
    "__rsub__": _rsub,
    "__neg__": _neg,
    "__pos__": _pos,
    "__mul__": _mul,
    "__rmul__": _rmul,
    "__matmul__": _matmul,
    "__rmatmul__": _rmatmul,
    "__truediv__": _truediv,
    "__rtruediv__": _rtruediv,
    "__pow__": _pow,
    "T": property(_transpose),
}


def _nominal(self):
    """Value at the nominal values of all elements.

    Returns
    -------
    numpy.ndarray or control.StateSpace
        An array for an uncertain matrix, a state-space model for a system.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 2.0, range=(1.0, 4.0))
    >>> rmb.umat([[a, 1], [0, a * a]]).nominal()
    array([[2., 1.],
           [0., 4.]])
    """
    return substitution.usubs(self, substitution.nominal_values(self.uncertainty))


def _usubs(self, values):
    """Substitute values for uncertain elements.

    Parameters
    ----------
    values : dict
        ``{name: value}`` in physical units: a number for ``ureal`` and
        ``ucomplex``; a matrix or python-control system for ``ultidyn``;
        or an uncertain object, which is substituted as an LFT.  As in
        MATLAB, values outside an element's range (or an ``ultidyn`` value
        beyond its bound) are accepted and evaluated exactly; a boolean is
        refused (``ArgumentError``).

    Returns
    -------
    numpy.ndarray, control.StateSpace or UncertainModel
        The same types as :meth:`nominal` when every element is
        substituted, otherwise an uncertain object of the rest.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> b = rmb.ureal("b", 2.0)
    >>> X = rmb.umat([[a + b]])
    >>> X.usubs({"a": 0.5, "b": 1.5})
    array([[2.]])
    >>> X.usubs({"a": 0.0}).blocks
    {'b': 1}
    >>> X.usubs({"a": 10.0, "b": 1.5})  # outside a's default range [0, 2]: still exact
    array([[11.5]])
    """
    return substitution.usubs(self, values)


def _usample(self, n, *, seed=None):
    """Random samples of the uncertain elements, substituted.

    Parameters
    ----------
    n : int
        Number of samples.
    seed : int or numpy.random.Generator, optional
        Seed for reproducible samples.

    Returns
    -------
    samples : list
        ``n`` substituted objects (arrays or ``control.StateSpace``).
    values : list of dict
        The ``{name: value}`` used for each sample, in physical units.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    >>> samples, values = rmb.umat([[a, 2 * a]]).usample(3, seed=0)
    >>> bool(abs(samples[0][0, 1] - 2 * values[0]["a"]) < 1e-12)
    True
    """
    return substitution.usample(self, n, seed=seed)


def _getitem(self, key):
    """Sub-object ``X[outputs, inputs]`` (positions, slices or signal names).

    The states and occurrences of uncertain elements that the selected channels
    do not depend on are dropped (:func:`~robustmb.lft.structural.sminreal`):
    a channel of a stacked model is analysed as if it had been built alone.
    """
    if not isinstance(key, tuple) or len(key) != 2:
        raise DimensionError(f"index an uncertain object with [outputs, inputs], got {key!r}")
    ny, nu = self.shape
    rows = index_positions(key[0], ny, "output", self._output_names)
    cols = index_positions(key[1], nu, "input", self._input_names)
    return sminreal(algebra.select(self, rows, cols))


#: Methods of uncertain models that run an operation.
MODEL_METHODS = {
    "nominal": _nominal,
    "usubs": _usubs,
    "usample": _usample,
    "__getitem__": _getitem,
}


_UNCERTAIN = (UncertainElement, UncertainModel, UncertainRational)


def _defer_division(original):
    """``TransferFunction.__truediv__`` that leaves uncertain divisors to their
    ``__rtruediv__`` (python-control raises ``TypeError`` on them)."""
    if getattr(original, "defers_to_uncertain", False):
        return original

    @functools.wraps(original)
    def __truediv__(self, other):
        if isinstance(other, _UNCERTAIN):
            return NotImplemented
        return original(self, other)

    __truediv__.defers_to_uncertain = True
    return __truediv__


def _attach():
    control.TransferFunction.__truediv__ = _defer_division(control.TransferFunction.__truediv__)
    for cls in _UNCERTAIN:
        for name, value in OPERATORS.items():
            setattr(cls, name, value)
    for name, func in MODEL_METHODS.items():
        func.__name__, func.__qualname__ = name, f"UncertainModel.{name}"
        setattr(UncertainModel, name, func)


_attach()
