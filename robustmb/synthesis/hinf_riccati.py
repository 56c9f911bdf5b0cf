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

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg.lapack import dgesdd

from .plant import Plant

__all__ = [
    "Normalised", "central_controller", "gamma_test", "normalise", "is_regular", "regularity",
]  # fmt: skip

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
    return regularity(plant, tol)[0]


def regularity(plant: Plant, tol: float = _RANK_TOL):
    """``(regular, (ok12, ok21))``: :func:`is_regular` and, from the same singular values,
    whether ``D12'D12`` and ``D21 D21'`` are well conditioned (``sigma_min > 1e-6
    sigma_max``, i.e. eigenvalue ratio above 1e-12), which the H2 Riccati solver needs
    to remove the cross terms.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.plant import Plant
    >>> z = np.zeros((1, 1))
    >>> P = Plant(-np.eye(1), z + 1, z + 1, np.ones((2, 1)), z + 1, np.zeros((2, 1)),
    ...           np.array([[1.0], [0.0]]), z + 1, z)
    >>> regularity(P)
    (True, (True, True))
    """
    n, m1, m2, p1, p2 = plant.dims
    if m2 > p1 or p2 > m1:
        return False, (False, False)
    # Frobenius norms as scales (within sqrt(rank) of the spectral ones, no SVD each)
    scale12 = max(np.linalg.norm(plant.C1), np.linalg.norm(plant.B2), 1.0)
    scale21 = max(np.linalg.norm(plant.B1), np.linalg.norm(plant.C2), 1.0)
    s12, s21 = _svdvals(plant.D12), _svdvals(plant.D21)
    regular = bool(s12[-1] > tol * scale12 and s21[-1] > tol * scale21)
    return regular, (bool(s12[-1] > 1e-6 * s12[0]), bool(s21[-1] > 1e-6 * s21[0]))


def _svdvals(M):
    """Singular values, descending: LAPACK DGESDD directly (a few microseconds against
    about ten for ``np.linalg.svd`` on the small feedthrough blocks)."""
    s, info = dgesdd(np.asarray(M, dtype=float), compute_uv=0)[1::2]
    return s if info == 0 else np.linalg.svd(M, compute_uv=False)


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
    # False when the verdict is below working accuracy (a Hamiltonian eigenvalue pair
    # within rounding of the imaginary axis): neither feasible nor proven infeasible.
    decided: bool = True


def _symplectic_balance(H, n):
    """Powers of two ``d`` with ``diag(d, 1/d)^-1 H diag(d, 1/d)`` balanced and Hamiltonian.

    LAPACK's balancing (``gebal``) of ``H`` gives a diagonal scaling ``s``; its symplectic
    part ``d = sqrt(s[:n] / s[n:])`` keeps the Hamiltonian structure.  On a plant normalised
    from nearly singular ``D12`` / ``D21`` (large ``B2`` or ``C2``) the entries of ``H`` span
    many decades and this grading is what the balancing removes.
    """
    absH = np.abs(H)
    rows, cols = absH.sum(axis=1), absH.sum(axis=0)
    nz = (rows > 0) & (cols > 0)
    if not nz.any() or (rows[nz] / cols[nz]).max() < 16 and (cols[nz] / rows[nz]).max() < 16:
        return np.ones(n)  # row and column sums within a factor 16: nothing to gain
    try:
        _, (s, _) = scipy.linalg.matrix_balance(H, permute=False, separate=True)
    except (ValueError, np.linalg.LinAlgError):
        return np.ones(n)
    d = np.sqrt(s[:n] / s[n:])
    return np.exp2(np.round(np.log2(d)))


# Safety factor on the first-order perturbation radius u ||H|| kappa(lambda) of a computed
# Hamiltonian eigenvalue (covers the modest polynomial in n of the backward error).
_EIG_SAFETY = 100.0


class Undecided(Exception):
    """The Hamiltonian has eigenvalues within rounding of the imaginary axis that cannot be
    told on or off it in double precision."""


def _axis_verdict(Hb, scale):
    """Decide whether the Hamiltonian ``Hb`` has eigenvalues on the imaginary axis.

    Each computed eigenvalue ``w_i`` is within ``r_i = 100 u ||Hb|| kappa_i`` of an exact
    one (first order; ``kappa_i`` from the left and right eigenvectors).  An eigenvalue
    with ``|Re w_i| <= r_i`` whose disk is isolated from the others (no ``w_j`` within
    ``4 r_i + r_j``) contains exactly one exact eigenvalue ``mu``; ``-conj(mu)`` is also
    an eigenvalue of the Hamiltonian and lies within ``3 r_i`` of ``w_i``, so it is ``mu``
    itself: ``mu`` is purely imaginary, and there is no stabilising solution.  Returns
    ``(None,) * 4`` then, ``None`` when no eigenvalue is that close to the axis, and
    raises :class:`Undecided` when a close one is not isolated (a pair about to leave the
    axis: the verdict is below working accuracy).
    """
    w, vl, vr = scipy.linalg.eig(Hb, left=True, right=True)
    dots = np.abs(np.sum(vl.conj() * vr, axis=0))
    kappa = np.linalg.norm(vl, axis=0) * np.linalg.norm(vr, axis=0) / np.maximum(dots, 1e-300)
    r = _EIG_SAFETY * np.finfo(float).eps * scale * kappa
    near = np.flatnonzero(np.abs(w.real) <= r)
    if near.size == 0:
        return None
    for i in near:
        others = np.delete(np.arange(w.size), i)
        if np.all(np.abs(w[others] - w[i]) > 4 * r[i] + r[others]):
            return (None, None, None, None)
    raise Undecided(
        f"Hamiltonian eigenvalue {w[near[0]]:.3g} within rounding ({r[near[0]]:.2g}) of the "
        "imaginary axis"
    )


