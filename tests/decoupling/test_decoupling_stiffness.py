"""Jacobians, frames and stiffness tools against the seed's sections 2, 4, 5 and 6."""

import numpy as np
import pytest
from decoupling_seed_values import (
    PLANAR3_KK,
    PLANAR3_OK,
    PLANAR4_KK,
    PLANAR4_OK,
    SPATIAL_OK,
    SPATIAL_ROTATIONAL,
    SPATIAL_TRANSLATIONAL,
    TABLE4_JM,
    TABLE5_JK,
    TABLE6_ML,
    TABLE7_KL,
    TABLE8_MM,
    TABLE9_KM,
    TABLE10_MK,
    TABLE11_KK,
)

from robustmb.decoupling import (
    center_of_stiffness,
    diagonal_stiffness_conditions,
    frame_change,
    frame_translation,
    leg_mass_conditions,
    legs_frame_matrices,
    line_jacobian,
    planar_jacobian,
    point_sensor_jacobian,
    skew,
    spatial_jacobian,
    stiffness_matrix,
    unskew,
)
from robustmb.errors import DimensionError
from robustmb.examples.gravimeter import collocated_manipulator


# -- Jacobians ------------------------------------------------------------------------------
def test_planar_jacobian_rows_are_directions_and_moment_arms():
    b = np.array([[-0.5, -1.7], [-0.5, -1.7], [0.5, -1.7]])
    s = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    np.testing.assert_allclose(planar_jacobian(b, s), TABLE4_JM, atol=1e-15)
    np.testing.assert_allclose(planar_jacobian(b, s, origin=[0.0, -1.7]), TABLE5_JK, atol=1e-15)


def test_jacobian_is_the_small_motion_elongation():
    # elongation of a strut from the exact geometry of a small rigid motion
    rng = np.random.default_rng(0)
    b = rng.standard_normal((5, 3))
    s = rng.standard_normal((5, 3))
    s /= np.linalg.norm(s, axis=1, keepdims=True)
    a = b - 0.3 * s  # support points on the lines
    q = 1e-7 * rng.standard_normal(6)
    th = q[3:]
    angle = np.linalg.norm(th)
    k = th / angle
    R = np.eye(3) + np.sin(angle) * skew(k) + (1 - np.cos(angle)) * skew(k) @ skew(k)
    moved = (R @ b.T).T + q[:3]
    dL = np.linalg.norm(moved - a, axis=1) - np.linalg.norm(b - a, axis=1)
    np.testing.assert_allclose(spatial_jacobian(b, s) @ q, dL, rtol=1e-6, atol=1e-15)


def test_frame_translation_matches_jacobian_with_shifted_origin():
    rng = np.random.default_rng(1)
    for d in (2, 3):
        b = rng.standard_normal((4, d))
        s = rng.standard_normal((4, d))
        o = rng.standard_normal(d)
        np.testing.assert_allclose(
            line_jacobian(b, s, origin=o), line_jacobian(b, s) @ frame_translation(o), atol=1e-12
        )


def test_point_sensor_rows_follow_rigid_body_kinematics():
    # a = [xdd - thdd p_y, ydd + thdd p_x] (digest section 2)
    J = point_sensor_jacobian([[-0.5, -0.85], [0.0, 0.85]])
    np.testing.assert_allclose(
        J, [[1, 0, 0.85], [0, 1, -0.5], [1, 0, -0.85], [0, 1, 0]], atol=1e-15
    )


