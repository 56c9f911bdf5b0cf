"""A surrogate of the Stewart platform of the decoupling study (seed 004, section 7).

Six voice-coil legs between two platforms, the top one on three bushings and
measured by an inertial unit; joint positions from the seed (digest 4.6).
"""

from __future__ import annotations

import numbers

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


def _numbers(fn, name, value):
    """``value`` as a float array, or an ArgumentError naming it."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"{fn}: {name} must be numbers, got {value!r}") from None


def _scalar(fn, name, value, *, positive):
    """Check one finite real number (positive if asked), naming it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"{fn}: {name} must be a number, got {value!r}")
    if not np.isfinite(value) or (positive and not value > 0):
        words = "positive and finite" if positive else "finite"
        raise ArgumentError(f"{fn}: {name} must be {words}, got {value!r}")


def _vector(fn, name, value, what, *, strict, one=False):
    """3 finite numbers (or one, if ``one``): positive if ``strict``, else non-negative."""
    x = _numbers(fn, name, value)
    if x.shape != (3,) and not (one and x.shape == ()):
        raise DimensionError(f"{fn}: {name} must be {what}, got shape {x.shape}")
    if not np.all(np.isfinite(x)) or not np.all(x > 0 if strict else x >= 0):
        words = "positive" if strict else "non-negative"
        raise ArgumentError(f"{fn}: {name} must be {words} and finite, got {x.tolist()}")
    return x


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

    Parameters
    ----------
    mass : float
        Mass of the top platform (kg), positive.
    inertia : sequence of 3 floats
        Principal moments of inertia about its centre of mass (kg m^2), positive.
    bushing_radius : float
        Distance of the bushings from the vertical axis through the centre of mass (m),
        positive (at 0 the three bushings coincide and nothing resists rotation about z).
    bushing_z : float
        Height of the bushings below (negative) or above the centre of mass (m).
    bushing_stiffness : sequence of 3 floats
        Translational stiffness ``(kx, ky, kz)`` of each bushing (N/m), positive (the
        bushings alone hold the platform). The seed's ``0.5e3/3, 0.5e3/3, 1e3/3``.
    bushing_damping : float or sequence of 3 floats
        Translational damping of each bushing along x, y, z (N s/m), non-negative. The
        seed's value is ``0.025``; its script labels the unit "Nm/rad", but the values
        are the bushings' translational damping (digest 4.6), so N s/m.
    top_joints, bottom_joints : array_like, shape (6, 3), optional
        Leg joints on the top and bottom platforms (m), in the frame at the top
        platform's centre of mass; default ``STEWART_TOP_JOINTS`` and
        ``STEWART_BOTTOM_JOINTS``.

    Returns
    -------
    InstrumentedManipulator
        Inputs ``F1..F6`` (leg forces, N), outputs ``Ax, Ay, Az`` (m/s^2) and
        ``Arx, Ary, Arz`` (rad/s^2).

    Raises
    ------
    DimensionError
        For a joint array, ``inertia``, ``bushing_stiffness`` or ``bushing_damping`` of
        the wrong shape, naming it.
    ArgumentError
        For a value that is not a finite number of the sign above, naming it.

    Examples
    --------
    >>> sp = stewart_platform()
    >>> sp.actuator_jacobian().round(3)[0]
    array([ 0.811,  0.   ,  0.584, -0.018, -0.008,  0.025])
    """
    fn = "stewart_platform"
    top = STEWART_TOP_JOINTS if top_joints is None else _numbers(fn, "top_joints", top_joints)
    bot = (
        STEWART_BOTTOM_JOINTS
        if bottom_joints is None
        else _numbers(fn, "bottom_joints", bottom_joints)
    )
    for what, x in (("top_joints", top), ("bottom_joints", bot)):
        if x.shape != (6, 3) or not np.all(np.isfinite(x)):
            raise DimensionError(
                f"{fn}: {what} must be 6 x 3 finite numbers (one row per leg), got shape {x.shape}"
            )
    _scalar(fn, "mass", mass, positive=True)
    _scalar(fn, "bushing_radius", bushing_radius, positive=True)
    _scalar(fn, "bushing_z", bushing_z, positive=False)
    inertia = _vector(fn, "inertia", inertia, "the 3 principal moments", strict=True)
    kx, ky, kz = _vector(fn, "bushing_stiffness", bushing_stiffness, "(kx, ky, kz)", strict=True)
    cvec = np.broadcast_to(
        _vector(fn, "bushing_damping", bushing_damping, "one value or 3", strict=False, one=True),
        (3,),
    )
    legs = top - bot
    ang = np.deg2rad([60.0, 180.0, 300.0])
    pts = np.column_stack(
        [bushing_radius * np.cos(ang), bushing_radius * np.sin(ang), np.full(3, bushing_z)]
    )
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
