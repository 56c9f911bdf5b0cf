"""A rigid payload on axial springs/struts with force actuators: planar or spatial.

This is the class of mechanisms of the decoupling study (seed 004): the gravimeter, the
collocated 3-strut test model, and Stewart-type platforms. Everything is described in
the frame {M} at the payload's centre of mass, with the small-motion (constant
Jacobian) assumption:

* springs ``i``: body point ``b_i``, unit direction ``s_i``, stiffness ``k_i``, damping
  ``c_i``; the other end sits on the support at ``a_i`` (default: on the same line, so the
  support Jacobian equals the spring Jacobian);
* actuators: body points and directions of pure forces (by default, one in each spring);
* ``K = J^T diag(k) J`` and ``C = J^T diag(c) J`` with ``J`` the spring Jacobian;
  the actuators enter as ``F = J_act^T tau``;
* support motion ``w`` (translation and rotation of the support about the origin of
  {M}) acts through ``K_w = J^T diag(k) J_a``, ``C_w = J^T diag(c) J_a``.
"""

from __future__ import annotations

import numpy as np

from robustmb.decoupling.geometry import (
    frame_translation,
    line_jacobian,
    normalize_directions,
    point_sensor_jacobian,
)
from robustmb.decoupling.plant_data import numeric_array
from robustmb.decoupling.second_order import Measurement, SecondOrderSystem
from robustmb.errors import ArgumentError, DimensionError

__all__ = ["ParallelManipulator"]

_PLANAR_COORDS = ["x", "y", "Rz"]
_SPATIAL_COORDS = ["x", "y", "z", "Rx", "Ry", "Rz"]


def _vector(x, n, name):
    a = numeric_array(x, name, "ParallelManipulator: ").astype(float)
    if a.ndim > 1 or (a.ndim == 1 and a.size != n):
        raise DimensionError(
            f"{name} must be one value or {n} (one per spring), got shape {a.shape}"
        )
    v = np.broadcast_to(a, (n,)).copy()
    if not np.all(np.isfinite(v)):
        raise ArgumentError(f"{name} contains non-finite values")
    return v


def _finite_points(b, name):
    if not np.all(np.isfinite(b)):
        i = int(np.flatnonzero(~np.all(np.isfinite(b), axis=1))[0])
        raise ArgumentError(f"{name} has a non-finite coordinate in row {i}: {b[i].tolist()}")


