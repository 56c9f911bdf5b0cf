"""Active-set robust tuning: analytic worst-case optimum, certificate vs brute force."""

import control
import numpy as np
import pytest
from _loops import error_feedback_loop

import robustmb as rmb
from robustmb.tuning import WeightedGain
from robustmb.tuning.robust_tuning import (
    RobustSystuneResult,
    certify_goal,
    search_worst_case,
)

A_RANGE = (0.5, 1.5)


def _static_gain_loop(G, *others, outputs=("y", "u")):
    """:func:`error_feedback_loop` with a 1x1 tunable gain ``K``."""
    return error_feedback_loop(G, rmb.tunable_gain("K", 1, 1), *others, outputs=outputs)


def _unstable_pole_loop():
    # y = (u + d) / (s - a), u = k (r - y), a in [0.5, 1.5] (an uncertain unstable pole)
    a = rmb.ureal("a", 1.0, range=A_RANGE)
    s = control.tf("s")
    return _static_gain_loop(rmb.uss(1 / (s - a)))


def _brute_force(k, c1=2.5, c2=0.25):
    """Worst goal values over a dense (a, w) grid from the closed-form transfers."""
    a = np.linspace(*A_RANGE, 2001)[:, None]
    w = np.r_[0.0, np.logspace(-3, 6, 4000)][None, :]
    s = 1j * w
    t_dy = 1.0 / (s + k - a)  # d -> y
    t_ru = k * (s - a) / (s + k - a)  # r -> u
    return c1 * np.abs(t_dy).max(), c2 * np.abs(t_ru).max()


def test_robust_tuning_reaches_the_analytic_worst_case_optimum():
    # Worst cases: c1/(k - a_hi) (at a = 1.5, w = 0) and c2 k (w -> inf, any a, k > 2a);
    # they balance at c2 k^2 - c2 a_hi k - c1 = 0: k* = (1.5 + sqrt(2.25 + 40)) / 2 = 4,
    # value 1.  The nominal design (a = 1) alone gives k = 3.70 and violates at a = 1.5.
    CL = _unstable_pole_loop()
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    res = rmb.systune(CL, goals, seed=0)
    assert isinstance(res, RobustSystuneResult)
    k = float(res.values["K"][0, 0])
    assert k == pytest.approx(4.0, abs=1e-3)
    assert max(res.soft) == pytest.approx(1.0, abs=1e-3)
    # The design was driven by the vertex a = 1.5, added by the worst-case search.
    assert [p["a"] for p in res.active_set] == pytest.approx([1.0, 1.5])
    assert res.active_set[res.drivers[0]]["a"] == pytest.approx(1.5)
    assert res.history[0]["violated"] == [0] and not res.history[-1]["violated"]
    # Certificate vs brute force (closed-form transfers on a dense grid, no robustmb code).
    brute = _brute_force(k)
    for cert, b, found in zip(res.certified, brute, res.worst_found, strict=True):
        assert cert.certified
        assert cert.upper >= b * (1 - 1e-9)
        assert cert.upper <= b * 1.01
        assert found.value == pytest.approx(b, rel=1e-6)
    assert res.certified_values == [c.upper for c in res.certified]


def test_search_finds_an_interior_worst_case():
    # |1 / (s^2 + 2 z w0 s + w0^2)| with w0 = 1, damping z = 0.1 + 0.4 (b - 1)^2: the peak
    # 1 / (2 z sqrt(1 - z^2)) is largest at the interior point b = 1 (z = 0.1).
    b = rmb.ureal("b", 0.6, range=(0.3, 1.6))
    s = control.tf("s")
    z = 0.1 + 0.4 * (b - 1) * (b - 1)
    G = rmb.uss(1 / (s * s + 2 * z * s + 1))
    wc = search_worst_case(G, {"b": b}, n_random=0)
    assert wc.point["b"] == pytest.approx(1.0, abs=1e-4)
    assert wc.value == pytest.approx(1 / (2 * 0.1 * np.sqrt(1 - 0.01)), rel=1e-6)
    for levels in (1, 2.0, True):
        with pytest.raises(rmb.errors.ArgumentError, match="levels"):
            search_worst_case(G, {"b": b}, levels=levels)
    with pytest.raises(rmb.errors.ArgumentError, match="budget"):
        certify_goal(G, budget=True)


@pytest.mark.slow
def test_split_certificate_is_valid_and_tighter():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    G = rmb.uss(c / (s + a))
    whole = certify_goal(G)
    split = certify_goal(G, splits={"a": 3})
    assert whole.certified and split.certified
    # Exact worst case: c = 1.5, a = 0.5 at w = 0 -> 3.
    assert split.lower == pytest.approx(3.0, rel=1e-9)
    assert 3.0 * (1 - 1e-9) <= split.upper <= whole.upper * (1 + 1e-9)


