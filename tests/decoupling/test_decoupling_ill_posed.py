"""Ill-posed decoupling problems are refused with an error naming the argument at fault."""

import control
import numpy as np
import pytest

import robustmb as rmb
import robustmb.decoupling as dc
from robustmb.decoupling.second_order import SecondOrderSystem
from robustmb.errors import ArgumentError, DimensionError, IllPosedError, UncertainTypeError


def _two_mass_chain(k=100.0):
    # m1 = m2 = 1 on springs k (ground - m1) and k (m1 - m2): w^2 = k (3 -+ sqrt 5) / 2
    M = np.eye(2)
    K = np.array([[2 * k, -k], [-k, k]])
    return M, K, 0.01 * K


# -- modal decoupling needs one independent actuator and sensor per mode --------------------
def test_modal_decouple_two_mass_chain_closed_form():
    M, K, C = _two_mass_chain()
    d = dc.modal_decouple(M, K, C, input_matrix=np.eye(2), output_matrix=np.eye(2))
    np.testing.assert_allclose(
        d.natural_frequencies**2, 100.0 * (3 + np.array([-1, 1]) * np.sqrt(5)) / 2, rtol=1e-12
    )
    H = dc.frequency_response(d.plant, [1.0, 7.0, 30.0])
    assert np.all(dc.gershgorin_ratios(H) < 1e-12)


def test_modal_decouple_refuses_fewer_actuators_than_modes():
    # one force on mass 2: pinv(B_m) cannot separate the two modes; the old result was a
    # 2x2 "decoupled" plant with Gershgorin ratios 0.618 and 1.618 at every frequency
    M, K, C = _two_mass_chain()
    with pytest.raises(IllPosedError, match=r"input_matrix.*rank 1 < 2"):
        dc.modal_decouple(M, K, C, input_matrix=[[0.0], [1.0]], output_matrix=np.eye(2))
    with pytest.raises(IllPosedError, match=r"output_matrix.*rank 1 < 2"):
        dc.modal_decouple(M, K, C, input_matrix=np.eye(2), output_matrix=[[1.0, 0.0]])


# -- frame_change ----------------------------------------------------------------------------
def test_frame_change_matches_the_rigid_body_closed_form():
    # M in a frame at offset o from the CoM (v_CoM = v_O + w z x (-o)):
    # [[m, 0, m o_y], [0, m, -m o_x], [., ., I + m |o|^2]]
    m, inertia, o = 400.0, 115.0, np.array([0.3, -0.85])
    pts = [[-0.5, -0.85], [0.5, -0.85], [0.0, 0.4]]
    dirs = [[0, 1], [0, 1], [1, 0]]
    MO = np.array([[m, 0, m * o[1]], [0, m, -m * o[0]], [m * o[1], -m * o[0], inertia + m * o @ o]])
    got = dc.frame_change(
        np.diag([m, m, inertia]), dc.line_jacobian(pts, dirs), dc.line_jacobian(pts, dirs, o)
    )
    np.testing.assert_allclose(got, MO, rtol=1e-12, atol=1e-9)


def test_frame_change_refuses_struts_that_do_not_fix_the_frame():
    # two parallel vertical struts leave x free: the old least-squares map gave M_xx = 0
    # instead of 400 (and no x-rotation coupling)
    pts, dirs = [[-0.5, -0.85], [0.5, -0.85]], [[0, 1], [0, 1]]
    JM = dc.line_jacobian(pts, dirs)
    JK = dc.line_jacobian(pts, dirs, origin=[0.3, -0.85])
    M = np.diag([400.0, 400.0, 115.0])
    with pytest.raises(ArgumentError, match=r"J_from has rank 2 < 3"):
        dc.frame_change(M, JM, JK)


def test_frame_change_refuses_inconsistent_jacobians_and_shapes():
    # four struts (redundant): J_to must be J_from times a change of coordinates
    J = np.array([[1.0, 0, 1.7], [0, 1, -0.5], [0, 1, 0.5], [1.0, 0, -0.3]])
    M = np.diag([400.0, 400.0, 115.0])
    with pytest.raises(ArgumentError, match=r"J_to is not J_from"):
        dc.frame_change(M, J, np.eye(4, 3))
    with pytest.raises(DimensionError, match=r"X must be 3x3"):
        dc.frame_change(np.eye(2), J, J)


# -- frequencies at poles ----------------------------------------------------------------------
def _undamped():
    return control.ss([[0.0, 1.0], [-1.0, 0.0]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])


def test_frequency_response_at_a_pole_names_omega():
    with pytest.raises(ArgumentError, match=r"omega.*1\.0 rad/s \(index 1\).*pole"):
        dc.frequency_response(_undamped(), [0.5, 1.0])
    with pytest.raises(ArgumentError, match=r"omega.*2\.0 rad/s \(index 0\).*pole"):
        dc.frequency_response(control.tf([1.0], [1.0, 0.0, 4.0]), [2.0])
    with pytest.raises(ArgumentError, match=r"omega.*pole"):
        dc.gershgorin_ratios(_undamped(), omega=[1.0])
    with pytest.raises(ArgumentError, match=r"w0 = 1\.0 rad/s is a pole"):
        dc.svd_decouple(_undamped(), 1.0)
    with pytest.raises(ArgumentError, match=r"wc = 1\.0 rad/s is a pole"):
        dc.diagonal_lowpass_controller(_undamped(), wc=1.0, wp=0.1)
    # other errors of the evaluation are not reported as poles
    Gd = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]], dt=0.1)
    with pytest.raises(ArgumentError, match=r"continuous-time"):
        dc.svd_decouple(Gd, 1.0)
    with pytest.raises(ArgumentError, match=r"continuous-time"):
        dc.diagonal_lowpass_controller(Gd, wc=1.0, wp=0.1)


