"""systune: goals against independent computations (disk margins, H2, poles, samples)."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import SignalError, UncertainTypeError
from robustmb.tuning import (
    Gain,
    Margins,
    Poles,
    Rejection,
    Sensitivity,
    Tracking,
    Variance,
    WeightedGain,
    analysis_point,
)


def _pid_loop(G):
    C = rmb.tunable_pid("C", tf=0.05)
    C.input_names, C.output_names = ["e"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    return rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u", "e"])


def _plant():
    return control.ss(control.tf([2.0], [1.0, 3.0, 2.0]), inputs="u", outputs="y", name="G")


@pytest.mark.slow
def test_pid_tracking_and_margins_against_diskmargin():
    G = _plant()
    CL = _pid_loop(G)
    res = rmb.systune(
        CL, [Tracking("r", "y", 2.0)], [Margins("u", 6.0, 45.0)], random_start=1, seed=0
    )
    chk = res.verify()
    assert chk["stable"]
    np.testing.assert_allclose(chk["soft"], res.soft, rtol=1e-6)
    np.testing.assert_allclose(chk["hard"], res.hard, rtol=1e-6)
    assert res.hard[0] < 1.0
    # Independent: the loop L = C G with python-control, its disk margin by diskmargin.
    v = res.values
    s = control.tf("s")
    K = v["C.Kp"] + v["C.Ki"] / s + v["C.Kd"] * s / (0.05 * s + 1)
    L = K * control.tf(G)
    dm = rmb.diskmargin(L)
    assert Margins("u", 6.0, 45.0).alpha / dm.alpha == pytest.approx(res.hard[0], rel=1e-5)
    # ... and the tracking error by hinfnorm on I - T with the error weight.
    T = control.feedback(L, 1)
    winv = control.tf([1.0, 1.0], [2.0, 1e-3])  # E^-1, E = (2 s + wc dc)/(s + wc), wc = 2/tau
    assert rmb.hinfnorm(control.ss(winv * (1 - T)))[0] == pytest.approx(res.soft[0], rel=1e-5)


def test_goal_values_match_hand_built_transfers():
    G = _plant()
    CL = _pid_loop(G)
    vals = {"C.Kp": 0.8, "C.Ki": 0.1, "C.Kd": 0.3}
    s = control.tf("s")
    K = 0.8 + 0.1 / s + 0.3 * s / (0.05 * s + 1)
    L = K * control.tf(G)
    S = control.feedback(1, L)
    W = control.tf([1.0, 2.0], [1.0, 20.0])
    cases = [
        (WeightedGain("r", "e", wl=W), rmb.hinfnorm(control.ss(W * S))[0]),
        (Gain("r", "e", 2.0), rmb.hinfnorm(control.ss(S))[0] / 2.0),
        (Rejection("d_u", "y", 3.0), 3 * rmb.hinfnorm(control.ss(control.tf(G) * S))[0]),
        (Sensitivity("u", 2.0), rmb.hinfnorm(control.ss(S))[0] / 2.0),
    ]
    for goal, expected in cases:
        model, measure, scale, _ = goal.model(CL)
        got = rmb.hinfnorm(model.usubs(vals))[0] * scale
        assert got == pytest.approx(expected, rel=1e-6), goal


def test_unknown_signal_is_a_clear_error():
    CL = _pid_loop(_plant())
    with pytest.raises(SignalError, match="Tracking"):
        rmb.systune(CL, [Tracking("ref", "y", 1.0)])
    with pytest.raises(UncertainTypeError, match="no tunable"):
        rmb.systune(rmb.uss(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])), [Poles()])


def test_poles_and_variance_goals():
    """State feedback on a double integrator with noise: decay and H2 checked on the result."""
    A = [[0.0, 1.0], [0.0, 0.0]]
    G = control.ss(
        A,
        [[0.0, 0.0], [1.0, 1.0]],
        np.eye(2),
        np.zeros((2, 2)),
        inputs=["u", "n"],
        outputs=["x[0]", "x[1]"],
        name="G",
    )
    K = rmb.tunable_gain("K", 1, 2, value=[[-1.0, -1.0]])
    K.input_names, K.output_names = ["x[0]", "x[1]"], ["u"]
    CL = rmb.connect([G, K], None, ["n"], ["x[0]", "x[1]", "u"])
    res = rmb.systune(
        CL,
        [Variance("n", "x[0]", 1.0)],
        [Poles(min_decay=0.5, min_damping=0.5, max_frequency=5.0)],
        seed=0,
    )
    k = res.values["K"]
    acl = np.array(A) + np.array([[0.0], [1.0]]) @ k
    lam = np.linalg.eigvals(acl)
    assert np.all(lam.real <= -0.5 * (1 - 1e-6))
    assert np.all(-lam.real >= 0.5 * np.abs(lam) * (1 - 1e-6))
    assert np.all(np.abs(lam) <= 5.0 * (1 + 1e-6))
    h2 = rmb.h2norm(control.ss(acl, [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]]))
    assert h2 == pytest.approx(res.soft[0], rel=1e-6)
    # The variance decreases with more gain; the frequency bound caps it, so it is active.
    assert res.hard[0] == pytest.approx(1.0, abs=2e-2)


@pytest.mark.slow
def test_multi_model_over_uncertainty_samples():
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    G = rmb.uss(a / (s * (s + 1)))
    G.input_names, G.output_names, G.name = ["u"], ["y"], "G"
    CL = _pid_loop(G)
    pts = [{"a": 0.5}, {"a": 1.5}]
    res = rmb.systune(CL, [Tracking("r", "y", 2.0)], [Margins("u", 6.0, 45.0)], samples=pts, seed=0)
    assert set(res.closed_loop.uncertainty) == {"a"} and not res.closed_loop.tunables
    assert len(res.models) == 3
    chk = res.verify()
    np.testing.assert_allclose(chk["hard"], res.hard, rtol=1e-6)
    # Worst over the models, each recomputed by python-control from the tuned PID.
    v = res.values
    K = v["C.Kp"] + v["C.Ki"] / s + v["C.Kd"] * s / (0.05 * s + 1)
    alphas = [rmb.diskmargin(K * av / (s * (s + 1))).alpha for av in (1.0, 0.5, 1.5)]
    assert Margins("u", 6, 45).alpha / min(alphas) == pytest.approx(res.hard[0], rel=1e-5)
    # The wcgain certificate covers the whole box: at least the sampled worst case.
    cert = res.certified[0]
    assert cert.upper >= res.soft[0] * (1 - 1e-6)


def test_tracking_at_its_high_frequency_limit_keeps_tuning_the_band():
    """A PI loop of relative degree one can keep |W (1 - T)| below its limit 1/peak_error.

    The goal's value is then that limit with a zero gradient; the tuning continues on
    the relative error over the tracking band w <= 2/tau instead of stopping there.
    """
    G = control.ss(control.tf([2.0], [1.0, 1.0]), inputs="u", outputs="y", name="G")
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    Integ = control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]], inputs="e", outputs="ie", name="I")
    K = rmb.tunable_gain("K", 1, 2)
    K.input_names, K.output_names = ["e", "ie"], ["u_in"]
    CL = rmb.connect([G, Integ, K, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    tau = 0.5
    res = rmb.systune(CL, [Tracking("r", "y", tau)], [Margins("u", 6.0, 45.0)], seed=0)
    chk = res.verify()
    assert chk["stable"] and res.hard[0] < 1.0
    assert chk["soft"][0] == pytest.approx(res.soft[0], rel=1e-9)
    assert res.soft[0] == pytest.approx(0.5, rel=1e-9)  # the limit 1 / peak_error
    band = [v for phase, v in res.runs[0].history if phase == "below limit"]
    assert len(band) >= 2 and band[-1] < band[0]
    # Independent: the weighted error on a dense grid of the band, by python-control.
    kp, ki = res.values["K"][0]
    s = control.tf("s")
    L = (kp + ki / s) * control.tf(G)
    wc = 2 / tau  # MATLAB's tracking bandwidth
    werr = (s + wc) / (2 * s + 1e-3 * wc) / (1 + L)
    w = np.linspace(0.0, wc, 20001)
    peak = np.abs(np.squeeze(werr(1j * w))).max()
    assert peak == pytest.approx(band[-1], rel=1e-6)
    assert peak <= 0.25  # the refinement's target: half the limit


@pytest.mark.parametrize("multipeak", [True, False])
def test_systune_multipeak_option(monkeypatch, multipeak):
    """``multipeak`` reaches the optimiser (a spy on ``bfgs`` sees ``pieces`` only when on),
    and either setting tunes the doc's PD loop: the tuned tracking value is below the
    start's, computed independently with python-control; ``verify`` (hinfnorm on the tuned
    loop) agrees.  A bad value, or robust tuning without the step, is refused."""
    import robustmb.tuning.tuning_problem as tp
    from robustmb.errors import ArgumentError
    from robustmb.tuning import Margins, Tracking, analysis_point

    calls = []
    bfgs_orig = tp.bfgs

    def spy_bfgs(*args, **kw):
        calls.append(kw.get("pieces"))
        return bfgs_orig(*args, **kw)

    monkeypatch.setattr(tp, "bfgs", spy_bfgs)
    G = control.ss(control.tf([1.0], [1.0, 1.0, 0.0]), inputs="u", outputs="y", name="G")
    C = rmb.tunable_pid("C", form="pd", tf=0.01)
    C.input_names, C.output_names = ["e"], ["u_in"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    CL = rmb.connect([G, C, S, analysis_point("u")], None, ["r", "d_u"], ["y", "u"])
    tau = 1.0
    goals = [Tracking("r", "y", tau)], [Margins("u", 6, 45)]
    res = rmb.systune(CL, *goals, seed=0, multipeak=multipeak)
    assert calls
    if multipeak:
        assert all(p is not None for p in calls)
    else:
        assert all(p is None for p in calls)
    chk = res.verify()
    assert chk["stable"] and res.hard[0] < 1
    assert chk["soft"][0] == pytest.approx(res.soft[0], rel=1e-6)
    # The start (Kp = 1, Kd = 0): the weighted tracking error by python-control on a grid.
    s = control.tf("s")
    wc = 2 / tau  # the tracking bandwidth
    werr = (s + wc) / (2 * s + 1e-3 * wc) / (1 + control.tf(G))
    w = np.geomspace(1e-4, 1e3, 20001)
    start = np.abs(np.squeeze(werr(1j * w))).max()
    assert start > 0.99 and res.soft[0] < 0.6 * start
    with pytest.raises(ArgumentError, match="systune: multipeak"):
        rmb.systune(CL, *goals, multipeak=1)
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    Gu = rmb.uss(a / (s * (s + 1)))
    Gu.input_names, Gu.output_names, Gu.name = ["u"], ["y"], "G"
    with pytest.raises(ArgumentError, match="robust tuning"):
        rmb.systune(_pid_loop(Gu), *goals, multipeak=False)


def test_systune_checks_its_samples():
    import control

    from robustmb.errors import ArgumentError
    from robustmb.tuning.goals import WeightedGain

    a = rmb.ureal("a", 2.0, range=(1, 4))
    CL = rmb.feedback(control.tf([1], [1, 1]) * a * rmb.tunable_pid("C", form="pi"), 1)
    goal = WeightedGain(CL.input_names[0], CL.output_names[0])
    for bad, error, text in [
        ([{"a": 40.0}], ArgumentError, r"samples\[0\] gives a = 40.0, outside its range \[1, 4\]"),
        (-2, ArgumentError, "samples must be >= 0"),
        (2.5, ArgumentError, "samples must be an int or a list"),
        ([{"b": 1.0}], ArgumentError, r"samples\[0\] names 'b'"),
        ([1.0], ArgumentError, "samples must be an int or a list"),
    ]:
        with pytest.raises(error, match=text):
            rmb.systune(CL, [goal], samples=bad, robust=False, certify=False, maxiter=5)
    with pytest.raises(ArgumentError, match="no goal given"):
        rmb.systune(CL, [])
    with pytest.raises(rmb.errors.UncertainTypeError, match="one closed loop"):
        rmb.systune([CL, CL], [goal])
    # samples=0: the nominal model alone, as samples=None
    res = rmb.systune(CL, [goal], samples=0, robust=False, certify=False, maxiter=5)
    assert res.active_set == [{"a": 2.0}]