def test_robust_options_need_an_uncertain_loop():
    G = control.ss(control.tf([1.0], [1.0, 1.0]), inputs="u", outputs="y", name="G")
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["e"], ["u"]
    S = control.ss([], [], [], [[1.0, -1.0]], inputs=["r", "y"], outputs="e", name="S")
    CL = rmb.connect([G, K, S], None, ["r"], ["y", "u"])
    with pytest.raises(rmb.errors.UncertainTypeError, match="max_rounds"):
        rmb.systune(CL, [WeightedGain("r", "u")], max_rounds=3)


@pytest.mark.slow
def test_complex_element_held_nominal_in_the_active_set_and_certified():
    # y = c (u + d) / (s - a) with a complex gain c = 1 + 0.2 delta, |delta| <= 1.
    a = rmb.ureal("a", 1.0, range=A_RANGE)
    c = rmb.ucomplex("c", 1.0, radius=0.2)
    s = control.tf("s")
    CL = _static_gain_loop(rmb.uss(1 / (s - a)) * c)
    res = rmb.systune(CL, [WeightedGain("d", "y", wl=2.5)], seed=0, max_rounds=3)
    assert all(p["c"] == 1.0 for p in res.active_set)
    k = float(res.values["K"][0, 0])
    # Brute force: |c / (jw + k c - a)| over a grid of a, |c| <= 1.2 on the disc, w >= 0.
    av = np.linspace(*A_RANGE, 41)[:, None, None]
    cv = 1 + 0.2 * np.linspace(0, 1, 9)[:, None] * np.exp(1j * np.linspace(0, 2 * np.pi, 33))
    cv = cv.ravel()[None, :, None]
    w = np.r_[0.0, np.logspace(-2, 3, 400)][None, None, :]
    brute = 2.5 * np.abs(cv / (1j * w + k * cv - av)).max()
    cert = res.certified[0]
    assert cert.certified and cert.upper >= brute * (1 - 1e-9)
    assert res.worst_found[0].value <= cert.upper * (1 + 1e-9)


def test_worst_case_search_on_a_stable_discrete_loop_is_finite():
    # 1 / (z - a), a in [0.3, 0.7]: stable everywhere, worst gain 1 / (1 - 0.7) at z = 1.
    a = rmb.ureal("a", 0.5, range=(0.3, 0.7))
    G = rmb.uss([[a]], [[1.0]], [[1.0]], [[0.0]], dt=0.1)
    wc = search_worst_case(G, {"a": a}, loop=G, n_random=0)
    assert wc.value == pytest.approx(1 / 0.3, rel=1e-6)


def test_results_describe_the_samples_the_design_was_tuned_on():
    # One round: the search adds the violating vertex a = 1.5 after the last tune; the
    # result must not report it as tuned on, and its drivers index the tuned samples.
    CL = _unstable_pole_loop()
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    with pytest.warns(RuntimeWarning, match="did not converge"):
        res = rmb.systune(CL, goals, seed=0, max_rounds=1, certify=False)
    assert not res.converged and res.violated == [0]
    assert [p["a"] for p in res.active_set] == pytest.approx([1.0])
    assert res.drivers == [0, 0]
    with pytest.raises(rmb.errors.ArgumentError, match="max_rounds"):
        rmb.systune(CL, goals, max_rounds=0)


def test_sampled_active_set_holds_complex_elements_at_their_nominal():
    a = rmb.ureal("a", 1.0, range=A_RANGE)
    c = rmb.ucomplex("c", 1.0, radius=0.2)
    s = control.tf("s")
    G = rmb.uss(1 / (s + a)) * c
    K = rmb.tunable_gain("K", 1, 1)
    CL = rmb.feedback(G * K, 1.0)
    res = rmb.systune(
        CL,
        [WeightedGain(CL.input_names, CL.output_names)],
        samples=4,
        robust=True,
        seed=1,
        max_rounds=1,
        certify=False,
    )
    assert len(res.active_set) == 5
    assert all(p["c"] == 1.0 for p in res.active_set)
    assert len({p["a"] for p in res.active_set}) == 5


