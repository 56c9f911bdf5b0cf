"""Support-to-payload transmissibility of a mechanical system, open or closed loop.

For ``Z(jw) q = F tau + (K_w + jw C_w) w`` with sensors ``y = S (jw)^k q - S_w (jw)^k w``
and the controller ``tau = -K(jw) y``, the payload motion is

``(Z + F K S (jw)^k) q = (K_w + jw C_w + F K S_w (jw)^k) w``,

solved for all frequencies at once. This avoids the improper "acceleration over ground
displacement" transfer of a state-space model.
"""

from __future__ import annotations

import numpy as np

from robustmb.decoupling.plant_data import _check_omega, as_matrix_stack, evaluate
from robustmb.decoupling.second_order import Measurement, SecondOrderSystem, _check_frame
from robustmb.errors import ArgumentError, DimensionError

__all__ = ["transmissibility"]


def transmissibility(
    model: SecondOrderSystem, omega, *, sensors=None, controller=None, outputs=None
) -> np.ndarray:
    """Transmissibility from support displacement to payload displacement.

    Parameters
    ----------
    model : SecondOrderSystem
        Mechanical model with ground inputs.
    omega : array_like
        Frequencies (rad/s).
    sensors : Measurement or list of Measurement, optional
        Feedback measurements (required with a controller).
    controller : LTI system or array_like, optional
        Physical controller from the stacked sensors to the actuators (``tau = -K y``).
        ``None`` gives the open-loop transmissibility.
    outputs : array_like ``(o, n)``, optional
        Payload displacement outputs ``O q`` (default: the generalised coordinates).

    Returns
    -------
    numpy.ndarray ``(nw, o, r)``
        Complex ``T(jw)`` from the ``r`` support displacements.

    Examples
    --------
    >>> import numpy as np
    >>> m = SecondOrderSystem(np.eye(1), np.eye(1), input_matrix=[[1.0]],
    ...                       ground_stiffness=np.eye(1))
    >>> np.allclose(transmissibility(m, [0.0, 2.0])[:, 0, 0], [1.0, -1 / 3])
    True
    """
    w = _check_omega(omega)
    n = model.ndof
    r = model.K_w.shape[1]
    if r == 0:
        raise ArgumentError("model has no ground (support) inputs")
    s = 1j * w[:, None, None]
    Z = s**2 * model.M + s * model.C + model.K
    rhs = model.K_w + s * model.C_w
    if controller is not None:
        if sensors is None:
            raise ArgumentError("sensors are required to close the loop with a controller")
        meas = [sensors] if isinstance(sensors, Measurement) else list(sensors)
        for ms in meas:
            _check_frame(ms, getattr(model, "frame", None))
        Sq = np.concatenate(
            [np.broadcast_to(s**ms.order, (w.size, 1, 1)) * ms.matrix for ms in meas], axis=1
        )
        Sw = np.concatenate(
            [
                np.broadcast_to(s**ms.order, (w.size, 1, 1))
                * (
                    ms.ground_matrix
                    if ms.ground_matrix is not None
                    else np.zeros((ms.matrix.shape[0], r))
                )
                for ms in meas
            ],
            axis=1,
        )
        Kj, _ = as_matrix_stack(
            evaluate(controller, w) if hasattr(controller, "ninputs") else np.asarray(controller)
        )
        if Kj.shape[0] == 1 and w.size > 1:
            Kj = np.broadcast_to(Kj, (w.size, *Kj.shape[1:]))
        if Kj.shape[-2:] != (model.F.shape[1], Sq.shape[1]):
            raise DimensionError(
                f"controller is {Kj.shape[-2]}x{Kj.shape[-1]}; expected "
                f"{model.F.shape[1]} actuators x {Sq.shape[1]} sensors"
            )
        FK = model.F @ Kj
        Z = Z + FK @ Sq
        rhs = rhs + FK @ Sw
    try:
        Q = np.linalg.solve(Z, rhs)
    except np.linalg.LinAlgError:
        bad = [k for k in range(w.size) if np.linalg.matrix_rank(Z[k]) < n]
        raise ArgumentError(
            f"transmissibility: omega: the frequency {float(w[bad[0]])!r} rad/s (index "
            f"{bad[0]}) is an undamped resonance of the "
            + ("closed loop" if controller is not None else "model")
            + ": the transmissibility is infinite there; leave it out of omega"
        ) from None
    if outputs is None:
        return Q
    O = np.atleast_2d(np.asarray(outputs, dtype=float))
    if O.shape[1] != n:
        raise DimensionError(f"outputs must have {n} columns, got {O.shape}")
    return O @ Q
