"""Hostile arguments of the element, algebra, multibody, example and sweep functions are
refused with an error from robustmb.errors naming the argument at fault."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import (
    ArgumentError,
    DimensionError,
    DivisionByZeroError,
    RobustMBError,
    UncertainElementError,
)


@pytest.mark.parametrize("zero", [0, 0.0, np.float64(0.0), -0.0])
def test_division_by_zero_is_a_robustmb_and_a_zero_division_error(zero):
    a = rmb.ureal("a", 1.0, percent=20)
    with pytest.raises(DivisionByZeroError, match="by zero") as info:
        a / zero
    # old callers catching the built-in keep working
    assert isinstance(info.value, ZeroDivisionError) and isinstance(info.value, RobustMBError)


@pytest.mark.parametrize(
    "kw, shown",
    [
        ({"percent": "20"}, "percent .* got '20'"),
        ({"range": "02"}, r"range .* got '02'"),
        ({"plusminus": "5"}, "plusminus .* got '5'"),
        ({"range": b"02"}, "range"),
    ],
)
def test_ureal_string_bounds_are_named_as_given(kw, shown):
    with pytest.raises(UncertainElementError, match=shown):
        rmb.ureal("x", 1.0, **kw)


@pytest.mark.parametrize("rtol", [-1.0, np.nan, np.inf, "1e-8", None])
def test_simplify_rtol(rtol):
    a = rmb.ureal("a", 1.0, percent=20)
    with pytest.raises(ArgumentError, match="simplify: rtol"):
        rmb.simplify(a * a, rtol=rtol)


def test_simplify_rtol_zero_is_legal_and_exact():
    a = rmb.ureal("a", 1.0, percent=20)
    X = rmb.simplify(a * a + a, rtol=0.0)
    for v in (0.8, 1.0, 1.2):
        assert np.isclose(float(np.asarray(X.usubs({"a": v}))[0, 0]), v * v + v, rtol=1e-12)


@pytest.fixture(scope="module")
def gondola():
    return rmb.examples.balloon_gondola()


@pytest.mark.parametrize(
    "bad, error, shown",
    [
        (lambda q: q + 0j, ArgumentError, "q must hold real numbers, got a complex"),
        (lambda q: np.atleast_2d(q), DimensionError, r"q must be a 1-D array, got shape \(1, "),
        (lambda q: np.atleast_2d(q).T, DimensionError, r"q must be a 1-D array, got shape \("),
        (lambda q: list(q[:-1]) + [1j], ArgumentError, "complex"),
    ],
)
def test_tree_state_is_not_cast_or_flattened(gondola, bad, error, shown):
    mech, q0, v0 = gondola
    with pytest.raises(error, match=shown):
        mech.mass_matrix(bad(q0))
    with pytest.raises(error, match=shown.replace("q must", "v must").replace("q\\b", "v")):
        mech.forward_dynamics(q0, bad(v0) if "shape" in shown else v0 + 0j, np.zeros(len(v0)))


def test_inverse_dynamics_names_the_acceleration_entry(gondola):
    mech, q0, v0 = gondola
    a = np.zeros(len(v0))
    a[7] = np.inf
    with pytest.raises(ArgumentError, match=r"a\[7\] \(d\(theta1_dot\)/dt\) is not finite"):
        mech.inverse_dynamics(q0, v0, a)
    with pytest.raises(DimensionError, match="9 accelerations"):
        mech.inverse_dynamics(q0, v0, np.zeros(len(v0) + 1))


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"method": "bogus"}, "method"),
        ({"method": 5}, "method"),
        ({"max_step": -1.0}, "max_step"),
        ({"max_step": 0.0}, "max_step"),
        ({"rtol": 0.0}, "rtol"),
        ({"rtol": -1e-8}, "rtol"),
        ({"rtol": np.nan}, "rtol"),
        ({"atol": -1.0}, "atol"),
        ({"first_step": 0.0}, "first_step"),
    ],
)
def test_simulate_integrator_options(gondola, kw, name):
    mech, q0, v0 = gondola
    with pytest.raises(ArgumentError, match=f"simulate: {name}"):
        mech.simulate((0.0, 0.01), q0, v0, **kw)


@pytest.mark.parametrize("uncertain", ["no", 0, 1, None, "False"])
def test_two_link_arm_uncertain_is_a_bool(uncertain):
    with pytest.raises(ArgumentError, match="uncertain must be True or False"):
        rmb.examples.two_link_arm(0.5, 0.3, uncertain=uncertain)


def test_two_link_arm_uncertain_false_has_no_elements():
    assert rmb.examples.two_link_arm(0.5, 0.3, uncertain=np.bool_(False)).blocks == {}


@pytest.mark.parametrize("store", [5, 2.5, ["a.sqlite"], object()])
def test_sweep_store_must_be_a_path(store):
    with pytest.raises(ArgumentError, match="sweep: store must be the path"):
        rmb.sweep(abs, [1, 2], store=store, progress=False)
    with pytest.raises(ArgumentError, match="load_sweep: store must be the path"):
        load_sweep(store)


@pytest.mark.parametrize("progress", ["x", 1, None, "False"])
def test_sweep_progress_is_a_bool(progress):
    with pytest.raises(ArgumentError, match="sweep: progress must be True or False"):
        rmb.sweep(abs, [1, 2], progress=progress)


@pytest.mark.parametrize("seed", ["x", -1, 2.5, True, [1, -2], []])
def test_usample_seed(seed):
    U = rmb.ureal("a", 1.0, percent=20) * rmb.umat([[1.0]])
    with pytest.raises(ArgumentError, match="usample: seed"):
        rmb.usample(U, 2, seed=seed)


def test_usample_seed_forms_give_numpy_draws():
    U = rmb.ureal("a", 1.0, percent=20) * rmb.umat([[1.0]])
    same = [rmb.usample(U, 3, seed=s)[1] for s in (7, np.random.default_rng(7), [7])]
    assert same[0] == same[1] == same[2]
