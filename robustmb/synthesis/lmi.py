"""Full-order H-infinity and H2 synthesis as LMIs (continuous time, ``D22 = 0``).

The linearising change of variables of Scherer, Gahinet & Chilali (IEEE TAC 1997) turns
the bounded-real (H-infinity) and the Gramian (H2) conditions on the closed loop into LMIs
in ``X, Y`` (symmetric) and ``Ah, Bh, Ch, Dh``; they need no rank condition on ``D12`` or
``D21`` and no absence of imaginary-axis zeros, so they solve the singular problems the
Riccati formulae refuse.  The controller follows from

    N M' = I - X Y,
    Dk = Dh,   Ck = (Ch - Dk C2 Y) M'^-1,   Bk = N^-1 (Bh - X B2 Dk),
    Ak = N^-1 (Ah - X (A + B2 Dk C2) Y - N Bk C2 Y - X B2 Ck M') M'^-1.

Near the optimum ``I - X Y`` becomes singular and the controller gains grow without
bound, so the controller is computed at a slightly larger level with a margin on the
strict inequalities; the driver verifies the result.
"""

from __future__ import annotations

import numpy as np

from robustmb.errors import IllPosedError

from .plant import Plant

__all__ = ["lmi_h2", "lmi_hinf"]


def _solve(problem):
    import cvxpy as cp  # imported on first use: about a second of start-up

    for solver in ("CLARABEL", "SCS"):
        if solver not in cp.installed_solvers():
            continue
        try:
            problem.solve(solver=solver)
        except cp.error.SolverError:
            continue
        if problem.status in ("optimal", "optimal_inaccurate"):
            return True
    return False


def _sym(M):
    return 0.5 * (M + M.T)


def _variables(P: Plant):
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, m2, p1, p2 = P.dims
    X = cp.Variable((n, n), symmetric=True)
    Y = cp.Variable((n, n), symmetric=True)
    Ah = cp.Variable((n, n))
    Bh = cp.Variable((n, p2))
    Ch = cp.Variable((m2, n))
    Dh = cp.Variable((m2, p2))
    return X, Y, Ah, Bh, Ch, Dh


def _reconstruct(P: Plant, X, Y, Ah, Bh, Ch, Dh):
    n = P.A.shape[0]
    U, s, Vt = np.linalg.svd(np.eye(n) - X @ Y)
    if s[-1] <= 1e-14 * max(s[0], 1.0):
        raise IllPosedError("LMI solution with I - X Y singular: controller order deficient")
    N = U * np.sqrt(s)
    M = Vt.T * np.sqrt(s)  # N M' = I - X Y
    Dk = Dh
    Ck = np.linalg.solve(M, (Ch - Dk @ P.C2 @ Y).T).T
    Bk = np.linalg.solve(N, Bh - X @ P.B2 @ Dk)
    rest = Ah - X @ (P.A + P.B2 @ Dk @ P.C2) @ Y - N @ Bk @ P.C2 @ Y - X @ P.B2 @ Ck @ M.T
    Ak = np.linalg.solve(M, np.linalg.solve(N, rest).T).T
    return Ak, Bk, Ck, Dk


def _hinf_blocks(P: Plant, X, Y, Ah, Bh, Ch, Dh, gamma):
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, m2, p1, p2 = P.dims
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D11, D12, D21 = P.D11, P.D12, P.D21
    a11 = A @ Y + Y @ A.T + B2 @ Ch + (B2 @ Ch).T
    a21 = Ah + (A + B2 @ Dh @ C2).T
    a22 = A.T @ X + X @ A + Bh @ C2 + (Bh @ C2).T
    a31 = (B1 + B2 @ Dh @ D21).T
    a32 = (X @ B1 + Bh @ D21).T
    a41 = C1 @ Y + D12 @ Ch
    a42 = C1 + D12 @ Dh @ C2
    a43 = D11 + D12 @ Dh @ D21
    return cp.bmat(
        [
            [a11, a21.T, a31.T, a41.T],
            [a21, a22, a32.T, a42.T],
            [a31, a32, -gamma * np.eye(m1), a43.T],
            [a41, a42, a43, -gamma * np.eye(p1)],
        ]
    )


def _scale(P: Plant):
    return max(
        np.linalg.norm(
            np.block([[P.A, P.B1, P.B2], [P.C1, P.D11, P.D12], [P.C2, P.D21, P.D22]]), 2
        ),
        1e-12,
    )


