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

from ..errors import ArgumentError, DimensionError, SignalError, warn
from ..lft.model import UncertainModel, UncertainSystem, as_model, umat, uss
from .goal_weights import goal_weight, loop_dt, positive_number, siso_weight


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


def _signals(x, what):
    """``x`` as a signal name or a non-empty list of names, else ArgumentError.

    Examples
    --------
    >>> _signals(["r", "d"], "WeightedGain: inputs")
    ['r', 'd']
    >>> _signals(0, "Gain: inputs")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: Gain: inputs must be a signal name or a list of them, got 0
    >>> _signals(["y", "y"], "Gain: outputs")
    Traceback (most recent call last):
    ...
    robustmb.errors.ArgumentError: Gain: outputs lists the signal(s) ['y'] more than once
    """
    names = [x] if isinstance(x, str) else (list(x) if isinstance(x, list | tuple) else None)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ArgumentError(f"{what} must be a signal name or a list of them, got {x!r}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        # a repeated channel is measured twice: it would scale the goal's value
        raise ArgumentError(f"{what} lists the signal(s) {twice} more than once")
    return names


def _structurally_zero(T):
    """Whether no input of ``T`` reaches an output through a nonzero entry of its
    realization, whatever the tunable and uncertain values (a graph search over the
    states and the ``Delta`` channels; a block's outputs reach all its inputs).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> _structurally_zero(rmb.uss(control.ss([[-1.0]], [[0.0]], [[1.0]], [[0.0]])))
    True
    >>> _structurally_zero(rmb.uss(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])))
    False
    """
    r = as_model(T)._real
    nx, nw, nz = r.nx, r.nw, r.nz
    m = r.as_static_map() != 0  # rows [x'; z; y], columns [x; w; u]
    cols = np.zeros(m.shape[1], bool)
    cols[nx + nw :] = True
    while True:
        rows = m[:, cols].any(axis=1)
        new = cols.copy()
        new[:nx] |= rows[:nx]
        for *_, ws, zs in r.block_slices():
            if rows[nx + zs.start : nx + zs.stop].any():
                new[nx + ws.start : nx + ws.stop] = True
        if np.array_equal(new, cols):
            return not rows[nx + nz :].any()
        cols = new


def _select(CL, outputs, inputs, what):
    try:
        T = CL[_names(outputs), _names(inputs)]
    except SignalError as exc:
        raise SignalError(f"{what}: {exc}") from None
    return T


def warn_no_path(goal, model, where, loop_name):
    """Warn (:class:`~robustmb.errors.RobustMBWarning`, a ``UserWarning``) when the
    transfer measured by ``goal`` (its ``model``, tunables still free) is structurally
    zero: no signal path joins its inputs to its outputs, so its value is 0 whatever the
    tuning (a misnamed signal, or a loop wired otherwise than meant).

    Examples
    --------
    >>> import control, warnings
    >>> import robustmb as rmb
    >>> T = rmb.uss(control.ss([[-1.0]], [[0.0]], [[1.0]], [[0.0]], inputs="n", outputs="y"))
    >>> goal = WeightedGain("n", "y")
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_no_path(goal, goal.model(T)[0], "systune", "CL")
    >>> "no path" in str(w[0].message)
    True
    """
    if goal.measure == "poles" or not (model.shape[0] and model.shape[1]):
        return
    if _structurally_zero(model):
        warn(
            f"{where}: no path joins the signals of {goal!r} in {loop_name!r}: the goal's "
            "value is 0 whatever the tuning"
        )


def check_h2_feedthrough(goal, model, measure, where):
    """:class:`~robustmb.errors.ArgumentError` for an H2 goal (:class:`Variance`) on a
    continuous transfer with a direct feedthrough at the start point: its H2 norm is
    infinite (white noise passed straight to the output has infinite variance), so
    every point would read as infeasible.  ``model`` is the goal's transfer with its
    tunables still free, and ``measure`` the one :meth:`Goal.model` gives with it; the
    tunables are set to their current values, uncertain elements to their nominal.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> T = rmb.uss(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.5]], inputs="n", outputs="y"))
    >>> try:
    ...     check_h2_feedthrough(Variance("n", "y"), T, "h2", "systune")
    ... except rmb.errors.ArgumentError as e:
    ...     print(str(e)[:60])
    systune: Variance(inputs='n', outputs='y', max_amplitude=1.0
    """
    if measure != "h2" or loop_dt(model):
        return
    m = as_model(model)
    values = {n: el.value for n, el in m.tunables.items()}
    sub = m.usubs(values) if values else m
    if isinstance(sub, UncertainModel):
        sub = sub.nominal()
    d = np.asarray(control.ss(sub).D)
    if d.size and np.any(d != 0):
        raise ArgumentError(
            f"{where}: {goal!r} measures a continuous transfer with a direct feedthrough "
            f"(D = {np.array2string(d, precision=6)} at the start point): its H2 norm, the "
            "output variance for white noise, is infinite; pick a strictly proper channel "
            "(add a roll-off filter, or measure a filtered signal)"
        )


def _location(CL, location, what):
    """Output and ``d_`` input channels of a location (a name, a bus name or a list).

    A name that is not an output itself but whose channels ``name[0]``, ``name[1]``,
    ... are (``analysis_point(name, n)``) stands for all of them.
    """
    names = _names(location)
    if not names or not all(isinstance(n, str) for n in names):
        raise ArgumentError(f"{what}: location must be a signal name or a list of them")
    outs = []
    for n in names:
        if n in CL.output_names:
            outs.append(n)
            continue
        bus = []
        while f"{n}[{len(bus)}]" in CL.output_names:
            bus.append(f"{n}[{len(bus)}]")
        if not bus:
            raise SignalError(f"{what}: location {n!r} is not an output of {CL.name!r}")
        outs += bus
    if len(set(outs)) != len(outs):
        raise ArgumentError(f"{what}: location lists a channel twice ({outs})")
    ins = [f"d_{o}" for o in outs]
    missing = [i for i in ins if i not in CL.input_names]
    if missing:
        raise SignalError(
            f"{what}: the loop-opening inputs {missing} of location {location!r} are not "
            f"inputs of {CL.name!r} (list them among connect's inputs)"
        )
    return outs, ins


def _inverse_weight(bound, CL, what):
    """``1 / bound`` as ``(weight, scale)``: a number gives ``(None, 1/bound)``."""
    v = positive_number(bound, what)
    if v is not None:
        return None, 1.0 / v
    return siso_weight(bound, loop_dt(CL), what, invert=True), 1.0


def _check_bound(bound, what):
    """Early check of a bound (number or SISO system) before the loop is known."""
    if positive_number(bound, what) is None:
        siso_weight(bound, None, what, invert=True)


def _check_weight(w, what):
    if w is not None and positive_number(w, what) is None:
        siso_weight(w, None, what, invert=False)


def _real(value, what, *, low=None, high=None, low_open=False, high_open=False):
    """A finite real argument within its range, else :class:`ArgumentError`."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"{what} must be a real number, got {value!r}")
    v = float(value)
    ok = np.isfinite(v)
    if ok and low is not None:
        ok = v > low if low_open else v >= low
    if ok and high is not None:
        ok = v < high if high_open else v <= high
    if not ok:
        lo = "(-inf" if low is None else f"{'(' if low_open else '['}{low}"
        hi = "inf)" if high is None else f"{high}{')' if high_open else ']'}"
        rng = f"{lo}, {hi}"
        raise ArgumentError(f"{what} must be finite and in {rng}, got {value!r}")
    return v


def _times(w, T, side, what="weight"):
    if w is None:
        return T
    if side == "left":
        return (w @ T) if w.shape[1] == T.shape[0] else _scalar(w, T.shape[0], what) @ T
    return (T @ w) if w.shape[0] == T.shape[1] else T @ _scalar(w, T.shape[1], what)


def _scalar(w, n, what="weight"):
    if w.shape != (1, 1):
        raise DimensionError(f"{what} of shape {w.shape} does not fit a transfer of size {n}")
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
    dscaled = False  # measured with the optimal static diagonal scaling (multi-channel)

    def model(self, CL):
        raise NotImplementedError  # pragma: no cover - abstract

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def _loop_weight(w, CL, what):
    """An uncertain weight may only hold elements of the loop (a weight scheduled on the
    plant's parameter); any other uncertain or tunable element is an
    :class:`~robustmb.errors.ArgumentError` naming the argument and the elements.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a, b = rmb.ureal("a", 1.0), rmb.ureal("b", 1.0)
    >>> try:
    ...     _loop_weight(rmb.uss(b), rmb.uss(a), "WeightedGain: wl")
    ... except rmb.errors.ArgumentError as e:
    ...     print(str(e)[:62])
    WeightedGain: wl has the element(s) ['b'], not elements of the
    """
    if w is None:
        return w
    loop = as_model(CL)
    known = set(loop.uncertainty) | set(loop.tunables)
    extra = sorted((set(w.uncertainty) | set(w.tunables)) - known)
    if extra:
        raise ArgumentError(
            f"{what} has the element(s) {extra}, not elements of the loop (it has "
            f"{sorted(known)}); a weight may only depend on the loop's own parameters"
        )
    return w


class WeightedGain(Goal):
    """``||W_L T W_R||_inf <= 1`` for the transfer ``T`` from ``inputs`` to ``outputs``.

    A SISO weight acts through its magnitude: one with unstable poles or zeros is
    replaced by its stable minimum-phase equivalent (:mod:`robustmb.tuning.goal_weights`);
    a pole on the imaginary axis is refused, a MIMO weight must be stable.  On a
    discrete loop, a system weight must be discrete with the loop's sample time.

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
        _signals(inputs, "WeightedGain: inputs")
        _signals(outputs, "WeightedGain: outputs")
        self.inputs, self.outputs, self.wl, self.wr = inputs, outputs, wl, wr

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "WeightedGain")
        dt = loop_dt(CL)
        for side, w in (("left", self.wl), ("right", self.wr)):
            what = f"WeightedGain: w{side[0]}"
            T = _times(_loop_weight(goal_weight(w, dt, what), CL, what), T, side, what)
        return T, "hinf", 1.0, None


class Gain(Goal):
    """``|T(jw)| <= max_gain(w)``: a number or a SISO bound (value ``||T / max_gain||``).

    A system bound must not be strictly proper (``1 / max_gain`` is the weight and must
    be proper); a biproper one bounds ``|T|`` at every frequency, an improper one lets
    the bound grow without limit at high frequency.

    The bound acts through its magnitude (right-half-plane zeros and poles are
    reflected, :mod:`robustmb.tuning.goal_weights`); a bound with a zero on the
    imaginary axis (unit circle) is refused: the value would rest on an exact
    cancellation.

    Examples
    --------
    >>> from robustmb.tuning import Gain
    >>> Gain("d", "y", 0.5).max_gain
    0.5
    """

    def __init__(self, inputs, outputs, max_gain):
        _check_bound(max_gain, "Gain: max_gain")
        _signals(inputs, "Gain: inputs")
        _signals(outputs, "Gain: outputs")
        self.inputs, self.outputs, self.max_gain = inputs, outputs, max_gain

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "Gain")
        w, scale = _inverse_weight(self.max_gain, CL, "Gain: max_gain")
        return _times(w, T, "left"), "hinf", scale, None


