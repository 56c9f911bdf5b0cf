"""Input checks of robust tuning, hinfstruct's samples, the worst-case search and
tunable surfaces: bad input raises an error naming the argument, nothing is dropped."""

import control
import numpy as np
import pytest
from test_robust_tuning import _unstable_pole_loop

import robustmb as rmb
from robustmb.errors import ArgumentError, UncertainTypeError
from robustmb.tuning import WeightedGain
from robustmb.tuning.robust_tuning import certify_goal, search_worst_case

S_ = control.tf("s")


GOALS = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
FAST = {"seed": 0, "max_rounds": 1, "n_random": 2, "certify": False}


@pytest.mark.parametrize(
    "samples, match",
    [
        ([{"a": 1.8}], r"samples\[0\] gives a = 1.8, outside its range \[0.5, 1.5\]"),
        ([{"a": 1.0}, {"b": 1.2}], r"samples\[1\] names 'b'"),
        ([{"a": "x"}], r"samples\[0\] gives a = 'x', not a real number"),
        ([{"a": np.nan}], r"samples\[0\] gives a = nan"),
        ([1.2], "samples must be an int or a list"),
        ({"a": 1.2}, "samples must be an int or a list"),
        (-1, "samples must be >= 0"),
    ],
)
def test_robust_tuning_checks_its_samples(samples, match):
    with pytest.raises(ArgumentError, match=match):
        rmb.systune(_unstable_pole_loop(), GOALS, samples=samples, robust=True, **FAST)


def test_robust_samples_at_the_range_ends_are_tuned_on():
    # A value one rounding step outside (a normalised point of 1 mapped back) is the
    # range end; a partial point is completed with the nominal values.
    res = rmb.systune(
        _unstable_pole_loop(), GOALS, samples=[{"a": 1.5 * (1 + 1e-15)}], robust=True, **FAST
    )
    assert [p["a"] for p in res.active_set] == pytest.approx([1.0, 1.5])


@pytest.mark.parametrize(
    "options, match",
    [
        ({"n_random": -1}, "n_random must be an integer >= 0"),
        ({"n_local": "x"}, "n_local must be an integer >= 0"),
        ({"n_local": 1.5}, "n_local must be an integer >= 0"),
        ({"rtol": 0.0}, "rtol must be a finite number > 0"),
        ({"rtol": -1}, "rtol must be a finite number > 0"),
        ({"rtol": np.nan}, "rtol must be a finite number > 0"),
        ({"certify_splits": {"b": 2}}, "certify_splits: 'b' is not a real parameter"),
        ({"certify_splits": {"a": 0.5}}, "the pieces of 'a' must be an integer >= 1"),
        ({"certify_splits": {"a": 0}}, "the pieces of 'a' must be an integer >= 1"),
        ({"certify_splits": {"a": True}}, "the pieces of 'a' must be an integer >= 1"),
        ({"certify_splits": [("a", 2)]}, "certify_splits must be a dict"),
    ],
)
def test_robust_options_are_checked_at_entry(options, match):
    with pytest.raises(ArgumentError, match=match):
        rmb.systune(_unstable_pole_loop(), GOALS, **{**FAST, **options})


def test_an_unknown_keyword_is_the_same_error_on_every_path():
    for path in ({"robust": True}, {"robust": False}):
        with pytest.raises(UncertainTypeError, match="unexpected keyword.*'foo'"):
            rmb.systune(_unstable_pole_loop(), GOALS, foo=1, **path)


def test_resuming_without_robust_tuning_suggests_it():
    with pytest.raises(UncertainTypeError, match="robust=True"):
        rmb.systune(_unstable_pole_loop(), GOALS, initial={"K": [[4.0]]}, samples=[{"a": 1.5}])


def _hinf_plant():
    # G = 1 / (s - a), w at the plant input, z = [y; 0.1 u], y_meas = y + 0.1 n
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    return rmb.uss(
        rmb.umat(a),
        np.array([[1.0, 0.0, 1.0]]),
        np.array([[1.0], [0.0], [1.0]]),
        np.array([[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]], float),
    )


