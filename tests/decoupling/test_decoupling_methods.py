"""Generic properties of the decoupling methods on numeric and uncertain plants."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.decoupling import (
    closed_loop_poles,
    diagonal_controller,
    diagonal_lowpass_controller,
    frequency_response,
    jacobian_decouple,
    loop_gains,
    modal_decouple,
    real_approximation,
    static_decouple,
    svd_decouple,
    transform,
)
from robustmb.errors import DimensionError


# -- real approximation and SVD -----------------------------------------------------------
def test_real_approximation_recovers_a_real_matrix_rotated_by_row_phases():
    rng = np.random.default_rng(0)
    for p, m in ((3, 3), (4, 3)):
        H = rng.standard_normal((p, m))
        phases = np.exp(1j * rng.uniform(-np.pi, np.pi, p))
        Hr = real_approximation(phases[:, None] * H)
        # each row comes back up to its sign
        signs = np.sign(np.sum(Hr * H, axis=1))
        np.testing.assert_allclose(signs[:, None] * Hr, H, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(real_approximation(H), H, rtol=1e-10, atol=1e-12)


def test_svd_decoupling_of_a_real_matrix_is_exactly_diagonal():
    rng = np.random.default_rng(1)
    H = rng.standard_normal((4, 3))
    d = svd_decouple(H)
    np.testing.assert_allclose(d.plant, np.diag(d.sigma), atol=1e-12)
    np.testing.assert_allclose(d.U @ d.U.T, np.eye(4), atol=1e-12)
    np.testing.assert_allclose(d.V.T @ d.V, np.eye(3), atol=1e-12)
    assert np.all(np.diff(d.sigma) <= 0)
    d2 = svd_decouple(H, keep=2)
    assert d2.plant.shape == (2, 2)
    with pytest.raises(DimensionError, match="keep"):
        svd_decouple(H, keep=4)


def test_svd_decoupling_diagonalises_an_lti_plant_at_the_chosen_frequency():
    G = control.ss(
        [[-0.1, 1.0], [-4.0, -0.3]],
        [[0.0, 0.0], [1.0, 0.5]],
        [[1.0, 0.0], [0.2, 1.0]],
        [[0.0, 0.1], [0.0, 0.0]],
    )
    w0 = 5.0
    d = svd_decouple(G, w0)
    Hd = frequency_response(d.plant, [w0])[0]
    off = abs(Hd[0, 1]) + abs(Hd[1, 0])
    # exact diagonalisation of the real approximation; residual from the phase
    assert off < 1e-6 * np.abs(Hd).max() + 2 * d.imaginary_ratio * np.abs(Hd).max()
    with pytest.raises(ValueError, match="w0"):
        svd_decouple(G)
    with pytest.raises(ValueError, match="must not be given"):
        svd_decouple(np.eye(2), 1.0)


def test_repeated_singular_values_are_aligned_reproducibly():
    # a rotation inside a degenerate pair is arbitrary; alignment picks the coordinate axes
    c, s = np.cos(0.3), np.sin(0.3)
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    H = R @ np.diag([5.0, 5.0, 1.0]) @ R.T @ np.diag([1.0, 1.0, 1.0])
    d = svd_decouple(H)
    # the output directions span the same plane and are as close to the axes as possible
    np.testing.assert_allclose(np.abs(d.U[:, 2]), [0, 0, 1], atol=1e-12)
    Uc = d.U[:, :2]
    assert np.linalg.norm(Uc @ Uc.T - np.diag([1, 1, 0])) < 1e-12
    np.testing.assert_allclose(
        d.U[:, :2] @ np.diag(d.sigma[:2]) @ d.V[:, :2].T
        + np.outer(d.U[:, 2], d.V[:, 2]) * d.sigma[2],
        H,
        atol=1e-12,
    )


def test_svd_decoupling_of_measured_frequency_response_data():
    G = control.ss(
        [[-0.1, 1.0], [-4.0, -0.3]],
        [[0.0, 0.0], [1.0, 0.5]],
        [[1.0, 0.0], [0.2, 1.0]],
        np.zeros((2, 2)),
    )
    omega = np.logspace(-1, 1, 41)
    H = frequency_response(G, omega)
    k = 25
    d = svd_decouple(H, omega[k] * 1.001, omega=omega)
    ref = svd_decouple(G, omega[k])
    assert d.w0 == omega[k]
    np.testing.assert_allclose(d.input_matrix, ref.input_matrix, atol=1e-10)
    np.testing.assert_allclose(d.plant, frequency_response(ref.plant, omega), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="grid omega"):
        svd_decouple(H, 1.0)


def test_static_decoupling_is_the_identity_at_dc():
    G = control.ss([[-1.0, 0], [0, -2]], [[1.0, 2], [0, 1]], [[1.0, 0], [1, 1]], np.zeros((2, 2)))
    d = static_decouple(G, 0.0)
    np.testing.assert_allclose(np.asarray(d.plant.dcgain()), np.eye(2), atol=1e-12)


# -- Jacobian decoupling --------------------------------------------------------------------
def test_jacobian_decoupling_inverts_the_geometry_exactly():
    rng = np.random.default_rng(2)
    J = rng.standard_normal((3, 3))
    Jsen = rng.standard_normal((4, 3))
    Gx = control.rss(4, 3, 3)
    G = transform(Gx, Jsen, J.T)  # sensors see J_sen X, actuators give F = J^T tau
    d = jacobian_decouple(G, actuator_jacobian=J, sensor_jacobian=Jsen)
    w = np.logspace(-1, 1, 5)
    np.testing.assert_allclose(
        frequency_response(d.plant, w), frequency_response(Gx, w), rtol=1e-9, atol=1e-12
    )
    assert d.input_names == ["Fx", "Fy", "Mz"] and d.output_names == ["x", "y", "Rz"]
    with pytest.raises(DimensionError, match="actuator_jacobian"):
        jacobian_decouple(G, actuator_jacobian=np.eye(4))
    with pytest.raises(DimensionError, match="sensor_jacobian"):
        jacobian_decouple(G, sensor_jacobian=np.eye(3))


def test_physical_controller_has_the_same_closed_loop_as_the_decoupled_loop():
    rng = np.random.default_rng(3)
    G = control.rss(4, 3, 3)
    J = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    d = jacobian_decouple(G, actuator_jacobian=J, sensor_jacobian=J)
    Kd = diagonal_lowpass_controller(d.plant, 3.0, 0.3).controller
    p_dec = np.sort_complex(closed_loop_poles(d.plant, Kd))
    p_phys = np.sort_complex(closed_loop_poles(G, d.controller(Kd)))
    np.testing.assert_allclose(p_phys, p_dec, rtol=1e-7, atol=1e-9)


def test_diagonal_helpers():
    K = diagonal_controller(control.tf([1.0], [1.0, 2.0]), 3.0)
    assert K.ninputs == K.noutputs == 2
    L = loop_gains(K, control.ss([], [], [], np.eye(2)), [0.0])
    np.testing.assert_allclose(L[0], [0.5, 3.0])
    with pytest.raises(DimensionError):
        diagonal_controller(control.ss([], [], [], np.ones((2, 2))))
    with pytest.raises(ValueError, match="zero gain"):
        diagonal_lowpass_controller(np.array([[0.0, 1.0], [1.0, 1.0]]), 1.0, 0.1)


# -- modal decoupling ----------------------------------------------------------------------
def test_modal_decoupling_with_velocity_sensors_and_rigid_body_mode():
    M = np.diag([1.0, 2.0])
    K = np.array([[1.0, -1.0], [-1.0, 1.0]])  # free-free: one rigid-body mode
    C = 0.01 * K
    d = modal_decouple(
        M, K, C, input_matrix=np.eye(2), output_matrix=np.eye(2), output_kind="velocity"
    )
    assert d.natural_frequencies[0] == pytest.approx(0.0, abs=1e-7)
    assert np.isnan(d.damping_ratios[0])
    assert d.natural_frequencies[1] == pytest.approx(np.sqrt(1.5), rel=1e-12)
    w = np.array([0.5, 2.0])
    np.testing.assert_allclose(
        frequency_response(d.plant, w),
        frequency_response(d.diagonal_plant, w),
        rtol=1e-8,
        atol=1e-12,
    )


def test_modal_decoupling_reports_non_classical_damping():
    M, K = np.eye(2), np.array([[2.0, -1.0], [-1.0, 2.0]])
    C = np.diag([0.5, 0.0])
    d = modal_decouple(M, K, C, input_matrix=np.eye(2), output_matrix=np.eye(2))
    assert d.damping_coupling > 0.5
    with pytest.raises(ValueError, match="symmetric"):
        modal_decouple(
            M, np.array([[1.0, 2.0], [0.0, 1.0]]), input_matrix=np.eye(2), output_matrix=np.eye(2)
        )


# -- uncertain plants ------------------------------------------------------------------------
def _uncertain_plant():
    k = rmb.ureal("k", 2.0, percent=20)
    c = rmb.ureal("c", 0.4, range=(0.2, 0.8))
    A = [[0.0, 1.0, 0.0], [-k, -c, 0.5], [0.0, 0.0, -3.0]]
    B = [[0.0, 0.0], [1.0, 0.2], [0.0, 1.0]]
    Cm = [[1.0, 0.0, 0.0], [0.3, 0.0, 1.0]]
    return rmb.uss(A, B, Cm, np.zeros((2, 2)))


def test_decoupling_an_uncertain_plant_commutes_with_substitution():
    Gu = _uncertain_plant()
    J = np.array([[1.0, 0.4], [-0.2, 1.0]])
    d = jacobian_decouple(
        Gu,
        actuator_jacobian=J,
        sensor_jacobian=J,
        input_names=["f1", "f2"],
        output_names=["x1", "x2"],
    )
    assert set(d.plant.uncertainty) == {"k", "c"}
    assert d.plant.input_names == ["f1", "f2"] and d.plant.output_names == ["x1", "x2"]
    w = np.logspace(-1, 1, 6)
    for vals in ({"k": 1.7, "c": 0.25}, {"k": 2.3, "c": 0.7}):
        ref = transform(Gu.usubs(vals), np.linalg.pinv(J), np.linalg.pinv(J.T))
        np.testing.assert_allclose(
            frequency_response(d.plant.usubs(vals), w),
            frequency_response(ref, w),
            rtol=1e-9,
            atol=1e-12,
        )


def test_svd_decoupling_of_an_uncertain_plant_uses_the_nominal_response():
    Gu = _uncertain_plant()
    d = svd_decouple(Gu, 1.5)
    dn = svd_decouple(Gu.nominal(), 1.5)
    np.testing.assert_allclose(d.input_matrix, dn.input_matrix, atol=1e-12)
    np.testing.assert_allclose(d.output_matrix, dn.output_matrix, atol=1e-12)
    np.testing.assert_allclose(
        frequency_response(d.plant.nominal(), [1.5]),
        frequency_response(dn.plant, [1.5]),
        rtol=1e-9,
        atol=1e-12,
    )
