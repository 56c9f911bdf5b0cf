"""The common result of every decoupling method: a pair of constant matrices.

A decoupling method chooses an input matrix ``T_in`` (``m x k``) and an output matrix
``T_out`` (``k x p``) so that the decoupled plant ``G_dec = T_out G T_in`` is nearly
diagonal. A diagonal controller ``K_d`` designed on ``G_dec`` is implemented on the
physical plant as ``K = T_in K_d T_out`` (with the loop ``u = -K y``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from robustmb.decoupling.plant_data import transform

__all__ = ["Decoupling"]


@dataclass
class Decoupling:
    """Constant input/output matrices that decouple a plant, and the decoupled plant.

    Attributes
    ----------
    method : str
        ``"jacobian"``, ``"svd"``, ``"modal"`` or ``"static"``.
    input_matrix : numpy.ndarray ``(m, k)``
        ``T_in``: physical inputs ``u = T_in @ u_dec``.
    output_matrix : numpy.ndarray ``(k, p)``
        ``T_out``: decoupled outputs ``y_dec = T_out @ y``.
    plant : object or None
        ``T_out @ G @ T_in`` for the plant the decoupling was computed on (same kind as
        that plant: ``control.StateSpace``, array stack or uncertain system).
    input_names, output_names : list of str
        Names of the decoupled channels.
    """

    method: str
    input_matrix: np.ndarray
    output_matrix: np.ndarray
    plant: object = None
    input_names: list = field(default_factory=list)
    output_names: list = field(default_factory=list)

    def apply(self, G):
        """Decouple another plant with the same matrices: ``T_out @ G @ T_in``.

        Works on LTI systems, ``(p, m)`` / ``(nw, p, m)`` arrays and uncertain systems.

        Examples
        --------
        >>> import numpy as np
        >>> d = Decoupling("static", np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]))
        >>> d.apply(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([[3., 4.],
               [1., 2.]])
        """
        names = {}
        if hasattr(G, "ninputs") or hasattr(G, "uncertainty"):
            k = self.output_matrix.shape[0]
            r = self.input_matrix.shape[1]
            if len(self.input_names) == r:
                names["input_names"] = self.input_names
            if len(self.output_names) == k:
                names["output_names"] = self.output_names
        return transform(G, self.output_matrix, self.input_matrix, **names)

    def controller(self, Kd):
        """Physical controller ``T_in @ Kd @ T_out`` from a controller on the decoupled plant.

        Parameters
        ----------
        Kd : LTI system or array_like ``(k, k)``
            Usually diagonal.

        Returns
        -------
        Same kind as ``Kd``, mapping the ``p`` measurements to the ``m`` actuators.

        Examples
        --------
        >>> import numpy as np
        >>> d = Decoupling("static", 2 * np.eye(2), np.eye(2))
        >>> d.controller(np.eye(2))
        array([[2., 0.],
               [0., 2.]])
        """
        return transform(Kd, self.input_matrix, self.output_matrix)
