"""The full-order H-infinity level from the dual SDP, restricted to its minimal face.

On singular plants the primal LMI (:func:`.lmi.hinf_level_lmi`) has no optimal point:
its variables grow without bound and interior-point solvers stop early, above the
optimum (COMPleib HE1: 0.0736233, AC7: 0.0379146).  The dual SDP has an optimal point,
but no interior: every dual-feasible point lies on a proper face of the cone, and a
solver working on the whole cone is then inaccurate too.  This module names two causes
of that face and solves the dual on it.

With ``Mx(X)`` the filter-side inequality (``To = diag(null [C2 D21], I)``), ``My(Y)`` the
control-side one (``Tc = diag(null [B2' D12'], I)``) and ``W = [[X, I], [I, Y]] >= 0``, the
dual variables are ``Sx = To Zx To'``, ``Sy = Tc Zy Tc'`` (``Zx, Zy >= 0``) and ``Q >= 0``
with ``Q11 = A Sx11 + Sx11 A' + Sx12 B1' + B1 Sx12'``, ``Q22`` the same on the ``Y`` side.
A direction ``V >= 0`` along which ``Y`` can grow without leaving the feasible set
(``Tc' Ly(V) Tc <= 0``, ``Ly`` the linear part of ``My``) forces
``<Q22, V> = <Zy, Tc' Ly(V) Tc>``: the left side is ``>= 0``, the right ``<= 0``, so both
vanish for every dual point.

1. Rows of ``C2`` free of ``D21`` (``C^ = L C2``, ``L D21 = 0``): ``X`` grows along
   ``C^' C^``, which forces ``Sx`` into the null space of ``C^ [A B1]`` and the range of
   ``Q11`` into that of ``C^`` (as in :mod:`robustmb.tuning.full_order_floor`); the same on
   the ``Y`` side with ``B^ = B2 R``, ``D12 R = 0``.
2. A stable invariant zero ``s0 = -lam`` (``lam > 0``) of ``(A, B2, C1, D12)`` with ``D12``
   square and invertible, direction ``v`` (``(A - s0 I) v = B2 k``, ``C1 v = D12 k``): on
   ``Tc``, ``x' Ly(v v') x = -2 lam (v' x)^2 <= 0``, so ``Y`` grows along ``v v'``; every
   dual point has ``Sy [v; 0] = 0`` (and ``Q22 v = 0``).  The same with ``(A, B1, C2, D21)``
   and its left zero directions on the ``X`` side.

The directions of case 2 are eigenvectors of a pencil, irrational in general (HE1: one
stable zero, -2.2099; AC7: seven): a rational dual point on that face would also have to
annihilate their conjugates, so in general none exists, and the exact check of
:func:`robustmb.tuning.full_order_floor.full_order_floor` cannot certify these plants;
restricting the float dual to the face did not help either (HE1: 0.0736205
with it, 0.0736158 without; AC7: 0.0617, far below the optimum, with it and a solver
failure without).  The dual here is restricted to the faces of case 1 only.  Its value is
a floating-point *estimate* of the optimum, neither a certified bound nor an achieved
level: on HE1 0.0736158, against 0.0736153 for the regularised Riccati limit and 0.0736166
for a verified controller; on AC7 the solver fails.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from robustmb.errors import DimensionError, IllPosedError

from .plant import Plant

__all__ = ["hinf_level_dual"]

_TOL = {"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12, "tol_ktratio": 1e-10}


def _null(M, n):
    if M.shape[0] == 0:
        return np.eye(n)
    return sla.null_space(M, rcond=1e-12)


def _sides(P: Plant):
    """``(To, Tc, Nq, Nr)``: float bases of the dual's face of case 1 (module notes)."""
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D12, D21 = P.D12, P.D21
    n, m1, m2, p1, p2 = P.dims
    chat = _null(D21.T, p2).T @ C2 if p2 else np.zeros((0, n))
    bhat = B2 @ _null(D12, m2) if m2 else np.zeros((n, 0))
    no = _null(np.vstack([np.hstack([C2, D21]), np.hstack([chat @ A, chat @ B1])]), n + m1)
    nc = _null(
        np.vstack([np.hstack([B2.T, D12.T]), np.hstack([bhat.T @ A.T, bhat.T @ C1.T])]), n + p1
    )
    To = sla.block_diag(no, np.eye(p1))
    Tc = sla.block_diag(nc, np.eye(m1))
    Nq = _null(chat, n)
    Nr = _null(bhat.T, n)
    return To, Tc, Nq, Nr


