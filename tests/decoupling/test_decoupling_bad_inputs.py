"""Bad input to the decoupling tools: a robustmb error naming the argument at fault,
raised before numpy (SVD, argmax, indexing) sees the bad value."""

import math

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb import decoupling as dc
from robustmb.errors import ArgumentError, DimensionError

G = control.ss(control.tf([[[1], [1]], [[2], [1]]], [[[1, 1], [1, 2]], [[1, 3], [1, 4]]]))


def _uplant():
    a = rmb.ureal("a", 0.0, plusminus=0.5)
    return rmb.umat([[1.0 + a, 0.3], [0.5, 2.0]])


def _ground_model():
    return dc.SecondOrderSystem(
        np.eye(1), np.eye(1), input_matrix=[[1.0]], ground_stiffness=np.eye(1)
    )


CASES = [
    ("wcg-empty-omega", lambda: dc.worst_case_gershgorin(_uplant(), [], upper=False), "omega"),
    ("wcg-nan-omega", lambda: dc.worst_case_gershgorin(_uplant(), [math.nan]), "omega"),
    ("wcg-no-omega", lambda: dc.worst_case_gershgorin(_uplant(), None), "omega"),
    (
        "wcg-row-out-of-range",
        lambda: dc.worst_case_gershgorin(_uplant(), [1.0], rows=[5], upper=False),
        "rows has 5",
    ),
    (
        "wcg-row-negative",
        lambda: dc.worst_case_gershgorin(_uplant(), [1.0], rows=[-1], upper=False),
        "rows has -1",
    ),
    (
        "wcg-row-float",
        lambda: dc.worst_case_gershgorin(_uplant(), [1.0], rows=[0.5], upper=False),
        "rows has 0.5",
    ),
    (
        "jacobian-nan",
        lambda: dc.jacobian_decouple(G, actuator_jacobian=np.array([[1, math.nan], [0, 1]])),
        r"actuator_jacobian.*nan.*\(0, 1\)",
    ),
    (
        "jacobian-sensor-inf",
        lambda: dc.jacobian_decouple(G, sensor_jacobian=np.array([[1, 0], [math.inf, 1]])),
        r"sensor_jacobian.*inf.*\(1, 0\)",
    ),
    ("transmissibility-nan", lambda: dc.transmissibility(_ground_model(), [math.nan]), "omega"),
    (
        "transmissibility-no-sensors",
        lambda: dc.transmissibility(_ground_model(), [1.0], controller=np.eye(1)),
        "sensors",
    ),
    (
        "transmissibility-no-ground",
        lambda: dc.transmissibility(
            dc.SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=[[1.0]]), [1.0]
        ),
        "model has no ground",
    ),
    ("svd-negative-w0", lambda: dc.svd_decouple(G, -1.0), "w0.*-1.0"),
    ("svd-nan-w0", lambda: dc.svd_decouple(G, math.nan), "w0.*nan"),
    ("svd-no-w0", lambda: dc.svd_decouple(G), "w0"),
    ("svd-text-w0", lambda: dc.svd_decouple(G, "1 Hz"), "w0.*'1 Hz'"),
    ("svd-stack-no-omega", lambda: dc.svd_decouple(np.ones((3, 2, 2)), 1.0), "omega is missing"),
    ("svd-stack-no-w0", lambda: dc.svd_decouple(np.ones((3, 2, 2)), omega=[1, 2, 3]), "w0"),
    ("svd-matrix-w0", lambda: dc.svd_decouple(np.eye(2), 1.0), "w0 must not be given"),
    ("rga-nan-omega", lambda: dc.rga(G, omega=[math.nan]), "omega.*index 0"),
    ("gershgorin-inf-omega", lambda: dc.gershgorin_ratios(G, omega=[1.0, math.inf]), "omega"),
]


