"""Goal bounds and weights: magnitude-equivalent weights, discrete loops, bus locations.

References are independent of the goals' code: the frequency responses of the
original bounds and of the loop rebuilt with python-control, on a dense grid refined
by a bounded scalar search around its maximum.
"""

import control
import numpy as np
import pytest
from scipy.optimize import minimize_scalar

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError, SignalError
from robustmb.lft.model import as_model
from robustmb.tuning import (
    Gain,
    Margins,
    Rejection,
    Sensitivity,
    Tracking,
    WeightedGain,
    analysis_point,
)
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_term import Term

VALS = {"C.Kp": 1.3, "C.Ki": 0.8, "C.Kd": 0.25}
S_ = control.tf("s")
GP = control.tf([2.0], [1.0, 3.0, 2.0])
CP = 1.3 + 0.8 / S_ + 0.25 * S_ / (0.05 * S_ + 1)


def _pid_loop():
    G = control.ss(GP, inputs="u", outputs="y_in", name="G")
    C = rmb.tunable_pid("C", tf=0.05)
    C.input_names, C.output_names = ["e"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    aps = [analysis_point("u"), analysis_point("y")]
    return rmb.connect([G, C, S, *aps], None, ["r", "d_u", "d_y"], ["y", "u", "e"])


def _goal_value(CL, goal, vals):
    """The goal's value by hinfnorm on its model and by the optimiser's Term."""
    cl = as_model(CL)
    params = ParameterVector(cl.tunables)
    model, measure, scale, poles = goal.model(cl)
    v1 = rmb.hinfnorm(model.usubs(vals))[0] * scale
    term = Term(TunableLFT(model, params), measure, scale, poles, band=goal.band)
    x = np.concatenate([np.ravel(np.asarray(vals[n], float)) for n in params.tunables])
    return v1, term.evaluate(x)[0]


def _peak(f, w_lo, w_hi, n=40001, log=True):
    """sup of a scalar function of w: dense grid, then a bounded search at the maximum."""
    w = np.logspace(np.log10(w_lo), np.log10(w_hi), n) if log else np.linspace(w_lo, w_hi, n)
    v = np.array([f(x) for x in w])
    k = int(np.argmax(v))
    lo, hi = w[max(k - 1, 0)], w[min(k + 1, n - 1)]
    r = minimize_scalar(
        lambda x: -f(x), bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
    )
    return max(v[k], -r.fun)


def _mag(sys, w):
    return abs(complex(control.evalfr(sys, 1j * w)))


TDY = control.feedback(GP, CP)  # d_u -> y (a zero at s = 0: integral action)
SY = control.feedback(1, CP * GP)  # sensitivity at y


@pytest.mark.parametrize(
    "goal, ref",
    [
        # |T| <= |(s-1)/(s+10)|: the RHP zero is reflected, same magnitude
        (
            Gain("d_u", "y", control.tf([1, -1], [1, 10])),
            lambda w: _mag(TDY, w) / _mag(control.tf([1, -1], [1, 10]), w),
        ),
        # an improper bound |T| <= |jw + 1|: the weight 1/(s + 1) is strictly proper
        (
            Gain("d_u", "y", control.tf([1, 1], [1])),
            lambda w: _mag(TDY, w) / abs(1j * w + 1),
        ),
        # a bound with an RHP pole (the inverse weight has an RHP zero)
        (
            Sensitivity("y", control.tf([2, 2], [1, -0.5])),
            lambda w: _mag(SY, w) / _mag(control.tf([2, 2], [1, -0.5]), w),
        ),
        (
            Rejection("d_u", "y", 10 * control.tf([1, -1], [1, 1])),
            lambda w: 10 * _mag(TDY, w),
        ),
        (
            WeightedGain("d_u", "y", wl=control.tf([1], [1, -1])),
            lambda w: _mag(TDY, w) / abs(1j * w - 1),
        ),
        # complex RHP poles of a weight: reflected as a conjugate pair
        (
            WeightedGain("d_u", "y", wl=control.tf([1, 1], [1, -0.4, 4])),
            lambda w: _mag(TDY, w) * _mag(control.tf([1, 1], [1, -0.4, 4]), w),
        ),
    ],
)
def test_unstable_or_nonminimum_phase_bounds_act_through_their_magnitude(goal, ref):
    v1, v2 = _goal_value(_pid_loop(), goal, VALS)
    r = _peak(ref, 1e-4, 1e4)
    assert np.isfinite(v1) and np.isfinite(v2)
    assert v1 == pytest.approx(r, rel=1e-6)
    assert v2 == pytest.approx(r, rel=1e-6)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Gain("d_u", "y", 2 * control.tf([1, 0], [1, 1])), "Gain: max_gain has a zero"),
        (
            lambda: Sensitivity("y", 2 * control.tf([1, 0.0], [1, 0.5])),
            "Sensitivity: max_sensitivity has a zero",
        ),
        (
            lambda: Rejection("d_u", "y", control.tf([1], [1, 0])),
            "Rejection: attenuation has a pole",
        ),
        (
            lambda: WeightedGain("d_u", "y", wl=control.tf([1], [1, 0, 4])).model(_pid_loop()),
            "WeightedGain: wl has a pole",
        ),
    ],
)
def test_bounds_singular_on_the_axis_are_refused(make, match):
    # Old behaviour: the goal value was inf, and systune reported an infeasible start.
    with pytest.raises(ArgumentError, match=match):
        make()


