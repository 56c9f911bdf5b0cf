"""Tuning goals: normalised closed-loop requirements (a value below 1 means met).

Each goal turns the closed loop ``CL`` (an uncertain/tunable system with named
signals) into one model and a measure: the H-infinity norm of a weighted transfer,
the H2 norm, or a pole requirement.  Loop-opening locations are made with
:func:`analysis_point`: a location ``x`` adds an input ``d_x`` summed into the signal
and exposes the signal ``x`` as an output, so the sensitivity at ``x`` is the transfer
``d_x -> x`` of the closed loop (negative-feedback convention, ``S = (I + L)^-1``).
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from ..errors import DimensionError, SignalError
from ..lft.model import UncertainSystem, as_model, umat, uss


def analysis_point(name, n=1) -> UncertainSystem:
    """A loop-opening location: ``x = x_in + d_x``, named ``AP_<name>``.

    Connect the signal arriving at the location to the input ``<name>_in`` and use
    ``<name>`` downstream; list ``d_<name>`` among the closed loop's inputs and
    ``<name>`` among its outputs.

    Examples
    --------
    >>> ap = analysis_point("u")
    >>> ap.input_names, ap.output_names, ap.name
    (['u_in', 'd_u'], ['u'], 'AP_u')
    """
    if not isinstance(n, numbers.Integral) or n < 1:
        raise DimensionError(f"analysis_point '{name}': n must be a positive integer, got {n!r}")
    ap = uss(umat(np.hstack([np.eye(n), np.eye(n)])))
    sfx = (lambda s: [s]) if n == 1 else (lambda s: [f"{s}[{i}]" for i in range(n)])
    ap.input_names = sfx(f"{name}_in") + sfx(f"d_{name}")
    ap.output_names = sfx(name)
    ap.name = f"AP_{name}"
    return ap


def _names(x):
    return [x] if isinstance(x, str) else list(x)


def _select(CL, outputs, inputs, what):
    try:
        return CL[_names(outputs), _names(inputs)]
    except SignalError as exc:
        raise SignalError(f"{what}: {exc}") from None


def _weight(w, what):
    """A weight as an uncertain system (numbers, arrays, python-control systems)."""
    if w is None:
        return None
    if isinstance(w, control.TransferFunction):
        w = control.ss(w)
    return as_model(w)


def _inverse_weight(bound, what):
    """``1 / bound`` for a number or a biproper SISO python-control system."""
    if isinstance(bound, numbers.Real):
        if not bound > 0:
            raise DimensionError(f"{what}: the bound must be > 0, got {bound!r}")
        return None, 1.0 / float(bound)
    tf = control.tf(bound)
    if tf.ninputs != 1 or tf.noutputs != 1:
        raise DimensionError(f"{what}: a frequency-dependent bound must be SISO")
    inv = 1 / tf
    try:
        return as_model(control.ss(inv)), 1.0
    except Exception as exc:  # noqa: BLE001 - python-control raises various errors
        raise DimensionError(f"{what}: the bound must be biproper to be inverted ({exc})") from None


def _times(w, T, side):
    if w is None:
        return T
    if side == "left":
        return (w @ T) if w.shape[1] == T.shape[0] else _scalar(w, T.shape[0]) @ T
    return (T @ w) if w.shape[0] == T.shape[1] else T @ _scalar(w, T.shape[1])


def _scalar(w, n):
    if w.shape != (1, 1):
        raise DimensionError(f"weight of shape {w.shape} does not fit a transfer of size {n}")
    from ..lft.algebra import block_diag

    return block_diag(*([w] * n)) if n > 1 else w


class Goal:
    """Base class: ``model(CL)`` gives ``(model, measure, scale, poles)``.

    ``band``: once the goal's value is a high-frequency limit no tuning can change
    (``|I - T| -> 1``), the optimiser keeps lowering the peak over ``[0, band]``
    (``None``: the largest finite-frequency local maximum).
    """

    measure = "hinf"
    poles = None
    band = None

    def model(self, CL):
        raise NotImplementedError  # pragma: no cover - abstract

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class WeightedGain(Goal):
    """``||W_L T W_R||_inf <= 1`` for the transfer ``T`` from ``inputs`` to ``outputs``.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.tuning import WeightedGain
    >>> CL = rmb.uss(control.ss([[-1.0]], [[1.0]], [[2.0]], [[0.0]], inputs="r", outputs="y"))
    >>> m, measure, scale, _ = WeightedGain("r", "y", wl=0.5).model(CL)
    >>> float(rmb.hinfnorm(m.nominal())[0] * scale)
    1.0
    """

    def __init__(self, inputs, outputs, wl=None, wr=None):
        self.inputs, self.outputs, self.wl, self.wr = inputs, outputs, wl, wr

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "WeightedGain")
        T = _times(_weight(self.wl, "wl"), T, "left")
        T = _times(_weight(self.wr, "wr"), T, "right")
        return T, "hinf", 1.0, None


class Gain(Goal):
    """``|T(jw)| <= max_gain(w)``: a number, or a biproper SISO bound (value ``||T/max_gain||``).

    Examples
    --------
    >>> from robustmb.tuning import Gain
    >>> Gain("d", "y", 0.5).max_gain
    0.5
    """

    def __init__(self, inputs, outputs, max_gain):
        self.inputs, self.outputs, self.max_gain = inputs, outputs, max_gain

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "Gain")
        w, scale = _inverse_weight(self.max_gain, "Gain")
        return _times(w, T, "left"), "hinf", scale, None


class Tracking(Goal):
    """Relative tracking error ``I - T_{r->y}`` below ``E(s) = (peak s + dc/tau) / (s + 1/tau)``.

    ``tau = response_time``: a first-order response's error profile, ``dc_error`` at
    low frequency rising to ``peak_error`` above ``1/tau``.  The default peak 2 (6 dB,
    as a usual sensitivity peak) leaves room above the high-frequency limit
    ``|I - T| -> 1`` of a strictly proper loop, which a bound of 1 could only touch.
    That limit, ``1/peak_error``, is the least value the goal can take; once there,
    the tuning keeps lowering the relative error over the tracking band ``w <= 1/tau``
    (the goal's value stays ``1/peak_error``).

    Examples
    --------
    >>> from robustmb.tuning import Tracking
    >>> Tracking("r", "y", response_time=0.5).dc_error
    0.001
    """

    def __init__(self, reference, output, response_time, *, dc_error=1e-3, peak_error=2.0):
        if not response_time > 0 or not 0 < dc_error < peak_error:
            raise DimensionError("Tracking: need response_time > 0 and 0 < dc_error < peak_error")
        self.reference, self.output = reference, output
        self.response_time, self.dc_error, self.peak_error = response_time, dc_error, peak_error
        self.band = 1.0 / response_time

    def model(self, CL):
        T = _select(CL, self.output, self.reference, "Tracking")
        if T.shape[0] != T.shape[1]:
            raise DimensionError(f"Tracking: {T.shape[0]} outputs for {T.shape[1]} references")
        wc = 1.0 / self.response_time
        err = np.eye(T.shape[0]) - T
        winv = control.tf([1.0, wc], [self.peak_error, wc * self.dc_error])
        return _times(as_model(control.ss(winv)), err, "left"), "hinf", 1.0, None


class Rejection(Goal):
    """Disturbance rejection: ``||attenuation * T_{d->y}||_inf <= 1``.

    ``attenuation`` is a number or a SISO python-control system (the minimum
    attenuation per frequency).

    Examples
    --------
    >>> from robustmb.tuning import Rejection
    >>> Rejection("d", "y", 10.0).attenuation
    10.0
    """

    def __init__(self, disturbance, output, attenuation):
        self.disturbance, self.output, self.attenuation = disturbance, output, attenuation

    def model(self, CL):
        T = _select(CL, self.output, self.disturbance, "Rejection")
        return _times(_weight(self.attenuation, "attenuation"), T, "left"), "hinf", 1.0, None


class Sensitivity(Goal):
    """Sensitivity at a loop-opening location: ``|S(jw)| <= max_sensitivity(w)``.

    Examples
    --------
    >>> from robustmb.tuning import Sensitivity
    >>> Sensitivity("u", 2.0).location
    'u'
    """

    def __init__(self, location, max_sensitivity):
        self.location, self.max_sensitivity = location, max_sensitivity

    def model(self, CL):
        S = _select(CL, self.location, f"d_{self.location}", "Sensitivity")
        w, scale = _inverse_weight(self.max_sensitivity, "Sensitivity")
        return _times(w, S, "left"), "hinf", scale, None


def disk_alpha(gain_margin_db, phase_margin_deg):
    """Symmetric disk size that guarantees both margins: ``alpha = max(a_gm, a_pm)``.

    A disk of size ``alpha`` gives the gain margin ``(2 + alpha) / (2 - alpha)`` and
    the phase margin ``2 atan(alpha / 2)``.

    Examples
    --------
    >>> round(disk_alpha(6.0, 0.0), 4)
    0.6646
    """
    gm = 10 ** (gain_margin_db / 20)
    return float(max(2 * (gm - 1) / (gm + 1), 2 * np.tan(np.radians(phase_margin_deg) / 2)))


class Margins(Goal):
    """Disk-based gain and phase margins at a location (multiloop, balanced disk).

    Met when the disk margin ``1 / ||S - I/2||_inf`` reaches the disk size that
    guarantees ``gain_margin`` (dB) and ``phase_margin`` (degrees); value
    ``alpha_required * ||S - I/2||_inf``.

    Examples
    --------
    >>> from robustmb.tuning import Margins
    >>> round(Margins("u", 6, 45).alpha, 4)
    0.8284
    """

    def __init__(self, location, gain_margin=6.0, phase_margin=45.0):
        self.location = location
        self.gain_margin, self.phase_margin = gain_margin, phase_margin
        self.alpha = disk_alpha(gain_margin, phase_margin)

    def model(self, CL):
        S = _select(CL, self.location, f"d_{self.location}", "Margins")
        return S - 0.5 * np.eye(S.shape[0]), "hinf", self.alpha, None


class Poles(Goal):
    """Closed-loop poles: decay >= ``min_decay``, damping >= ``min_damping``, bounded modulus.

    Examples
    --------
    >>> from robustmb.tuning import Poles
    >>> Poles(min_decay=0.1).min_decay
    0.1
    """

    measure = "poles"

    def __init__(self, min_decay=0.0, min_damping=0.0, max_frequency=np.inf):
        self.min_decay, self.min_damping, self.max_frequency = min_decay, min_damping, max_frequency

    def model(self, CL):
        if CL.dt not in (None, 0):
            raise DimensionError(
                f"Poles: decay, damping and frequency are s-plane requirements; the loop "
                f"{CL.name!r} is discrete (dt = {CL.dt})"
            )
        return CL, "poles", 1.0, (self.min_decay, self.min_damping, self.max_frequency)


class Variance(Goal):
    """Output variance for white-noise inputs: ``||T||_2 <= max_amplitude`` (H2 norm).

    Examples
    --------
    >>> from robustmb.tuning import Variance
    >>> Variance("n", "y", 0.1).max_amplitude
    0.1
    """

    def __init__(self, inputs, outputs, max_amplitude=1.0):
        self.inputs, self.outputs, self.max_amplitude = inputs, outputs, max_amplitude

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "Variance")
        return T, "h2", 1.0 / float(self.max_amplitude), None
