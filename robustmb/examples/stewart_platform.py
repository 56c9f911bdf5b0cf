"""A surrogate of the Stewart platform of the decoupling study (seed 004, section 7).

Six voice-coil legs between two platforms, the top one on three bushings and
measured by an inertial unit; joint positions from the seed (digest 4.6).
"""

from __future__ import annotations

import numpy as np

from robustmb.decoupling.instrumented_manipulator import InstrumentedManipulator
from robustmb.decoupling.parallel_manipulator import ParallelManipulator
from robustmb.errors import ArgumentError, DimensionError

__all__ = ["STEWART_BOTTOM_JOINTS", "STEWART_TOP_JOINTS", "stewart_platform"]


# Joint positions of the Stewart platform (m), frame at the top platform's centre of mass
# (seed 004 section 7, values from the author's jacobian.mat as listed in the digest 4.6).
STEWART_TOP_JOINTS = np.array(
    [
        [0.009516, -0.030811, -0.002493],
        [0.021926, -0.023646, -0.002493],
        [0.021926, 0.023646, -0.002493],
        [0.009516, 0.030811, -0.002493],
        [-0.031441, 0.007165, -0.002493],
        [-0.031441, -0.007165, -0.002493],
    ]
)
STEWART_BOTTOM_JOINTS = np.array(
    [
        [-0.007991, -0.030811, -0.015101],
        [0.030679, -0.008485, -0.015101],
        [0.030679, 0.008485, -0.015101],
        [-0.007991, 0.030811, -0.015101],
        [-0.022688, 0.022326, -0.015101],
        [-0.022688, -0.022326, -0.015101],
    ]
)


def stewart_platform(
    *,
    mass=0.2,
    inertia=(6.681e-5, 6.681e-5, 1.3057e-4),
    bushing_radius=0.035,
    bushing_z=-5.9e-3,
    bushing_stiffness=(0.5e3 / 3, 0.5e3 / 3, 1e3 / 3),
    bushing_damping=0.025,
    top_joints=None,
    bottom_joints=None,
):
    """Surrogate of the seed's Stewart platform (section 7): voice coils and an IMU.

    Six force actuators act along the legs (pure forces, no stiffness); the top platform
    rests on three bushings at 60, 180 and 300 degrees that each have translational
    stiffness ``(kx, ky, kz)`` and damping; the inertial unit measures the six
    accelerations of the centre of mass (outputs ``Ax, Ay, Az, Arx, Ary, Arz``).

    The mass and bushing layout are not in the seed: they are the digest's
    reconstruction (section 4.6), with ``bushing_z`` fitted to the seed's Table 17.

    Examples
    --------
    >>> sp = stewart_platform()
    >>> sp.actuator_jacobian().round(3)[0]
    array([ 0.811,  0.   ,  0.584, -0.018, -0.008,  0.025])
    """
    top = STEWART_TOP_JOINTS if top_joints is None else np.asarray(top_joints, float)
    bot = STEWART_BOTTOM_JOINTS if bottom_joints is None else np.asarray(bottom_joints, float)
    for what, x in (("top_joints", top), ("bottom_joints", bot)):
        if x.shape != (6, 3) or not np.all(np.isfinite(x)):
            raise DimensionError(
                f"stewart_platform: {what} must be 6 x 3 finite numbers (one row per leg), "
                f"got shape {x.shape}"
            )
    if not (np.isfinite(float(mass)) and float(mass) > 0):
        raise ArgumentError(f"stewart_platform: mass must be positive, got {mass!r}")
    if np.shape(inertia) != (3,):
        raise DimensionError(
            "stewart_platform: inertia must be the 3 principal moments, "
            f"got shape {np.shape(inertia)}"
        )
    legs = top - bot
    ang = np.deg2rad([60.0, 180.0, 300.0])
    pts = np.column_stack(
        [bushing_radius * np.cos(ang), bushing_radius * np.sin(ang), np.full(3, bushing_z)]
    )
    kx, ky, kz = bushing_stiffness
    cvec = np.broadcast_to(np.asarray(bushing_damping, float), (3,))
    spring_points = np.repeat(pts, 3, axis=0)
    spring_dirs = np.tile(np.eye(3), (3, 1))
    pm = ParallelManipulator(
        mass=mass,
        inertia=np.diag(inertia),
        spring_points=spring_points,
        spring_directions=spring_dirs,
        stiffness=np.tile([kx, ky, kz], 3),
        damping=np.tile(cvec, 3),
        actuator_points=top,
        actuator_directions=legs,
        actuator_names=[f"F{i + 1}" for i in range(6)],
    )
    imu = pm.model().body_motion("acceleration", names=["Ax", "Ay", "Az", "Arx", "Ary", "Arz"])
    return InstrumentedManipulator(pm, imu)
