"""The robot of the assembly study posed by its joint angles (seed 003, Sec. 2.4 and 4.2).

References independent of the module: forward kinematics re-derived here with
scipy's rotations and 4 x 4 homogeneous transforms from the Table 3 data and the
module's assumed link vectors and axes; composite inertia by the parallel-axis
theorem on those poses; the TITOP model's DC gain against the rigid summation;
the quintic's boundary rates from a polynomial fit of its waypoints.
"""

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robustmb.errors import ArgumentError, ResidualMassWarning
from robustmb.examples import assembly as a

S3 = np.sqrt(3) / 2
P_L5_C = [
    np.eye(3),
    *(
        Rotation.from_euler("y", s * 120, degrees=True).as_matrix() @ np.diag([1, -1, -1])
        for s in (1, -1)
    ),
]
DJ6 = [np.array([0.1, 0, 0]), np.array([-0.05, 0, -0.0866]), np.array([-0.05, 0, 0.0866])]


def hom(r=None, p=None):
    t = np.eye(4)
    if r is not None:
        t[:3, :3] = r
    if p is not None:
        t[:3, 3] = p
    return t


def arm_frames(angles):
    """4 x 4 frames of links 0..5 of one arm in its L0 frame (J_i origins)."""
    t = [hom()]
    for k in range(5):
        step = hom(p=a.ARM["links"][k]) @ hom(
            Rotation.from_rotvec(a.ARM["axes"][k] * angles[k]).as_matrix()
        )
        t.append(t[-1] @ step)
    return t, t[-1] @ hom(p=a.ARM["links"][5])  # and the J6 frame (axes of L5)


def independent_pose(angles, leg):
    """Every arm's link frames in the docked leg's L0 frame, and the hub frame at D."""
    d = leg - 1
    frames, j6 = arm_frames(angles[d])
    hub = j6 @ hom(P_L5_C[d]) @ hom(p=-DJ6[d])  # R_c = R_l5 P_{c/l5}, P involutive
    arms = {d: frames}
    for k in range(3):
        if k != d:
            fk, j6k = arm_frames(angles[k])
            # J6 frame of arm k from the hub, then back down its chain
            j6_world = hub @ hom(p=DJ6[k]) @ hom(P_L5_C[k])
            arms[k] = [j6_world @ np.linalg.inv(j6k) @ f for f in fk]
    return hub, arms


def independent_rigid(angles, leg, carrying):
    hub, arms = independent_pose(angles, leg)
    parts = [(10.0, 0.6 * np.eye(3), hub[:3, 3])]
    for k in range(3):
        for i, f in enumerate(arms[k]):
            parts.append(
                (
                    a.ARM["masses"][i],
                    a.ARM["inertias"][i] * np.eye(3),
                    f[:3, 3] + f[:3, :3] @ a.ARM["coms"][i],
                )
            )
    if carrying:
        f = arms[2][0]
        parts.append(
            (6.0423, f[:3, :3] @ np.diag([0.5041, 0.5041, 1.0071]) @ f[:3, :3].T, f[:3, 3])
        )
    m = sum(p[0] for p in parts)
    c = sum(p[0] * p[2] for p in parts) / m
    j = sum(
        p[1] + p[0] * ((p[2] - c) @ (p[2] - c) * np.eye(3) - np.outer(p[2] - c, p[2] - c))
        for p in parts
    )
    return m, j, c, arms


@pytest.mark.parametrize("leg", [1, 2])
@pytest.mark.parametrize("carrying", [False, True])
def test_posed_robot_matches_independent_kinematics(leg, carrying):
    rng = np.random.default_rng(leg + 2 * carrying)
    ang = rng.uniform(-np.pi, np.pi, size=(3, 5))
    m, j, c = a.robot_rigid_data(ang, leg=leg, carrying=carrying)
    mr, jr, cr, arms = independent_rigid(ang, leg, carrying)
    assert abs(m - (130.0 + 6.0423 * carrying)) < 1e-12 and abs(m - mr) < 1e-12
    np.testing.assert_allclose(c, cr, atol=1e-12)
    np.testing.assert_allclose(j, jr, atol=1e-11)
    eff = a.robot_pose(ang, leg=leg)["effectors"]
    for k in range(3):
        np.testing.assert_allclose(eff[k][0], arms[k][0][:3, :3], atol=1e-12)
        np.testing.assert_allclose(eff[k][1], arms[k][0][:3, 3], atol=1e-12)


