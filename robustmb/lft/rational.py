"""Uncertain scalar transfer functions written with ``s = control.tf('s')``.

An expression such as ``k / (s + a)`` passes through improper intermediate
values (``s + a``) that have no state-space realization.  They are kept as a
ratio of polynomials in ``s`` whose coefficients are numbers or uncertain
scalars; as soon as the expression meets anything else (or is converted with
``uss``) it is realised exactly in observable canonical form, whose entries
are the (uncertain) coefficients, and the result is simplified.  An uncertain
leading denominator coefficient (``m`` in ``1 / (m s^2 + c s + k)``) is realised
so that its inverse enters once (:func:`_controllable_form`).
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from ..errors import UncertainTypeError
from .algebra import add, inv, matmul, multiply
from .elements import UncertainElement
from .model import (
    UncertainModel,
    as_model,
    common_dt,
    integrate_states,
    static_model,
    umat,
    uss,
)
from .simplify import simplify


def _is_scalar_static(x) -> bool:
    """A number, a scalar element or a 1x1 uncertain matrix."""
    if isinstance(x, numbers.Number):
        return True
    if isinstance(x, UncertainElement):
        return x.is_scalar
    if isinstance(x, UncertainModel):
        return x.shape == (1, 1) and x.nstates == 0 and not x.is_system
    return False


def _is_siso_tf(x) -> bool:
    return isinstance(x, control.TransferFunction) and x.ninputs == 1 and x.noutputs == 1


def _is_zero(c) -> bool:
    return isinstance(c, numbers.Number) and c == 0


def _padd(p, q):
    n = max(len(p), len(q))
    p = list(p) + [0.0] * (n - len(p))
    q = list(q) + [0.0] * (n - len(q))
    return [a if _is_zero(b) else b if _is_zero(a) else a + b for a, b in zip(p, q, strict=True)]


def _pmul(p, q):
    out = [0.0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if _is_zero(a):
            continue
        for j, b in enumerate(q):
            if _is_zero(b):
                continue
            term = a * b
            out[i + j] = term if _is_zero(out[i + j]) else out[i + j] + term
    return out


def _numeric(p) -> bool:
    return all(isinstance(c, numbers.Number) for c in p)


def _trim(p):
    p = list(p)
    while len(p) > 1 and _is_zero(p[-1]):
        p.pop()
    return p


class UncertainRational:
    """Ratio of polynomials in ``s`` (or ``z``) with uncertain coefficients.

    Coefficients are stored from the constant term upwards.  Users do not build
    it directly: it appears when a SISO ``control.TransferFunction`` meets an
    uncertain scalar, and becomes an :class:`UncertainSystem` on contact with
    anything else or through ``rmb.uss``.  Its arithmetic operators are attached
    by :mod:`robustmb.lft.operators`.
    """

    # numpy must hand mixed operations to the operators instead of building object arrays.
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __init__(self, num, den, dt=0, gain=1.0):
        self.num = _trim(num)
        self.den = _trim(den)
        self.dt = dt
        # A scalar factor kept outside the polynomials, so that k * N / D uses k once.
        self.gain = gain

    @classmethod
    def from_operand(cls, x, dt=0):
        if isinstance(x, UncertainRational):
            return x
        if _is_siso_tf(x):
            num = [complex(c) if np.iscomplexobj(c) else float(c) for c in x.num[0][0][::-1]]
            den = [complex(c) if np.iscomplexobj(c) else float(c) for c in x.den[0][0][::-1]]
            return cls(num, den, x.dt)
        if isinstance(x, numbers.Number):
            return cls([x], [1.0], dt)
        return cls([1.0], [1.0], dt, gain=as_model(x))

    # The arithmetic keeps common numeric denominators to avoid needless degree growth.
    @property
    def _unit_gain(self) -> bool:
        return isinstance(self.gain, numbers.Number) and self.gain == 1.0

    def _expanded_num(self):
        return self.num if self._unit_gain else _pmul(self.num, [self.gain])

    def _add(self, other):
        if self.gain is other.gain:
            n1, n2, gain = self.num, other.num, self.gain
        else:
            n1, n2, gain = self._expanded_num(), other._expanded_num(), 1.0
        dt = common_dt([self.dt, other.dt])
        if _numeric(self.den) and _numeric(other.den) and np.array_equal(self.den, other.den):
            return UncertainRational(_padd(n1, n2), self.den, dt, gain)
        num = _padd(_pmul(n1, other.den), _pmul(n2, self.den))
        return UncertainRational(num, _pmul(self.den, other.den), dt, gain)

    def _mul(self, other):
        if self._unit_gain:
            gain = other.gain
        elif other._unit_gain:
            gain = self.gain
        else:
            gain = self.gain * other.gain
        dt = common_dt([self.dt, other.dt])
        return UncertainRational(_pmul(self.num, other.num), _pmul(self.den, other.den), dt, gain)

    def _inv(self):
        gain = self.gain if self._unit_gain else 1.0 / self.gain
        return UncertainRational(self.den, self.num, self.dt, gain)

    def _neg(self):
        return UncertainRational([-c for c in self.num], self.den, self.dt, self.gain)

    def _to_model(self):
        """Exact realization in observable canonical form (then simplified); with an
        uncertain leading denominator coefficient, in the form of :func:`_controllable_form`."""
        num, den = _trim(self.num), _trim(self.den)
        n = len(den) - 1
        if len(num) - 1 > n:
            raise UncertainTypeError(
                f"the uncertain transfer function has numerator degree {len(num) - 1} above its "
                f"denominator degree {n}: it is improper and has no state-space realization"
            )
        lead = den[-1]
        if n > 0 and not isinstance(lead, numbers.Number):
            sys = _controllable_form(num, den, self.dt)
            return simplify(sys if self._unit_gain else self.gain * sys)
        scale = 1.0 / lead if isinstance(lead, numbers.Number) else inv(lead)
        a = [c * scale if not _is_zero(c) else 0.0 for c in den[:-1]]
        b = [c * scale if not _is_zero(c) else 0.0 for c in num] + [0.0] * (n + 1 - len(num))
        bn = b[n]
        if n == 0:
            m = static_model([[bn]]) if isinstance(bn, numbers.Number) else bn
            # A constant: the sampling time of the transfer functions it came from is kept.
            return uss(m if self._unit_gain else self.gain * m, dt=self.dt)
        amat = [[0.0] * n for _ in range(n)]
        for i in range(n):
            amat[i][0] = -a[n - 1 - i]
            if i + 1 < n:
                amat[i][i + 1] = 1.0
        bvec = [
            [b[n - 1 - i] - a[n - 1 - i] * bn if not _is_zero(bn) else b[n - 1 - i]]
            for i in range(n)
        ]
        cvec = [[1.0] + [0.0] * (n - 1)]
        sys = uss(amat, bvec, cvec, [[bn]], dt=self.dt)
        if not self._unit_gain:
            sys = self.gain * sys
        return simplify(sys)

    @property
    def is_proper(self) -> bool:
        return len(_trim(self.num)) <= len(_trim(self.den))

    def nominal(self):
        return self._to_model().nominal()

    def __repr__(self):
        return f"<UncertainRational num degree {len(self.num) - 1}, den degree {len(self.den) - 1}>"


def _controllable_form(num, den, dt):
    """Realization of ``num / den`` whose uncertain leading coefficient enters once.

    With the states ``x_i = s^(i-1) X`` (``i = 1..n``) and ``v = s^n X``, ``den(s) X = U``
    gives ``v = (U - den_0 x_1 - ... - den_(n-1) x_n) / den_n`` and ``Y = num(s) X =
    num_0 x_1 + ... + num_(n-1) x_n + num_n v``.  The inverse of ``den_n`` multiplies one
    signal, so it is one occurrence (the companion form divides every coefficient by it,
    ``1 / (m s^2 + c s + k)`` would hold ``1/m`` twice); every other coefficient is one
    occurrence too.
    """
    n = len(den) - 1
    num = list(num) + [0.0] * (n + 1 - len(num))

    def entry(c):
        return 0.0 if _is_zero(c) else c

    row = umat([[entry(-c) for c in den[:-1]] + [1.0]])
    v = multiply(inv(den[-1]), row)  # v = r [x; u]
    fixed = [[1.0 if j == i + 1 else 0.0 for j in range(n + 1)] for i in range(n)]
    fixed[n - 1] = [0.0] * (n + 1)  # x_n' = v
    fixed.append([entry(c) for c in num[:n]] + [0.0])
    into = [[0.0] for _ in range(n - 1)] + [[1.0], [entry(num[n])]]
    big = add(umat(fixed), matmul(umat(into), v))  # [x'; y] from [x; u]
    return integrate_states(big, n, dt)


def maybe_rational(op, x, y):
    """Result of ``op`` as an :class:`UncertainRational`, or ``None`` if it does not apply.

    It applies when one operand is a rational (or a SISO transfer function)
    and the other is a rational, a SISO transfer function or a static
    uncertain scalar, and at least one operand is uncertain.
    """
    if op == "neg":
        return x._neg() if isinstance(x, UncertainRational) else None
    if op == "pow":
        if not isinstance(x, UncertainRational):
            return None
        base = x if y >= 0 else x._inv()
        out = UncertainRational([1.0], [1.0], x.dt)
        for _ in range(abs(y)):
            out = out._mul(base)
        return _settle(out)

    def kind(v):
        if isinstance(v, UncertainRational):
            return "rat"
        if _is_siso_tf(v):
            return "tf"
        if _is_scalar_static(v):
            return "num" if isinstance(v, numbers.Number) else "unc"
        return None

    kx, ky = kind(x), kind(y)
    if kx is None or ky is None:
        return None
    if not ({kx, ky} & {"rat", "tf"}):
        return None
    if not ({kx, ky} & {"rat", "unc"}):
        return None
    # Every operand's sampling time, the uncertain scalar's included: a mismatch raises
    # as python-control does, rather than one operand's dt silently taking over.
    dt = common_dt([getattr(v, "dt", None) for v in (x, y)])
    rx, ry = UncertainRational.from_operand(x, dt), UncertainRational.from_operand(y, dt)
    if op == "add":
        return _settle(rx._add(ry))
    if op == "mul":
        return _settle(rx._mul(ry))
    if op == "div":
        return _settle(rx._mul(ry._inv()))
    raise ValueError(op)  # pragma: no cover


def _settle(r: UncertainRational):
    """A proper result becomes an uncertain system; an improper one stays rational."""
    return r._to_model() if r.is_proper else r