class Tracking(Goal):
    """Relative tracking error ``I - T_{r->y}`` below ``E(s) = (peak s + wc dc) / (s + wc)``.

    ``wc = 2 / response_time``, MATLAB's ``TuningGoal.Tracking`` convention (its
    documented tracking bandwidth ``2/responsetime``), so that a goal ported from
    MATLAB with the same response time, DC error and peak error measures the same
    profile: ``dc_error`` at low frequency rising to ``peak_error`` above ``wc``.
    MATLAB's syntax with a response time takes ``dcerror`` and ``peakerror``
    explicitly; here they default to ``1e-3`` and ``2`` (6 dB, as a usual sensitivity
    peak), which leaves room above the high-frequency limit ``|I - T| -> 1`` of a
    strictly proper loop that a peak error of 1 could only touch.  That limit,
    ``1/peak_error``, is the least value the goal can take; once there, the tuning
    keeps lowering the relative error over the tracking band ``w <= wc`` (the goal's
    value stays ``1/peak_error``).

    On a discrete loop (sample time ``dt``) the profile is discretised by the Tustin
    transform prewarped at ``wc`` (exact magnitude there); ``wc`` must lie below the
    Nyquist frequency ``pi/dt``.

    Examples
    --------
    >>> from robustmb.tuning import Tracking
    >>> g = Tracking("r", "y", response_time=0.5)
    >>> g.dc_error, g.band  # the tracking band wc = 2 / response_time
    (0.001, 4.0)
    """

    def __init__(self, reference, output, response_time, *, dc_error=1e-3, peak_error=2.0):
        _real(response_time, "Tracking: response_time", low=0, low_open=True)
        _real(dc_error, "Tracking: dc_error", low=0, low_open=True)
        _real(peak_error, "Tracking: peak_error", low=0, low_open=True)
        if not dc_error < peak_error:
            raise ArgumentError(
                f"Tracking: dc_error ({dc_error}) must be below peak_error ({peak_error})"
            )
        _signals(reference, "Tracking: reference")
        _signals(output, "Tracking: output")
        self.reference, self.output = reference, output
        self.response_time, self.dc_error, self.peak_error = response_time, dc_error, peak_error
        self.band = 2.0 / response_time  # wc, MATLAB's tracking bandwidth

    def model(self, CL):
        T = _select(CL, self.output, self.reference, "Tracking")
        if T.shape[0] != T.shape[1]:
            raise DimensionError(f"Tracking: {T.shape[0]} outputs for {T.shape[1]} references")
        wc = 2.0 / self.response_time  # MATLAB's TuningGoal.Tracking bandwidth
        err = np.eye(T.shape[0]) - T
        winv = control.ss(control.tf([1.0, wc], [self.peak_error, wc * self.dc_error]))
        dt = loop_dt(CL)
        if dt:
            if not wc < np.pi / dt:
                raise ArgumentError(
                    f"Tracking: response_time {self.response_time} is too short for the "
                    f"loop's sample time {dt} (2/response_time must be below pi/dt = "
                    f"{np.pi / dt:.6g})"
                )
            winv = control.c2d(winv, dt, method="tustin", prewarp_frequency=wc)
        return _times(as_model(winv), err, "left"), "hinf", 1.0, None


