"""Modal decoupling with repeated natural frequencies, negative stiffness and damped
rigid-body modes, checked against closed forms and the full second-order model."""

import control
import numpy as np
import pytest
import scipy.linalg

from robustmb.decoupling import frequency_response, modal_decouple

W = np.array([0.3, 0.5, 0.9, 1.0, 1.5, 2.0, 3.5])


def _state_matrix_poles(M, K, C):
    """Eigenvalues of the first-order form, independent of the modal route."""
    n = M.shape[0]
    Mi = np.linalg.inv(M)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Mi @ K, -Mi @ C]])
    return np.sort_complex(np.linalg.eigvals(A))


def _offdiag(H):
    return np.abs(H - np.einsum("kii->ki", H)[:, :, None] * np.eye(H.shape[1])).max()


def test_repeated_frequency_with_classical_damping_is_decoupled_exactly():
    M, K = np.eye(3), np.diag([1.0, 1.0, 4.0])
    C = np.array([[0.10, 0.05, 0.0], [0.05, 0.20, 0.0], [0.0, 0.0, 0.3]])
    assert np.linalg.norm(C @ K - K @ C) == 0.0  # classical damping
    d = modal_decouple(M, K, C, input_matrix=np.eye(3), output_matrix=np.eye(3))
    assert d.damping_coupling < 1e-12
    # closed form: the 2x2 damping block has eigenvalues 0.15 -+ sqrt(0.05^2 + 0.05^2)
    c12 = 0.15 + np.array([-1.0, 1.0]) * np.hypot(0.05, 0.05)
    np.testing.assert_allclose(d.damping_ratios, [*(c12 / 2), 0.3 / 4], rtol=1e-12)
    H = frequency_response(d.plant, W)
    assert _offdiag(H) < 1e-12 * np.abs(H).max()
    np.testing.assert_allclose(H, frequency_response(d.diagonal_plant, W), rtol=1e-10, atol=1e-14)
    Phi = d.mode_shapes
    Cm = Phi.T @ C @ Phi
    assert np.abs(Cm - np.diag(np.diag(Cm))).max() < 1e-15


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_repeated_frequencies_of_a_random_classically_damped_system(seed):
    rng = np.random.default_rng(seed)
    n = 5
    X = rng.standard_normal((n, n))
    M = X @ X.T + n * np.eye(n)
    # modes P with P^T M P = I; K and C built from modal data with clusters {0,1,2}, {3,4}
    P = np.linalg.solve(np.linalg.cholesky(M).T, np.linalg.qr(rng.standard_normal((n, n)))[0])
    lam = np.array([2.0, 2.0, 2.0, 9.0, 9.0])
    Cmod = np.zeros((n, n))
    for sl in (slice(0, 3), slice(3, 5)):
        Y = rng.standard_normal((sl.stop - sl.start,) * 2)
        Cmod[sl, sl] = 0.05 * (Y @ Y.T) + 0.1 * np.eye(sl.stop - sl.start)
    Pi = np.linalg.inv(P)
    K = Pi.T @ np.diag(lam) @ Pi
    C = Pi.T @ Cmod @ Pi
    K, C = (K + K.T) / 2, (C + C.T) / 2
    F = rng.standard_normal((n, n))
    d = modal_decouple(M, K, C, input_matrix=F, output_matrix=np.eye(n), normalization="mass")
    assert d.damping_coupling < 1e-8
    c_true = np.concatenate([np.linalg.eigvalsh(Cmod[:3, :3]), np.linalg.eigvalsh(Cmod[3:, 3:])])
    np.testing.assert_allclose(d.natural_frequencies, np.sqrt(lam), rtol=1e-10)
    np.testing.assert_allclose(d.damping_ratios, c_true / (2 * np.sqrt(lam)), rtol=1e-8)
    H = frequency_response(d.plant, W)
    assert _offdiag(H) < 1e-8 * np.abs(H).max()
    np.testing.assert_allclose(
        np.sort_complex(control.ss(d.diagonal_plant).poles()),
        _state_matrix_poles(M, K, C),
        rtol=1e-8,
    )


