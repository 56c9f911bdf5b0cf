"""Attitude conversions: quaternion of a rotation matrix against scipy, and bad matrices."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from robustmb.errors import ArgumentError, DimensionError
from robustmb.multibody.attitude import quaternion_from_dcm


def test_quaternion_from_dcm_matches_scipy_on_rotations_and_half_turns():
    rng = np.random.default_rng(2)
    mats = [Rotation.random(random_state=rng).as_matrix() for _ in range(20)]
    mats += [Rotation.from_rotvec(np.pi * ax).as_matrix() for ax in np.eye(3)]
    for r in mats:
        q = quaternion_from_dcm(r)
        ref = Rotation.from_matrix(r).as_quat()  # (x, y, z, w), same sign convention up to +-
        assert min(np.abs(q - ref).max(), np.abs(q + ref).max()) < 1e-14
        assert q[3] >= 0 and abs(np.linalg.norm(q) - 1) < 1e-15
    # a long product of rotations keeps its rounding within the default tolerance
    r = np.eye(3)
    for m in mats[:20] * 50:
        r = r @ m
    assert np.abs(r.T @ r - np.eye(3)).max() > 1e-15
    quaternion_from_dcm(r)


@pytest.mark.parametrize(
    "mat, error, pattern",
    [
        (np.eye(2), DimensionError, r"dcm must be a 3x3 rotation matrix, got shape \(2, 2\)"),
        (np.ones((3, 3)), ArgumentError, r"dcm must be a proper rotation"),
        (2 * np.eye(3), ArgumentError, r"dcm must be a proper rotation"),
        (np.diag([1.0, 1.0, -1.0]), ArgumentError, r"det = -1"),
        (np.full((3, 3), np.nan), ArgumentError, r"dcm must be finite"),
        # a rotation typed with 4 decimals is not a rotation to rounding
        (np.round(Rotation.from_rotvec([0.3, 0.2, 0.1]).as_matrix(), 4), ArgumentError, "R^T R"),
    ],
    ids=["2x2", "ones", "scaled", "reflection", "nan", "rounded-table"],
)
def test_quaternion_from_dcm_refuses_a_matrix_that_is_not_a_rotation(mat, error, pattern):
    with pytest.raises(error, match=pattern.replace("R^T R", r"R\^T R")):
        quaternion_from_dcm(mat)
    with pytest.raises(error, match="world_rotation"):
        quaternion_from_dcm(mat, what="world_rotation")
