"""Clear robustmb errors for misplaced arguments of the tunable blocks, realp, goals and
hinfstruct, and a warning for a goal between signals with no path."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, RobustMBWarning, UncertainElementError
from robustmb.tuning import Gain, Rejection, Tracking, Variance, WeightedGain
from robustmb.tuning.goals import warn_no_path


@pytest.mark.parametrize(
    "make",
    [
        lambda n: rmb.tunable_pid(n),
        lambda n: rmb.tunable_ss(n, 1, 1, 1),
        lambda n: rmb.tunable_tf(n, 0, 1),
        lambda n: rmb.tunable_gain(n, 1, 1),
        lambda n: rmb.tunable_surface(n, (1, 1), [rmb.ureal("a", 1.0)]),
    ],
)
@pytest.mark.parametrize("name", [None, 3, "a b", ""])
def test_block_name_must_be_an_identifier(make, name):
    with pytest.raises(ArgumentError, match="name must be an identifier"):
        make(name)


@pytest.mark.parametrize("basis", ["affine", "polynomial"])
@pytest.mark.parametrize("degree", [-1, 0, 1.5, True])
def test_surface_degree_checked_for_every_basis(basis, degree):
    with pytest.raises(ArgumentError, match="degree must be an integer >= 1"):
        rmb.tunable_surface("Ks", (1, 1), [rmb.ureal("a", 1.0)], basis=basis, degree=degree)


def test_realp_refuses_a_bool_and_infinite_one_sided_bounds():
    with pytest.raises(UncertainElementError, match="value must be numeric"):
        rmb.realp("k", True)
    with pytest.raises(UncertainElementError, match=r"minimum of \+inf .* admits no finite"):
        rmb.realp("k", 1.0, minimum=np.inf)
    with pytest.raises(UncertainElementError, match=r"maximum of -inf"):
        rmb.realp("k", 1.0, maximum=-np.inf)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: WeightedGain(0, "y"), "WeightedGain: inputs must be a signal name"),
        (lambda: WeightedGain("r", [1]), "WeightedGain: outputs must be a signal name"),
        (lambda: Gain("r", None, 2.0), "Gain: outputs must be"),
        (lambda: Tracking([], "y", 1.0), "Tracking: reference must be"),
        (lambda: Rejection(5, "y", 2.0), "Rejection: disturbance must be"),
        (lambda: Variance("n", {"u"}), "Variance: outputs must be"),
    ],
)
def test_goal_signals_must_be_names(make, match):
    with pytest.raises(ArgumentError, match=match):
        make()


def test_hinfstruct_empty_plant_list():
    with pytest.raises(ArgumentError, match="hinfstruct: P is an empty list"):
        rmb.hinfstruct([], rmb.tunable_gain("K", 1, 1))


def _no_path_loop():
    P = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], inputs="u", outputs="y", name="P")
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["y"], ["u2"]
    N = control.ss([[-2.0]], [[1.0]], [[1.0]], [[0.0]], inputs="n", outputs="z", name="N")
    return rmb.connect([P, K, N], None, ["u", "n"], ["y", "z", "u2"])


def test_goal_without_a_path_warns_and_is_zero():
    CL = _no_path_loop()
    with pytest.warns(
        RobustMBWarning,
        match=r"systune: no path joins the signals of WeightedGain\(inputs='n', outputs='y'",
    ):
        res = rmb.systune(CL, [WeightedGain("n", "y")])
    assert res.soft == [0.0]
    # the transfer is zero indeed: python-control's frequency response of the tuned loop
    T = control.ss(CL.usubs(res.values))
    assert np.all(T(1j * np.logspace(-2, 2, 9))[0, 1] == 0)
    assert issubclass(RobustMBWarning, UserWarning)


def test_goal_with_a_path_through_a_zero_gain_does_not_warn():
    # K starts at 0: the transfer u -> u2 = K * P is 0 there but depends on K
    import warnings

    CL = _no_path_loop()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RobustMBWarning)
        for goal in (WeightedGain("u", "u2"), WeightedGain("n", "z")):
            warn_no_path(goal, goal.model(CL)[0], "systune", "CL")