def hinf_level_dual(P: Plant):
    """Estimate of the optimal full-order H-infinity level from the face-reduced dual SDP.

    Parameters
    ----------
    P : Plant
        Continuous plant with ``D22 = 0`` (see :func:`.plant.partition_plant` and
        ``Plant.with_d22_zero``).

    Returns
    -------
    float
        The dual optimum as the solver (Clarabel, tight tolerances) returns it: an
        estimate of the optimum, not a certified bound (the face is formed in floating
        point).

    Raises
    ------
    DimensionError
        A discrete-time plant.
    IllPosedError
        The solver failed.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.synthesis.plant import partition_plant
    >>> G = control.ss([[1.0]], [[2.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> g = hinf_level_dual(partition_plant(G, 1, 1).with_d22_zero())
    >>> bool(abs(g - rmb.hinfsyn(G, 1, 1, method="riccati").gamma_opt) < 1e-5 * g)
    True
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    if P.dt:
        raise DimensionError("hinf_level_dual: P must be continuous-time")
    A, B1, C1, D11 = P.A, P.B1, P.C1, P.D11
    n, nw, _, nz, _ = P.dims
    To, Tc, Nq, Nr = _sides(P)
    zx = cp.Variable((To.shape[1], To.shape[1]), PSD=True)
    zy = cp.Variable((Tc.shape[1], Tc.shape[1]), PSD=True)
    r = cp.Variable((Nq.shape[1], Nr.shape[1]))
    sx = To @ zx @ To.T
    sy = Tc @ zy @ Tc.T
    qx = A @ sx[:n, :n] + sx[:n, :n] @ A.T + sx[:n, n : n + nw] @ B1.T + B1 @ sx[n : n + nw, :n]
    qy = A.T @ sy[:n, :n] + sy[:n, :n] @ A + sy[:n, n : n + nz] @ C1 + C1.T @ sy[n : n + nz, :n]
    q = cp.bmat([[Nq.T @ qx @ Nq, r], [r.T, Nr.T @ qy @ Nr]])
    qv = cp.Variable(q.shape, PSD=True)
    ex = sla.block_diag(np.zeros((n, n)), np.eye(nw + nz))
    value = 2 * (
        cp.sum(cp.multiply(sx[n + nw :, :n], C1))
        + cp.sum(cp.multiply(sx[n + nw :, n : n + nw], D11))
        + cp.sum(cp.multiply(sy[n + nz :, :n], B1.T))
        + cp.sum(cp.multiply(sy[n + nz :, n : n + nz], D11.T))
        - cp.trace(Nq @ r @ Nr.T)
    )
    cons = [cp.trace(sx @ ex) + cp.trace(sy @ ex) == 1, qv == 0.5 * (q + q.T)]
    prob = cp.Problem(cp.Maximize(value), cons)
    try:
        prob.solve(solver="CLARABEL", max_iter=500, **_TOL)
    except cp.error.SolverError as exc:
        raise IllPosedError(f"hinf_level_dual: the solver failed ({exc})") from None
    if prob.status not in ("optimal", "optimal_inaccurate") or prob.value is None:
        raise IllPosedError(f"hinf_level_dual: the solver failed ({prob.status})")
    return float(prob.value)
