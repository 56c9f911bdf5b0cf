"""Full-order H-infinity and H2 synthesis as LMIs (continuous time, ``D22 = 0``).

Optimal H-infinity level: the eliminated LMI (Gahinet & Apkarian 1994; Iwasaki & Skelton
1994).  With the columns of ``NR`` spanning the null space of ``[B2' D12']``, those of
``NS`` that of ``[C2 D21]``, ``WR = diag(NR, I)`` and ``WS = diag(NS, I)``, a controller
with ``||Fl(P, K)||_inf < gamma`` exists if and only if symmetric ``R, S`` satisfy

    WR' [[A R + R A', R C1', B1], [C1 R, -g I, D11], [B1', D11', -g I]] WR < 0,
    WS' [[A' S + S A, S B1, C1'], [B1' S, -g I, D11'], [C1, D11, -g I]] WS < 0,
    [[R, I], [I, S]] >= 0.

Only ``R``, ``S`` and ``gamma`` are unknown, so this SDP is far smaller and better
conditioned than the one with the controller variables below; a state similarity that
balances ``R`` against ``S`` (``T R T' = T^-T S T^-1`` diagonal; same optimum) and a second
solve sharpen it further (on COMPleib HE2 from 2.4221, the full LMI's value, to 2.41813,
the limit of the regularised Riccati optima).

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

import warnings

import numpy as np
import scipy.linalg

from robustmb.errors import IllPosedError

from .plant import Plant

__all__ = ["hinf_level_lmi", "lmi_h2", "lmi_hinf"]


# Clarabel's tight tolerances (its defaults are 1e-8): the refinement of the optimal
# level here, the dual level of lmi_dual and the certified full-order floor
CLARABEL_TIGHT = {
    "tol_gap_abs": 1e-12,
    "tol_gap_rel": 1e-12,
    "tol_feas": 1e-12,
    "tol_ktratio": 1e-10,
}


def _solve(problem, *, fallback=True, tight=False):
    """Solve with Clarabel; SCS (first-order, slow to reach accuracy) only as a fallback.

    ``fallback=False`` (the controller step, retried at a larger level anyway) skips SCS
    when Clarabel is installed: its inaccurate solutions cost about 10 s each and then
    fail the closed-loop verification.  ``tight=True``: Clarabel alone, with the
    tolerances of ``CLARABEL_TIGHT``.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    installed = cp.installed_solvers()
    if tight:
        if "CLARABEL" not in installed:
            return False
        try:
            with warnings.catch_warnings():
                # "Solution may be inaccurate": the status is checked below, and a tight
                # solve is a refinement whose value the caller accepts only if it helps
                warnings.simplefilter("ignore", UserWarning)
                problem.solve(solver="CLARABEL", max_iter=500, **CLARABEL_TIGHT)
        except cp.error.SolverError:
            return False
        return problem.status in ("optimal", "optimal_inaccurate")
    solvers = ["CLARABEL"] if "CLARABEL" in installed else []
    if fallback or not solvers:
        solvers += ["SCS"] if "SCS" in installed else []
    for solver in solvers:
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


def _null(M):
    if M.shape[0] == 0:
        return np.eye(M.shape[1])
    return scipy.linalg.null_space(M)


def _transform(P: Plant, T):
    Ti = np.linalg.inv(T)
    return Plant(
        T @ P.A @ Ti, T @ P.B1, T @ P.B2, P.C1 @ Ti, P.C2 @ Ti, P.D11, P.D12, P.D21, P.D22,
        P.dt,
    )  # fmt: skip


def _dual(P: Plant):
    """The transposed plant ``P'`` (``w <-> z``, ``u <-> y`` swapped): ``Fl(P', K') = Fl(P, K)'``.

    Both time domains' H2 norms are invariant under transposition, so the H2 LMI of
    ``P'`` has the same optimum; its ``X`` and ``Y`` play the roles of the other's ``Y``
    and ``X`` (Gramian of the observability instead of the controllability form).
    """
    return Plant(P.A.T, P.C1.T, P.C2.T, P.B1.T, P.B2.T, P.D11.T, P.D21.T, P.D12.T, P.D22.T, P.dt)