class Rejection(Goal):
    """Disturbance rejection: ``||attenuation * T_{d->y}||_inf <= 1``.

    ``attenuation`` is a number > 0 or a SISO python-control system (the minimum
    attenuation per frequency; it acts through its magnitude, a pole on the imaginary
    axis is refused, see :class:`Gain`).

    This bounds the closed-loop gain ``T_{d->y}`` itself.  MATLAB's
    ``TuningGoal.Rejection(distloc, attfact)`` takes a location instead and bounds the
    attenuation factor there, the ratio of open- to closed-loop sensitivity
    (``1/|S|``): port it as ``Sensitivity(distloc, 1/attfact)``.

    Examples
    --------
    >>> from robustmb.tuning import Rejection
    >>> Rejection("d", "y", 10.0).attenuation
    10.0
    """

    def __init__(self, disturbance, output, attenuation):
        _check_weight(attenuation, "Rejection: attenuation")
        if attenuation is None:
            raise ArgumentError("Rejection: attenuation must be a number > 0 or a SISO system")
        _signals(disturbance, "Rejection: disturbance")
        _signals(output, "Rejection: output")
        self.disturbance, self.output, self.attenuation = disturbance, output, attenuation

    def model(self, CL):
        T = _select(CL, self.output, self.disturbance, "Rejection")
        v = positive_number(self.attenuation, "Rejection: attenuation")
        if v is not None:
            return T, "hinf", v, None
        w = siso_weight(self.attenuation, loop_dt(CL), "Rejection: attenuation", invert=False)
        return _times(w, T, "left"), "hinf", 1.0, None


