"""Full-order H2-optimal controller: two Riccati equations, LMI fallback.

For a continuous-time plant with ``D22 = 0`` (loop shifting removes it), ``D11 = 0``,
``D12`` of full column rank and ``D21`` of full row rank, the optimal controller is
(Zhou, Doyle & Glover 1996, ch. 14, without the normalisation of ``D12``, ``D21``)

    X = Ric(A, B2, C1'C1, D12'D12, C1'D12),  F = -(D12'D12)^-1 (B2'X + D12'C1),
    Y = Ric(A', C2', B1 B1', D21 D21', B1 D21'),  L = -(Y C2' + B1 D21') (D21 D21')^-1,
    K = [[A + B2 F + L C2, -L], [F, 0]],

with optimal cost ``||Tzw||_2^2 = trace(B1' X B1) + trace((D12'D12) F Y F')``.  Singular
problems go to the H2 LMI (:func:`.lmi.lmi_h2`).  The closed-loop norm is re-computed
with :func:`robustmb.h2norm` on the plant the user gave.
"""

from __future__ import annotations

from dataclasses import dataclass

import control
import numpy as np
import scipy.linalg

from robustmb.analysis import h2norm
from robustmb.errors import DimensionError, IllPosedError

from .hinf_riccati import is_regular
from .lmi import lmi_h2
from .plant import as_controller, check_solvable, closed_loop, partition_plant, shift_back

__all__ = ["H2synResult", "h2syn"]


@dataclass
class H2synResult:
    """Result of :func:`h2syn`.

    Attributes
    ----------
    controller : control.StateSpace
    norm : float
        H2 norm of the closed loop, computed independently of the synthesis.
    gamma : float
        Same as ``norm`` (the name shared with :class:`~.hinfsyn.HinfsynResult`).
    gamma_bracket : tuple
        ``(optimal value from the synthesis, norm)``.
    closed_loop : control.StateSpace
    method : str
        ``"riccati"`` or ``"lmi"``.
    """

    controller: control.StateSpace
    norm: float
    gamma: float
    gamma_bracket: tuple
    closed_loop: control.StateSpace
    method: str


def _riccati_h2(P):
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    R = P.D12.T @ P.D12
    Rt = P.D21 @ P.D21.T
    X = scipy.linalg.solve_continuous_are(A, B2, C1.T @ C1, R, s=C1.T @ P.D12)
    Y = scipy.linalg.solve_continuous_are(A.T, C2.T, B1 @ B1.T, Rt, s=B1 @ P.D21.T)
    F = -np.linalg.solve(R, B2.T @ X + P.D12.T @ C1)
    L = -np.linalg.solve(Rt, (Y @ C2.T + B1 @ P.D21.T).T).T
    K = (A + B2 @ F + L @ C2, -L, F, np.zeros((B2.shape[1], C2.shape[0])))
    opt = np.trace(B1.T @ X @ B1) + np.trace(R @ F @ Y @ F.T)
    return float(np.sqrt(max(opt, 0.0))), K


def h2syn(P, nmeas, ncon, *, method="auto"):
    """Full-order H2-optimal controller with a verified closed-loop H2 norm.

    Parameters
    ----------
    P : control.StateSpace, control.TransferFunction or uncertain system
        Continuous-time generalised plant, inputs ``[w; u]``, outputs ``[z; y]``.
    nmeas, ncon : int or sequence of str
        Measurements and controls (last outputs / inputs, or their names).
    method : {"auto", "riccati", "lmi"}
        ``"auto"``: Riccati formulae for a regular plant with ``D11 = 0``, else the LMI.

    Returns
    -------
    H2synResult

    Raises
    ------
    IllPosedError
        Plant not stabilisable / detectable, or no controller makes the loop strictly proper.
    NotImplementedError
        For a discrete-time plant.

    Examples
    --------
    >>> import control
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 1.0], [1.0, 0.0]])
    >>> res = rmb.h2syn(P, 1, 1)
    >>> K = control.tf(res.controller)
    >>> bool(np.allclose(K.num[0][0], [-1.0]) and np.allclose(K.den[0][0], [1.0, 3.0]))
    True
    """
    if method not in ("auto", "riccati", "lmi"):
        raise DimensionError(f"method must be 'auto', 'riccati' or 'lmi'; got {method!r}")
    plant = partition_plant(P, nmeas, ncon)
    if plant.dt > 0:
        raise NotImplementedError("h2syn: discrete-time plants are not supported yet")
    check_solvable(plant)
    P0 = plant.with_d22_zero()
    regular = is_regular(P0) and not np.any(P0.D11)
    if method == "riccati" and not regular:
        raise IllPosedError(
            "method='riccati' needs D11 = 0, D12 of full column rank and D21 of full row rank"
        )
    if method == "lmi" or not regular:
        opt, K0 = lmi_h2(P0)
        used = "lmi"
    else:
        opt, K0 = _riccati_h2(P0)
        used = "riccati"
    K = shift_back(K0, plant.D22)
    cl = closed_loop(plant, K)
    # A feedthrough at rounding level (LMI path) is not a real one: drop it.
    scale = max(np.abs(cl.C).max(initial=0.0) * np.abs(cl.B).max(initial=0.0), 1.0)
    if np.abs(cl.D).max(initial=0.0) <= 1e-9 * scale:
        cl = control.ss(cl.A, cl.B, cl.C, np.zeros_like(cl.D))
    norm = h2norm(cl)
    if not np.isfinite(norm):
        raise IllPosedError(f"the {used} H2 controller failed the closed-loop verification")
    return H2synResult(as_controller(K, 0.0), norm, norm, (min(opt, norm), norm), cl, used)