def _solve_reduced(P: Plant, tight=False):
    """Optimal ``gamma`` of the eliminated LMI, with its ``R`` and ``S``."""
    import cvxpy as cp  # imported on first use: about a second of start-up

    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D11, D12, D21 = P.D11, P.D12, P.D21
    n, m1, _, p1, _ = P.dims
    WR = scipy.linalg.block_diag(_null(np.hstack([B2.T, D12.T])), np.eye(m1))
    WS = scipy.linalg.block_diag(_null(np.hstack([C2, D21])), np.eye(p1))
    R = cp.Variable((n, n), symmetric=True)
    S = cp.Variable((n, n), symmetric=True)
    g = cp.Variable()
    Ip, Im = np.eye(p1), np.eye(m1)
    M1 = cp.bmat([[A @ R + R @ A.T, R @ C1.T, B1], [C1 @ R, -g * Ip, D11], [B1.T, D11.T, -g * Im]])
    M2 = cp.bmat([[A.T @ S + S @ A, S @ B1, C1.T], [B1.T @ S, -g * Im, D11.T], [C1, D11, -g * Ip]])
    F1 = WR.T @ M1 @ WR
    F2 = WS.T @ M2 @ WS
    cons = [
        0.5 * (F1 + F1.T) << 0,
        0.5 * (F2 + F2.T) << 0,
        cp.bmat([[R, np.eye(n)], [np.eye(n), S]]) >> 0,
    ]
    if not _solve(cp.Problem(cp.Minimize(g), cons), tight=tight):
        raise IllPosedError("the H-infinity LMI is infeasible: no stabilising controller")
    return float(g.value), np.asarray(R.value), np.asarray(S.value)


def _balancing(R, S):
    """``T`` with ``T R T'`` and ``T^-T S T^-1`` equal and diagonal (None if not definite)."""
    try:
        Lr = np.linalg.cholesky(0.5 * (R + R.T))
    except np.linalg.LinAlgError:
        return None
    U, s, _ = np.linalg.svd(Lr.T @ (0.5 * (S + S.T)) @ Lr)
    if s[-1] <= 0:
        return None
    return (s**0.25)[:, None] * np.linalg.solve(Lr.T, U).T


def hinf_level_lmi(P: Plant):
    """Optimal level of a continuous plant with ``D22 = 0`` and the state balancing.

    Parameters
    ----------
    P : Plant
        Continuous plant partitioned by :func:`.plant.partition_plant`, with ``D22 = 0``.

    Returns
    -------
    gamma : float
        The SDP optimum after one balancing pass (and a refinement with tight solver
        tolerances when that gives a lower level).
    T : numpy.ndarray
        State similarity of the plant it was solved on (``x_bal = T x``).

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.synthesis.plant import partition_plant
    >>> G = control.ss([[1.0]], [[2.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> gamma, T = hinf_level_lmi(partition_plant(G, 1, 1))
    >>> round(gamma, 4)
    2.0
    >>> bool(abs(gamma - rmb.hinfsyn(G, 1, 1, method="riccati").gamma_opt) < 1e-5 * gamma)
    True
    """
    n = P.A.shape[0]
    g0, R, S = _solve_reduced(P)
    T = _balancing(R, S)
    if T is None or not np.all(np.isfinite(T)) or np.linalg.cond(T) > 1e12:
        return g0, np.eye(n)
    try:
        g1 = _solve_reduced(_transform(P, T))[0]
    except IllPosedError:
        return g0, np.eye(n)
    if g1 > g0:
        return g0, np.eye(n)
    # Refinement with tight tolerances: on singular plants the optimal R, S grow without
    # bound and Clarabel stops early, above the optimum (HE1: 0.0736735 where controllers
    # of 0.0736166 exist; tight: 0.0736232).  The interior-point iterates approach the
    # optimum from above, so only a lower level is taken.
    try:
        g2 = _solve_reduced(_transform(P, T), tight=True)[0]
    except IllPosedError:
        return g1, T
    return (g2, T) if np.isfinite(g2) and 0 <= g2 < g1 else (g1, T)