class Sensitivity(Goal):
    """Sensitivity at a loop-opening location: ``|S(jw)| <= max_sensitivity(w)``.

    ``location``: a location name (all channels of ``analysis_point(name, n)``) or a
    list of channel names.  ``max_sensitivity`` as the bound of :class:`Gain`.

    Examples
    --------
    >>> from robustmb.tuning import Sensitivity
    >>> Sensitivity("u", 2.0).location
    'u'
    """

    def __init__(self, location, max_sensitivity):
        _check_bound(max_sensitivity, "Sensitivity: max_sensitivity")
        _signals(location, "Sensitivity: location")
        self.location, self.max_sensitivity = location, max_sensitivity

    def model(self, CL):
        outs, ins = _location(CL, self.location, "Sensitivity")
        S = _select(CL, outs, ins, "Sensitivity")
        w, scale = _inverse_weight(self.max_sensitivity, CL, "Sensitivity: max_sensitivity")
        return _times(w, S, "left"), "hinf", scale, None


def disk_alpha(gain_margin_db, phase_margin_deg):
    """Symmetric disk size that guarantees both margins: ``alpha = max(a_gm, a_pm)``.

    A disk of size ``alpha`` gives the gain margin ``(2 + alpha) / (2 - alpha)`` and
    the phase margin ``2 atan(alpha / 2)``.

    Examples
    --------
    >>> round(disk_alpha(6.0, 10.0), 4)
    0.6646
    """
    _real(gain_margin_db, "Margins: gain_margin (dB)", low=0, low_open=True)
    _real(
        phase_margin_deg,
        "Margins: phase_margin (deg)",
        low=0,
        high=180,
        low_open=True,
        high_open=True,
    )
    gm = 10 ** (gain_margin_db / 20)
    return float(max(2 * (gm - 1) / (gm + 1), 2 * np.tan(np.radians(phase_margin_deg) / 2)))