def test_hard_margin_leaves_the_slack_on_the_worst_case():
    # Hard ||d -> y|| = 2.5 / (k - 1.5) <= m at the worst vertex a = 1.5; soft ||r -> u||
    # = 0.25 k (w -> inf): the optimum sits on the hard goal, k = 1.5 + 2.5 / m.
    CL = _unstable_pole_loop()
    soft, hard = [WeightedGain("r", "u", wl=0.25)], [WeightedGain("d", "y", wl=2.5)]
    res = rmb.systune(CL, soft, hard, seed=0, hard_margin=0.97, certify=False)
    k = float(res.values["K"][0, 0])
    assert k == pytest.approx(1.5 + 2.5 / 0.97, abs=2e-3)
    # Reported values are the goals' own (not divided by the margin).
    assert res.hard[0] == pytest.approx(0.97, abs=1e-3)
    c1, _ = _brute_force(k)
    assert res.worst_found[1].value == pytest.approx(c1, rel=1e-6)
    # Only the design no search violates is polished, and it is searched again.
    assert res.history[-1]["polished"] and not res.history[0]["polished"]
    assert not res.history[-1]["violated"]
    with pytest.raises(rmb.errors.ArgumentError, match="hard_margin"):
        rmb.systune(CL, soft, hard, hard_margin=1.5)
    with pytest.raises(rmb.errors.ArgumentError, match="polish"):
        rmb.systune(CL, soft, hard, polish="always")
    with pytest.raises(rmb.errors.ArgumentError, match="start"):
        rmb.systune(CL, soft, hard, start="corners")
    # Options are checked, never clipped (bool is not accepted as a number).
    bad = [
        ("hard_margin", True), ("scan_levels", 1), ("scan_levels", 2.5), ("max_add", 0),
        ("max_add", True), ("certify_budget", True), ("certify_budget", -1.0),
    ]  # fmt: skip
    for name, value in bad:
        with pytest.raises(rmb.errors.ArgumentError, match=name):
            rmb.systune(CL, soft, hard, **{name: value})


@pytest.mark.slow
def test_hard_goal_first_start_reaches_the_same_optimum():
    # The loop of the test above, started by minimising the hard goal over an initial
    # set that holds the worst vertex (about a minute: the min-max stage runs long).
    CL = _unstable_pole_loop()
    soft, hard = [WeightedGain("r", "u", wl=0.25)], [WeightedGain("d", "y", wl=2.5)]
    res2 = rmb.systune(
        CL, soft, hard, seed=0, hard_margin=0.97, certify=False, robust=True,
        samples=[{"a": 1.5}], start="hard", random_start=1,
    )  # fmt: skip
    assert float(res2.values["K"][0, 0]) == pytest.approx(1.5 + 2.5 / 0.97, abs=2e-3)
    assert len(res2.active_set) == 2


def test_search_keeps_further_violating_points_apart():
    # Gain (1 + 0.5 a_n^2) / (s + 1) over a_n in [-1, 1]: two worst vertices (1.5) far
    # apart; the search returns one as the worst case and the other among `above`.
    a = rmb.ureal("a", 0.0, range=(-1.0, 1.0))
    s = control.tf("s")
    G = rmb.uss((1 + 0.5 * a * a) / (s + 1))
    wc = search_worst_case(G, {"a": a}, limit=1.2, n_random=40)
    assert wc.value == pytest.approx(1.5, rel=1e-9)
    assert len(wc.above) == 1
    assert wc.above[0]["a"] == pytest.approx(-wc.point["a"])
    # A three-level grid scans the centre of the box besides its vertices.
    b = rmb.ureal("b", 0.0, range=(-1.0, 1.0))
    H = rmb.uss((2 - b * b) * (1 + 0 * a) / (s + 1))
    wc3 = search_worst_case(H, {"a": a, "b": b}, n_random=0, n_local=0, levels=3)
    assert wc3.value == pytest.approx(2.0, rel=1e-12) and wc3.evaluations == 9


def test_sub_box_certificate_against_brute_force_and_its_budget():
    # c / (s^2 + 2 z sqrt(a) s + a): a resonance whose peak moves with a, damped by z.
    a = rmb.ureal("a", 2.5, range=(1.0, 4.0))
    z = rmb.ureal("z", 0.35, range=(0.2, 0.5))
    c = rmb.ureal("c", 0.75, range=(0.5, 1.0))
    s = control.tf("s")
    G = rmb.uss(c / (s * s + 2 * z * (1 + 0.5 * (a - 1)) * s + a))
    res = certify_goal(G, splits={"a": 2, "z": 2})
    av = np.linspace(1.0, 4.0, 121)[:, None, None]
    zv = np.linspace(0.2, 0.5, 61)[None, :, None]
    w = np.r_[0.0, np.logspace(-2, 2, 3000)][None, None, :]
    brute = 1.0 * np.abs(1 / ((1j * w) ** 2 + 2 * zv * (1 + 0.5 * (av - 1)) * 1j * w + av)).max()
    assert res.certified
    assert brute * (1 - 1e-9) <= res.upper <= brute * 1.05
    assert brute * (1 - 1e-3) <= res.lower <= res.upper
    # A budget spent after the first sub-box: no certificate for the whole box.
    cut = certify_goal(G, splits={"a": 2, "z": 2}, budget=1e-9)
    assert not cut.certified and cut.upper == np.inf and "budget" in cut.reason
    assert cut.lower <= res.upper
    with pytest.raises(rmb.errors.ArgumentError, match="budget"):
        certify_goal(G, splits={"a": 2}, budget=-1.0)