def _stabilising_solution(A, B, Q, S, R):
    """Stabilising solution of ``A'X + XA - (XB + S) R^-1 (B'X + S') + Q = 0``.

    Returns ``(X, F, Xb, d)`` with ``F = -R^-1 (B'X + S')``, ``Xb = diag(d) X diag(d)`` the
    solution in the balanced coordinates (same inertia as ``X``) and ``d`` the balancing, or
    four ``None`` when there is none.

    The Hamiltonian is balanced symplectically, put in ordered real Schur form, and
    ``X = U21 U11^-1`` from the basis ``[U11; U21]`` of its stable invariant subspace.
    "No stabilising solution" is the verdict only when the Hamiltonian has eigenvalues on
    the imaginary axis to working accuracy (``|Re lambda| <= tol * ||H_balanced||``), when
    the stable subspace is not a graph (``U11`` singular to working accuracy) or when the
    computed ``X`` does not stabilise.  The solution is refined by Newton steps until its
    residual, relative to the size of its terms, is at rounding level.
    """
    n = A.shape[0]
    none = (None, None, None, None)
    if n == 0:
        X = np.zeros((0, 0))
        return X, np.zeros((B.shape[1], 0)), X, np.ones(0)
    try:
        RiBt = np.linalg.solve(R, B.T)
        RiSt = np.linalg.solve(R, S.T)
    except np.linalg.LinAlgError:
        return none
    with np.errstate(over="ignore", invalid="ignore"):
        Ax = A - B @ RiSt
        G = B @ RiBt
        G = 0.5 * (G + G.T)
        Qx = Q - S @ RiSt
        Qx = 0.5 * (Qx + Qx.T)
    H = np.block([[Ax, -G], [-Qx, -Ax.T]])
    if not np.all(np.isfinite(H)):
        return none
    d = _symplectic_balance(H, n)
    Ab = Ax / d[:, None] * d[None, :]  # D^-1 Ax D
    Gb = G / d[:, None] / d[None, :]  # D^-1 G D^-1
    Qb = Qx * d[:, None] * d[None, :]  # D Q D
    Hb = np.block([[Ab, -Gb], [-Qb, -Ab.T]])
    try:
        T, U, sdim = scipy.linalg.schur(Hb, sort="lhp")
    except (np.linalg.LinAlgError, ValueError):
        return none
    scale = max(np.linalg.norm(Hb, 1), 1e-300)
    if sdim != n or np.min(np.abs(np.diag(T).real)) <= 1e-8 * scale:
        verdict = _axis_verdict(Hb, scale)
        if verdict is not None:
            return verdict
        if sdim != n:
            raise Undecided(f"{sdim} of {2 * n} Hamiltonian eigenvalues found stable")
    U11, U21 = U[:n, :n], U[n:, :n]
    if np.linalg.cond(U11) > 1e14:
        return none
    Xb = np.linalg.solve(U11.T, U21.T).T
    Xb = 0.5 * (Xb + Xb.T)
    Xb = _newton_refine(Ab, Gb, Qb, Xb)
    if Xb is None:
        return none
    X = Xb / d[:, None] / d[None, :]
    F = -(RiBt @ X + RiSt)
    return X, F, Xb, d


def _care_residual(A, G, Q, X):
    """Residual of ``A'X + XA - XGX + Q = 0`` and the size of its largest term."""
    AX = A.T @ X
    XGX = X @ G @ X
    res = AX + AX.T - XGX + Q
    size = max(2 * np.linalg.norm(AX, 1), np.linalg.norm(XGX, 1), np.linalg.norm(Q, 1), 1e-300)
    return res, size


def _newton_refine(A, G, Q, X, steps=3):
    """Newton (Kleinman) steps on the balanced Riccati equation; None if not stabilising.

    ``X`` from the stable invariant subspace makes ``A - G X`` stable by construction; once
    a step changed it, the closed-loop matrix is checked again (spectral abscissa below
    zero).  Steps stop at a relative residual of ``1e-13``.
    """
    for k in range(steps + 1):
        res, size = _care_residual(A, G, Q, X)
        if np.linalg.norm(res, 1) <= 1e-13 * size or k == steps:
            break
        Acl = A - G @ X
        try:
            with warnings.catch_warnings():
                # a closed-loop mode near 0 makes the Lyapunov operator nearly singular
                warnings.simplefilter("ignore", RuntimeWarning)
                dX = scipy.linalg.solve_continuous_lyapunov(Acl.T, -res)
        except (np.linalg.LinAlgError, ValueError):
            break
        if not np.all(np.isfinite(dX)):
            break
        Xn = X + 0.5 * (dX + dX.T)
        res_n, size_n = _care_residual(A, G, Q, Xn)
        if not np.linalg.norm(res_n, 1) / size_n < np.linalg.norm(res, 1) / size:
            break  # no progress: keep the last iterate
        X = Xn
    if k and np.max(np.linalg.eigvals(A - G @ X).real) >= 0.0:
        return None
    return X