@pytest.mark.parametrize(
    "samples, match",
    [
        ([{"a": 5.0}], r"hinfstruct: samples\[0\] gives a = 5.0, outside its range"),
        ([{"zz": 1.0}], r"hinfstruct: samples\[0\] names 'zz'.*plants"),
        ([0.7], "hinfstruct: samples must be an int or a list"),
        (-3, "hinfstruct: samples must be >= 0"),
    ],
)
def test_hinfstruct_checks_its_samples(samples, match):
    with pytest.raises(ArgumentError, match=match):
        rmb.hinfstruct(_hinf_plant(), rmb.tunable_gain("K", 1, 1), samples=samples, maxiter=5)


def _gain_model():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    b = rmb.ureal("b", 1.0, range=(0.5, 2.0))
    return rmb.uss(b / (S_ + a)), a, b


def test_search_refuses_points_outside_the_box():
    # |b / (jw + a)| is largest at w = 0, a = 0.5, b = 2: 4 over the box; an extra point
    # b = 3.5 (normalised 3) would report 7 / ... above it.
    G, a, b = _gain_model()
    with pytest.raises(ArgumentError, match=r"extra\[0\] has b at normalised 3"):
        search_worst_case(G, {"a": a, "b": b}, extra=[[-0.9, 3.0]])
    with pytest.raises(ArgumentError, match="extra points must have 2 coordinates"):
        search_worst_case(G, {"a": a, "b": b}, extra=[[0.1, 0.2, 0.3]])
    wc = search_worst_case(G, {"a": a, "b": b}, extra=[[-1.0 - 1e-12, 1.0]], n_random=0)
    assert wc.value == pytest.approx(4.0, rel=1e-9)
    assert wc.point == pytest.approx({"a": 0.5, "b": 2.0})


def test_search_checks_its_elements_and_counts():
    G, a, b = _gain_model()
    with pytest.raises(ArgumentError, match="elements lacks 'b'"):
        search_worst_case(G, {"a": a})
    wide = rmb.ureal("b", 1.0, range=(0.5, 5.0))
    with pytest.raises(ArgumentError, match=r"elements\['b'\] has the range \(0.5, 5.0\)"):
        search_worst_case(G, {"a": a, "b": wide})
    for name in ("n_random", "n_local"):
        with pytest.raises(ArgumentError, match=f"{name} must be an integer >= 0"):
            search_worst_case(G, {"a": a, "b": b}, **{name: -1})
    # an element the transfer does not involve is allowed (a loop's other parameters)
    c = rmb.ureal("c", 0.0, range=(-1.0, 1.0))
    assert search_worst_case(G, {"a": a, "b": b, "c": c}).value == pytest.approx(4.0, rel=1e-9)
    with pytest.raises(ArgumentError, match="pieces of 'a' must be an integer >= 1"):
        certify_goal(G, splits={"a": 2.5})


def test_surface_refuses_a_repeated_scheduling_element():
    v = rmb.ureal("v", 2.0, range=(1.0, 4.0))
    with pytest.raises(ArgumentError, match="lists 'v' twice"):
        rmb.tunable_surface("K", (1, 1), [v, v])


def test_polynomial_surface_coefficients_follow_the_affine_order():
    # M1 s_v + M2 s_w (as "affine"), then M3 s_v^2 + M4 s_v s_w + M5 s_w^2.
    v = rmb.ureal("v", 2.0, range=(1.0, 4.0))
    w = rmb.ureal("w", 0.0, range=(-2.0, 1.0))
    K = rmb.tunable_surface("K", (1, 1), [v, w], basis="polynomial", degree=2)
    Ka = rmb.tunable_surface("K", (1, 1), [v, w])
    coef = {f"K.M{i}": [[float(i + 1)]] for i in range(6)}
    for vv, ww in [(1.0, -2.0), (3.3, 0.4), (4.0, 1.0)]:
        sv, sw = (vv - 2.5) / 1.5, (ww + 0.5) / 1.5
        ref = 1 + 2 * sv + 3 * sw + 4 * sv * sv + 5 * sv * sw + 6 * sw * sw
        got = K.usubs({**coef, "v": vv, "w": ww}).D[0, 0]
        assert got == pytest.approx(ref, rel=1e-12)
        lin = {n: c for n, c in coef.items() if n in Ka.tunables}
        assert Ka.usubs({**lin, "v": vv, "w": ww}).D[0, 0] == pytest.approx(1 + 2 * sv + 3 * sw)