def test_checkpoint_holds_the_design_and_resumes_it(tmp_path):
    # Every round rewrites the checkpoint: the last one holds the final design (k = 4,
    # the analytic optimum of the test above) and the active set {1, 1.5}; a run
    # resumed from it starts on that set and stays at the optimum.
    from robustmb.tuning.checkpoint import read_checkpoint

    CL = _unstable_pole_loop()
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    path = tmp_path / "ck.json"
    res = rmb.systune(CL, goals, seed=0, certify=False, checkpoint=path)
    ck = read_checkpoint(path)
    assert float(ck["values"]["K"][0, 0]) == float(res.values["K"][0, 0])
    assert [p["a"] for p in ck["active_set"]] == pytest.approx([1.0, 1.5])
    assert len(ck["history"]) == len(res.history)
    again = rmb.systune(
        CL, goals, certify=False, initial=ck["values"], samples=ck["active_set"][1:], robust=True
    )
    assert float(again.values["K"][0, 0]) == pytest.approx(4.0, abs=1e-3)
    assert len(again.active_set) == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"values": {}}')
    with pytest.raises(rmb.errors.ArgumentError, match="active_set"):
        read_checkpoint(bad)


@pytest.mark.parametrize(
    "text, key",
    [
        ('{"values": [1.0], "active_set": []}', "values"),
        ('{"values": {"K": "four"}, "active_set": []}', "K"),
        ('{"values": {"K": [[4.0]]}, "active_set": {"a": 1.0}}', "active_set"),
        ('{"values": {"K": [[4.0]]}, "active_set": [1.0, 1.5]}', "active_set"),
        ("[1, 2]", "JSON object"),
    ],
)
def test_read_checkpoint_rejects_malformed_files(tmp_path, text, key):
    from robustmb.tuning.checkpoint import read_checkpoint

    bad = tmp_path / "bad.json"
    bad.write_text(text)
    with pytest.raises(rmb.errors.ArgumentError, match=key) as info:
        read_checkpoint(bad)
    assert "bad.json" in str(info.value)


def test_search_finds_an_instability_between_the_grid_points():
    # 1 / (s + c(a)) with c = 0.1 + 4 a^2 (a^2 - 1): stable at a = -1, 0, 1 (c = 0.1), the
    # three-level grid, but unstable for 0 < |a| < 1 away from them; the pole is largest at
    # a^2 = 1/2 (c = -0.9).  With no random points the grid alone sees a stable loop;
    # the ascent of the spectral abscissa finds the unstable region and its peak.
    a = rmb.ureal("a", 0.0, range=(-1.0, 1.0))
    s = control.tf("s")
    c = 0.1 + 4 * a * a * (a * a - 1)
    G = rmb.uss(1 / (s + c))
    wc = search_worst_case(G, {"a": a}, loop=G, n_random=0, levels=3)
    assert wc.value == np.inf
    assert abs(wc.point["a"]) == pytest.approx(np.sqrt(0.5), abs=1e-4)
    # Without the loop, the transfer's peak gain is searched only (finite, at c = 0.1).
    plain = search_worst_case(G, {"a": a}, n_random=0, levels=3, n_local=0)
    assert plain.value == pytest.approx(10.0, rel=1e-9)


def test_robust_tuning_keeps_a_tracking_goals_band(monkeypatch):
    """The active-set problems carry a ``Tracking`` goal's band, so robust tuning refines
    the error over ``[0, 2/tau]`` as nominal tuning does once ``|1 - T|`` sits on its
    high-frequency limit (1 here: ``1 - T = (s - a) / (s + k - a)``)."""
    import robustmb.tuning.robust_tuning as rt
    from robustmb.tuning import Tracking

    bands = []
    term_class = rt.Term

    def spy_term(*args, **kw):
        term = term_class(*args, **kw)
        bands.append(term.band)
        return term

    monkeypatch.setattr(rt, "Term", spy_term)
    tau = 2.0
    goals = [Tracking("r", "y", tau)], [WeightedGain("d", "y", wl=0.5)]
    res = rmb.systune(_unstable_pole_loop(), *goals, seed=0, certify=False, max_rounds=2)
    # tracking terms (soft) carry wc = 2/tau; the WeightedGain terms (hard) none
    assert 2 / tau in bands and None in bands
    assert set(bands) == {2 / tau, None}
    assert any(phase == "below limit" for r in res.runs for phase, _ in r.history)
