"""Arguments of the wrong kind (uncertain objects, strings, out-of-range levels) are refused
with a robustmb error naming them, not a bare numpy/python-control TypeError."""

import control
import numpy as np
import pytest

import robustmb as rmb
import robustmb.decoupling as dc
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError


@pytest.fixture
def umat():
    a = rmb.ureal("a", 1.0, percent=10)
    return rmb.umat([[a, 0.1], [0.2, 1.0]])


def test_uncertain_matrices_where_numbers_are_expected(umat):
    cases = [
        ("actuator_jacobian", lambda: dc.jacobian_decouple(np.eye(2), actuator_jacobian=umat)),
        ("sensor_jacobian", lambda: dc.jacobian_decouple(np.eye(2), sensor_jacobian=umat)),
        (
            "modal_decouple: K",
            lambda: dc.modal_decouple(
                np.eye(2), umat, input_matrix=np.eye(2), output_matrix=np.eye(2)
            ),
        ),
        ("T_out", lambda: dc.transform(np.eye(2), umat)),
        (
            "output_matrix",
            lambda: dc.uncertain_mechanical_plant(
                np.eye(2), umat, input_matrix=np.eye(2), output_matrix=umat
            ),
        ),
    ]
    for name, call in cases:
        with pytest.raises(UncertainTypeError, match=name):
            call()
    k = rmb.ureal("k", 1.0, percent=10)
    with pytest.raises(UncertainTypeError, match=r"ParallelManipulator: stiffness"):
        dc.ParallelManipulator(
            mass=1, inertia=1, spring_points=[[0, 0]], spring_directions=[[1, 0]], stiffness=k
        )


def test_modal_plant_checks_its_frequencies_and_damping():
    G = dc.modal_plant([2.0, 3.0], [0.1, 0.2])
    np.testing.assert_allclose(
        np.sort_complex(G.poles()),
        np.sort_complex(np.roots([1, 0.4, 4]).tolist() + np.roots([1, 1.2, 9]).tolist()),
    )
    # a negative frequency gave the channel s^2 - 0.2 s + 1: unstable, silently
    with pytest.raises(ArgumentError, match=r"natural_frequencies\[1\] = -1\.0"):
        dc.modal_plant([1.0, -1.0], [0.1, 0.1])
    with pytest.raises(DimensionError, match=r"damping_ratios \(1,\)"):
        dc.modal_plant([1.0, 2.0], [0.1])
    with pytest.raises(ArgumentError, match=r"damping_ratios\[0\]"):
        dc.modal_plant([1.0], [np.nan])
    # the undefined ratio of a rigid-body mode (w = 0) is still accepted: 1 / s^2
    assert np.allclose(dc.modal_plant([0.0], [np.nan]).poles(), 0.0)


def test_diagonal_control_arguments():
    for bad in ("a", np.inf, None):
        with pytest.raises(ArgumentError, match=r"wc and wp must be positive.*got wc = "):
            dc.diagonal_lowpass_controller(np.eye(2), bad, 0.1)
    with pytest.raises(ArgumentError, match=r"siso: block 1"):
        dc.diagonal_controller(control.tf([1], [1, 1]), "a")
    K3 = control.ss([], [], [], np.eye(3))
    with pytest.raises(DimensionError, match=r"Kd is 3x3 but G_dec is 2x2"):
        dc.loop_gains(K3, control.ss([], [], [], np.eye(2)), [1.0])
    # a constant gain matrix closes the loop: 1/s with u = -2 y has its pole at -2
    P = control.tf([1], [1, 0])
    np.testing.assert_allclose(dc.closed_loop_poles(P, np.array([[2.0]])), [-2.0])
    with pytest.raises(DimensionError, match=r"controller is 3x3"):
        dc.closed_loop(P, np.eye(3))


def test_gershgorin_mu_problem_arguments(umat):
    with pytest.raises(ArgumentError, match=r"row must be an integer"):
        dc.gershgorin_mu_problem(umat, [1.0], 0.5, 1.0)
    for beta in (0.0, -1.0, np.inf):
        with pytest.raises(ArgumentError, match=r"beta"):
            dc.gershgorin_mu_problem(umat, [1.0], 0, beta)
