"""H-infinity synthesis by the two-Riccati (Glover-Doyle) formulae, continuous time.

For a plant with ``D22 = 0`` whose ``D12`` has full column rank and ``D21`` full row rank,
the plant is first normalised (orthogonal changes of ``w`` and ``z``, invertible ones of
``u`` and ``y``) to ``D12 = [0; I]`` and ``D21 = [0 I]``.  With ``D1. = [D11 D12]``,
``D.1 = [D11; D21]``,

    R  = D1.' D1. - diag(gamma^2 I, 0),      Rt = D.1 D.1' - diag(gamma^2 I, 0),

a controller with ``||Tzw||_inf < gamma`` exists if and only if (Glover & Doyle 1988;
Zhou, Doyle & Glover 1996, section 17.3)

- ``gamma > max(sigma_max[D1111 D1112], sigma_max[D1111' D1121'])``;
- the Riccati equation of the Hamiltonian built from ``(A, [B1 B2], C1, D1., R)`` has a
  stabilising solution ``X >= 0``, and the dual one from ``(A', [C1' C2'], B1', D.1', Rt)``
  a stabilising solution ``Y >= 0``;
- ``rho(X Y) < gamma^2``.

The central controller then follows from the same quantities.  The test at one ``gamma`` is
what the bisection in :mod:`.hinfsyn` calls; its verdict is numerical, so the driver
re-verifies every controller it returns with an independent norm computation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from .plant import Plant

__all__ = ["Normalised", "central_controller", "gamma_test", "normalise", "is_regular"]

_RANK_TOL = 1e-9


@dataclass
class Normalised:
    """A plant with ``D12 = [0; I]``, ``D21 = [0 I]`` and the maps back to the original."""

    plant: Plant
    Tu: np.ndarray  # u = Tu u_n
    Ty: np.ndarray  # y_n = Ty y


def is_regular(plant: Plant, tol: float = _RANK_TOL) -> bool:
    """True when ``D12`` has full column rank and ``D21`` full row rank (relative ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> z = np.zeros((1, 1))
    >>> P = Plant(-np.eye(1), z + 1, z + 1, z + 1, z + 1, z, z + 1, z + 1, z)
    >>> is_regular(P)
    True
    """
    n, m1, m2, p1, p2 = plant.dims
    if m2 > p1 or p2 > m1:
        return False
    # Frobenius norms as scales (within sqrt(rank) of the spectral ones, no SVD each)
    scale12 = max(np.linalg.norm(plant.C1), np.linalg.norm(plant.B2), 1.0)
    scale21 = max(np.linalg.norm(plant.B1), np.linalg.norm(plant.C2), 1.0)
    s12 = np.linalg.svd(plant.D12, compute_uv=False)
    s21 = np.linalg.svd(plant.D21, compute_uv=False)
    return bool(s12[-1] > tol * scale12 and s21[-1] > tol * scale21)


def normalise(plant: Plant) -> Normalised:
    """Scale a regular plant (``D22 = 0``) to ``D12 = [0; I]``, ``D21 = [0 I]``."""
    n, m1, m2, p1, p2 = plant.dims
    U12, s12, V12t = np.linalg.svd(plant.D12)
    Tu = V12t.T / s12  # u = Tu un  ->  D12 Tu = U12[:, :m2]
    theta = np.vstack([U12[:, m2:].T, U12[:, :m2].T])  # z_n = theta z
    U21, s21, V21t = np.linalg.svd(plant.D21)
    Ty = (U21 / s21).T  # y_n = Ty y  ->  Ty D21 = V21t[:p2]
    psi = np.hstack([V21t[p2:].T, V21t[:p2].T])  # w = psi w_n
    out = Plant(
        plant.A,
        plant.B1 @ psi,
        plant.B2 @ Tu,
        theta @ plant.C1,
        Ty @ plant.C2,
        theta @ plant.D11 @ psi,
        theta @ plant.D12 @ Tu,
        Ty @ plant.D21 @ psi,
        np.zeros((p2, m2)),
        plant.dt,
    )
    # Remove rounding from the exact identity blocks.
    out.D12 = np.vstack([np.zeros((p1 - m2, m2)), np.eye(m2)])
    out.D21 = np.hstack([np.zeros((p2, m1 - p2)), np.eye(p2)])
    return Normalised(out, Tu, Ty)


def _d_blocks(P: Plant):
    n, m1, m2, p1, p2 = P.dims
    D11 = P.D11
    return (
        D11[: p1 - m2, : m1 - p2],
        D11[: p1 - m2, m1 - p2 :],
        D11[p1 - m2 :, : m1 - p2],
        D11[p1 - m2 :, m1 - p2 :],
    )


def d_bound(P: Plant) -> float:
    """``max(sigma_max[D1111 D1112], sigma_max[D1111' D1121'])``: no gamma at or below works."""
    D1111, D1112, D1121, _ = _d_blocks(P)
    a = np.hstack([D1111, D1112])
    b = np.vstack([D1111, D1121])
    sa = np.linalg.norm(a, 2) if a.size else 0.0
    sb = np.linalg.norm(b, 2) if b.size else 0.0
    return float(max(sa, sb))


@dataclass
class GammaTest:
    """Outcome of the existence test at one ``gamma``."""

    feasible: bool
    reason: str = ""
    X: np.ndarray | None = None
    Y: np.ndarray | None = None
    F: np.ndarray | None = None
    L: np.ndarray | None = None
    rho: float = np.nan  # spectral radius of X Y / gamma^2


def _stabilising_solution(A, B, Q, S, R, tol):
    """Stabilising solution of ``A'X + XA - (XB + S) R^-1 (B'X + S') + Q = 0`` or None.

    From the ordered real Schur form of the Hamiltonian: ``X = U21 U11^-1`` with the
    columns of ``[U11; U21]`` spanning its stable invariant subspace.
    """
    n = A.shape[0]
    try:
        RiBt = np.linalg.solve(R, B.T)
        RiSt = np.linalg.solve(R, S.T)
    except np.linalg.LinAlgError:
        return None, None
    Ax = A - B @ RiSt
    H = np.block([[Ax, -B @ RiBt], [-(Q - S @ RiSt), -Ax.T]])
    if not np.all(np.isfinite(H)):
        return None, None
    try:
        T, U, sdim = scipy.linalg.schur(H, sort="lhp")
    except (np.linalg.LinAlgError, ValueError):
        return None, None
    eig = np.diag(T)
    scale = max(np.linalg.norm(H, 1), 1e-300)
    if sdim != n or np.min(np.abs(eig.real)) <= tol * scale:
        return None, None  # eigenvalues on (or too near) the imaginary axis
    U11, U21 = U[:n, :n], U[n:, :n]
    if np.linalg.cond(U11) > 1e14:
        return None, None
    X = np.linalg.solve(U11.T, U21.T).T
    X = 0.5 * (X + X.T)
    F = -(RiBt @ X + RiSt)
    return X, F


def gamma_test(P: Plant, gamma: float, *, tol: float = 1e-12) -> GammaTest:
    """Existence test of a controller with ``||Tzw||_inf < gamma`` for a normalised plant."""
    n, m1, m2, p1, p2 = P.dims
    if gamma <= d_bound(P) * (1 + 1e-12):
        return GammaTest(False, "gamma at or below the feedthrough bound")
    D1 = np.hstack([P.D11, P.D12])
    B = np.hstack([P.B1, P.B2])
    R = D1.T @ D1
    R[:m1, :m1] -= gamma**2 * np.eye(m1)
    X, F = _stabilising_solution(P.A, B, P.C1.T @ P.C1, P.C1.T @ D1, R, tol)
    if X is None:
        return GammaTest(False, "no stabilising solution X")
    Dd = np.vstack([P.D11, P.D21])
    C = np.vstack([P.C1, P.C2])
    Rt = Dd @ Dd.T
    Rt[:p1, :p1] -= gamma**2 * np.eye(p1)
    Y, Lt = _stabilising_solution(P.A.T, C.T, P.B1 @ P.B1.T, P.B1 @ Dd.T, Rt, tol)
    if Y is None:
        return GammaTest(False, "no stabilising solution Y")
    L = Lt.T
    # PSD test relative to the solution or, when it is (nearly) zero, to the natural
    # scale ||C1||^2 / ||A|| (||B1||^2 / ||A||) of a Gramian of the data.  Generous on
    # purpose: a false "feasible" only costs a controller that fails verification, while a
    # false "infeasible" would give a wrong lower bound on the optimum.
    sa = max(np.linalg.norm(P.A, 2), 1e-12)
    sx = max(np.linalg.norm(X, 2), np.linalg.norm(P.C1, 2) ** 2 / sa)
    sy = max(np.linalg.norm(Y, 2), np.linalg.norm(P.B1, 2) ** 2 / sa)
    if np.linalg.eigvalsh(X)[0] < -1e-6 * sx:
        return GammaTest(False, "X not positive semidefinite", X, Y, F, L)
    if np.linalg.eigvalsh(Y)[0] < -1e-6 * sy:
        return GammaTest(False, "Y not positive semidefinite", X, Y, F, L)
    rho = float(np.max(np.abs(np.linalg.eigvals(X @ Y)))) / gamma**2
    if rho >= 1.0:
        return GammaTest(False, "spectral radius of X Y reaches gamma^2", X, Y, F, L, rho)
    return GammaTest(True, "", X, Y, F, L, rho)


def central_controller(P: Plant, gamma: float, test: GammaTest):
    """Central controller ``(Ak, Bk, Ck, Dk)`` of a normalised plant at a feasible gamma."""
    n, m1, m2, p1, p2 = P.dims
    X, Y, F, L = test.X, test.Y, test.F, test.L
    D1111, D1112, D1121, D1122 = _d_blocks(P)
    g2 = gamma**2
    F1, F2 = F[:m1], F[m1:]
    F12 = F1[m1 - p2 :]
    L1, L2 = L[:, :p1], L[:, p1:]
    L12 = L1[:, p1 - m2 :]
    a = np.linalg.solve(g2 * np.eye(p1 - m2) - D1111 @ D1111.T, D1112)
    D11h = -D1121 @ D1111.T @ a - D1122
    E12 = np.eye(m2) - D1121 @ np.linalg.solve(g2 * np.eye(m1 - p2) - D1111.T @ D1111, D1121.T)
    E21 = np.eye(p2) - D1112.T @ a
    D12h = np.linalg.cholesky(0.5 * (E12 + E12.T))
    D21h = np.linalg.cholesky(0.5 * (E21 + E21.T)).T
    Z = np.linalg.inv(np.eye(n) - Y @ X / g2)
    B = np.hstack([P.B1, P.B2])
    B2h = Z @ (P.B2 + L12) @ D12h
    C2h = -D21h @ (P.C2 + F12)
    B1h = -Z @ L2 + B2h @ np.linalg.solve(D12h, D11h)
    C1h = F2 + D11h @ np.linalg.solve(D21h, C2h)
    Ah = P.A + B @ F + B1h @ np.linalg.solve(D21h, C2h)
    return Ah, B1h, C1h, D11h, float(np.linalg.cond(np.eye(n) - Y @ X / g2))
