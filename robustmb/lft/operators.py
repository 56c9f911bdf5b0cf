"""Arithmetic operators shared by uncertain elements and uncertain models.

``*`` and ``@`` are both the matrix product (series connection), as in
python-control; a 1x1 operand multiplies every entry of the other.  numpy
arrays and python-control systems on the left defer to these methods.
"""

from __future__ import annotations


class LFTOperators:
    """Mixin: ``+ - * @ /``, powers, negation and transpose through :mod:`algebra`."""

    # numpy must hand mixed operations to us instead of building object arrays.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __add__(self, other):
        from .algebra import add

        return add(self, other)

    def __radd__(self, other):
        from .algebra import add

        return add(other, self)

    def __sub__(self, other):
        from .algebra import add, negate

        return add(self, negate(other))

    def __rsub__(self, other):
        from .algebra import add, negate

        return add(other, negate(self))

    def __neg__(self):
        from .algebra import negate

        return negate(self)

    def __pos__(self):
        from .model import as_model

        return as_model(self)

    def __mul__(self, other):
        from .algebra import multiply

        return multiply(self, other)

    def __rmul__(self, other):
        from .algebra import multiply

        return multiply(other, self)

    def __matmul__(self, other):
        from .algebra import matmul

        return matmul(self, other)

    def __rmatmul__(self, other):
        from .algebra import matmul

        return matmul(other, self)

    def __truediv__(self, other):
        from .algebra import divide

        return divide(self, other)

    def __rtruediv__(self, other):
        from .algebra import divide

        return divide(other, self)

    def __pow__(self, power):
        from .algebra import power as _power

        return _power(self, power)

    @property
    def T(self):
        from .algebra import transpose

        return transpose(self)
