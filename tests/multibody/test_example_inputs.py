"""Bad input to the multibody example constructors: an error of robustmb.errors naming it."""

import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError, DimensionError
from robustmb.examples import assembly, plate

PLATE = (2.0, 1.0, 0.01, 70e9, 0.3, 2700.0)

CASES = [
    (
        "spacecraft-n-fraction",
        lambda: assembly.spacecraft(2.5, 1),
        ArgumentError,
        r"spacecraft: n must be a whole number in 1\.\.28, got 2\.5",
    ),
    (
        "spacecraft-tile-fraction",
        lambda: assembly.spacecraft(3, 1.5),
        ArgumentError,
        r"spacecraft: tile must be a whole number in 1\.\.3, got 1\.5",
    ),
    (
        "spacecraft-tile-zero",
        lambda: assembly.spacecraft(3, 0),
        ArgumentError,
        "spacecraft: tile must be",
    ),
    (
        "inertia-at-g-n",
        lambda: assembly.rigid_inertia_at_g(29, 1),
        ArgumentError,
        "rigid_inertia_at_g: n must be",
    ),
    (
        "balloon-k",
        lambda: rmb.examples.balloon_gondola(k=-5.0),
        ArgumentError,
        "balloon_gondola: k must be non-negative",
    ),
    (
        "balloon-damping-length",
        lambda: rmb.examples.balloon_gondola(damping=(0.1, 0.2)),
        DimensionError,
        r"balloon_gondola: damping must be 3 numbers .*\(2,\)",
    ),
    (
        "balloon-damping-negative",
        lambda: rmb.examples.balloon_gondola(damping=(0.1, -0.2, 0)),
        ArgumentError,
        "balloon_gondola: damping must be non-negative",
    ),
    (
        "balloon-world-rotation",
        lambda: rmb.examples.balloon_gondola(world_rotation=2 * np.eye(3)),
        DimensionError,
        "balloon_gondola: world_rotation must be a rotation",
    ),
    (
        "plate-count-zero",
        lambda: plate.plate_frequencies(*PLATE, count=0),
        ArgumentError,
        "plate_frequencies: count must be a positive integer, got 0",
    ),
    (
        "plate-count-fraction",
        lambda: plate.plate_frequencies(*PLATE, count=2.5),
        ArgumentError,
        "plate_frequencies: count must be a positive integer, got 2.5",
    ),
    (
        "plate-count-too-many",
        lambda: plate.plate_frequencies(*PLATE, nx=2, ny=2, count=1000),
        ArgumentError,
        r"plate_frequencies: count must be at most \d+",
    ),
]


@pytest.mark.parametrize("call, error, pattern", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_example_input_is_named(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


def test_whole_numbers_given_as_floats_are_accepted():
    np.testing.assert_array_equal(
        assembly.rigid_inertia_at_g(3.0, 2.0), assembly.rigid_inertia_at_g(3, 2)
    )