def test_skew_unskew_round_trip_and_errors():
    v = np.array([0.3, -1.0, 2.0])
    np.testing.assert_allclose(skew(v) @ [1.0, 2.0, 3.0], np.cross(v, [1.0, 2.0, 3.0]))
    np.testing.assert_allclose(unskew(skew(v)), v)
    with pytest.raises(ValueError, match="skew-symmetric"):
        unskew(np.eye(3))
    with pytest.raises(DimensionError):
        line_jacobian(np.zeros((2, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="zero length"):
        line_jacobian(np.zeros((1, 2)), np.zeros((1, 2)))


# -- collocated test model: tables 4-11 ------------------------------------------------
def test_collocated_model_matrices_reproduce_tables_4_to_11():
    pm = collocated_manipulator().manipulator
    J = pm.spring_jacobian()
    np.testing.assert_allclose(J, TABLE4_JM, atol=1e-15)
    O_K = pm.center_of_stiffness()
    np.testing.assert_allclose(O_K, [0.0, -1.7], atol=1e-12)
    np.testing.assert_allclose(pm.spring_jacobian(O_K), TABLE5_JK, atol=1e-12)
    M, K = pm.mass_matrix(), pm.stiffness_matrix()
    np.testing.assert_allclose(M, TABLE8_MM)
    np.testing.assert_allclose(K, TABLE9_KM, rtol=1e-12)
    ML, KL, CL = legs_frame_matrices(J, M, K, pm.damping_matrix())
    np.testing.assert_allclose(ML, TABLE6_ML, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(KL, TABLE7_KL, atol=1e-9)
    np.testing.assert_allclose(CL, np.diag([20.0, 20, 20]), atol=1e-12)
    np.testing.assert_allclose(pm.mass_matrix(O_K), TABLE10_MK, atol=1e-9)
    np.testing.assert_allclose(pm.stiffness_matrix(O_K), TABLE11_KK, atol=1e-9)
    # the frame change from the CoM Jacobians gives the same M_K (seed section 2.6)
    np.testing.assert_allclose(frame_change(M, J, TABLE5_JK), TABLE10_MK, atol=1e-9)


def test_legs_frame_plant_equals_collocated_plant():
    # J (M s^2 + C s + K)^{-1} J^T = (M_L s^2 + C_L s + K_L)^{-1} at random complex s
    pm = collocated_manipulator().manipulator
    J, M, K, C = pm.spring_jacobian(), pm.mass_matrix(), pm.stiffness_matrix(), pm.damping_matrix()
    ML, KL, CL = legs_frame_matrices(J, M, K, C)
    for s in (0.3 + 2j, -1.0 + 10j, 5j):
        lhs = J @ np.linalg.solve(M * s**2 + C * s + K, J.T)
        rhs = np.linalg.inv(ML * s**2 + CL * s + KL)
        np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


# -- planar diagonal-stiffness examples (section 4) ------------------------------------
@pytest.mark.parametrize("k", [(5, 1, 2), (5, 1, 1)])
def test_planar_example_1_center_of_stiffness(k):
    b = [[-1, 0.5], [-2, -1], [0, -1]]
    s = [[1, 0], [0, 1], [0, 1]]
    O = center_of_stiffness(b, s, k)
    np.testing.assert_allclose(O, PLANAR3_OK[k], atol=1e-12)
    cond = diagonal_stiffness_conditions(b, s, k, origin=O)
    assert cond.diagonal
    np.testing.assert_allclose(cond.K, PLANAR3_KK[k], atol=1e-12)
    # away from the centre the coupling condition fails
    assert not diagonal_stiffness_conditions(b, s, k).no_coupling


def test_planar_example_2_four_struts():
    b = [[-1, 0.2], [-1, -0.2], [1, 0.2], [1, 0.2]]
    s = [[1, 0], [0, 1], [-1, 0], [0, 1]]
    k = [1, 2, 1, 1]
    O = center_of_stiffness(b, s, k)
    np.testing.assert_allclose(O, PLANAR4_OK, atol=1e-12)
    np.testing.assert_allclose(
        stiffness_matrix(planar_jacobian(b, s, origin=O), k), PLANAR4_KK, atol=1e-12
    )


def test_planar_center_requires_a_unique_solution():
    with pytest.raises(ValueError, match="not unique"):
        center_of_stiffness([[0, 0], [0, 1]], [[1, 0], [1, 0]], [1, 1])


# -- spatial example (section 5.4) -----------------------------------------------------
def _spatial_example():
    k = [2, 2, 1, 1, 3, 3, 1, 1, 1, 1, 2, 2]
    s = [[-1, 0, 0]] * 4 + [[0, 0, 1]] * 4 + [[0, -1, 0]] * 4
    listed = np.array(
        [
            [1, -1, 1],
            [1, 1, -1],
            [1, 1, 1],
            [1, -1, -1],
            [1, -1, -1],
            [-1, 1, -1],
            [1, 1, -1],
            [-1, -1, -1],
            [1, 1, -1],
            [-1, 1, 1],
            [-1, 1, -1],
            [1, 1, 1],
        ],
        float,
    )
    return listed - np.array([0.0, 2.0, -1.0]), s, k


def test_spatial_example_center_and_block_structure():
    b, s, k = _spatial_example()
    O = center_of_stiffness(b, s, k)
    np.testing.assert_allclose(O, SPATIAL_OK, atol=1e-12)
    cond = diagonal_stiffness_conditions(b, s, k, origin=O)
    np.testing.assert_allclose(cond.translational, SPATIAL_TRANSLATIONAL, atol=1e-12)
    np.testing.assert_allclose(cond.coupling, 0.0, atol=1e-12)
    np.testing.assert_allclose(cond.rotational, SPATIAL_ROTATIONAL, atol=1e-12)
    assert cond.translational_diagonal and cond.no_coupling
    assert not cond.rotational_diagonal and not cond.diagonal


def test_spatial_center_does_not_exist_for_a_generic_layout():
    rng = np.random.default_rng(5)
    b = rng.standard_normal((6, 3))
    s = rng.standard_normal((6, 3))
    k = rng.uniform(1, 2, 6)
    with pytest.raises(ValueError, match="no frame"):
        center_of_stiffness(b, s, k)
    # the least-squares origin minimises the coupling block
    O = center_of_stiffness(b, s, k, exact=False)
    c0 = np.linalg.norm(diagonal_stiffness_conditions(b, s, k, origin=O).coupling)
    for d in 1e-3 * np.eye(3):
        assert c0 <= np.linalg.norm(diagonal_stiffness_conditions(b, s, k, origin=O + d).coupling)


# -- leg-frame mass matrix (section 6.3) -----------------------------------------------
def test_leg_mass_conditions_and_diagonal_legs_mass_matrix():
    # planar closed form: s = x, y, y; the x leg on the line y = 0 through the CoM (no lever
    # arm), legs 2, 3 at x = -+a with I = m a^2, leg masses m, m/2, m/2
    m, inertia = 10.0, 1.0
    a = np.sqrt(inertia / m)
    b = [[0.4, 0.0], [-a, -1.0], [a, -1.0]]
    s = [[1, 0], [0, 1], [0, 1]]
    M = np.diag([m, m, inertia])
    cond = leg_mass_conditions(b, s, [m, m / 2, m / 2], M)
    assert cond.diagonal
    ML, _, _ = legs_frame_matrices(planar_jacobian(b, s), M)
    np.testing.assert_allclose(ML, np.diag([m, m / 2, m / 2]), atol=1e-12)
    # moving one leg breaks the rotational condition only
    moved = leg_mass_conditions(
        [[0.4, 0.0], [-2 * a, -1.0], [2 * a, -1.0]], s, [m, m / 2, m / 2], M
    )
    assert moved.translational_diagonal and moved.no_coupling and not moved.rotational_diagonal
    lifted = leg_mass_conditions([[0.4, 0.3], [-a, -1.0], [a, -1.0]], s, [m, m / 2, m / 2], M)
    assert not lifted.no_coupling
