"""Argument checks of goals, tunable blocks and systune; fixed scalar parameters;
SystuneResult.verify and active_set."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError
from robustmb.tuning import (
    Margins,
    Poles,
    Tracking,
    Variance,
    analysis_point,
    tunable_surface,
)
from robustmb.tuning.goals import disk_alpha
from robustmb.tuning.parametrization import ParameterVector
from robustmb.tuning.systune_result import SystuneResult

S_ = control.tf("s")
GP = control.tf([2.0], [1.0, 3.0, 2.0])


def _pi_loop():
    G = control.ss(GP, inputs="u", outputs="y", name="G")
    C = rmb.tunable_pid("C", form="pi")
    C.input_names, C.output_names = ["e"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    return rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Variance("d_u", "y", -1.0), "Variance: max_amplitude"),
        (lambda: Variance("d_u", "y", 0.0), "Variance: max_amplitude"),
        (lambda: Variance("d_u", "y", np.nan), "Variance: max_amplitude"),
        (lambda: Margins("u", -6.0, 45.0), "Margins: gain_margin"),
        (lambda: Margins("u", 0.0, 45.0), "Margins: gain_margin"),
        (lambda: Margins("u", np.nan, 45.0), "Margins: gain_margin"),
        (lambda: Margins("u", 6.0, 0.0), "Margins: phase_margin"),
        (lambda: Margins("u", 6.0, 180.0), "Margins: phase_margin"),
        (lambda: Margins("u", 6.0, 200.0), "Margins: phase_margin"),
        (lambda: Margins("u", 6.0, np.inf), "Margins: phase_margin"),
        (lambda: Poles(min_damping=2.0), "Poles: min_damping"),
        (lambda: Poles(min_damping=-0.1), "Poles: min_damping"),
        (lambda: Poles(min_decay=-1.0), "Poles: min_decay"),
        (lambda: Poles(max_frequency=0.0), "Poles: max_frequency"),
        (lambda: Poles(max_frequency=np.nan), "Poles: max_frequency"),
        (lambda: Tracking("r", "y", np.nan), "Tracking: response_time"),
        (lambda: Tracking("r", "y", -1.0), "Tracking: response_time"),
        (lambda: Tracking("r", "y", 1.0, dc_error=0.5, peak_error=0.1), "Tracking: dc_error"),
        (lambda: disk_alpha(-3.0, 30.0), "Margins: gain_margin"),
    ],
)
def test_goal_arguments_are_checked(make, match):
    with pytest.raises(ArgumentError, match=match):
        make()


def test_disk_alpha_against_the_disk_geometry():
    # A disk of size alpha gives the gain margin (2 + alpha)/(2 - alpha) and the phase
    # margin 2 atan(alpha/2): invert both by hand.
    gm_db, pm = 6.0, 45.0
    gm = 10 ** (gm_db / 20)
    a_gm = 2 * (gm - 1) / (gm + 1)
    assert (2 + a_gm) / (2 - a_gm) == pytest.approx(gm)
    a_pm = 2 * np.tan(np.radians(pm) / 2)
    assert np.degrees(2 * np.arctan(a_pm / 2)) == pytest.approx(pm)
    assert disk_alpha(gm_db, pm) == pytest.approx(max(a_gm, a_pm))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"random_start": -1}, "systune: random_start"),
        ({"random_start": 1.5}, "systune: random_start"),
        ({"maxiter": 0}, "systune: maxiter"),
        ({"maxiter": -5}, "systune: maxiter"),
    ],
)
def test_systune_run_options_are_checked(kwargs, match):
    with pytest.raises(ArgumentError, match=match):
        rmb.systune(_pi_loop(), [Tracking("r", "y", 1.0)], seed=0, **kwargs)


def test_hinfstruct_run_options_are_checked():
    P = control.ss([[1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0, 0], [0, 0]])
    with pytest.raises(ArgumentError, match="hinfstruct: random_start"):
        rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), random_start=-1)
    with pytest.raises(ArgumentError, match="hinfstruct: maxiter"):
        rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), maxiter=0)
    with pytest.raises(ArgumentError, match="no free entry"):
        rmb.hinfstruct(P, rmb.uss(rmb.realp("K", -2.0, free=False)))


@pytest.mark.parametrize(
    "make, err, match",
    [
        (lambda v: tunable_surface("K", (1.7, 1), v), DimensionError, "shape"),
        (lambda v: tunable_surface("K", (-1, 1), v), DimensionError, "shape"),
        (lambda v: tunable_surface("K", (0, 1), v), DimensionError, "shape"),
        (lambda v: tunable_surface("K", (1, 1), []), ArgumentError, "scheduling"),
        (lambda v: tunable_surface("K", (1, 1), "v"), ArgumentError, "scheduling"),
        (
            lambda v: tunable_surface("K", (1, 1), v, basis="polynomial", degree=-1),
            ArgumentError,
            "degree",
        ),
        (
            lambda v: tunable_surface("K", (1, 1), v, basis="polynomial", degree=1.5),
            ArgumentError,
            "degree",
        ),
        (
            lambda v: rmb.realp("k", np.zeros((2, 2)), free=[True, False, True]),
            DimensionError,
            "free",
        ),
        (lambda v: rmb.realp("k", 0.0, minimum="a"), ArgumentError, "minimum"),
        (lambda v: rmb.realp("k", 0.0, free="yes"), ArgumentError, "free"),
        (lambda v: rmb.tunable_gain("K", 1, 1, value=[["a"]]), ArgumentError, "value"),
        (lambda v: rmb.tunable_pid("C", form="pi", tf=-1.0), ArgumentError, "tf"),
        (lambda v: rmb.tunable_pid("C", form="i", tf=0.1), ArgumentError, "tf"),
        (lambda v: rmb.tunable_pid("C", tf=-1.0), ArgumentError, "tf"),
        (lambda v: rmb.tunable_pid("C", tf="x"), ArgumentError, "tf"),
    ],
)
def test_block_arguments_are_checked(make, err, match):
    v = rmb.ureal("v", 1.0, range=(0.5, 2.0))
    with pytest.raises(err, match=match):
        make(v)


def test_pid_initial_values_per_form():
    # The documented initial values: Kp = 1, Ki = Kd = 0, except Ki = 1 for the "i" form.
    for form, expected in [("pid", (1.0, 0.0, 0.0)), ("pi", (1.0, 0.0, None)),
                           ("i", (None, 1.0, None)), ("pd", (1.0, None, 0.0))]:  # fmt: skip
        C = rmb.tunable_pid("C", form=form, tf=0.1 if "d" in form else None)
        for name, want in zip(("C.Kp", "C.Ki", "C.Kd"), expected, strict=True):
            if want is None:
                assert name not in C.tunables
            else:
                assert float(C.tunables[name].value) == want


# -- fixed scalar parameters ------------------------------------------------------------


def test_fixed_scalar_realp_is_not_in_the_vector():
    k = rmb.realp("k", 1.0, free=False)
    m = rmb.realp("m", 2.0, minimum=-3.0, maximum=5.0)
    pv = ParameterVector({"k": k, "m": m})
    assert pv.size == 1
    assert pv.initial().tolist() == [2.0]
    assert pv.lower.tolist() == [-3.0] and pv.upper.tolist() == [5.0]
    assert pv.values(np.array([4.0])) == {"k": 1.0, "m": 4.0}


def test_systune_with_a_fixed_scalar_gain():
    G = control.ss(GP, inputs="u", outputs="y", name="G")
    integ = control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]], inputs="e", outputs="ie", name="I")
    kp, ki = rmb.realp("kp", 0.5, free=False), rmb.realp("ki", 0.2)
    C = rmb.uss(rmb.umat([[kp, ki]]))
    C.input_names, C.output_names, C.name = ["e", "ie"], ["u_in"], "C"
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    CL = rmb.connect([G, integ, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    res = rmb.systune(CL, [Tracking("r", "y", 1.0)], seed=0)
    assert res.values["kp"] == 0.5
    # independent: the tracking error of the loop rebuilt with python-control
    L = (0.5 + res.values["ki"] / S_) * GP
    T = control.feedback(L, 1)
    winv = control.tf([1.0, 2.0], [2.0, 2e-3])  # (s + wc) / (2 s + wc dc), wc = 2 / tau
    ref = rmb.hinfnorm(control.ss(winv * (1 - T)))[0]
    assert res.soft[0] == pytest.approx(ref, rel=1e-6)
    with pytest.raises(ArgumentError, match="no free entry"):
        Cf = rmb.uss(rmb.realp("k", 1.0, free=False) * control.ss([], [], [], [[1.0]]))
        Cf.input_names, Cf.output_names, Cf.name = ["e"], ["u_in"], "C"
        CLf = rmb.connect([G, Cf, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
        rmb.systune(CLf, [Tracking("r", "y", 1.0)], seed=0)


# -- verify and active_set ----------------------------------------------------------------


def _result_for(cl, hard):
    return SystuneResult(cl, {}, [], [np.nan] * len(hard), [], [{}], [], [{}], ((), tuple(hard)))


def test_verify_keeps_negative_pole_values_and_nan(monkeypatch):
    # A closed loop with poles -1 and -10: Poles(min_decay=0.05) is met with room; its
    # value 1 + (max Re + decay)/decay = 1 + (-1 + 0.05)/0.05 = -18 is floored at
    # POLES_FLOOR = 0 (a met requirement gains nothing more), and a pole at -0.06 reads
    # 1 + (-0.06 + 0.05)/0.05 = 0.8, above the floor.
    cl = control.ss(np.diag([-1.0, -10.0]), np.ones((2, 1)), np.ones((1, 2)), [[0.0]])
    chk = _result_for(cl, [Poles(min_decay=0.05)]).verify()
    assert chk["hard"][0] == 0.0
    cl = control.ss(np.diag([-0.06, -10.0]), np.ones((2, 1)), np.ones((1, 2)), [[0.0]])
    chk = _result_for(cl, [Poles(min_decay=0.05)]).verify()
    assert chk["hard"][0] == pytest.approx(1 + (-0.06 + 0.05) / 0.05)
    # a value that cannot be computed (NaN) must not read as met
    import robustmb.tuning.systune_result as sr

    monkeypatch.setattr(sr, "_goal_value", lambda *args: float("nan"))
    assert np.isnan(_result_for(cl, [Poles(min_decay=0.05)]).verify()["hard"][0])


def test_active_set_lists_the_models():
    CL = _pi_loop()
    res = rmb.systune(CL, [Tracking("r", "y", 1.0)], seed=0, maxiter=50)
    assert res.active_set == [{}]
    assert res.active_goals == [repr(Tracking("r", "y", 1.0))]
