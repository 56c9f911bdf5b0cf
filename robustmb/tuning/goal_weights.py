"""Bounds and weights of tuning goals as stable weights with the same magnitude.

A frequency-dependent bound or weight of a goal acts through its magnitude on the
imaginary axis (the unit circle for a discrete loop) only: ``|T(jw)| <= |b(jw)|``.  A
goal is measured as the H-infinity norm of a weighted transfer, which needs a *stable*
weight; a SISO bound or weight is therefore replaced by the stable, minimum-phase
rational function with the same magnitude on the axis:

* continuous: a root ``p`` with ``Re p > 0`` becomes ``-conj(p)``
  (``|jw - p| = |jw + conj(p)|``, the gain is unchanged);
* discrete: a root ``p`` with ``|p| > 1`` becomes ``1 / conj(p)`` and the gain is
  multiplied (zero) or divided (pole) by ``|p|``
  (``|e^{jt} - p| = |p| |e^{jt} - 1/conj(p)|``).

A weight pole *on* the axis (a bound that vanishes at some frequency, or an
integrator-like attenuation profile) has no stable equivalent: the weighted transfer
is finite only through an exact cancellation with a zero of the loop, which a
floating-point realization does not keep (its H-infinity norm is infinite).  Such a
bound is refused with an :class:`~robustmb.errors.ArgumentError` that names the goal
and the argument.
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from ..errors import ArgumentError, DimensionError
from ..lft.model import UncertainModel, as_model

# A root closer to the stability boundary than this (relative to its modulus) is on it.
AXIS_TOL = 1e-10


def loop_dt(CL) -> float:
    """The sample time of a closed loop, ``0.0`` for a continuous one.

    Examples
    --------
    >>> import control
    >>> loop_dt(control.ss([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1)), loop_dt(control.tf(1, [1, 1]))
    (0.1, 0.0)
    """
    return 0.0 if CL.dt in (None, 0) else float(CL.dt)


def positive_number(value, what):
    """``value`` as a float when it is a real scalar (or a 1x1 array), else ``None``.

    Raises :class:`~robustmb.errors.ArgumentError` unless the scalar is finite and > 0.

    Examples
    --------
    >>> import numpy as np
    >>> positive_number(np.array([[0.5]]), "Gain: max_gain")
    0.5
    >>> positive_number("x", "Gain: max_gain") is None
    True
    """
    if isinstance(value, bool | np.bool_):
        raise ArgumentError(f"{what} must be a number > 0 or a SISO system, got {value!r}")
    if isinstance(value, numbers.Real):
        v = float(value)
    elif isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        v = float(value.reshape(()))
    else:
        return None
    if not (np.isfinite(v) and v > 0):
        raise ArgumentError(f"{what} must be finite and > 0, got {value!r}")
    return v


def _check_dt(dt, ldt, what):
    """A weight's sample time against the loop's (``None``: python-control's 'any')."""
    if dt is None or ldt is None:
        return
    if ldt == 0 and dt != 0:
        raise ArgumentError(f"{what} is discrete (dt = {dt}) but the loop is continuous")
    if ldt != 0:
        if dt == 0:
            raise ArgumentError(
                f"{what} is a continuous system but the loop is discrete (dt = {ldt}); give "
                f"its discrete equivalent with that sample time (e.g. control.c2d(w, {ldt}, "
                "'tustin'))"
            )
        if dt is not True and not np.isclose(float(dt), ldt, rtol=1e-12, atol=0.0):
            raise ArgumentError(f"{what} has the sample time {dt}, the loop {ldt}")


def _trim(c):
    c = np.atleast_1d(np.asarray(c, float).ravel())
    nz = np.flatnonzero(c)
    return c[nz[0] :] if nz.size else np.zeros(1)


def _reflect(roots, discrete):
    """Roots moved to the stable side and the gain factor the move needs (see module)."""
    roots = np.array(roots, complex)
    if discrete:
        out = np.abs(roots) > 1.0
        factor = float(np.prod(np.abs(roots[out])))
        roots[out] = 1.0 / np.conj(roots[out])
    else:
        out = roots.real > 0
        factor = 1.0
        roots[out] = -np.conj(roots[out])
    return roots, factor, bool(out.any())


def _on_boundary(roots, discrete):
    if discrete:
        return roots[np.abs(np.abs(roots) - 1.0) <= AXIS_TOL]
    return roots[np.abs(roots.real) <= AXIS_TOL * np.maximum(1.0, np.abs(roots))]


def siso_weight(sys, ldt, what, *, invert):
    """A SISO system (or its inverse) as a stable minimum-phase weight, same magnitude.

    Parameters
    ----------
    sys : control.TransferFunction or control.StateSpace
        SISO bound or weight.
    ldt : float or None
        The loop's sample time (``0``: continuous; ``None``: the system's own, for an
        early check before the loop is known).
    what : str
        ``"<goal>: <argument>"`` for the error messages.
    invert : bool
        Use ``1 / sys`` (a bound) instead of ``sys`` (a weight).

    Returns
    -------
    UncertainSystem
        The stable weight with ``|W(jw)| = |sys(jw)|`` (or its inverse) on the axis.

    Examples
    --------
    >>> import control, numpy as np
    >>> W = siso_weight(control.tf([1.0, -1.0], [1.0, 10.0]), 0.0, "Gain: max_gain", invert=True)
    >>> [round(float(p), 6) for p in np.linalg.eigvals(W.nominal().A)]  # zero 1 reflected
    [-1.0]
    """
    if not isinstance(sys, control.LTI):
        raise ArgumentError(f"{what} must be a number > 0 or a SISO system, got {sys!r}")
    if (sys.ninputs, sys.noutputs) != (1, 1):
        raise DimensionError(f"{what} must be SISO, got {sys.noutputs}x{sys.ninputs}")
    _check_dt(sys.dt, ldt, what)
    dt = sys.dt if ldt is None else ldt
    discrete = dt not in (None, 0)
    tf = control.tf(sys)
    num, den = _trim(tf.num[0][0]), _trim(tf.den[0][0])
    if not num.any():
        raise ArgumentError(f"{what} is identically zero")
    if not (np.all(np.isfinite(num)) and np.all(np.isfinite(den))):
        raise ArgumentError(f"{what} has non-finite coefficients")
    if invert:
        num, den = den, num
    if len(num) > len(den):
        need = "not strictly proper (its inverse, the weight, must be proper)"
        raise ArgumentError(f"{what} must be {need if invert else 'proper'}")
    zeros, poles = np.roots(num), np.roots(den)
    bad = _on_boundary(poles, discrete)
    if bad.size:
        where = "unit circle" if discrete else "imaginary axis"
        kind = "zero" if invert else "pole"
        raise ArgumentError(
            f"{what} has a {kind} on the {where} at {complex(bad[0]):.6g}: the weighted "
            "transfer would be finite only by an exact cancellation with a zero of the loop, "
            "which a floating-point realization does not keep. Move it off the "
            f"{where} (s -> s + eps relaxes the requirement near that frequency) or use a "
            "bound that is finite there"
        )
    gain = num[0] / den[0]
    z, fz, mz = _reflect(zeros, discrete)
    p, fp, mp = _reflect(poles, discrete)
    if mz or mp:
        num = gain * fz / fp * np.real(np.poly(z)) if z.size else np.array([gain * fz / fp])
        den = np.real(np.poly(p)) if p.size else np.ones(1)
    w = control.ss(control.tf(num, den, dt if discrete else 0))
    return as_model(w)


def goal_weight(w, ldt, what):
    """A goal's weight (number, matrix, python-control or uncertain system) as a model.

    A SISO system goes through :func:`siso_weight`; a MIMO system must be stable.
    ``None`` stays ``None``.

    Examples
    --------
    >>> import control
    >>> W = goal_weight(control.tf([1.0], [1.0, -1.0]), 0.0, "WeightedGain: wl")
    >>> float(W.nominal().A[0, 0])  # 1/(s - 1) has the magnitude of 1/(s + 1)
    -1.0
    """
    if w is None:
        return None
    if isinstance(w, numbers.Real | np.ndarray) and not isinstance(w, bool | np.bool_):
        arr = np.asarray(w)
        if arr.dtype.kind not in "iuf" or arr.ndim > 2 or arr.size == 0:
            raise ArgumentError(f"{what} must be a real number, matrix or system, got {w!r}")
        if not np.all(np.isfinite(arr)):
            raise ArgumentError(f"{what} must be finite")
        if not arr.any():  # as a zero system weight: the goal would hold for any tuning
            raise ArgumentError(f"{what} is identically zero")
        return as_model(np.atleast_2d(arr.astype(float)))
    if isinstance(w, control.LTI):
        if (w.ninputs, w.noutputs) == (1, 1):
            return siso_weight(w, ldt, what, invert=False)
        _check_dt(w.dt, ldt, what)
        model = as_model(control.ss(w))
    elif isinstance(w, UncertainModel):
        _check_dt(w.dt, ldt, what)
        model = w
    else:
        raise ArgumentError(f"{what} must be a real number, matrix or system, got {w!r}")
    nom = model.nominal()  # an uncertain weight is checked at its nominal value
    a = np.asarray(nom.A) if isinstance(nom, control.StateSpace) else np.zeros((0, 0))
    if a.size:
        lam = np.linalg.eigvals(a)
        discrete = ldt not in (None, 0)
        unstable = np.abs(lam) >= 1 - AXIS_TOL if discrete else lam.real >= -AXIS_TOL
        if unstable.any():
            raise ArgumentError(
                f"{what}: a MIMO weight must be stable (pole {complex(lam[unstable][0]):.6g}); "
                "a SISO weight is replaced by its stable equivalent"
            )
    return model
