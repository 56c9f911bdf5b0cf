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
2. A stable invariant zero ``s0`` of ``(A, B2, C1, D12)`` with ``D12`` square and
   invertible, direction ``v`` (``(A - s0 I) v = B2 k``, ``C1 v = D12 k``): on ``Tc``,
   ``x' Ly(v v') x = 2 s0 (v' x)^2 <= 0``, so ``Y`` grows along ``v v'``; every dual point
   has ``Sy [v; 0] = 0`` and ``Q22 v = 0``.  For a whole stable invariant subspace
   (``A_z V = V L``, ``L`` stable; ``A_z = A - B2 D12^-1 C1``) ``Y`` grows along ``V M V'``
   with ``L M + M L' = -I``, which gives the same for every column of ``V``; ``V`` is
   taken from an ordered real Schur form, which stays well conditioned where the
   eigenvectors do not (AC7's zeros at -0.88206 form a near-defective triple).  On that
   face ``Q22 V = 0`` holds identically (``qy V = Sy [B2; D12; 0] k = 0``), so the
   ``Q`` block is compressed to the complement of ``V`` with no constraint dropped; an
   earlier attempt that restricted ``Sy`` but not ``Q22`` left the dual without interior
   and failed.  The stable modes of ``(A, C1)`` that ``C1`` does not see (``k = 0``) give
   the same with any ``D12``.  The filter side is the transpose: ``(A, B1, C2, D21)``
   with ``D21`` square, and the stable modes of ``(A, B1)`` that ``B1`` does not excite
   (AC7: the actuator states 5 and 6, poles -20 and -30).

The directions of case 2 are irrational in general (HE1: one stable zero, -2.2099; AC7:
seven), so a rational dual point on that face would also have to annihilate their
conjugates and in general none exists: the exact check of
:func:`robustmb.tuning.full_order_floor.full_order_floor` cannot certify these plants.
The value here is a floating-point *estimate* of the optimum, neither a certified bound
nor an achieved level.  With both faces, HE1 gives 0.0736153 (regularised Riccati limit
0.0736153, a verified controller 0.0736166).  AC7 has in addition a near invariant
zero of ``(A, B1, C2, D21)`` at the origin: the Rosenbrock matrix ``[[A, B1], [C2, D21]]``
has one singular value 1e-8 times the largest, left direction ``u`` about ``e2 - e4``
(``u' B1 = 0``, ``u' A`` nearly a multiple of the noise-free row of ``C2``).  Were it
exact, ``X`` could grow along ``u u'`` at no gain and ``Q11 u = 0`` would hold for every
dual point, a face no definite form exposes; near it the dual is badly conditioned and
this module does not treat it.  The AC7 solve stays inaccurate: about 1e-4 to 2e-3 from
the regularised limit, depending on the state coordinates.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import scipy.linalg as sla

from robustmb.errors import DimensionError, IllPosedError

from .lmi import CLARABEL_TIGHT
from .plant import Plant

__all__ = ["hinf_level_dual"]


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


def _stable_subspace(M):
    """Orthonormal basis of the invariant subspace of ``M`` for its open left half plane."""
    _, Z, sdim = sla.schur(M, output="real", sort="lhp")
    return Z[:, :sdim]


def _restrict(T, N, V, rows):
    """Face of case 2: ``T`` with ``S [V; 0] = 0`` imposed, ``N`` with ``Q V = 0``."""
    if V.shape[1] == 0:
        return T, N
    E = np.vstack([V, np.zeros((rows, V.shape[1]))])
    return T @ _null((T.T @ E).T, T.shape[1]), N @ _null(V.T @ N, N.shape[1])


def _decoupled(A, B):
    """Basis of the stable part of the subspace of left directions ``u`` with ``u' B = 0``
    invariant under ``A'`` (stable modes of ``(A, B)`` that ``B`` cannot excite)."""
    n = A.shape[0]
    An = A / max(np.linalg.norm(A, 2), 1e-300)
    Q = sla.orth(B / max(np.linalg.norm(B, 2), 1e-300), rcond=1e-10) if B.size else B[:, :0]
    while 0 < Q.shape[1] < n:  # orthonormal Krylov basis of the controllable subspace
        Qn = sla.orth(np.hstack([Q, An @ Q]), rcond=1e-10)
        if Qn.shape[1] == Q.shape[1]:
            break
        Q = Qn
    U = _null(Q.T, n)
    if U.shape[1] == 0:
        return U
    return U @ _stable_subspace(U.T @ A.T @ U)


def _zero_faces(P: Plant, To, Tc, Nq, Nr):
    """Restrict the bases of :func:`_sides` to the faces of case 2 (module notes)."""
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D12, D21 = P.D12, P.D21
    n, m1, m2, p1, p2 = P.dims
    vy = [_decoupled(A.T, C1.T)]
    if m2 and p1 == m2 and np.linalg.cond(D12) < 1e8:
        vy.append(_stable_subspace(A - B2 @ np.linalg.solve(D12, C1)))
    vx = [_decoupled(A, B1)]
    if p2 and m1 == p2 and np.linalg.cond(D21) < 1e8:
        vx.append(_stable_subspace((A - B1 @ np.linalg.solve(D21, C2)).T))
    vy, vx = np.hstack(vy), np.hstack(vx)
    if vy.shape[1]:
        Tc, Nr = _restrict(Tc, Nr, sla.orth(vy), p1 + m1)
    if vx.shape[1]:
        To, Nq = _restrict(To, Nq, sla.orth(vx), m1 + p1)
    return To, Tc, Nq, Nr


def dual_sdp_terms(A, B1, C1, D11, To, Tc, Nq, Nr):
    """Variables and affine pieces of the dual SDP of the eliminated H-infinity LMI.

    ``To``, ``Tc``: orthonormal bases of the spaces of ``Sx``, ``Sy`` (``Sx = To Zx To'``);
    ``Nq``, ``Nr``: of the spaces holding the ranges of ``Q11``, ``Q22`` (``Q12 = Nq R Nr'``).
    Returns a namespace with the cvxpy variables ``zx``, ``zy`` (PSD), ``r`` and the
    expressions ``sx``, ``sy``, ``qx`` (the filter side's linear part), ``q`` (the
    compressed ``Q``, not yet symmetrised), ``ex`` (the normalisation's weight:
    ``trace(Sx ex) + trace(Sy ex)``) and ``value`` (the dual objective, a lower bound of
    ``gamma`` at every feasible point).  Shared by :func:`hinf_level_dual` and the certified
    floor of :mod:`robustmb.tuning.full_order_floor`.

    Examples
    --------
    >>> import numpy as np
    >>> t = dual_sdp_terms(-np.eye(1), np.eye(1), np.eye(1), np.zeros((1, 1)),
    ...                    np.eye(2), np.eye(2), np.eye(1), np.eye(1))
    >>> t.q.shape, t.zx.shape
    ((2, 2), (2, 2))
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, nw, nz = A.shape[0], B1.shape[1], C1.shape[0]
    zx = cp.Variable((To.shape[1], To.shape[1]), PSD=True)
    zy = cp.Variable((Tc.shape[1], Tc.shape[1]), PSD=True)
    r = cp.Variable((Nq.shape[1], Nr.shape[1]))
    sx = To @ zx @ To.T
    sy = Tc @ zy @ Tc.T
    qx = A @ sx[:n, :n] + sx[:n, :n] @ A.T + sx[:n, n : n + nw] @ B1.T + B1 @ sx[n : n + nw, :n]
    qy = A.T @ sy[:n, :n] + sy[:n, :n] @ A + sy[:n, n : n + nz] @ C1 + C1.T @ sy[n : n + nz, :n]
    value = 2 * (
        cp.sum(cp.multiply(sx[n + nw :, :n], C1))
        + cp.sum(cp.multiply(sx[n + nw :, n : n + nw], D11))
        + cp.sum(cp.multiply(sy[n + nz :, :n], B1.T))
        + cp.sum(cp.multiply(sy[n + nz :, n : n + nz], D11.T))
        - cp.trace(Nq @ r @ Nr.T)
    )
    return SimpleNamespace(
        zx=zx,
        zy=zy,
        r=r,
        sx=sx,
        sy=sy,
        qx=qx,
        q=cp.bmat([[Nq.T @ qx @ Nq, r], [r.T, Nr.T @ qy @ Nr]]),
        ex=sla.block_diag(np.zeros((n, n)), np.eye(nw + nz)),
        value=value,
    )


def hinf_level_dual(P: Plant, *, T=None):
    """Estimate of the optimal full-order H-infinity level from the face-reduced dual SDP.

    Parameters
    ----------
    P : Plant
        Continuous plant with ``D22 = 0`` (see :func:`.plant.partition_plant` and
        ``Plant.with_d22_zero``).
    T : numpy.ndarray, optional
        State similarity (``x_new = T x``) to solve in; the level does not depend on it,
        the solver's accuracy does, either way (AC7: 2e-3 from the regularised limit
        without, 1.1e-4 with the balancing below; AC6: 5e-6 without, 5e-4 with).  The
        balancing ``T`` returned by :func:`.lmi.hinf_level_lmi` (which makes the primal
        ``R`` and ``S`` equal and diagonal) is the one the benchmark also reports.

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
    if T is not None:
        T = np.asarray(T, dtype=float)
        n = P.A.shape[0]
        if T.shape != (n, n) or not np.all(np.isfinite(T)) or np.linalg.cond(T) > 1e12:
            raise DimensionError(f"hinf_level_dual: T must be an invertible {n}x{n} matrix")
        Ti = np.linalg.inv(T)
        P = Plant(
            T @ P.A @ Ti, T @ P.B1, T @ P.B2, P.C1 @ Ti, P.C2 @ Ti, P.D11, P.D12, P.D21, P.D22,
            P.dt,
        )  # fmt: skip
    To, Tc, Nq, Nr = _zero_faces(P, *_sides(P))
    t = dual_sdp_terms(P.A, P.B1, P.C1, P.D11, To, Tc, Nq, Nr)
    qv = cp.Variable(t.q.shape, PSD=True)
    cons = [cp.trace(t.sx @ t.ex) + cp.trace(t.sy @ t.ex) == 1, qv == 0.5 * (t.q + t.q.T)]
    value = t.value
    prob = cp.Problem(cp.Maximize(value), cons)
    try:
        prob.solve(solver="CLARABEL", max_iter=500, **CLARABEL_TIGHT)
    except cp.error.SolverError as exc:
        raise IllPosedError(f"hinf_level_dual: the solver failed ({exc})") from None
    if prob.status not in ("optimal", "optimal_inaccurate") or prob.value is None:
        raise IllPosedError(f"hinf_level_dual: the solver failed ({prob.status})")
    return float(prob.value)