def test_negative_stiffness_mode_is_divergent_not_rigid():
    M = np.diag([1.0, 2.0])
    K = np.array([[3.0, -1.0], [-1.0, -1.0]])
    C = 0.01 * K + 0.02 * M  # Rayleigh damping: classical
    lam = scipy.linalg.eigvalsh(K, M)
    assert lam[0] < 0
    d = modal_decouple(M, K, C, input_matrix=np.eye(2), output_matrix=np.eye(2))
    np.testing.assert_allclose(d.modal_stiffnesses, lam, rtol=1e-12)
    np.testing.assert_allclose(d.natural_frequencies, np.sqrt(np.abs(lam)), rtol=1e-12)
    # Rayleigh: modal damping c_i = 0.01 lambda_i + 0.02, xi_i = c_i / (2 sqrt|lambda_i|)
    np.testing.assert_allclose(
        d.damping_ratios, (0.01 * lam + 0.02) / (2 * np.sqrt(np.abs(lam))), rtol=1e-10
    )
    poles = np.sort_complex(control.ss(d.diagonal_plant).poles())
    np.testing.assert_allclose(poles, _state_matrix_poles(M, K, C), rtol=1e-10)
    c0 = 0.01 * lam[0] + 0.02
    unstable = (-c0 + np.sqrt(c0**2 - 4 * lam[0])) / 2  # root of s^2 + c0 s + lambda_0
    assert poles.real.max() == pytest.approx(unstable, rel=1e-10)
    np.testing.assert_allclose(
        frequency_response(d.plant, W),
        frequency_response(d.diagonal_plant, W),
        rtol=1e-10,
        atol=1e-14,
    )


def test_damped_rigid_body_mode_keeps_its_damping():
    M, K = np.eye(2), np.array([[1.0, -1.0], [-1.0, 1.0]])
    C = 0.1 * np.eye(2)  # proportional to M: the rigid-body mode is damped
    d = modal_decouple(M, K, C, input_matrix=np.eye(2), output_matrix=np.eye(2))
    assert d.modal_stiffnesses[0] == 0.0
    assert np.isnan(d.damping_ratios[0])
    # closed form of the rigid channel: 1 / (s^2 + 0.1 s)
    s = 1j * W
    H = frequency_response(d.diagonal_plant, W)
    np.testing.assert_allclose(H[:, 0, 0], 1 / (s**2 + 0.1 * s), rtol=1e-12)
    np.testing.assert_allclose(frequency_response(d.plant, W), H, rtol=1e-10, atol=1e-14)


def test_widely_spread_distinct_frequencies_are_not_merged():
    # distinct modes over 12 decades of stiffness, with non-classical damping: each mode
    # shape stays an eigenvector of (K, M), whatever C is
    K = np.diag([1e-4, 0.5, 2.0, 1e8])
    M = np.eye(4)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((4, 4))
    C = 0.01 * (X @ X.T)
    d = modal_decouple(M, K, C, input_matrix=np.eye(4), output_matrix=np.eye(4))
    np.testing.assert_allclose(d.modal_stiffnesses, np.diag(K), rtol=1e-12)
    Phi = d.mode_shapes
    np.testing.assert_allclose(np.abs(Phi), np.eye(4), atol=1e-15)


def test_rigid_body_mode_is_recognised_with_an_ill_conditioned_mass_matrix():
    # free-free spring chains (one exact rigid-body mode) with masses over 6 decades,
    # written in rotated coordinates: the rigid mode is 0, the elastic ones are not
    rng = np.random.default_rng(4)
    n = 4
    for _ in range(30):
        m = 10 ** rng.uniform(-3, 3, n)
        k = 10 ** rng.uniform(-2, 5, n - 1)
        K = np.zeros((n, n))
        for i in range(n - 1):
            K[i : i + 2, i : i + 2] += k[i] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
        Mq, Kq = Q.T @ np.diag(m) @ Q, Q.T @ K @ Q
        Mq, Kq = (Mq + Mq.T) / 2, (Kq + Kq.T) / 2
        d = modal_decouple(Mq, Kq, 0.01 * Mq, input_matrix=np.eye(n), output_matrix=np.eye(n))
        assert d.modal_stiffnesses[0] == 0.0
        elastic = scipy.linalg.eigvalsh(K, np.diag(m))[1:]
        np.testing.assert_allclose(d.modal_stiffnesses[1:], elastic, rtol=1e-6)
