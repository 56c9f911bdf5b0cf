"""Tunable PID controller with a first-order derivative filter."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DimensionError
from ..lft.algebra import inv
from ..lft.model import UncertainSystem, umat, uss
from .realp import realp
from .tunable_gain import _block_dt, _block_name

PID_FORMS = ("p", "i", "pi", "pd", "pid")


FORMULAS = {"ForwardEuler": 0.0, "BackwardEuler": 1.0, "Trapezoidal": 0.5}


def _formula(name, what, value, ts):
    """The weight ``c`` of a discrete formula ``IF(z) = Ts/(z - 1) + c Ts``."""
    if value is None:
        return 0.0
    if not ts:
        raise ArgumentError(
            f"tunable_pid '{name}': {what} applies to discrete blocks (give dt), got {value!r}"
        )
    if not isinstance(value, str) or value not in FORMULAS:
        raise ArgumentError(
            f"tunable_pid '{name}': {what} must be one of {tuple(FORMULAS)}, got {value!r}"
        )
    return FORMULAS[value]


def tunable_pid(
    name, *, form="pid", tf=None, dt=None, iformula=None, dformula=None
) -> UncertainSystem:
    """Tunable PID ``Kp + Ki/s + Kd s / (Tf s + 1)``, or its discrete form with ``dt``.

    With a sample time ``dt = Ts`` the block is MATLAB's discrete parallel PID with
    the forward-Euler integrator and derivative formulas (``IFormula`` and
    ``DFormula`` ``'ForwardEuler'``, the defaults of MATLAB's ``pid`` and
    ``tunablePID``; MathWorks, Control System Toolbox documentation, "pid: PID
    controller in parallel form", properties ``IFormula`` and ``DFormula``)::

        C(z) = Kp + Ki Ts / (z - 1) + Kd / (Tf + Ts / (z - 1)).

    Its realisation is the continuous one with ``A -> I + Ts A`` and
    ``B -> Ts B`` (the forward-Euler map ``s -> (z - 1) / Ts``).  The derivative
    filter's pole is ``z = 1 - Ts / Tf``: stable only for ``Tf > Ts / 2``.
    ``iformula``/``dformula`` ``"BackwardEuler"`` and ``"Trapezoidal"`` replace
    ``Ts/(z - 1)`` in the integral or derivative term by MATLAB's ``Ts z/(z - 1)`` or
    ``(Ts/2) (z + 1)/(z - 1)`` (filter poles ``Tf/(Tf + Ts)`` and
    ``(Tf - Ts/2)/(Tf + Ts/2)``, stable for every ``Tf > 0``).

    Parameters
    ----------
    name : str
        Name of the block; its parameters are ``name.Kp``, ``name.Ki``,
        ``name.Kd`` and (when ``tf`` is None) ``name.Tf``, as the form needs.
    form : {"p", "i", "pi", "pd", "pid"}
        Which terms are present.
    tf : float, optional
        A fixed derivative-filter time constant (> 0; ``> dt / 2`` in discrete time)
        of the forms with a D term (``"pd"``, ``"pid"``); ``None`` tunes it
        (``Tf > 0``, initial value 0.1, or ``dt`` in discrete time: the filter pole
        at ``z = 0``).  The forms without a D term refuse it.
    dt : float, optional
        Sample time ``Ts`` (> 0) of a discrete block; ``None``: continuous.
    iformula, dformula : {"ForwardEuler", "BackwardEuler", "Trapezoidal"}, optional
        Discrete integrator formulas of the integral and derivative terms (MATLAB's
        ``IFormula``, ``DFormula``); ``None`` is ``"ForwardEuler"``.  Discrete blocks
        only.

    Returns
    -------
    UncertainSystem
        SISO, input ``"e"``, output ``"u"``.  The initial values are ``Kp = 1``,
        ``Ki = 0`` and ``Kd = 0``, except for the form ``"i"`` (no ``Kp``), where
        ``Ki = 1``.

    Examples
    --------
    >>> import numpy as np, control
    >>> import robustmb as rmb
    >>> C = rmb.tunable_pid("C")
    >>> sorted(C.tunables)
    ['C.Kd', 'C.Ki', 'C.Kp', 'C.Tf']
    >>> K = C.usubs({"C.Kp": 2.0, "C.Ki": 1.0, "C.Kd": 0.5, "C.Tf": 0.01})
    >>> s = 1j
    >>> ref = 2.0 + 1.0 / s + 0.5 * s / (0.01 * s + 1)
    >>> bool(np.isclose(control.evalfr(K, s), ref))
    True
    >>> Cd = rmb.tunable_pid("Cd", dt=0.1)
    >>> Kd = Cd.usubs({"Cd.Kp": 2.0, "Cd.Ki": 1.0, "Cd.Kd": 0.5, "Cd.Tf": 0.3})
    >>> z = np.exp(0.5j)
    >>> ref = 2.0 + 1.0 * 0.1 / (z - 1) + 0.5 / (0.3 + 0.1 / (z - 1))
    >>> Kd.dt, bool(np.isclose(control.evalfr(Kd, z), ref))
    (0.1, True)
    """
    name = _block_name("tunable_pid", name)
    if form not in PID_FORMS:
        raise DimensionError(f"tunable_pid '{name}': form must be one of {PID_FORMS}, got {form!r}")
    ts = _block_dt("tunable_pid", name, dt)
    has_p, has_i, has_d = "p" in form, "i" in form, "d" in form
    if tf is not None and not has_d:
        raise ArgumentError(
            f"tunable_pid '{name}': tf (the derivative filter) applies to the forms with a D "
            f"term ('pd', 'pid'), not to form={form!r}"
        )
    ci = _formula(name, "iformula", iformula, ts)
    cd = _formula(name, "dformula", dformula, ts)
    kp = realp(f"{name}.Kp", 1.0) if has_p else 0.0
    ki = realp(f"{name}.Ki", 0.0 if has_p else 1.0) if has_i else 0.0
    a, b, c, d = [], [], [], kp
    if has_i:
        # Ki/s: x' = e, u_i = Ki x; Ki IF(z) = Ki (Ts/(z - 1) + ci Ts):
        # x[k+1] = x[k] + Ts e[k], u_i = Ki (x[k] + ci Ts e[k]).
        a.append(1.0 if ts else 0.0)
        b.append(ts if ts else 1.0)
        c.append(ki)
        if ci:
            d = umat(ki) * (ci * ts) + kp
    if has_d:
        kd = realp(f"{name}.Kd", 0.0)
        if tf is None:
            tf0 = ts if ts else 0.1  # forward Euler: the filter pole 1 - Ts/Tf at z = 0
            tfp = umat(realp(f"{name}.Tf", tf0, minimum=1e-8))
            itf = inv(tfp + cd * ts if cd else tfp)
        else:
            if isinstance(tf, bool | np.bool_) or not isinstance(tf, numbers.Real):
                raise ArgumentError(f"tunable_pid '{name}': tf must be a number > 0, got {tf!r}")
            tf = float(tf)
            if not np.isfinite(tf) or tf <= 0:
                raise ArgumentError(f"tunable_pid '{name}': tf must be finite and > 0, got {tf!r}")
            if ts and cd == 0 and not tf > ts / 2:
                raise ArgumentError(
                    f"tunable_pid '{name}': tf = {tf!r} puts the derivative filter's pole "
                    f"1 - dt/tf = {1 - ts / tf:.6g} on or outside the unit circle; a fixed "
                    f"tf must exceed dt/2 = {ts / 2!r} with dformula='ForwardEuler'"
                )
            itf = 1.0 / (tf + cd * ts)
        # Kd s/(Tf s + 1) with itf = 1/Tf: x' = itf (e - x), u_d = Kd itf (e - x).
        # Kd/(Tf + DF(z)) = Kd (z - 1)/((Tf + cd Ts) z - (Tf + cd Ts - Ts)), with
        # itf = 1/(Tf + cd Ts): x[k+1] = x[k] + Ts itf (e[k] - x[k]), u_d = Kd itf (e - x).
        a.append(1.0 - ts * itf if ts else -1.0 * itf)
        b.append(ts * itf if ts else itf)
        c.append(-1.0 * kd * itf)
        d = kd * itf + d
    n = len(a)
    if n == 0:
        sys = uss(umat([[d]]), dt=ts if ts else None)
    else:
        amat = [[a[i] if i == j else 0.0 for j in range(n)] for i in range(n)]
        sys = uss(amat, [[bi] for bi in b], [c], [[d]], dt=ts)
    sys.input_names = ["e"]
    sys.output_names = ["u"]
    sys.name = name
    return sys