def test_bound_types():
    CL = _pid_loop()
    for b in (np.float64(0.5), np.array(0.5), np.array([[0.5]]), 0.5):
        assert Gain("d_u", "y", b).model(CL)[2] == 2.0
    for b in ("0.5", None, -1.0, 0.0, np.nan, np.inf, True):
        with pytest.raises(ArgumentError, match="Gain: max_gain"):
            Gain("d_u", "y", b)
    with pytest.raises(ArgumentError, match="not strictly proper"):
        Gain("d_u", "y", control.tf([1], [1, 1]))
    for w in (0, 0.0, np.zeros((1, 1)), np.zeros((2, 2))):  # as the zero SISO system
        with pytest.raises(ArgumentError, match="WeightedGain: wl is identically zero"):
            WeightedGain("d_u", "y", wl=w).model(CL)
    with pytest.raises(DimensionError, match="SISO"):
        Gain("d_u", "y", control.ss(-np.eye(2), np.eye(2), np.eye(2), np.eye(2)))
    with pytest.raises(ArgumentError, match="Rejection: attenuation"):
        Rejection("d_u", "y", -3.0)
    with pytest.raises(DimensionError, match="WeightedGain: wl of shape"):
        WeightedGain("r", "y", wl=np.ones((2, 2))).model(CL)


# -- discrete loops ---------------------------------------------------------------------

TS = 0.1