OFFSETS = [
    (1, 0, 0),
    (0, 1, 0),
    (-1, 0, 0),
    (0, -1, 0),
    (1, 1, 0),
    (-1, -1, 0),
    (1, -1, 0),
    (-1, 1, 0),
]
CASES = [(t, mv, leg) for t in OFFSETS for mv, leg in ((2, 1), (1, 2), (3, 1), (3, 2))]


def _check_aligned(target, moving, leg):
    ang = a.align_effector(moving, target, leg=leg)
    assert np.all(np.abs(ang) <= np.pi)
    other = ({1, 2, 3} - {moving, leg}).pop()
    assert np.all(ang[other - 1] == 0.0)  # the third arm does not move
    _, arms = independent_pose(ang, leg)
    f = arms[moving - 1][0]
    np.testing.assert_allclose(f[:3, 3], target, atol=1e-9)
    np.testing.assert_allclose(f[:3, :3], np.eye(3), atol=1e-9)  # docking frame
    if moving != 3:  # a walk: rooted at the other leg, the same robot at the next tile
        d1 = a.rigid_inertia_at_g(28, 9, angles=ang, leg=leg)  # tile 9: all 8 neighbours
        k = 1 + [tuple(x) for x in a.tile_offsets()].index(
            tuple(a.tile_offsets()[8] + np.asarray(target, dtype=float))
        )
        d2 = a.rigid_inertia_at_g(28, k, angles=ang, leg=moving)
        np.testing.assert_allclose(d1, d2, atol=1e-9 * np.abs(d1).max())


@pytest.mark.parametrize(("target", "moving", "leg"), CASES[:4] + CASES[16:18])
def test_inverse_kinematics_aligns_the_effector(target, moving, leg):
    _check_aligned(target, moving, leg)


@pytest.mark.slow
@pytest.mark.parametrize(("target", "moving", "leg"), CASES)
def test_every_8_neighbour_move_is_reachable(target, moving, leg):
    _check_aligned(target, moving, leg)


def test_quintic_is_rest_to_rest():
    w = a.quintic(0.0, 1.0, 41)
    s = np.linspace(0, 1, 41)
    poly = np.polynomial.Polynomial.fit(s, w, 5).convert()
    for x in (0.0, 1.0):
        assert abs(poly.deriv(1)(x)) < 1e-9 and abs(poly.deriv(2)(x)) < 1e-8
    assert w[0] == 0.0 and abs(w[-1] - 1.0) < 1e-15 and np.all(np.diff(w) > 0)
    np.testing.assert_allclose(w + w[::-1], 1.0, atol=1e-14)  # odd about the midpoint
    ends = np.arange(15.0).reshape(3, 5)
    wp = a.edge_waypoints(2, [1.0, 0, 0], z=7)
    assert wp.shape == (14, 3, 5) and np.all(wp[0] == 0) and np.all(wp[-1] == 0)
    np.testing.assert_allclose(wp[6], wp[7])  # the aligned pose ends one and starts the other
    assert a.quintic(np.zeros((3, 5)), ends, 3).shape == (3, 3, 5)


def test_posed_robot_in_the_spacecraft_model():
    ang = a.align_effector(2, [0.0, 1.0, 0.0], leg=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResidualMassWarning)
        sys1 = a.spacecraft(3, 2, carrying=True, angles=ang, leg=1)
        sys2 = a.spacecraft(3, 2, carrying=True, angles=ang, leg=2)
    for sys, leg in ((sys1, 1), (sys2, 2)):
        g = sys.nominal()
        dc = np.asarray(g.D - g.C @ np.linalg.solve(g.A, g.B))[:, :6]
        dtot = a.rigid_inertia_at_g(3, 2, carrying=True, angles=ang, leg=leg)
        np.testing.assert_allclose(dc, np.linalg.inv(dtot), rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(
            np.linalg.inv(dc)[:3, :3], 554.1144 * np.eye(3), rtol=1e-10, atol=1e-9
        )
    # the docked leg now matters: the same angles rooted at the other leg move the robot
    d1 = a.rigid_inertia_at_g(3, 2, carrying=True, angles=ang, leg=1)
    d2 = a.rigid_inertia_at_g(3, 2, carrying=True, angles=ang, leg=2)
    assert np.abs(d1 - d2).max() > 1.0


def test_bad_arm_inputs_are_named():
    with pytest.raises(ArgumentError, match="angles"):
        a.robot_pose(np.zeros((3, 4)))
    with pytest.raises(ArgumentError, match="moving"):
        a.align_effector(1, [1.0, 0, 0], leg=1)
    with pytest.raises(ArgumentError, match="cannot reach"):
        a.align_effector(2, [5.0, 0, 0], starts=2)
    with pytest.raises(ArgumentError, match="z"):
        a.quintic(0.0, 1.0, 1)
