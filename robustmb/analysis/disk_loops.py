"""Feedback loops as state-space data for the disk margins.

A loop is given as its loop transfer ``L`` (broken at every channel) or as a
plant and a controller ``(P, C)`` (broken at the plant outputs and inputs at
once).  These helpers turn either into plain state-space data, form the
sensitivity ``S = (I + L)^-1`` and evaluate frequency responses.
"""

from __future__ import annotations

import warnings

import numpy as np

from robustmb.analysis._statespace import as_statespace_data
from robustmb.analysis.balancing import pole_bands
from robustmb.analysis.freqresp import freqresp
from robustmb.errors import DimensionError, IllPosedError, UncertainTypeError
from robustmb.lft.complex_statespace import ComplexStateSpace


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
