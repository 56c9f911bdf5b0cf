"""A parallel manipulator with its feedback sensors: plants and Jacobian decouplings.

The mechanisms of the decoupling study (the gravimeter and the Stewart platform of
:mod:`robustmb.examples`) are :class:`InstrumentedManipulator` objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robustmb.decoupling.geometry import frame_translation
from robustmb.decoupling.jacobian_decoupling import jacobian_decouple
from robustmb.decoupling.parallel_manipulator import ParallelManipulator
from robustmb.decoupling.second_order import Measurement, SecondOrderSystem
from robustmb.errors import ArgumentError

__all__ = ["InstrumentedManipulator"]


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
        >>> from robustmb.examples import gravimeter
        >>> g = gravimeter()
        >>> g.plant().nstates
        6
        """
        mdl = self.model()
        outs = [] if body_outputs is None else [mdl.body_motion(body_outputs)]
        if sensors:
            outs.append(self.sensors)
        if not outs:
            raise ArgumentError(
                "body_outputs: no outputs requested; give body_outputs or keep sensors=True"
            )
        return mdl.state_space(outs, ground=ground)

    def actuator_jacobian(self, origin=None):
        """Actuator Jacobian in the frame at ``origin`` (default {M})."""
        return self.manipulator.actuator_jacobian(origin)

    def jacobian_decoupling(self, frame="com", plant=None):
        """Jacobian decoupling in a frame: ``"com"``, ``"stiffness"`` or any point of {M}.

        Parameters
        ----------
        frame : str or array_like
            Frame origin: the centre of mass, the centre of stiffness, or a point. The
            decoupled plant maps the wrench at the origin of that frame {O} to the motion
            of {O}, on both sides (body-motion sensors included: their outputs, the
            motion of {M}, are mapped back to the motion of {O}).
        plant : object, optional
            Plant to decouple (LTI, stack or uncertain); default :meth:`plant`.

        Returns
        -------
        JacobianDecoupling

        Examples
        --------
        >>> from robustmb.examples import gravimeter
        >>> g = gravimeter(ha=0.0)          # stiffness diagonal at the centre of mass
        >>> d = g.jacobian_decoupling("com")
        >>> from robustmb.decoupling import gershgorin_ratios
        >>> bool(gershgorin_ratios(d.plant, omega=[1.0, 10.0]).max() < 1e-12)
        True
        """
        o = self.manipulator.frame_origin(frame)
        # a body-motion sensor (an IMU at the CoM) measures the motion of {M}: it needs no
        # transformation at the centre of mass, and q_M = T q_O in any other frame
        body = self.sensor_points is None and self.sensors.ground_matrix is None
        untransformed = body and not np.any(o)
        return jacobian_decouple(
            self.plant() if plant is None else plant,
            actuator_jacobian=self.actuator_jacobian(o),
            sensor_jacobian=None if untransformed else self.sensor_jacobian(o),
        )

    def sensor_jacobian(self, origin=None):
        """Jacobian of the feedback sensors in the frame at ``origin`` (default {M}).

        Accelerometers are re-expressed with the new origin; elongation sensors use the
        strut Jacobian; body-motion sensors read the coordinates of {M}, so in the frame
        {O} at ``origin`` their Jacobian is ``S T`` with ``q_M = T q_O``
        (:func:`~robustmb.decoupling.geometry.frame_translation`).

        Examples
        --------
        >>> from robustmb.examples.stewart_platform import stewart_platform
        >>> sp = stewart_platform()
        >>> sp.sensor_jacobian([0.0, 0.0, -0.1])[:3, 3:]     # v_M = v_O + [o]x w
        array([[ 0. ,  0.1,  0. ],
               [-0.1,  0. ,  0. ],
               [ 0. ,  0. ,  0. ]])
        """
        if self.sensor_points is not None:
            return self.manipulator.sensor_jacobian(self.sensor_points, origin=origin)
        if self.sensors.ground_matrix is not None:
            return self.manipulator.spring_jacobian(origin)
        if origin is None:
            return self.sensors.matrix
        o = self.manipulator.frame_origin(origin)
        return self.sensors.matrix @ frame_translation(o)