def _psd_root(Xb, d, floor):
    """``L`` with ``X = L L'`` for ``X = D^-1 Xb D^-1`` after clipping eigenvalues of ``Xb``
    above ``-floor`` to zero; None when ``Xb`` has an eigenvalue below ``-floor``."""
    w, V = np.linalg.eigh(Xb)
    if w[0] < -floor:
        return None
    return (V * np.sqrt(np.clip(w, 0.0, None))) / d[:, None]


# Relative tolerance of the spectral-radius test: rho(X Y) / gamma^2 has to exceed 1 by
# more than this for an "infeasible" verdict.  rho is computed as ||Lx' Ly||^2 from
# square roots of the balanced solutions, accurate to a few ulps times their
# conditioning; a level that close to the boundary is only used as a bisection bracket.
_RHO_RTOL = 1e-10


def gamma_test(P: Plant, gamma: float) -> GammaTest:
    """Existence test of a controller with ``||Tzw||_inf < gamma`` for a normalised plant.

    The three conditions are checked in balanced coordinates (see
    :func:`_stabilising_solution`): semidefiniteness of ``X`` and ``Y`` on their balanced
    forms (congruent, same inertia), relative to their norm or, when nearly zero, to the
    natural scale ``||Q|| / ||A||`` of a Gramian of the balanced data; and
    ``rho(X Y) = ||Lx' Ly||^2 < gamma^2 (1 + 1e-10)`` with ``X = Lx Lx'``, ``Y = Ly Ly'``.
    The tolerances are generous on purpose: a false "feasible" only costs a controller
    that fails the independent verification, a false "infeasible" gives a wrong bracket.
    """
    n, m1, m2, p1, p2 = P.dims
    if gamma <= d_bound(P) * (1 + 1e-12):
        return GammaTest(False, "gamma at or below the feedthrough bound")
    D1 = np.hstack([P.D11, P.D12])
    B = np.hstack([P.B1, P.B2])
    R = D1.T @ D1
    R[:m1, :m1] -= gamma**2 * np.eye(m1)
    try:
        X, F, Xb, dx = _stabilising_solution(P.A, B, P.C1.T @ P.C1, P.C1.T @ D1, R)
    except Undecided as exc:
        return GammaTest(False, f"X test undecided: {exc}", decided=False)
    if X is None:
        return GammaTest(False, "no stabilising solution X")
    Dd = np.vstack([P.D11, P.D21])
    C = np.vstack([P.C1, P.C2])
    Rt = Dd @ Dd.T
    Rt[:p1, :p1] -= gamma**2 * np.eye(p1)
    try:
        Y, Lt, Yb, dy = _stabilising_solution(P.A.T, C.T, P.B1 @ P.B1.T, P.B1 @ Dd.T, Rt)
    except Undecided as exc:
        return GammaTest(False, f"Y test undecided: {exc}", decided=False)
    if Y is None:
        return GammaTest(False, "no stabilising solution Y")
    L = Lt.T
    floor_x = 1e-6 * _psd_scale(Xb, P.A, P.C1.T @ P.C1, dx)
    floor_y = 1e-6 * _psd_scale(Yb, P.A.T, P.B1 @ P.B1.T, dy)
    Lx = _psd_root(Xb, dx, floor_x)
    if Lx is None:
        return GammaTest(False, "X not positive semidefinite", X, Y, F, L)
    Ly = _psd_root(Yb, dy, floor_y)
    if Ly is None:
        return GammaTest(False, "Y not positive semidefinite", X, Y, F, L)
    rho = float(np.linalg.norm(Lx.T @ Ly, 2)) ** 2 / gamma**2 if n else 0.0
    if rho >= 1.0 + _RHO_RTOL:
        return GammaTest(False, "spectral radius of X Y reaches gamma^2", X, Y, F, L, rho)
    return GammaTest(True, "", X, Y, F, L, rho)


def _psd_scale(Xb, A, Q, d):
    """Scale of a balanced Riccati solution: its norm, or ``||Q_b|| / ||A_b||``."""
    Ab = A / d[:, None] * d[None, :]
    Qb = Q * d[:, None] * d[None, :]
    # Frobenius norms: within sqrt(n) of the spectral ones, for a tolerance that is 1e-6
    sa = max(np.linalg.norm(Ab), 1e-12)
    return max(np.linalg.norm(Xb), np.linalg.norm(Qb) / sa, 1e-300)


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
