"""Jacobian (topology-driven) decoupling.

With actuator Jacobian ``J_act`` (wrench ``F_O = J_act^T tau`` at the origin of {O}) and
sensor Jacobian ``J_sen`` (measurements ``y = J_sen X_O``), the decoupled plant maps the
wrench at {O} to the motion of {O}: ``G_O = pinv(J_sen) G pinv(J_act^T)``. With {O} at
the centre of mass the mass matrix is diagonal (decoupled at high frequency); at the
centre of stiffness the stiffness matrix is (decoupled at low frequency).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from robustmb.decoupling.decoupling_result import Decoupling
from robustmb.decoupling.plant_data import _plant_shape, numeric_array
from robustmb.errors import ArgumentError, DimensionError, IllPosedError

__all__ = ["JacobianDecoupling", "jacobian_decouple"]

_WRENCH_NAMES = {3: ["Fx", "Fy", "Mz"], 6: ["Fx", "Fy", "Fz", "Mx", "My", "Mz"]}
_MOTION_NAMES = {3: ["x", "y", "Rz"], 6: ["x", "y", "z", "Rx", "Ry", "Rz"]}


@dataclass
class JacobianDecoupling(Decoupling):
    """Result of :func:`jacobian_decouple`.

    Attributes
    ----------
    actuator_jacobian, sensor_jacobian : numpy.ndarray or None
        The Jacobians used (``None`` for a side left untransformed).
    """

    actuator_jacobian: np.ndarray | None = None
    sensor_jacobian: np.ndarray | None = None


def _check_finite(J, name):
    if J.ndim != 2:
        raise DimensionError(f"{name} must be a 2-D matrix, got shape {J.shape}")
    if not np.all(np.isfinite(J)):
        i, j = np.argwhere(~np.isfinite(J))[0]
        raise ArgumentError(f"{name} has a non-finite entry {float(J[i, j])!r} at ({i}, {j})")


def _check_full_column_rank(J, name, side):
    """A Jacobian of rank below its ``d`` frame coordinates leaves some direction of the
    frame unactuated (or unmeasured): its pseudo-inverse then mixes the channels."""
    d = J.shape[1]
    rank = int(np.linalg.matrix_rank(J))
    if rank < d:
        raise IllPosedError(
            f"{name} has rank {rank} < {d} (the number of frame coordinates): {d - rank} "
            f"direction(s) of the frame are not {side}, so pinv({name}) mixes the channels "
            "instead of decoupling them; add or move the elements, or decouple fewer "
            "coordinates"
        )


def jacobian_decouple(
    G,
    *,
    actuator_jacobian=None,
    sensor_jacobian=None,
    input_names=None,
    output_names=None,
):
    """Decouple a plant with the actuator and sensor Jacobians of a frame {O}.

    ``G_O = pinv(J_sen) @ G @ pinv(J_act^T)``; either side may be omitted (for example an
    inertial unit at the centre of mass already measures the motion of {O}).

    Parameters
    ----------
    G : LTI system, array_like ``(p, m)`` / ``(nw, p, m)``, or uncertain system
        Plant from the ``m`` actuators to the ``p`` sensors.
    actuator_jacobian : array_like ``(m, d)``, optional
        Rows are the actuators' directions and moment arms in {O}.
    sensor_jacobian : array_like ``(p, d)``, optional
        Rows map the motion of {O} to each sensor.
    input_names, output_names : list of str, optional
        Names of the decoupled channels (default: wrench ``Fx, Fy, Mz`` / motion
        ``x, y, Rz``, or their spatial versions, when the dimension is 3 or 6).

    Returns
    -------
    JacobianDecoupling
        ``.plant`` is the decoupled plant (same kind as ``G``).

    Raises
    ------
    DimensionError
        When a Jacobian does not match the plant's inputs or outputs, or the two
        Jacobians have different numbers of columns (frame coordinates).
    ArgumentError
        When a Jacobian has a non-finite entry.
    IllPosedError
        When a Jacobian ``(k, d)`` has rank below ``d`` (numerical rank, numpy's
        ``matrix_rank`` tolerance): some direction of {O} is not actuated or not measured
        and no frame decoupling exists (names the Jacobian and its rank). An
        ill-conditioned Jacobian of full rank is accepted.

    Examples
    --------
    >>> import numpy as np
    >>> J = np.array([[1.0, 0.0, 1.7], [0.0, 1.0, -0.5], [0.0, 1.0, 0.5]])
    >>> Gx = np.diag([1.0, 2.0, 3.0])
    >>> G = J @ Gx @ J.T                         # a collocated plant seen from the struts
    >>> np.allclose(jacobian_decouple(G, actuator_jacobian=J, sensor_jacobian=J).plant, Gx)
    True
    """
    p, m = _plant_shape(G)
    T_in = np.eye(m)
    T_out = np.eye(p)
    Ja = Js = None
    if actuator_jacobian is not None:
        Ja = np.atleast_2d(numeric_array(actuator_jacobian, "actuator_jacobian").astype(float))
        _check_finite(Ja, "actuator_jacobian")
        if Ja.shape[0] != m:
            raise DimensionError(
                f"actuator_jacobian has {Ja.shape[0]} rows but the plant has {m} inputs"
            )
        _check_full_column_rank(Ja, "actuator_jacobian", "actuated")
        T_in = np.linalg.pinv(Ja.T)
    if sensor_jacobian is not None:
        Js = np.atleast_2d(numeric_array(sensor_jacobian, "sensor_jacobian").astype(float))
        _check_finite(Js, "sensor_jacobian")
        if Js.shape[0] != p:
            raise DimensionError(
                f"sensor_jacobian has {Js.shape[0]} rows but the plant has {p} outputs"
            )
        _check_full_column_rank(Js, "sensor_jacobian", "measured")
        T_out = np.linalg.pinv(Js)
    if Ja is not None and Js is not None and Ja.shape[1] != Js.shape[1]:
        # both sides must read the same frame coordinates, or G_O is not square
        raise DimensionError(
            f"actuator_jacobian has {Ja.shape[1]} columns but sensor_jacobian has "
            f"{Js.shape[1]}: both must be written in the same {Ja.shape[1]} or "
            f"{Js.shape[1]} coordinates of the frame"
        )
    if input_names is None:
        input_names = _WRENCH_NAMES.get(T_in.shape[1], []) if Ja is not None else []
    if output_names is None:
        output_names = _MOTION_NAMES.get(T_out.shape[0], []) if Js is not None else []
    res = JacobianDecoupling(
        method="jacobian",
        input_matrix=T_in,
        output_matrix=T_out,
        input_names=list(input_names),
        output_names=list(output_names),
        actuator_jacobian=Ja,
        sensor_jacobian=Js,
    )
    res.plant = res.apply(G)
    return res