def test_transmissibility_at_an_undamped_resonance_names_omega():
    m = SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=[[1.0]], ground_stiffness=np.eye(1))
    np.testing.assert_allclose(dc.transmissibility(m, [2.0])[:, 0, 0], [-1 / 3])  # k/(k - w^2)
    with pytest.raises(ArgumentError, match=r"omega.*1\.0 rad/s \(index 1\).*resonance"):
        dc.transmissibility(m, [2.0, 1.0])


# -- real approximation ------------------------------------------------------------------------
def test_real_approximation_refuses_undetermined_row_phases():
    # H = [1, j]: X = [cos phi, sin phi]^T matches every phase exactly; the old result was
    # set by rounding
    with pytest.raises(IllPosedError, match=r"row\(s\) \[0\].*not unique"):
        dc.real_approximation(np.array([[1.0, 1j]]))
    rng = np.random.default_rng(1)
    H = rng.normal(size=(2, 5)) + 1j * rng.normal(size=(2, 5))
    with pytest.raises(IllPosedError, match=r"row\(s\) \[0, 1\]"):
        dc.real_approximation(H)
    with pytest.raises(IllPosedError, match=r"real=False"):
        dc.svd_decouple(H)
    # even a nearly real wide H: the old result was 1.6 away from R for H = R + 1e-6 j X
    R, X = rng.normal(size=(2, 5)), rng.normal(size=(2, 5))
    with pytest.raises(IllPosedError, match=r"not unique"):
        dc.real_approximation(R + 1e-6j * X)
    # a real matrix with rotated rows keeps its answer: R up to the sign of each row
    Hr = dc.real_approximation(np.exp(1j * np.array([0.3, -1.1]))[:, None] * R)
    np.testing.assert_allclose(np.abs(Hr), np.abs(R), atol=1e-12)
    # a wide matrix with fewer than 2p columns keeps a unique answer: the ALIGN formula
    H = rng.normal(size=(2, 3)) + 1j * rng.normal(size=(2, 3))
    D = np.linalg.pinv(np.real(H.conj().T @ H))
    phi = 0.5 * np.angle(np.diag(H @ D @ H.T))
    ref = np.linalg.pinv(D @ np.real(H.conj().T @ np.diag(np.exp(1j * phi))))
    np.testing.assert_allclose(dc.real_approximation(H), ref, atol=1e-12)


def test_real_approximation_refuses_an_uncertain_matrix():
    a = rmb.ureal("a", 1.0, percent=10)
    with pytest.raises(UncertainTypeError, match=r"real_approximation: H must be a numeric"):
        dc.real_approximation(rmb.umat([[a, 0.1], [0.2, 1.0]]))


def test_uncertain_plant_error_names_the_worst_case_function():
    a = rmb.ureal("a", 1.0, percent=10)
    with pytest.raises(UncertainTypeError) as err:
        dc.gershgorin_ratios(rmb.umat([[a, 0.1], [0.2, 1.0]]))
    assert "worst_case_gershgorin()" in str(err.value)
    assert hasattr(dc, "worst_case_gershgorin")


# -- uncertain line Jacobian -------------------------------------------------------------------
def test_uncertain_line_jacobian_refuses_bad_directions_and_origin():
    z = rmb.ureal("z", 0.2, plusminus=0.05)
    with pytest.raises(ArgumentError, match=r"directions.*\[1\].*zero length"):
        dc.uncertain_line_jacobian([[0.0, 0.0], [1.0, z]], [[1.0, 0.0], [0.0, 0.0]])
    for o in ([0.0, 0.0], [0.0, 0.0, 0.0, 5.0]):
        with pytest.raises(DimensionError, match=r"origin must have 3 coordinates"):
            dc.uncertain_line_jacobian([[0.0, 0.0, z]], [[1.0, 0.0, 0.0]], origin=o)


def test_second_order_response_at_an_undamped_resonance_names_omega():
    m = SecondOrderSystem(np.eye(1), 4.0 * np.eye(1), input_matrix=[[1.0]])
    out = m.body_motion("position")
    np.testing.assert_allclose(m.frequency_response([1.0], out)[:, 0, 0], [1 / 3])  # 1/(k - w^2)
    with pytest.raises(ArgumentError, match=r"omega.*2\.0 rad/s \(index 1\).*resonance"):
        m.frequency_response([1.0, 2.0], out)
    with pytest.raises(ArgumentError, match=r"omega has a non-finite frequency"):
        m.frequency_response([np.nan], out)


def test_svd_decouple_keep_must_be_an_integer():
    H = np.array([[3.0, 1.0], [1.0, 3.0]])
    assert np.allclose(dc.svd_decouple(H, keep=1).plant, [[4.0]])  # sigma_1 of [[3,1],[1,3]]
    for bad in (1.5, "2", True):
        with pytest.raises(ArgumentError, match=r"keep must be an integer"):
            dc.svd_decouple(H, keep=bad)


def test_jacobians_of_different_frame_dimensions_are_refused():
    # a spatial actuator Jacobian with a 5-coordinate sensor Jacobian gave a 5x6 "G_O"
    with pytest.raises(
        DimensionError, match=r"actuator_jacobian has 6 columns but sensor_jacobian has 5"
    ):
        dc.jacobian_decouple(
            np.eye(6), actuator_jacobian=np.eye(6), sensor_jacobian=np.eye(6)[:, :5]
        )