def lmi_hinf(P: Plant, *, gamma=None, backoff=1e-3, T=None):
    """Optimal level and a controller of the H-infinity LMI (plant with ``D22 = 0``).

    The optimal level comes from the eliminated LMI in ``R, S`` only
    (:func:`hinf_level_lmi` in this module, solved again after a state balancing); the
    controller from the full LMI at a slightly larger level, on the balanced plant (the
    controller does not depend on the plant's state coordinates).

    Returns ``(gamma_opt, gamma_design, (Ak, Bk, Ck, Dk), info)``; ``gamma_opt`` is the
    SDP optimum (``None`` when ``gamma`` was given), ``gamma_design`` the level the
    controller was computed at, ``info`` a dict with the balancing ``T``.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, m2, p1, p2 = P.dims
    gamma_opt = None
    if gamma is None:
        gamma_opt, T = hinf_level_lmi(P)
        gamma = gamma_opt * (1 + backoff)
    info = {"T": T}
    Pb = P if T is None else _transform(P, T)
    X, Y, Ah, Bh, Ch, Dh = _variables(Pb)
    t = cp.Variable()
    eps = 1e-6 * _scale(Pb)
    mats = [X, Y, Ah, Bh, Ch, Dh]
    cons = [
        _sym_expr(_hinf_blocks(Pb, X, Y, Ah, Bh, Ch, Dh, gamma)) << -eps * np.eye(2 * n + m1 + p1),
        cp.bmat([[Y, np.eye(n)], [np.eye(n), X]]) >> eps * np.eye(2 * n),
    ]
    # Smallest variables that satisfy the strict inequalities: keeps the controller tame.
    cons += [cp.norm(M, "fro") <= t for M in mats if M.size]
    if not _solve(cp.Problem(cp.Minimize(t), cons), fallback=False):
        raise IllPosedError(f"the H-infinity LMI at gamma = {gamma:.6g} has no strict solution")
    vals = _solution(mats)
    return gamma_opt, gamma, _reconstruct(Pb, *vals), info


def _solution(mats):
    """Values of ``[X, Y, Ah, Bh, Ch, Dh]`` after a solve, ``X`` and ``Y`` symmetrised."""
    vals = [np.asarray(M.value, float) if M.size else np.zeros(M.shape) for M in mats]
    vals[0], vals[1] = _sym(vals[0]), _sym(vals[1])
    return vals


def _solve_h2_level(cons, mats, W, level, fallback=True, bound=1e8, tight=False):
    """Solve an H2 LMI: minimise ``trace(W)``, or at ``trace(W) <= level`` the variables' size.

    Without a level, ``X`` and ``Y`` are bounded (``bound``) so the optimum is attained; at a
    level slightly above the optimum, minimising the largest variable norm keeps the
    controller rebuilt from them well conditioned.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    X, Y = mats[0], mats[1]
    n = X.shape[0]
    if level is None:
        cons = cons + [X << bound * np.eye(n), Y << bound * np.eye(n)]
        obj = cp.Minimize(cp.trace(W))
    else:
        t = cp.Variable()
        cons = cons + [cp.trace(W) <= level, *[cp.norm(M, "fro") <= t for M in mats if M.size]]
        obj = cp.Minimize(t)
    return _solve(cp.Problem(obj, cons), fallback=fallback, tight=tight)


def _sym_expr(E):
    return 0.5 * (E + E.T)


