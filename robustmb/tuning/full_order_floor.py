"""The full-order H-infinity optimum by LMIs: a floor no structured controller can beat.

Gahinet and Apkarian's characterisation ("A linear matrix inequality approach to
H-infinity control", Int. J. Robust Nonlinear Control 4, 1994): a controller of the
plant's order with ``||Fl(P, K)||_inf < gamma`` exists iff there are symmetric ``X, Y``
with two projected bounded-real inequalities and ``[[X, I], [I, Y]] >= 0``.  Minimising
``gamma`` is a semidefinite program (cvxpy).  Any controller of lower order, a static
gain or a PID included, achieves at least this value.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..analysis._statespace import as_statespace_data
from ..errors import DimensionError


def full_order_gamma(P, nmeas, ncon, *, solver=None):
    """Optimal continuous-time full-order H-infinity level of ``P`` (cvxpy LMIs).

    Parameters
    ----------
    P : control.StateSpace
        Generalised plant; its last ``nmeas`` outputs are measurements and last
        ``ncon`` inputs controls (``D22`` is ignored: it does not change the optimum).
    nmeas, ncon : int
    solver : str, optional
        cvxpy solver (default CLARABEL).

    Returns
    -------
    float
        The optimal level, to the solver's accuracy.

    Examples
    --------
    >>> import control
    >>> # x' = -x + w + u, z = [x; u], y = x + w: the optimum is below the open loop's 1.
    >>> P = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> g = full_order_gamma(P, 1, 1)
    >>> bool(0.0 < g < 1.0)
    True
    """
    import cvxpy as cp

    a, b, c, d, dt = as_statespace_data(P, argname="P")
    if dt != 0:
        raise DimensionError("full_order_gamma: continuous-time plants only")
    n = a.shape[0]
    nw, nz = b.shape[1] - ncon, c.shape[0] - nmeas
    if nw < 1 or nz < 1:
        raise DimensionError(f"full_order_gamma: P of shape {d.shape} has no performance channels")
    b1, b2 = b[:, :nw], b[:, nw:]
    c1, c2 = c[:nz], c[nz:]
    d11, d12, d21 = d[:nz, :nw], d[:nz, nw:], d[nz:, :nw]
    no = sla.null_space(np.hstack([c2, d21]))
    nc = sla.null_space(np.hstack([b2.T, d12.T]))
    x = cp.Variable((n, n), symmetric=True)
    y = cp.Variable((n, n), symmetric=True)
    g = cp.Variable()
    eps = 1e-8
    mx = cp.bmat(
        [
            [a.T @ x + x @ a, x @ b1, c1.T],
            [b1.T @ x, -g * np.eye(nw), d11.T],
            [c1, d11, -g * np.eye(nz)],
        ]
    )
    my = cp.bmat(
        [
            [a @ y + y @ a.T, y @ c1.T, b1],
            [c1 @ y, -g * np.eye(nz), d11],
            [b1.T, d11.T, -g * np.eye(nw)],
        ]
    )
    to = sla.block_diag(no, np.eye(nz))
    tc = sla.block_diag(nc, np.eye(nw))
    sym = lambda m: 0.5 * (m + m.T)  # noqa: E731 - cvxpy wants explicit symmetry
    cons = [
        sym(to.T @ mx @ to) << -eps * np.eye(to.shape[1]),
        sym(tc.T @ my @ tc) << -eps * np.eye(tc.shape[1]),
        cp.bmat([[x, np.eye(n)], [np.eye(n), y]]) >> 0,
    ]
    prob = cp.Problem(cp.Minimize(g), cons)
    prob.solve(solver=solver or cp.CLARABEL)
    if g.value is None:
        raise DimensionError(f"full_order_gamma: the LMI solver failed ({prob.status})")
    return float(g.value)