class ParallelManipulator:
    """Rigid payload suspended on axial springs and driven by axial force actuators.

    Parameters
    ----------
    mass : float
        Payload mass.
    inertia : float or array_like ``(3, 3)``
        Planar: moment of inertia about the centre of mass (z axis). Spatial: inertia
        tensor about the centre of mass in {M}.
    spring_points, spring_directions : array_like ``(n, 2)`` or ``(n, 3)``
        Body attachment points in {M} and directions (normalised) of the springs.
    stiffness, damping : float or array_like ``(n,)``
        Axial stiffness and damping of each spring.
    support_points : array_like ``(n, d)``, optional
        Support-side attachment points (only their lever arm matters for support motion).
        Default: on the spring lines.
    actuator_points, actuator_directions : array_like ``(m, d)``, optional
        Force actuators. Default: one actuator in each spring.
    actuator_names : list of str, optional
        Default ``F1 ... Fm``.

    Examples
    --------
    >>> import numpy as np
    >>> pm = ParallelManipulator(
    ...     mass=400, inertia=115,
    ...     spring_points=[[-0.5, -0.85], [-0.5, -0.85], [0.5, -0.85]],
    ...     spring_directions=[[1, 0], [0, 1], [0, 1]], stiffness=15e3, damping=20)
    >>> pm.stiffness_matrix()
    array([[15000. ,     0. , 12750. ],
           [    0. , 30000. ,     0. ],
           [12750. ,     0. , 18337.5]])
    """

    def __init__(
        self,
        *,
        mass,
        inertia,
        spring_points,
        spring_directions,
        stiffness,
        damping=0.0,
        support_points=None,
        actuator_points=None,
        actuator_directions=None,
        actuator_names=None,
    ):
        b = np.atleast_2d(np.asarray(spring_points, dtype=float))
        if b.shape[1] not in (2, 3):
            raise DimensionError(f"points must be 2-D or 3-D, got {b.shape[1]} coordinates")
        self.dim = b.shape[1]
        _finite_points(b, "spring_points")
        self.spring_points = b
        self.spring_directions = normalize_directions(spring_directions, what="spring")
        if self.spring_directions.shape != b.shape:
            raise DimensionError(
                f"spring_points {b.shape} and spring_directions "
                f"{self.spring_directions.shape} differ"
            )
        ns = b.shape[0]
        self.stiffness = _vector(stiffness, ns, "stiffness")
        self.damping = _vector(damping, ns, "damping")
        if np.any(self.stiffness < 0) or np.any(self.damping < 0):
            raise ArgumentError("stiffness and damping of the springs must be non-negative")
        self.support_points = (
            None if support_points is None else np.atleast_2d(np.asarray(support_points, float))
        )
        if self.support_points is not None and self.support_points.shape != b.shape:
            raise DimensionError(
                f"support_points {self.support_points.shape} must match spring_points {b.shape}"
            )
        if self.support_points is not None:
            _finite_points(self.support_points, "support_points")
        if actuator_points is None and actuator_directions is None:
            self.actuator_points = b.copy()
            self.actuator_directions = self.spring_directions.copy()
        elif actuator_points is None or actuator_directions is None:
            raise ArgumentError("give both actuator_points and actuator_directions, or neither")
        else:
            self.actuator_points = np.atleast_2d(np.asarray(actuator_points, float))
            self.actuator_directions = normalize_directions(actuator_directions, what="actuator")
            if self.actuator_points.shape[0] != self.actuator_directions.shape[0]:
                raise DimensionError(
                    f"{self.actuator_points.shape[0]} actuator_points for "
                    f"{self.actuator_directions.shape[0]} actuator_directions"
                )
            if self.actuator_points.shape[1] != self.dim:
                raise DimensionError(
                    f"actuator points have {self.actuator_points.shape[1]} coordinates, "
                    f"springs have {self.dim}"
                )
            _finite_points(self.actuator_points, "actuator_points")
        na = self.actuator_points.shape[0]
        self.actuator_names = (
            [f"F{i + 1}" for i in range(na)] if actuator_names is None else list(actuator_names)
        )
        if len(self.actuator_names) != na:
            raise DimensionError(f"{na} actuator names expected, got {len(self.actuator_names)}")
        self.mass = float(mass)
        if not np.isfinite(self.mass) or self.mass <= 0:
            raise ArgumentError(f"mass must be positive, got {mass}")
        if self.dim == 2:
            In = np.asarray(inertia, dtype=float)
            if In.size != 1:
                raise DimensionError(f"a planar inertia is one number, got shape {In.shape}")
            self.inertia = float(In.reshape(()))
            if not np.isfinite(self.inertia) or self.inertia <= 0:
                raise ArgumentError(f"inertia must be positive, got {inertia}")
            self._M = np.diag([self.mass, self.mass, self.inertia])
        else:
            In = np.asarray(inertia, dtype=float)
            if In.shape == (3,):
                In = np.diag(In)
            if In.shape != (3, 3):
                raise DimensionError(f"spatial inertia must be 3x3 or a 3-vector, got {In.shape}")
            # the mass matrix is inverted: the inertia must be symmetric positive definite
            if not np.all(np.isfinite(In)) or np.abs(In - In.T).max() > 1e-12 * np.abs(In).max():
                raise ArgumentError(f"inertia must be finite and symmetric, got {In.tolist()}")
            eig = np.linalg.eigvalsh(In)
            if eig[0] <= 0:
                raise ArgumentError(f"inertia must be positive definite, its eigenvalues are {eig}")
            self.inertia = In
            self._M = np.block([[self.mass * np.eye(3), np.zeros((3, 3))], [np.zeros((3, 3)), In]])

    # -- geometry ---------------------------------------------------------------------
    @property
    def ndof(self) -> int:
        """3 (planar) or 6 (spatial)."""
        return 3 if self.dim == 2 else 6

    @property
    def coordinate_names(self) -> list[str]:
        """``[x, y, Rz]`` or ``[x, y, z, Rx, Ry, Rz]``."""
        return list(_PLANAR_COORDS if self.dim == 2 else _SPATIAL_COORDS)

    def spring_jacobian(self, origin=None) -> np.ndarray:
        """Jacobian of the springs in the frame with origin ``origin`` (default {M}).

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.spring_jacobian()
        array([[1., 0., 1.]])
        """
        return line_jacobian(self.spring_points, self.spring_directions, origin)

    def actuator_jacobian(self, origin=None) -> np.ndarray:
        """Jacobian of the actuators (wrench at the frame origin ``F = J^T tau``).

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.actuator_jacobian(origin=[0, -1])
        array([[1., 0., 0.]])
        """
        return line_jacobian(self.actuator_points, self.actuator_directions, origin)

    def support_jacobian(self, origin=None) -> np.ndarray:
        """Jacobian mapping support motion to spring elongation (with a minus sign).

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.support_jacobian()
        array([[1., 0., 1.]])
        """
        if self.support_points is None:
            return self.spring_jacobian(origin)
        return line_jacobian(self.support_points, self.spring_directions, origin)

    def sensor_jacobian(self, points, axes=None, origin=None) -> np.ndarray:
        """Point-sensor rows (see :func:`~robustmb.decoupling.geometry.point_sensor_jacobian`).

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.sensor_jacobian([[0.0, 1.0]])
        array([[ 1.,  0., -1.],
               [ 0.,  1.,  0.]])
        """
        return point_sensor_jacobian(points, axes, origin)

    def frame_origin(self, frame="com"):
        """Origin (in {M}) of a named frame: ``"com"``, ``"stiffness"`` or a point.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1,
        ...     spring_points=[[-0.5, -0.85], [-0.5, -0.85], [0.5, -0.85]],
        ...     spring_directions=[[1, 0], [0, 1], [0, 1]], stiffness=1.0)
        >>> pm.frame_origin("stiffness")
        array([ 0.  , -0.85])
        """
        if isinstance(frame, str):
            if frame == "com":
                return np.zeros(self.dim)
            if frame == "stiffness":
                return self.center_of_stiffness()
            raise ArgumentError(f"frame must be 'com', 'stiffness' or a point, got {frame!r}")
        o = np.asarray(frame, dtype=float)
        if o.shape != (self.dim,):
            raise DimensionError(
                f"a frame origin needs {self.dim} coordinates, got shape {o.shape}"
            )
        return o

    # -- matrices ---------------------------------------------------------------------
    def mass_matrix(self, origin=None) -> np.ndarray:
        """Mass matrix for the coordinates of a frame at ``origin`` (default: CoM, diagonal).

        Examples
        --------
        >>> pm = ParallelManipulator(mass=400, inertia=115, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.mass_matrix(origin=[0.0, -1.7])
        array([[ 400.,    0., -680.],
               [   0.,  400.,    0.],
               [-680.,    0., 1271.]])
        """
        if origin is None:
            return self._M.copy()
        T = frame_translation(origin)
        return T.T @ self._M @ T

    def stiffness_matrix(self, origin=None) -> np.ndarray:
        """``J_O^T diag(k) J_O``.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=2)
        >>> pm.stiffness_matrix(origin=[0, -1])
        array([[2., 0., 0.],
               [0., 0., 0.],
               [0., 0., 0.]])
        """
        J = self.spring_jacobian(origin)
        return J.T @ (self.stiffness[:, None] * J)

    def damping_matrix(self, origin=None) -> np.ndarray:
        """``J_O^T diag(c) J_O``.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=2, damping=0.5)
        >>> float(pm.damping_matrix()[0, 0])
        0.5
        """
        J = self.spring_jacobian(origin)
        return J.T @ (self.damping[:, None] * J)

    def center_of_stiffness(self):
        """Origin of the frame where the stiffness matrix has no translation-rotation coupling.

        Returns
        -------
        numpy.ndarray
            Coordinates in {M}; see :func:`robustmb.decoupling.stiffness.center_of_stiffness`.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1,
        ...     spring_points=[[-0.5, -0.85], [-0.5, -0.85], [0.5, -0.85]],
        ...     spring_directions=[[1, 0], [0, 1], [0, 1]], stiffness=1.0)
        >>> pm.center_of_stiffness()
        array([ 0.  , -0.85])
        """
        from robustmb.decoupling.stiffness import center_of_stiffness

        return center_of_stiffness(self.spring_points, self.spring_directions, self.stiffness)

    # -- models -----------------------------------------------------------------------
    def model(self, origin=None) -> SecondOrderSystem:
        """Second-order model in the coordinates of the frame at ``origin`` (default {M}).

        Inputs: the actuator forces (named as the actuators); ground inputs: support
        translations and rotations ``D<coord>`` (for example ``Dx, Dy, DRz``).  The
        model records ``origin`` as its ``frame``: measurements must be built with the
        same ``origin`` (:meth:`accelerometers`, :meth:`elongation_sensors`), and one
        built for another frame is refused, because its matrix reads other coordinates.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=2, inertia=1, spring_points=[[0, 0]],
        ...                          spring_directions=[[1, 0]], stiffness=8)
        >>> float(pm.model().K[0, 0])
        8.0
        """
        origin = self._origin(origin)
        J = self.spring_jacobian(origin)
        Ja = self.support_jacobian(origin)
        kJ = self.stiffness[:, None] * J
        cJ = self.damping[:, None] * J
        return SecondOrderSystem(
            self.mass_matrix(origin),
            J.T @ kJ,
            J.T @ cJ,
            input_matrix=self.actuator_jacobian(origin).T,
            input_names=self.actuator_names,
            ground_stiffness=J.T @ (self.stiffness[:, None] * Ja),
            ground_damping=J.T @ (self.damping[:, None] * Ja),
            ground_names=[f"D{c}" for c in self.coordinate_names],
            coordinate_names=self.coordinate_names,
            frame=origin,
        )

    def _origin(self, origin):
        return np.zeros(self.dim) if origin is None else self.frame_origin(origin)

    def accelerometers(self, points, axes=None, names=None, origin=None) -> Measurement:
        """Absolute point accelerometers (rows of :meth:`sensor_jacobian`).

        ``points`` are in {M}; ``origin`` is the frame of the model the measurement is
        combined with (``model(origin)``; default {M}).  The sensed signals do not
        depend on it, only the coordinates they are written in.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1]],
        ...                          spring_directions=[[1, 0]], stiffness=1)
        >>> pm.accelerometers([[0.0, 1.0]]).names
        ['a1x', 'a1y']
        """
        o = self._origin(origin)
        S = self.sensor_jacobian(points, axes, o)
        if names is None:
            npts = np.atleast_2d(points).shape[0]
            if axes is None:
                labels = "xyz"[: self.dim]
                names = [f"a{i + 1}{c}" for i in range(npts) for c in labels]
            else:
                names = [f"a{i + 1}" for i in range(S.shape[0])]
        return Measurement(S, "acceleration", names, frame=o)

    def elongation_sensors(self, names=None, origin=None) -> Measurement:
        """Relative displacement sensors in every spring (collocated with in-spring actuators).

        ``origin`` is the frame of the model the measurement is combined with
        (``model(origin)``; default {M}); the elongations themselves do not depend on it.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=1, inertia=1, spring_points=[[0, -1], [1, 0]],
        ...                          spring_directions=[[1, 0], [0, 1]], stiffness=1)
        >>> pm.elongation_sensors().names
        ['L1', 'L2']
        """
        o = self._origin(origin)
        J = self.spring_jacobian(o)
        if names is None:
            names = [f"L{i + 1}" for i in range(J.shape[0])]
        return Measurement(J, "position", names, ground_matrix=self.support_jacobian(o), frame=o)

    def plant(self, outputs, *, ground=False, origin=None):
        """python-control state space from ``[support motion (if ground), tau]`` to outputs.

        The states are the coordinates of the frame at ``origin`` (default {M}); the
        measurements must be built for the same frame.

        Elongation sensors measure the spring deformation ``J q - J_a w``, i.e. relative to
        the support; other measurements are absolute.

        Examples
        --------
        >>> pm = ParallelManipulator(mass=2, inertia=1, spring_points=[[0, 0]],
        ...                          spring_directions=[[1, 0]], stiffness=8,
        ...                          actuator_points=[[0, 0]], actuator_directions=[[1, 0]])
        >>> G = pm.plant(pm.elongation_sensors())
        >>> G.ninputs, G.noutputs, G.nstates
        (1, 1, 6)
        """
        return self.model(origin).state_space(outputs, ground=ground)