def _discrete_loop():
    Gd = control.c2d(control.ss(GP), TS)
    G = control.ss(*control.ssdata(Gd), TS, inputs="u", outputs="y", name="G")
    integ = control.ss([[1.0]], [[TS]], [[1.0]], [[0.0]], TS, inputs="e", outputs="ie", name="I")
    K = rmb.tunable_gain("K", 1, 2)
    K.input_names, K.output_names = ["e", "ie"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], TS, inputs=["r", "y"], outputs="e", name="S")
    CL = rmb.connect([G, K, S, integ, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    Cz = control.ss([], [], [], [[1.3]], TS) + 0.8 * control.ss(
        [[1.0]], [[TS]], [[1.0]], [[0.0]], TS
    )
    return CL, Gd, Cz


def _dmag(sys, w):
    return abs(complex(control.evalfr(sys, np.exp(1j * w * TS))))


def test_tracking_on_a_discrete_loop_uses_the_prewarped_tustin_profile():
    CL, Gd, Cz = _discrete_loop()
    tau = 2.0
    goal = Tracking("r", "y", tau)
    model = goal.model(as_model(CL))[0]
    assert model.dt == TS
    T = control.feedback(Cz * Gd, 1)
    wc = 2.0 / tau  # MATLAB's TuningGoal.Tracking bandwidth 2 / responsetime
    # Independent profile: E^-1 = (s + wc) / (2 s + wc dc) with s = wc/tan(wc Ts/2) (z-1)/(z+1)
    k = wc / np.tan(wc * TS / 2)
    z = control.tf([1, 0], [1], TS)
    s_z = k * (z - 1) / (z + 1)
    winv = (s_z + wc) / (2.0 * s_z + wc * 1e-3)
    # prewarping: the discrete profile has the continuous magnitude at wc
    assert _dmag(winv, wc) == pytest.approx(abs((1j * wc + wc) / (2j * wc + wc * 1e-3)), rel=1e-12)
    ref = _peak(lambda w: _dmag(winv, w) * _dmag(1 - T, w), 1e-4, np.pi / TS)
    v1, v2 = _goal_value(CL, goal, {"K": np.array([[1.3, 0.8]])})
    assert v1 == pytest.approx(ref, rel=1e-6)
    assert v2 == pytest.approx(ref, rel=1e-6)


def test_discrete_loop_refuses_continuous_weights_and_too_short_response_times():
    CL, _, _ = _discrete_loop()
    cl = as_model(CL)
    for goal, what in [
        (WeightedGain("r", "y", wl=control.tf([1, 1], [1, 10])), "WeightedGain: wl"),
        (Gain("d_u", "y", 2 * control.tf([1, 0.1], [0.1, 1])), "Gain: max_gain"),
        (Rejection("d_u", "y", control.tf([10, 10], [1, 0.01])), "Rejection: attenuation"),
    ]:
        with pytest.raises(ArgumentError, match=f"{what} is a continuous system"):
            goal.model(cl)
    with pytest.raises(ArgumentError, match="Tracking: response_time"):
        Tracking("r", "y", TS / 4).model(cl)  # 2/tau above pi/Ts


def test_discrete_bound_with_a_zero_outside_the_unit_circle():
    CL, Gd, Cz = _discrete_loop()
    b = control.tf([1.0, -2.0], [1.0, -0.5], TS)  # zero at z = 2, reflected to 1/2
    goal = Gain("d_u", "y", b)
    Tdy = control.feedback(Gd, Cz)
    ref = _peak(lambda w: _dmag(Tdy, w) / _dmag(b, w), 1e-4, np.pi / TS)
    v1, v2 = _goal_value(CL, goal, {"K": np.array([[1.3, 0.8]])})
    assert v1 == pytest.approx(ref, rel=1e-6)
    assert v2 == pytest.approx(ref, rel=1e-6)


@pytest.mark.slow
def test_systune_tracking_on_a_discrete_loop():
    CL, Gd, _ = _discrete_loop()
    res = rmb.systune(CL, [Tracking("r", "y", 2.0)], [Margins("u", 6, 45)], seed=0)
    chk = res.verify()
    assert chk["stable"] and res.hard[0] < 1
    np.testing.assert_allclose(chk["soft"], res.soft, rtol=1e-6)
    # independent: the tuned loop with python-control, its disk margin by diskmargin
    K = np.asarray(res.values["K"]).ravel()
    Cz = control.ss([], [], [], [[K[0]]], TS) + K[1] * control.ss(
        [[1.0]], [[TS]], [[1.0]], [[0.0]], TS
    )
    dm = rmb.diskmargin(Cz * Gd)
    assert Margins("u", 6, 45).alpha / dm.alpha == pytest.approx(res.hard[0], rel=1e-5)


# -- multi-channel locations ------------------------------------------------------------

A2 = np.array([[-1.0, 0.5], [0.0, -2.0]])
B2 = np.array([[1.0, 0.0], [0.3, 1.0]])
K2 = np.array([[3.0, 0.5], [0.2, 2.0]])


def _mimo_loop():
    G = control.ss(A2, B2, np.eye(2), np.zeros((2, 2)), inputs=["u[0]", "u[1]"],
                   outputs=["y[0]", "y[1]"], name="G")  # fmt: skip
    K = rmb.tunable_gain("K", 2, 2)
    K.input_names, K.output_names = ["e[0]", "e[1]"], ["u_in[0]", "u_in[1]"]
    sin, sout = ["r[0]", "r[1]", "y[0]", "y[1]"], ["e[0]", "e[1]"]
    S = control.ss([], [], [], np.hstack([np.eye(2), -np.eye(2)]), inputs=sin, outputs=sout)
    ins = ["r[0]", "r[1]", "d_u[0]", "d_u[1]"]
    return rmb.connect(
        [G, K, S, analysis_point("u", 2)], None, ins, ["y[0]", "y[1]", "u[0]", "u[1]"]
    )


def _sigma_peak(sys):
    def f(w):
        return np.linalg.svd(np.atleast_2d(sys(1j * w)), compute_uv=False)[0]

    return _peak(f, 1e-4, 1e4)


def test_locations_resolve_bus_names_and_lists():
    CL = _mimo_loop()
    L = control.ss([], [], [], K2) * control.ss(A2, B2, np.eye(2), np.zeros((2, 2)))
    Sref = control.feedback(control.ss([], [], [], np.eye(2)), L)
    ref_s = _sigma_peak(Sref)
    ref_m = _sigma_peak(Sref - control.ss([], [], [], 0.5 * np.eye(2)))
    for loc in ("u", ["u[0]", "u[1]"], ("u[0]", "u[1]")):
        v1, v2 = _goal_value(CL, Sensitivity(loc, 2.0), {"K": K2})
        assert v1 == pytest.approx(ref_s / 2, rel=1e-6) and v2 == pytest.approx(ref_s / 2, rel=1e-6)
        goal = Margins(loc, 6, 45)
        v1, _ = _goal_value(CL, goal, {"K": K2})
        assert v1 == pytest.approx(goal.alpha * ref_m, rel=1e-6)
    # one channel of the bus
    S00 = control.ss(Sref[0, 0])
    assert _goal_value(CL, Sensitivity("u[0]", 1.0), {"K": K2})[0] == pytest.approx(
        _sigma_peak(S00), rel=1e-6
    )
    with pytest.raises(SignalError, match="Margins: location 'v'"):
        Margins("v").model(as_model(CL))
    with pytest.raises(ArgumentError, match="Margins: location lists a channel twice"):
        Margins(["u", "u[0]"]).model(as_model(CL))


# -- D-scaled multiloop margins ---------------------------------------------------------

GT = control.tf(
    [[[2.0], [0.5]], [[0.6], [1.0]]],
    [[[0.2, 1.2, 1.0], [1.0, 2.0]], [[1.0, 1.0], [0.1, 1.1, 1.0]]],
)
KT = np.array([[6.0, 1.0], [-2.0, 5.0]])


def _loop_2x2(G):
    """Error feedback of the 2x2 plant ``G`` (inputs u[i], outputs y[i]) through a tunable
    gain, with a two-channel analysis point at u."""
    K = rmb.tunable_gain("K", 2, 2)
    K.input_names, K.output_names = ["e[0]", "e[1]"], ["u_in[0]", "u_in[1]"]
    sin, sout = ["r[0]", "r[1]", "y[0]", "y[1]"], ["e[0]", "e[1]"]
    S = control.ss([], [], [], np.hstack([np.eye(2), -np.eye(2)]), inputs=sin, outputs=sout)
    ins = ["r[0]", "r[1]", "d_u[0]", "d_u[1]"]
    outs = ["y[0]", "y[1]", "u[0]", "u[1]"]
    return rmb.connect([G, K, S, analysis_point("u", 2)], None, ins, outs)


def _scaled_loop(unit):
    """The 2x2 loop with the second input in other units (u2 -> unit * u2)."""
    Gp = control.ss(GT) * control.ss([], [], [], np.diag([1.0, unit]))
    G = control.ss(Gp.A, Gp.B, Gp.C, Gp.D, inputs=["u[0]", "u[1]"], outputs=["y[0]", "y[1]"])
    CL = _loop_2x2(G)
    Kv = np.diag([1.0, 1.0 / unit]) @ KT  # the same controller in the new units
    return CL, Gp, Kv


def _brute_force_dscaled(M):
    """min over d of the dense-grid peak of sigma_max(D M(jw) D^-1), D = diag(1, d)."""
    w = np.concatenate(([0.0], np.logspace(-3, 3, 6001)))
    F = np.moveaxis(M(1j * w), -1, 0)

    def peak(z):
        dd = np.array([1.0, np.exp(z)])
        return np.linalg.svd(dd[None, :, None] * F / dd[None, None, :], compute_uv=False)[
            :, 0
        ].max()

    r = minimize_scalar(peak, bounds=(-12.0, 12.0), method="bounded", options={"xatol": 1e-10})
    return r.fun


@pytest.mark.parametrize("unit", [1.0, 10.0, 100.0])
def test_multiloop_margins_are_d_scaled_and_unit_independent(unit):
    from robustmb.tuning.dscaling import goal_lft
    from robustmb.tuning.systune_result import _dscaled_hinfnorm

    CL, Gp, Kv = _scaled_loop(unit)
    goal = Margins("u", 6, 45)
    cl = as_model(CL)
    params = ParameterVector(cl.tunables)
    model, measure, scale, poles = goal.model(cl)
    term = Term(goal_lft(goal, model, TunableLFT(model, params)), measure, scale, poles)
    value, grad = term.evaluate(Kv.ravel())
    # independent: the loop L = K G by python-control, S - I/2, brute-force D and grid
    L = control.ss([], [], [], Kv) * Gp
    M = control.feedback(control.ss([], [], [], np.eye(2)), L) - control.ss(
        [], [], [], 0.5 * np.eye(2)
    )
    ref = goal.alpha * _brute_force_dscaled(M)
    assert value == pytest.approx(ref, rel=1e-5)
    # the second algorithm of verify(): direct minimisation of the full norm
    assert value == pytest.approx(_dscaled_hinfnorm(model.usubs({"K": Kv})) * scale, rel=1e-8)
    # a sufficient condition: never below alpha / (the multiloop disk margin's upper bound)
    ml = rmb.diskmargin(L).multiloop
    assert value >= goal.alpha / ml.upper * (1 - 1e-9)
    # the gradient at the optimal D against central differences of the D-scaled value
    h = 1e-6
    fd = []
    for i in range(Kv.size):
        e = np.zeros(Kv.size)
        e[i] = h
        fd.append((term.evaluate(Kv.ravel() + e)[0] - term.evaluate(Kv.ravel() - e)[0]) / (2 * h))
    np.testing.assert_allclose(grad, fd, rtol=1e-4, atol=1e-6)


def test_systune_multiloop_margins_verified():
    CL, Gp, _ = _scaled_loop(10.0)
    res = rmb.systune(CL, [WeightedGain(["r[0]", "r[1]"], ["u[0]", "u[1]"])],
                      [Margins("u", 6, 45)], seed=0, maxiter=100)  # fmt: skip
    chk = res.verify()
    assert chk["stable"]
    np.testing.assert_allclose(chk["hard"], res.hard, rtol=1e-6)
    np.testing.assert_allclose(chk["soft"], res.soft, rtol=1e-6)
    assert res.hard[0] < 1
    # independent: the multiloop disk margin of the tuned loop guarantees the requirement
    L = control.ss([], [], [], np.asarray(res.values["K"])) * Gp
    assert rmb.diskmargin(L).multiloop.lower >= Margins("u", 6, 45).alpha * (1 - 1e-6)


def test_dscaling_of_a_decoupled_transfer_and_sampled_tuning():
    from robustmb.tuning.dscaling import optimal_scaling

    # diagonal M: every D gives the same norm (a flat level); the norm is max |M_ii|
    e = np.zeros((0, 0))
    z, g = optimal_scaling(e, np.zeros((0, 2)), np.zeros((2, 0)), np.diag([0.5, -2.0]))
    assert g == pytest.approx(2.0, rel=1e-12) and np.all(np.abs(z) <= 30)
    # sampled tuning of a 2x2 loop with an uncertain gain: K = 0 is optimal (S = I,
    # value alpha/2, where the margin goal's transfer no longer involves the gain)
    a = rmb.ureal("a", 1.0, range=(0.8, 1.2))
    G = rmb.uss(control.ss(A2, B2, np.eye(2), np.zeros((2, 2)))) * a
    G.input_names, G.output_names = ["u[0]", "u[1]"], ["y[0]", "y[1]"]
    CL = _loop_2x2(G)
    goal = Margins("u", 6, 45)
    res = rmb.systune(CL, [goal], seed=0, samples=2, maxiter=50)
    assert len(res.active_set) == 3 and res.active_set[0] == {"a": 1.0}
    assert res.soft[0] == pytest.approx(goal.alpha / 2, rel=1e-9)
    assert res.verify()["soft"][0] == pytest.approx(goal.alpha / 2, rel=1e-9)


def test_tracking_profile_is_matlabs():
    # MATLAB's TuningGoal.Tracking: MaxError = (PeakError s + wc DCError) / (s + wc) with
    # wc = 2 / responsetime.  A loop T = 1 / (s + 1) (error s / (s + 1)); the value is
    # sup |s / (s + 1)| / |MaxError| on a dense grid.
    T = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], inputs="r", outputs="y")
    for tau, dc, peak in [(2.0, 1e-3, 2.0), (0.5, 0.01, 1.5), (4.0, 1e-3, 1.2)]:
        wc = 2.0 / tau

        def ratio(w, wc=wc, dc=dc, peak=peak):
            s = 1j * w
            return abs(s / (s + 1)) / abs((peak * s + wc * dc) / (s + wc))

        ref = _peak(ratio, 1e-5, 1e5)
        goal = Tracking("r", "y", tau, dc_error=dc, peak_error=peak)
        model, _, scale, _ = goal.model(rmb.uss(T))
        assert rmb.hinfnorm(model.nominal())[0] * scale == pytest.approx(ref, rel=1e-6)
        assert goal.band == wc