class Margins(Goal):
    """Disk-based gain and phase margins at a location (multiloop, balanced disk).

    Met when the disk margin ``1 / ||S - I/2||_inf`` reaches the disk size that
    guarantees ``gain_margin`` (dB, > 0) and ``phase_margin`` (degrees, in (0, 180));
    value ``alpha_required * ||S - I/2||_inf``.

    ``location``: a location name (all channels of ``analysis_point(name, n)``) or a
    list of channel names.  At a multi-channel location the value is D-scaled:
    ``alpha_required * min_D ||D (S - I/2) D^-1||_inf`` over static positive diagonal
    ``D`` (:mod:`robustmb.tuning.dscaling`, as MATLAB's ``TuningGoal.Margins`` with
    static scalings), independent of the channels' units and a sufficient condition
    for the multiloop disk margin of :func:`robustmb.diskmargin`
    (``mu(S - I/2) <= ||D (S - I/2) D^-1||``).  Robust tuning of an uncertain loop
    (its worst-case search and certificate) measures the unscaled
    ``alpha_required * ||S - I/2||_inf``, an upper bound of that value.

    Examples
    --------
    >>> from robustmb.tuning import Margins
    >>> round(Margins("u", 6, 45).alpha, 4)
    0.8284
    """

    dscaled = True

    def __init__(self, location, gain_margin=6.0, phase_margin=45.0):
        _signals(location, "Margins: location")
        self.location = location
        self.gain_margin, self.phase_margin = gain_margin, phase_margin
        self.alpha = disk_alpha(gain_margin, phase_margin)

    def model(self, CL):
        outs, ins = _location(CL, self.location, "Margins")
        S = _select(CL, outs, ins, "Margins")
        return S - 0.5 * np.eye(S.shape[0]), "hinf", self.alpha, None


class Poles(Goal):
    """Closed-loop poles: decay >= ``min_decay``, damping >= ``min_damping``, bounded modulus.

    On a discrete loop (sample time ``Ts``) each pole ``z`` is read as ``log(z) / Ts``,
    as MATLAB's ``TuningGoal.Poles`` does: decay ``-log|z| / Ts``, natural frequency
    ``|log z| / Ts`` (so a ``max_frequency`` above the Nyquist frequency ``pi / Ts``
    only bounds how close to ``z = 0`` the poles may be).

    Examples
    --------
    >>> from robustmb.tuning import Poles
    >>> Poles(min_decay=0.1).min_decay
    0.1
    """

    measure = "poles"

    def __init__(self, min_decay=0.0, min_damping=0.0, max_frequency=np.inf):
        _real(min_decay, "Poles: min_decay", low=0)
        _real(min_damping, "Poles: min_damping", low=0, high=1)
        if not (isinstance(max_frequency, numbers.Real) and max_frequency == np.inf):
            _real(max_frequency, "Poles: max_frequency", low=0, low_open=True)
        self.min_decay, self.min_damping, self.max_frequency = min_decay, min_damping, max_frequency

    def model(self, CL):
        poles = (self.min_decay, self.min_damping, self.max_frequency, loop_dt(CL))
        return CL, "poles", 1.0, poles


class Variance(Goal):
    """Output variance for white-noise inputs: ``||T||_2 <= max_amplitude`` (H2 norm).

    On a continuous loop the transfer must be strictly proper (a direct feedthrough
    makes the H2 norm infinite; ``systune`` refuses it).  On a discrete loop the value
    is the discrete H2 norm ``sqrt(sum_k ||h_k||_F^2)`` over the impulse response
    ``h_k``, with no sample-time scaling.  MATLAB's ``TuningGoal.Variance`` instead
    divides the discrete norm by ``sqrt(Ts)`` (it reads ``maxamp`` as a bound on the
    continuous-time norm of the sampled process): to port such a goal, pass
    ``max_amplitude = maxamp * sqrt(Ts)``.

    Examples
    --------
    >>> from robustmb.tuning import Variance
    >>> Variance("n", "y", 0.1).max_amplitude
    0.1
    """

    def __init__(self, inputs, outputs, max_amplitude=1.0):
        _real(max_amplitude, "Variance: max_amplitude", low=0, low_open=True)
        _signals(inputs, "Variance: inputs")
        _signals(outputs, "Variance: outputs")
        self.inputs, self.outputs, self.max_amplitude = inputs, outputs, max_amplitude

    def model(self, CL):
        T = _select(CL, self.outputs, self.inputs, "Variance")
        return T, "h2", 1.0 / float(self.max_amplitude), None
