"""Accuracy of the SVD decoupling on ill-conditioned responses, against numpy's SVD and
the singular values the test matrices are built from."""

import numpy as np
import pytest

from robustmb import decoupling as dc

EPS = np.finfo(float).eps


def _orthogonal_pair(seed=0):
    rng = np.random.default_rng(seed)
    Q1, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    Q2, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return Q1, Q2


@pytest.mark.parametrize("sigma", [[1.0, 3e-6, 2e-6], [1.0, 2e-7, 1e-7]], ids=["3e-6", "2e-7"])
@pytest.mark.parametrize("phase", [0.0, 0.3], ids=["real", "rotated"])
def test_distinct_small_singular_values_are_not_merged(sigma, phase):
    """Two singular values far below sigma_max but 1.5-2x apart are distinct: the decoupled
    response is diag(sigma) to rounding (the old clustering relative to sigma_max rotated
    them into each other: Gershgorin ratios 0.15 and 0.3)."""
    Q1, Q2 = _orthogonal_pair()
    s = np.array(sigma)
    H = Q1 @ np.diag(s) @ Q2.T * np.exp(1j * phase)
    d = dc.svd_decouple(H)
    P = np.asarray(d.plant)
    # a common phase is a sign per channel after the real approximation
    np.testing.assert_allclose(np.abs(np.diag(P)), s, rtol=1e3 * EPS / s.min(), atol=0)
    ratios = dc.gershgorin_ratios(P)
    # reference: numpy's own SVD of the real matrix, and the rounding level eps / sigma_i
    U, _, Vt = np.linalg.svd(Q1 @ np.diag(s) @ Q2.T)
    ref = dc.gershgorin_ratios(U.T @ (Q1 @ np.diag(s) @ Q2.T) @ Vt.T)
    bound = 1e3 * EPS * s[0] / s
    assert np.all(ratios <= np.maximum(bound, 10 * ref)), (ratios, ref, bound)
    assert ratios.max() < 1e-8


def test_a_true_cluster_is_still_aligned_with_the_axes():
    """Equal singular values (to rtol relative to the pair) keep the Procrustes alignment."""
    H = np.diag([1.0, 1e-7, 1e-7 * (1 + 1e-9)])
    d = dc.svd_decouple(H)
    np.testing.assert_allclose(np.abs(d.U[:, 1:]), np.eye(3)[:, 1:], atol=1e-12)


@pytest.mark.parametrize("cond", [1e6, 1e7, 1e8])
def test_real_approximation_of_a_real_matrix_is_the_matrix(cond):
    """For a real H the minimiser is X = H^-1 with zero phases, so H_r = H exactly; the
    normal equations used to lose cond^2 eps (relative error 7e-4 at cond 1e7, and a
    smallest singular value 1.6e-16 instead of 1e-8 at cond 1e8)."""
    Q1, Q2 = _orthogonal_pair()
    s = np.array([1.0, 0.5, 1.0 / cond])
    H = Q1 @ np.diag(s) @ Q2.T
    Hr = dc.real_approximation(H)
    assert np.linalg.norm(Hr - H, 2) <= 1e-12 * s[-1]
    np.testing.assert_allclose(
        np.linalg.svd(Hr, compute_uv=False), np.linalg.svd(H, compute_uv=False), rtol=1e-12
    )


@pytest.mark.parametrize("cond", [1e6, 1e7, 1e8])
def test_real_approximation_recovers_phase_rotated_rows_at_high_condition(cond):
    """Rows of a real H rotated by arbitrary phases: the real approximation gives back H up to
    the sign of each row with an error of eps ||H||, not eps cond^2 ||H||."""
    Q1, Q2 = _orthogonal_pair(1)
    s = np.array([1.0, 0.5, 1.0 / cond])
    H = Q1 @ np.diag(s) @ Q2.T
    theta = np.random.default_rng(2).uniform(-np.pi, np.pi, 3)
    Hr = dc.real_approximation(np.exp(1j * theta)[:, None] * H)
    signs = np.sign(np.sum(Hr * H, axis=1))
    assert np.linalg.norm(signs[:, None] * Hr - H, 2) <= 100 * EPS * s[0]
    # its smallest singular value to eps cond relative (the old code: 1.6e-16 for 1e-8)
    sr = np.linalg.svd(Hr, compute_uv=False)
    assert abs(sr[-1] - s[-1]) <= 100 * EPS * s[0]


def test_real_approximation_of_a_tall_and_a_wide_response():
    """Non-square responses (more outputs than inputs, and the converse): rows rotated by
    phases are recovered up to sign, as for square ones."""
    rng = np.random.default_rng(3)
    for shape in [(4, 3), (3, 4)]:
        H = rng.normal(size=shape)
        theta = rng.uniform(-np.pi, np.pi, shape[0])
        Hr = dc.real_approximation(np.exp(1j * theta)[:, None] * H)
        signs = np.sign(np.sum(Hr * H, axis=1))
        np.testing.assert_allclose(signs[:, None] * Hr, H, atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (6, 6)])
def test_real_approximation_agrees_with_the_normal_equations_when_well_conditioned(shape):
    """Second algorithm: the normal-equation form pinv(D Re(H^H diag(e^{j phi}))) with
    D = pinv(Re(H^H H)), accurate for a well-conditioned complex response."""
    rng = np.random.default_rng(sum(shape))
    H = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    D = np.linalg.pinv((H.conj().T @ H).real)
    phi = 0.5 * np.angle(np.diag(H @ D @ H.T))
    ref = np.linalg.pinv(D @ (H.conj().T * np.exp(1j * phi)[None, :]).real)
    assert np.linalg.cond(H) < 1e3
    np.testing.assert_allclose(dc.real_approximation(H), ref, atol=1e-11 * np.abs(ref).max())