def lmi_hinf(P: Plant, *, gamma=None, backoff=1e-3):
    """Optimal level and a controller of the H-infinity LMI (plant with ``D22 = 0``).

    Returns ``(gamma_opt, gamma_design, (Ak, Bk, Ck, Dk))``; ``gamma_opt`` is the SDP
    optimum (``None`` when ``gamma`` was given), ``gamma_design`` the level the controller
    was computed at.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, m2, p1, p2 = P.dims
    gamma_opt = None
    if gamma is None:
        g = cp.Variable()
        X, Y, Ah, Bh, Ch, Dh = _variables(P)
        # Bounding the variables keeps the SDP well posed where the infimum is approached
        # only with infinite gains (the singular problems); the bound is generous.
        big = 1e8
        cons = [
            _sym_expr(_hinf_blocks(P, X, Y, Ah, Bh, Ch, Dh, g)) << 0,
            cp.bmat([[Y, np.eye(n)], [np.eye(n), X]]) >> 0,
            X << big * np.eye(n),
            Y << big * np.eye(n),
        ]
        if not _solve(cp.Problem(cp.Minimize(g), cons)):
            raise IllPosedError("the H-infinity LMI is infeasible: no stabilising controller")
        gamma_opt = float(g.value)
        gamma = gamma_opt * (1 + backoff)
    X, Y, Ah, Bh, Ch, Dh = _variables(P)
    t = cp.Variable()
    eps = 1e-6 * _scale(P)
    mats = [X, Y, Ah, Bh, Ch, Dh]
    cons = [
        _sym_expr(_hinf_blocks(P, X, Y, Ah, Bh, Ch, Dh, gamma)) << -eps * np.eye(2 * n + m1 + p1),
        cp.bmat([[Y, np.eye(n)], [np.eye(n), X]]) >> eps * np.eye(2 * n),
    ]
    # Smallest variables that satisfy the strict inequalities: keeps the controller tame.
    cons += [cp.norm(M, "fro") <= t for M in mats if M.size]
    if not _solve(cp.Problem(cp.Minimize(t), cons)):
        raise IllPosedError(f"the H-infinity LMI at gamma = {gamma:.6g} has no strict solution")
    vals = [np.asarray(M.value, float) if M.size else np.zeros(M.shape) for M in mats]
    vals[0], vals[1] = _sym(vals[0]), _sym(vals[1])
    return gamma_opt, gamma, _reconstruct(P, *vals)


def _sym_expr(E):
    return 0.5 * (E + E.T)


def lmi_h2(P: Plant, *, backoff=1e-4):
    """Optimal H2 level and a controller from the H2 LMI (plant with ``D22 = 0``).

    The closed loop has no feedthrough only when ``D11 + D12 Dk D21 = 0``; this is imposed.
    Returns ``(h2_opt, (Ak, Bk, Ck, Dk))``.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, m2, p1, p2 = P.dims
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D11, D12, D21 = P.D11, P.D12, P.D21

    def problem(level=None):
        X, Y, Ah, Bh, Ch, Dh = _variables(P)
        W = cp.Variable((p1, p1), symmetric=True)
        eps = 0.0 if level is None else 1e-7 * _scale(P)
        a11 = A @ Y + Y @ A.T + B2 @ Ch + (B2 @ Ch).T
        a21 = Ah + (A + B2 @ Dh @ C2).T
        a22 = A.T @ X + X @ A + Bh @ C2 + (Bh @ C2).T
        b1 = B1 + B2 @ Dh @ D21
        b2 = X @ B1 + Bh @ D21
        lyap = cp.bmat([[a11, a21.T, b1], [a21, a22, b2], [b1.T, b2.T, -np.eye(m1)]])
        c1 = C1 @ Y + D12 @ Ch
        c2 = C1 + D12 @ Dh @ C2
        gram = cp.bmat([[W, c1, c2], [c1.T, Y, np.eye(n)], [c2.T, np.eye(n), X]])
        cons = [
            _sym_expr(lyap) << -eps * np.eye(2 * n + m1),
            _sym_expr(gram) >> eps * np.eye(p1 + 2 * n),
            D11 + D12 @ Dh @ D21 == 0,
        ]
        mats = [X, Y, Ah, Bh, Ch, Dh]
        if level is None:
            cons += [X << 1e8 * np.eye(n), Y << 1e8 * np.eye(n)]
            obj = cp.Minimize(cp.trace(W))
        else:
            t = cp.Variable()
            cons += [cp.trace(W) <= level, *[cp.norm(M, "fro") <= t for M in mats if M.size]]
            obj = cp.Minimize(t)
        ok = _solve(cp.Problem(obj, cons))
        return ok, mats, W

    ok, _, W = problem()
    if not ok:
        raise IllPosedError(
            "the H2 LMI is infeasible: no stabilising controller makes the closed loop "
            "strictly proper (D11 + D12 Dk D21 = 0 has no solution)"
        )
    h2sq = float(np.trace(W.value))
    ok, mats, _ = problem(h2sq * (1 + backoff) + 1e-12)
    if not ok:
        raise IllPosedError("the H2 LMI has no strict solution near its optimum")
    vals = [np.asarray(M.value, float) if M.size else np.zeros(M.shape) for M in mats]
    vals[0], vals[1] = _sym(vals[0]), _sym(vals[1])
    # The equality D11 + D12 Dh D21 = 0 holds to the solver's tolerance only; remove the
    # residual so the closed loop is exactly strictly proper.
    res = D11 + D12 @ vals[5] @ D21
    vals[5] = vals[5] - np.linalg.pinv(D12) @ res @ np.linalg.pinv(D21)
    return float(np.sqrt(max(h2sq, 0.0))), _reconstruct(P, *vals)