def _h2_constraints(P: Plant, X, Y, Ah, Bh, Ch, Dh, W, margin):
    """Strict H2 LMIs of the closed loop in the linearising variables (``P.dt`` chooses).

    Continuous time: the Lyapunov inequality with ``Bcl``, the Gramian bound on ``Ccl``
    and the strictly proper closed loop ``D11 + D12 Dh D21 = 0``; discrete time: the
    Stein inequality and the output bound with the feedthrough ``Dcl`` (allowed).  Both
    with ``margin`` on the strict inequalities.
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    n, m1, _, p1, _ = P.dims
    A, B1, B2, C1, C2 = P.A, P.B1, P.B2, P.C1, P.C2
    D11, D12, D21 = P.D11, P.D12, P.D21
    In, z = np.eye(n), np.zeros
    Pm = cp.bmat([[Y, In], [In, X]])
    AP = cp.bmat([[A @ Y + B2 @ Ch, A + B2 @ Dh @ C2], [Ah, X @ A + Bh @ C2]])
    Bc = cp.vstack([B1 + B2 @ Dh @ D21, X @ B1 + Bh @ D21])
    CP = cp.hstack([C1 @ Y + D12 @ Ch, C1 + D12 @ Dh @ C2])
    Dc = D11 + D12 @ Dh @ D21
    if not P.dt:
        # Acl Pcl + Pcl Acl' + Bcl Bcl' < 0 and W > Ccl Pcl Ccl' after the congruence
        lyap = cp.bmat([[AP + AP.T, Bc], [Bc.T, -np.eye(m1)]])
        gram = cp.bmat([[W, CP], [CP.T, Pm]])
        return [
            _sym_expr(lyap) << -margin * np.eye(2 * n + m1),
            _sym_expr(gram) >> margin * np.eye(p1 + 2 * n),
            Dc == 0,
        ]
    stab = cp.bmat([[Pm, AP, Bc], [AP.T, Pm, z((2 * n, m1))], [Bc.T, z((m1, 2 * n)), np.eye(m1)]])
    out = cp.bmat([[W, CP, Dc], [CP.T, Pm, z((2 * n, m1))], [Dc.T, z((m1, 2 * n)), np.eye(m1)]])
    return [
        _sym_expr(stab) >> margin * np.eye(4 * n + m1),
        _sym_expr(out) >> margin * np.eye(p1 + 2 * n + m1),
    ]


def _strictly_proper(P: Plant, vals):
    """``Dh`` with the residual of ``D11 + D12 Dh D21 = 0`` removed (continuous time).

    The equality holds to the solver's tolerance only; the least-squares correction makes
    the closed loop exactly strictly proper whenever the equation has a solution.
    """
    if P.dt:
        return vals
    res = P.D11 + P.D12 @ vals[5] @ P.D21
    vals[5] = vals[5] - np.linalg.pinv(P.D12) @ res @ np.linalg.pinv(P.D21)
    return vals


def lmi_h2(
    P: Plant,
    *,
    backoffs=(1e-4, 1e-3, 1e-2),
    eps=1e-7,
    accept=None,
    T=None,
    scale=1.0,
    fallback=True,
    dual=False,
    bound=1e8,
    refine=True,
):
    """Optimal H2 level and controllers from the H2 LMI (``D22 = 0``), either time domain.

    With the change of variables of Scherer, Gahinet & Chilali (1997) (``[[Y, I], [I, X]]``
    congruence), ``||Tzw||_2^2 < trace(W)`` for a closed loop ``(Acl, Bcl, Ccl, Dcl)`` is,
    in continuous time (``Dcl = 0`` imposed: ``D11 + D12 Dk D21 = 0``),

        Acl Pcl + Pcl Acl' + Bcl Bcl' < 0,   [[W, Ccl Pcl], [*, Pcl]] > 0,

    and in discrete time (de Oliveira, Geromel & Bernussou 2002; the feedthrough is
    allowed, the discrete H2 norm ``sum_k trace(g_k' g_k)`` includes ``g_0 = Dcl``)

        [[Pcl, Acl Pcl, Bcl], [*, Pcl, 0], [*, *, I]] > 0,
        [[W, Ccl Pcl, Dcl], [*, Pcl, 0], [*, *, I]] > 0,

    all linear in ``X, Y, Ah, Bh, Ch, Dh, W`` (:func:`_h2_constraints`).  Returns
    ``(h2_opt, [(backoff, (Ak, Bk, Ck, Dk)), ...])``: first the controller rebuilt from
    the optimum's own point (backoff 0), then one at each level ``h2_opt^2 (1 + backoff)``
    the strict LMI admits (smallest variables there, which keeps the rebuilt controller
    well conditioned), rebuilt with :func:`_reconstruct`; the caller verifies them.  With
    ``accept`` (a function of a controller and ``h2_opt`` returning True when it passes
    the caller's verification) the list stops at the first accepted candidate, and the
    level problems are solved only when needed.  On a singular plant the optimum is an
    infimum (``X``, ``Y`` unbounded near it, bounded here by ``bound``); the candidates
    then approach it from above, and the level exceeds it by about ``c / bound``.
    ``refine=True`` (once a candidate exists) solves for the level again without the
    strictness margin ``eps``, with tight tolerances and the bounds ``bound``,
    ``10 bound``, ``100 bound`` in turn, and returns the lowest level found within 1e-3
    below the first.

    ``T`` (a state similarity, ``x_new = T x``) and ``scale`` (``z`` divided by it) pose
    the SDP on a rescaled plant: the controllers (input-output maps) and the returned
    level (multiplied back by ``scale``) are those of ``P``.  ``fallback=False`` uses
    Clarabel only (no SCS after a Clarabel failure).  Without them the SDP's
    variables follow the plant's own scaling: on the SLICOT SB10DD plant (discrete)
    ``||X|| ~ 2e7`` and ``trace W ~ 6e3``, where Clarabel fails; balanced ``X``, ``Y`` and
    ``scale`` near the optimum make both O(1) (see :func:`robustmb.synthesis.h2syn.h2syn`).
    ``dual=True`` solves the LMI of the transposed plant (:func:`_dual`; ``T`` is then a
    similarity of its states) and returns the transposed controllers: where the closed
    loop's controllability Gramian is singular at the optimum (e.g. ``D21`` square and
    invertible with stable zeros of ``(A, B1, C2, D21)``: the noise is recovered exactly
    from the measurement and the estimation error vanishes) ``X`` grows without bound,
    while the observability form of the transposed plant can have a bounded optimum.

    Examples
    --------
    >>> import control
    >>> import robustmb as rmb
    >>> from robustmb.synthesis.plant import partition_plant
    >>> G = control.ss([[1.0]], [[2.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> h2, candidates = lmi_h2(partition_plant(G, 1, 1))
    >>> bool(abs(h2 - rmb.h2syn(G, 1, 1, method="riccati").norm) < 1e-5 * h2)
    True
    >>> Gd = control.ss([[1.2]], [[2.0, 1.0]], [[1.0], [0.0], [1.0]],
    ...                 [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]], 0.1)
    >>> h2, candidates = lmi_h2(partition_plant(Gd, 1, 1))
    >>> round(h2, 4)
    1.6264
    >>> bool(abs(h2 - rmb.h2syn(Gd, 1, 1, method="riccati").norm) < 1e-5 * h2)
    True
    >>> backoff, (Ak, Bk, Ck, Dk) = candidates[0]
    """
    import cvxpy as cp  # imported on first use: about a second of start-up

    if dual:
        inner = None if accept is None else (lambda K, level: accept(_transposed(K), level))
        h2, controllers = lmi_h2(
            _dual(P), backoffs=backoffs, eps=eps, accept=inner, T=T, scale=scale,
            fallback=fallback, bound=bound, refine=refine,
        )  # fmt: skip
        return h2, [(b, _transposed(K)) for b, K in controllers]
    if T is not None or scale != 1.0:
        Pt = _transform(P, T) if T is not None else P
        Ps = Plant(
            Pt.A, Pt.B1, Pt.B2, Pt.C1 / scale, Pt.C2, Pt.D11 / scale, Pt.D12 / scale,
            Pt.D21, Pt.D22, Pt.dt,
        )  # fmt: skip
        inner = None if accept is None else (lambda K, level: accept(K, level * scale))
        h2, controllers = lmi_h2(
            Ps, backoffs=backoffs, eps=eps, accept=inner, fallback=fallback, bound=bound,
            refine=refine,
        )  # fmt: skip
        return h2 * scale, controllers

    p1 = P.dims[3]
    kind = "discrete H2 LMI" if P.dt else "H2 LMI"

    strict = eps * _scale(P)

    def problem(level=None, margin=strict, tight=False, bound=bound):
        X, Y, Ah, Bh, Ch, Dh = _variables(P)
        W = cp.Variable((p1, p1), symmetric=True)
        cons = _h2_constraints(P, X, Y, Ah, Bh, Ch, Dh, W, margin)
        mats = [X, Y, Ah, Bh, Ch, Dh]
        return _solve_h2_level(cons, mats, W, level, fallback, bound, tight), mats, W

    def refined():
        # The level without the margin, with tight tolerances and larger bounds on X, Y:
        # near an optimum that is only an infimum (X or Y growing without bound) the
        # level exceeds it by about c / bound, and Clarabel stops early besides (1e-5 to
        # 3e-4 above on random plants); only lower levels within 1e-3 are taken.
        best = h2sq
        for b in (bound, 10 * bound, 100 * bound):
            ok, _, Wr = problem(margin=0.0, tight=True, bound=b)
            if not ok or Wr.value is None:
                break
            h2r = float(np.trace(Wr.value))
            if not (1 - 1e-3) * h2sq <= h2r < best:
                break
            best = h2r
        return float(np.sqrt(max(best, 0.0)))

    def candidate(b, mats):
        try:
            controllers.append((b, _reconstruct(P, *_strictly_proper(P, _solution(mats)))))
        except (IllPosedError, np.linalg.LinAlgError):
            return False
        return accept is not None and accept(controllers[-1][1], h2)

    ok, mats0, W = problem()
    if not ok:
        raise IllPosedError(
            f"the {kind} is infeasible: no stabilising controller"
            + ("" if P.dt else " makes the closed loop strictly proper (D11 + D12 Dk D21 = 0)")
        )
    h2sq = float(np.trace(W.value))
    h2 = float(np.sqrt(max(h2sq, 0.0)))
    controllers = []
    # The optimum's own point first: when the solver reports it accurately enough its
    # controller is the best candidate, and the level problems below (where the solver
    # may break down) are only needed when it fails the verification.
    if candidate(0.0, mats0):
        return (refined() if refine else h2), controllers
    for b in backoffs:
        ok, mats, _ = problem(h2sq * (1 + b) + 1e-12)
        if ok and candidate(b, mats):
            break
    if not controllers:
        raise IllPosedError(f"the {kind} has no strict solution near its optimum")
    return (refined() if refine else h2), controllers


def _transposed(K):
    """The controller ``K'`` of the transposed plant, as ``(Ak, Bk, Ck, Dk)``."""
    Ak, Bk, Ck, Dk = K
    return Ak.T, Ck.T, Bk.T, Dk.T