@pytest.mark.parametrize("call, pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_decoupling_input(call, pattern):
    with pytest.raises(ArgumentError, match=pattern):
        call()


EXAMPLE_CASES = [
    ("gravimeter-m", lambda: rmb.examples.gravimeter(m=-1.0), ArgumentError, "gravimeter: m must"),
    ("gravimeter-I", lambda: rmb.examples.gravimeter(I=0.0), ArgumentError, "gravimeter: I must"),
    (
        "uncertain-gravimeter-k",
        lambda: rmb.examples.uncertain_gravimeter(k=[1e4, 2e4]),
        DimensionError,
        r"uncertain_gravimeter: k must be one value or 3, got shape \(2,\)",
    ),
    (
        "uncertain-gravimeter-m",
        lambda: rmb.examples.uncertain_gravimeter(m=-400.0),
        ArgumentError,
        "uncertain_gravimeter: m must be positive",
    ),
    (
        "stewart-mass",
        lambda: rmb.examples.stewart_platform(mass=-1.0),
        ArgumentError,
        "stewart_platform: mass must be positive",
    ),
    (
        "stewart-top-joints",
        lambda: rmb.examples.stewart_platform(top_joints=np.zeros((5, 3))),
        DimensionError,
        r"stewart_platform: top_joints must be 6 x 3 .*\(5, 3\)",
    ),
    (
        "stewart-bottom-joints",
        lambda: rmb.examples.stewart_platform(bottom_joints=np.zeros((6, 2))),
        DimensionError,
        r"stewart_platform: bottom_joints must be 6 x 3 .*\(6, 2\)",
    ),
    (
        "stewart-inertia",
        lambda: rmb.examples.stewart_platform(inertia=(1e-4, 1e-4)),
        DimensionError,
        r"stewart_platform: inertia must be the 3 principal moments",
    ),
    (
        "manipulator-indefinite-inertia",
        lambda: dc.ParallelManipulator(
            mass=1.0,
            inertia=[[1.0, 2.0, 0], [2.0, 1.0, 0], [0, 0, 1.0]],  # eigenvalues -1, 1, 3
            spring_points=np.eye(3),
            spring_directions=np.eye(3),
            stiffness=1.0,
        ),
        ArgumentError,
        "inertia must be positive definite",
    ),
    (
        "manipulator-stiffness-length",
        lambda: dc.ParallelManipulator(
            mass=1.0,
            inertia=1.0,
            spring_points=[[0, -1], [1, 0]],
            spring_directions=[[1, 0], [0, 1]],
            stiffness=[1.0, 2.0, 3.0],
        ),
        DimensionError,
        r"stiffness must be one value or 2 \(one per spring\)",
    ),
    (
        "manipulator-actuator-rows",
        lambda: dc.ParallelManipulator(
            mass=1.0,
            inertia=1.0,
            spring_points=[[0, -1], [1, 0]],
            spring_directions=[[1, 0], [0, 1]],
            stiffness=1.0,
            actuator_points=[[0, 0]],
            actuator_directions=[[1, 0], [0, 1]],
        ),
        DimensionError,
        "1 actuator_points for 2 actuator_directions",
    ),
]


@pytest.mark.parametrize(
    "call, error, pattern", [c[1:] for c in EXAMPLE_CASES], ids=[c[0] for c in EXAMPLE_CASES]
)
def test_bad_example_model_input_is_named(call, error, pattern):
    """The example constructors and the manipulator they build on: a robustmb error (still a
    ValueError, as the builtin one raised before) naming the argument."""
    with pytest.raises(error, match=pattern) as info:
        call()
    assert isinstance(info.value, ValueError)


def test_static_decouple_refuses_a_rank_deficient_response():
    # [[1, 2], [2, 4]] has rank 1: pinv would give a decoupled plant pinv(H) H that is a
    # projector, not the identity (checked: its eigenvalues are 0 and 1).
    H = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert np.allclose(np.sort(np.linalg.eigvals(np.linalg.pinv(H) @ H).real), [0.0, 1.0])
    with pytest.raises(rmb.errors.IllPosedError, match="rank 1 < 2"):
        dc.static_decouple(H, None)
    # a plant whose four entries are all 1/(s + 1): G(0) has rank 1
    same = control.ss(control.tf([[[1.0], [1.0]], [[1.0], [1.0]]], [[[1, 1]] * 2] * 2))
    with pytest.raises(rmb.errors.IllPosedError, match="w0 = 0 rad/s"):
        dc.static_decouple(same, 0.0)
