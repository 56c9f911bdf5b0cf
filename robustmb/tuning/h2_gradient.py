"""H2 norm of a stable model and its gradient w.r.t. ``S = [[A, B], [C, D]]``
(the :class:`~robustmb.tuning.Variance` goal), from the two Gramians."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla


def h2_gradient(a, b, c, d, dt=0.0):
    """H2 norm of a stable model and its gradient w.r.t. S.

    Continuous time (strictly proper): ``J^2 = tr(C P C^T)`` with
    ``A P + P A^T + B B^T = 0`` and the observability Gramian ``Q``:
    ``dJ^2 = 2 tr(Q dA P) + 2 tr(Q B dB^T) + 2 tr(C P dC^T)``; ``(inf, None)`` when
    ``A`` is not stable or ``D`` is not zero.  Discrete time: see
    :func:`_h2_gradient_discrete`.

    Examples
    --------
    >>> import numpy as np
    >>> j, G = h2_gradient(np.array([[-2.0]]), np.array([[1.0]]), np.array([[2.0]]),
    ...                    np.array([[0.0]]))
    >>> round(float(j), 12)
    1.0
    """
    if dt != 0:
        return _h2_gradient_discrete(a, b, c, d)
    n = a.shape[0]
    if np.any(d != 0) or (n and np.max(np.linalg.eigvals(a).real) >= 0):
        return np.inf, None
    if n == 0:
        return 0.0, np.zeros((c.shape[0], b.shape[1]))
    p = sla.solve_continuous_lyapunov(a, -b @ b.T)
    q = sla.solve_continuous_lyapunov(a.T, -c.T @ c)
    j2 = float(np.trace(c @ p @ c.T))
    j = np.sqrt(max(j2, 0.0))
    ga = 2 * q @ p
    gb = 2 * q @ b
    gc = 2 * c @ p
    grad = np.block([[ga, gb], [gc, np.zeros(d.shape)]])
    return float(j), grad / (2 * j) if j > 0 else grad * 0


def _h2_gradient_discrete(a, b, c, d):
    """H2 norm of a stable discrete model and its gradient w.r.t. S.

    ``J^2 = tr(C P C^T + D D^T)`` with ``P = A P A^T + B B^T``; with
    ``Q = A^T Q A + C^T C``: ``dJ^2 = 2 tr(Q A P dA^T) + 2 tr(Q B dB^T)
    + 2 tr(C P dC^T) + 2 tr(D dD^T)``.  ``(inf, None)`` unless every pole is inside
    the unit circle.

    Examples
    --------
    >>> import numpy as np
    >>> # 1 / (z - 0.5): impulse response 0, 1, 0.5, 0.25, ... so J^2 = 1 / (1 - 0.25).
    >>> j, G = h2_gradient(np.array([[0.5]]), np.array([[1.0]]), np.array([[1.0]]),
    ...                    np.array([[0.0]]), dt=1.0)
    >>> round(float(j) ** 2, 12)
    1.333333333333
    """
    n = a.shape[0]
    if n and np.max(np.abs(np.linalg.eigvals(a))) >= 1:
        return np.inf, None
    if n == 0:  # a static gain: J = ||D||_F
        j = float(np.linalg.norm(d))
        return j, d / j if j > 0 else np.zeros_like(d)
    p = sla.solve_discrete_lyapunov(a, b @ b.T)
    q = sla.solve_discrete_lyapunov(a.T, c.T @ c)
    j2 = float(np.trace(c @ p @ c.T) + np.sum(d * d))
    j = np.sqrt(max(j2, 0.0))
    grad = 2 * np.block([[q @ a @ p, q @ b], [c @ p, d]])
    return float(j), grad / (2 * j) if j > 0 else grad * 0
