"""The mechanisms of the decoupling study (seed 004): gravimeter, collocated test model,
spurious-resonance variant and a Stewart-platform surrogate.

Geometry and parameters follow the seed and its digest (``shared/digests/004_decoupling.md``,
section 4), which reconstructs what the seed's missing figures contained. All models use
counter-clockwise positive rotations and the frame {M} at the payload's centre of mass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robustmb.decoupling.parallel_manipulator import ParallelManipulator
from robustmb.decoupling.second_order import Measurement, SecondOrderSystem

__all__ = [
    "InstrumentedManipulator",
    "gravimeter",
    "collocated_manipulator",
    "suspended_mass_variant",
    "stewart_platform",
    "STEWART_TOP_JOINTS",
    "STEWART_BOTTOM_JOINTS",
]


@dataclass
class InstrumentedManipulator:
    """A :class:`ParallelManipulator` with its feedback sensors.

    Attributes
    ----------
    manipulator : ParallelManipulator
    sensors : Measurement
        The measurements used for control.
    sensor_points : numpy.ndarray or None
        Accelerometer locations (for rebuilding sensor Jacobians in other frames).
    """

    manipulator: ParallelManipulator
    sensors: Measurement
    sensor_points: np.ndarray | None = None

    def model(self) -> SecondOrderSystem:
        """Second-order model in {M} (with ground inputs)."""
        return self.manipulator.model()

    def plant(self, *, ground=False, body_outputs=None, sensors=True):
        """State space from ``[ground (if asked), actuators]`` to ``[body outputs, sensors]``.

        Parameters
        ----------
        ground : bool
            Add the support-motion inputs first.
        body_outputs : {None, "position", "velocity", "acceleration"}
            Prepend the motion of the centre of mass (``x, y, Rz`` ...).
        sensors : bool
            Append the feedback sensors (absolute accelerations are improper with ground
            displacement inputs and support damping; see
            :meth:`SecondOrderSystem.state_space`).

        Examples
        --------
        >>> g = gravimeter()
        >>> g.plant().nstates
        6
        """
        mdl = self.model()
        outs = [] if body_outputs is None else [mdl.body_motion(body_outputs)]
        if sensors:
            outs.append(self.sensors)
        if not outs:
            raise ValueError("no outputs requested: give body_outputs or keep sensors=True")
        return mdl.state_space(outs, ground=ground)

    def actuator_jacobian(self, origin=None):
        """Actuator Jacobian in the frame at ``origin`` (default {M})."""
        return self.manipulator.actuator_jacobian(origin)

    def jacobian_decoupling(self, frame="com", plant=None):
        """Jacobian decoupling in a frame: ``"com"``, ``"stiffness"`` or any point of {M}.

        Parameters
        ----------
        frame : str or array_like
            Frame origin: the centre of mass, the centre of stiffness, or a point.
        plant : object, optional
            Plant to decouple (LTI, stack or uncertain); default :meth:`plant`.

        Returns
        -------
        JacobianDecoupling

        Examples
        --------
        >>> import numpy as np
        >>> g = gravimeter(ha=0.0)          # stiffness diagonal at the centre of mass
        >>> d = g.jacobian_decoupling("com")
        >>> from robustmb.decoupling import gershgorin_ratios
        >>> bool(gershgorin_ratios(d.plant, omega=[1.0, 10.0]).max() < 1e-12)
        True
        """
        from robustmb.decoupling.jacobian_decoupling import jacobian_decouple

        o = self.manipulator.frame_origin(frame)
        # a body-motion sensor (an IMU at the CoM) already measures the frame {M}
        body = self.sensor_points is None and self.sensors.ground_matrix is None
        return jacobian_decouple(
            self.plant() if plant is None else plant,
            actuator_jacobian=self.actuator_jacobian(o),
            sensor_jacobian=None if body else self.sensor_jacobian(o),
        )

    def sensor_jacobian(self, origin=None):
        """Jacobian of the feedback sensors in the frame at ``origin`` (default {M}).

        Accelerometers are re-expressed with the new origin; elongation sensors use the
        strut Jacobian; body-motion sensors are returned as they are (they define {M}).
        """
        if self.sensor_points is not None:
            return self.manipulator.sensor_jacobian(self.sensor_points, origin=origin)
        if self.sensors.ground_matrix is not None:
            return self.manipulator.spring_jacobian(origin)
        return self.sensors.matrix


def _three_struts(l, h, la, ha, m, I, k, c):
    """The planar payload of seed 004: strut 1 horizontal at ``(-l/2, -ha)``, struts 2
    and 3 vertical at ``(-la, -h/2)`` and ``(la, -h/2)``, actuators ``F1, F2, F3``."""
    return ParallelManipulator(
        mass=m,
        inertia=I,
        spring_points=[[-l / 2, -ha], [-la, -h / 2], [la, -h / 2]],
        spring_directions=[[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]],
        stiffness=k,
        damping=c,
        actuator_names=["F1", "F2", "F3"],
    )


def gravimeter(*, l=1.0, h=1.7, la=None, ha=None, m=400.0, I=115.0, k=15e3, c=20.0):
    """Planar gravimeter: 3 struts, 2 biaxial accelerometers (seed 004, section 1).

    Strut 1 horizontal at ``(-l/2, -ha)``; struts 2, 3 vertical at ``(-la, -h/2)`` and
    ``(la, -h/2)``; accelerometers at ``(-l/2, -h/2)`` (outputs ``Ax1, Ay1``) and
    ``(0, h/2)`` (``Ax2, Ay2``); actuators ``F1, F2, F3`` in the struts.

    Parameters
    ----------
    l, h : float
        Width and height of the payload (m).
    la, ha : float, optional
        Actuator positions (default ``l/2`` and ``h/2``).
    m, I : float
        Mass (kg) and moment of inertia (kg m^2).
    k, c : float
        Strut stiffness (N/m) and damping (N s/m).

    Returns
    -------
    InstrumentedManipulator

    Examples
    --------
    >>> import numpy as np
    >>> p = gravimeter().model().poles()
    >>> np.allclose(sorted(p.imag[p.imag > 0]), [3.6493, 8.6601, 13.551], rtol=1e-4)
    True
    """
    la = l / 2 if la is None else la
    ha = h / 2 if ha is None else ha
    pm = _three_struts(l, h, la, ha, m, I, k, c)
    pts = np.array([[-l / 2, -h / 2], [0.0, h / 2]])
    sensors = pm.accelerometers(pts, names=["Ax1", "Ay1", "Ax2", "Ay2"])
    return InstrumentedManipulator(pm, sensors, pts)


def collocated_manipulator(*, l=1.0, h=3.4, la=0.5, ha=1.7, m=400.0, I=115.0, k=15e3, c=20.0):
    """Planar 3-strut manipulator with collocated force actuators and elongation sensors.

    The test model of the seed's sections 2-3 (``h = 3.4``, ``ha = 1.7``); the plant
    maps ``tau`` to the strut elongations ``L = J q``.

    Examples
    --------
    >>> cm = collocated_manipulator()
    >>> cm.actuator_jacobian()
    array([[ 1. ,  0. ,  1.7],
           [ 0. ,  1. , -0.5],
           [ 0. ,  1. ,  0.5]])
    """
    pm = _three_struts(l, h, la, ha, m, I, k, c)
    return InstrumentedManipulator(pm, pm.elongation_sensors(["L1", "L2", "L3"]))


def suspended_mass_variant(
    base: InstrumentedManipulator | None = None, *, mr=5.0, fr=10.0, cr=10.0
) -> SecondOrderSystem:
    """Collocated manipulator with a spurious mode: a point mass on x/y springs at the CoM.

    The payload mass is reduced by ``mr`` so that the total stays the same (seed 004,
    section 3.6, in the digest's reading of the Simscape model). Coordinates
    ``[x, y, Rz, xr, yr]``; inputs ``F1..F3``; use ``Measurement([J, 0], "position")``
    for the strut elongations.

    Parameters
    ----------
    base : InstrumentedManipulator, optional
        Default :func:`collocated_manipulator` with ``m = 400``.
    mr : float
        Suspended point mass (kg).
    fr : float
        Natural frequency of the point mass on its springs (Hz): ``kr = (2 pi fr)^2 mr``.
    cr : float
        Damping of the point-mass springs (N s/m).

    Examples
    --------
    >>> import numpy as np
    >>> s = suspended_mass_variant()
    >>> f = np.sort(np.abs(s.poles()))[::2] / (2 * np.pi)   # undamped frequencies (Hz)
    >>> f.round(3)
    array([ 0.361,  1.378,  3.467, 10.064, 10.064])
    """
    base = collocated_manipulator() if base is None else base
    pm = base.manipulator
    main = ParallelManipulator(
        mass=pm.mass - mr,
        inertia=pm.inertia,
        spring_points=pm.spring_points,
        spring_directions=pm.spring_directions,
        stiffness=pm.stiffness,
        damping=pm.damping,
        actuator_names=pm.actuator_names,
    )
    kr = (2 * np.pi * fr) ** 2 * mr
    M = np.diag([main.mass, main.mass, main.inertia, mr, mr])
    K = np.zeros((5, 5))
    C = np.zeros((5, 5))
    K[:3, :3] = main.stiffness_matrix()
    C[:3, :3] = main.damping_matrix()
    for i, j in ((0, 3), (1, 4)):
        for X, v in ((K, kr), (C, cr)):
            X[i, i] += v
            X[j, j] += v
            X[i, j] -= v
            X[j, i] -= v
    F = np.vstack([main.actuator_jacobian().T, np.zeros((2, 3))])
    return SecondOrderSystem(
        M,
        K,
        C,
        input_matrix=F,
        input_names=pm.actuator_names,
        coordinate_names=["x", "y", "Rz", "xr", "yr"],
    )


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
