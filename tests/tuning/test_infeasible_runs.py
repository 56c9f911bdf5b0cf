"""Designs that could not be made stable or meet the hard goals are reported as such:
never ``converged=True``, and a RuntimeWarning from nominal systune and hinfstruct."""

import warnings

import control
import numpy as np
import pytest
from _loops import error_feedback_loop

import robustmb as rmb
from robustmb.tuning import Gain, Margins, Poles, Tracking, WeightedGain, analysis_point


def _double_integrator_loop():
    # 1/(s^2 - a) under a static gain k: s^2 + k - a is never asymptotically stable
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    k = rmb.realp("k", 1.0)
    P = rmb.feedback(rmb.uss(control.tf([1.0], [1.0, 0.0, 0.0])), -a)
    CL = rmb.feedback(P * k, 1.0)
    CL.input_names, CL.output_names = ["r"], ["y"]
    return CL


def test_robust_tuning_of_an_unstabilisable_loop_does_not_converge():
    CL = _double_integrator_loop()
    with pytest.warns(RuntimeWarning, match="not stable on the active set"):
        res = rmb.systune(CL, [Gain("r", "y", 2.0)], seed=0, certify=False, max_rounds=2)
    assert not res.converged and res.violated == [0]
    # the tuned loop's own poles: never in the open left half-plane
    a = np.asarray(CL.usubs({"a": 1.0} | res.values).A)
    assert np.linalg.eigvals(a).real.max() >= 0


def test_nominal_systune_warns_when_no_run_stabilises():
    CL = _double_integrator_loop()
    with pytest.warns(
        RuntimeWarning, match=r"no run could stabilise the closed loop \(best spectral abscissa"
    ):
        res = rmb.systune(CL, [Gain("r", "y", 2.0)], robust=False, seed=0)
    assert res.soft == [np.inf]


def test_nominal_systune_warns_naming_the_unmet_hard_goals():
    G = control.ss(control.tf([2.0], [1.0, 3.0, 2.0]), inputs="u", outputs="y", name="G")
    C = rmb.tunable_pid("C", tf=0.05)
    C.input_names, C.output_names = ["e"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    CL = rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    hard = [Poles(min_decay=5.0, max_frequency=6.0), Margins("u", 6, 45)]
    with pytest.warns(RuntimeWarning, match=r"hard goals \(hard goal 0 \(Poles"):
        res = rmb.systune(CL, [Tracking("r", "y", 2.0)], hard, seed=0)
    assert max(res.verify()["hard"]) >= 1.0


def test_hinfstruct_warns_when_no_run_stabilises():
    # an unstable mode that the controller neither sees nor moves
    P = control.ss(
        [[1.0, 0.0], [0.0, -1.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[0.0, 0.0], [0.0, 0.0]],
    )
    K = rmb.tunable_gain("K", 1, 1)
    with pytest.warns(RuntimeWarning, match="hinfstruct: no run could stabilise"):
        res = rmb.hinfstruct(P, K, seed=0)
    assert res.verify() == np.inf


def test_pid_start_stuck_in_the_stabilise_phase_is_perturbed():
    # A PID at zero on 1/(s^2 + 0.3 s - 1): the stabilise phase used to stop there
    # (soft values [inf, inf], no warning).
    s = control.tf("s")
    CL = error_feedback_loop(rmb.uss(1 / (s * s + 0.3 * s - 1)), rmb.tunable_pid("K"))
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = rmb.systune(CL, goals, seed=0)
    assert np.all(np.isfinite(res.soft))
    # stability from python-control's own loop of the plant and the tuned PID
    v = {n: float(np.ravel(x)[0]) for n, x in res.values.items()}
    pid = v["K.Kp"] + v["K.Ki"] / s + v["K.Kd"] * s / (v["K.Tf"] * s + 1)
    loop = control.feedback(1 / (s * s + 0.3 * s - 1) * pid, 1)
    assert np.max(np.real(control.poles(loop))) < 0
