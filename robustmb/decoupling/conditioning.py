"""Condition numbers of a plant: plain and minimised over diagonal input/output scalings.

The minimised condition number ``gamma* = min_{D1, D2 diagonal} cond(D1 G D2)``
(Skogestad & Postlethwaite, section 3.3.4 and appendix A.3.4) is a scaling-independent
measure of how hard a plant is to control with decentralised loops; it is close to the
RGA's sum-norm. It is computed here by bisection on linear matrix inequalities:
``cond(D1 G D2) <= g`` holds exactly when diagonal ``P = D1^2 > 0`` and ``Q = D2^{-2} > 0``
satisfy ``Q <= G^H P G <= g^2 Q``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from robustmb.decoupling.plant_data import as_matrix_stack, evaluate
from robustmb.errors import ArgumentError, DimensionError

__all__ = ["condition_number", "minimized_condition_number", "MinimizedConditionNumber"]


def condition_number(G, *, omega=None):
    """Ratio of the largest to the smallest singular value, per matrix.

    Parameters
    ----------
    G : array_like ``(p, m)`` or ``(nw, p, m)``, or LTI system
    omega : array_like, optional
        Frequencies (rad/s), required when ``G`` is an LTI system.

    Returns
    -------
    float or numpy.ndarray ``(nw,)``
        ``inf`` for a rank-deficient matrix.

    Examples
    --------
    >>> import numpy as np
    >>> condition_number(np.diag([100.0, 1.0]))
    100.0
    """
    S, single = as_matrix_stack(evaluate(G, omega))
    if not np.all(np.isfinite(S)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(S))[0])
        where = bad[1:] if single else bad
        raise ArgumentError(f"condition_number: G has a non-finite entry at {where}")
    s = np.linalg.svd(S, compute_uv=False)
    # a zero smallest singular value (the zero matrix included) is rank deficiency: inf
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(s[..., -1] > 0, s[..., 0] / s[..., -1], np.inf)
    return float(c[0]) if single else c


@dataclass
class MinimizedConditionNumber:
    """Result of :func:`minimized_condition_number`.

    Attributes
    ----------
    value : float
        ``cond(D_out @ G @ D_in)`` evaluated exactly at the returned scalings: an
        achieved value, hence a certified upper bound on the minimum (its optimality
        rests on the LMI solver and the final local polish).
    D_out, D_in : numpy.ndarray
        Diagonal scalings (identity for a side that is not scaled).
    scaling : str
        ``"both"``, ``"input"`` or ``"output"``.
    """

    value: float
    D_out: np.ndarray
    D_in: np.ndarray
    scaling: str


def _hermitian_real(X):
    """Real symmetric embedding of a Hermitian expression (PSD-equivalent)."""
    import cvxpy as cp

    return cp.bmat([[cp.real(X), -cp.imag(X)], [cp.imag(X), cp.real(X)]])


def _embed_const(X):
    X = np.asarray(X)
    return np.block([[X.real, -X.imag], [X.imag, X.real]])


def _feasible(G, g2, scaling):
    """Solve the LMI feasibility problem for cond <= sqrt(g2); return (P, Q) or None."""
    import cvxpy as cp

    n = G.shape[0]
    q = cp.Variable(n)
    Q = cp.diag(q)
    if scaling == "both":
        p = cp.Variable(n)
        # the two-sided problem is homogeneous in (P, Q): normalise with Q >= I
        cons = [p >= 0, q >= 1.0]
        # G^H diag(p) G as a sum of rank-one terms keeps the expression affine in p
        GPG_re = sum(p[i] * _embed_const(np.outer(G[i].conj(), G[i])) for i in range(n))
    else:
        p = None
        cons = [q >= 0]
        GPG_re = _embed_const(G.conj().T @ G)
    Q_re = cp.bmat([[Q, np.zeros((n, n))], [np.zeros((n, n)), Q]])
    # Q <= G^H P G <= g2 Q
    cons += [GPG_re - Q_re >> 0, g2 * Q_re - GPG_re >> 0]
    prob = cp.Problem(cp.Minimize(0), cons)
    try:
        with warnings.catch_warnings():
            # near the optimum the feasibility problem is marginal; the achieved
            # condition number is re-evaluated exactly by the caller anyway
            warnings.simplefilter("ignore", UserWarning)
            prob.solve(solver=cp.CLARABEL if "CLARABEL" in cp.installed_solvers() else cp.SCS)
    except cp.SolverError:
        return None
    if prob.status not in ("optimal", "optimal_inaccurate"):
        return None
    pv = np.ones(n) if p is None else np.maximum(np.asarray(p.value), 0.0)
    qv = np.maximum(np.asarray(q.value), 0.0)
    if np.any(pv <= 0) or np.any(qv <= 0):
        return None
    return pv, qv


def _polish(G, d_out, d_in, *, both):
    """Local descent on the log-scalings from the LMI solution (keeps the better one)."""
    n = G.shape[0]

    def f(x):
        a = np.exp(x[:n]) if both else np.ones(n)
        b = np.exp(x[n:] if both else x)
        return np.log(condition_number(a[:, None] * G * b[None, :]))

    x0 = np.concatenate([np.log(d_out), np.log(d_in)]) if both else np.log(d_in)
    res = minimize(
        f, x0, method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 4000}
    )
    if res.fun < f(x0):
        x = res.x
        if both:
            return np.exp(x[:n]), np.exp(x[n:])
        return d_out, np.exp(x)
    return d_out, d_in


def minimized_condition_number(G, *, scaling="both", rtol=1e-6, max_iter=80):
    """Condition number minimised over diagonal scalings.

    ``scaling="both"``: ``min_{D1, D2} cond(D1 G D2)``; ``"input"``: ``min_D cond(G D)``;
    ``"output"``: ``min_D cond(D G)``, all with positive diagonal ``D``.

    Parameters
    ----------
    G : array_like ``(n, n)``
        Square nonsingular real or complex matrix (for example a plant at one frequency).
    scaling : {"both", "input", "output"}
    rtol : float
        Relative width of the final bisection bracket.
    max_iter : int
        Maximum number of bisection steps.

    Returns
    -------
    MinimizedConditionNumber
        ``value`` is achieved by the returned scalings (re-checkable with
        :func:`condition_number`).

    Examples
    --------
    >>> import numpy as np
    >>> r = minimized_condition_number(np.array([[1.0, 100.0], [0.0, 1.0]]), scaling="input")
    >>> round(r.value)
    200
    """
    if scaling not in ("both", "input", "output"):
        raise ArgumentError(
            f"minimized_condition_number: scaling must be 'both', 'input' or 'output', "
            f"got {scaling!r}"
        )
    H = np.asarray(evaluate(G))
    if H.ndim != 2 or H.shape[0] != H.shape[1]:
        raise DimensionError(f"minimized_condition_number needs a square matrix, got {H.shape}")
    if not np.all(np.isfinite(H)):
        raise ArgumentError("minimized_condition_number: G contains non-finite entries")
    n = H.shape[0]
    if np.linalg.matrix_rank(H) < n:
        raise ArgumentError(
            f"minimized_condition_number: G is singular (rank {np.linalg.matrix_rank(H)} "
            f"< {n}): its condition number is infinite for every scaling"
        )
    work = H.conj().T if scaling == "output" else H
    side = "both" if scaling == "both" else "input"

    def scalings(pq):
        pv, qv = pq
        d_out = np.sqrt(pv) if side == "both" else np.ones(n)
        d_in = 1.0 / np.sqrt(qv)
        return d_out, d_in

    def achieved(pq):
        d_out, d_in = scalings(pq)
        return float(condition_number(d_out[:, None] * work * d_in[None, :]))

    hi = float(condition_number(work))
    best = (np.ones(n), np.ones(n)) if side == "both" else None
    best_val = hi
    if side == "input":
        # q = column norms^2 of G makes the unscaled matrix feasible at g = cond^2 * ...;
        # start from D = I, which is feasible for g = cond(G)
        s = np.linalg.svd(work, compute_uv=False)
        best = (np.ones(n), np.full(n, s[-1] ** 2))
    lo = 1.0
    for _ in range(max_iter):
        if hi - lo <= rtol * hi:
            break
        mid = np.sqrt(lo * hi) if lo > 0 else 0.5 * (lo + hi)
        pq = _feasible(work, mid**2, side)
        if pq is None:
            lo = mid
            continue
        val = achieved(pq)
        if val < best_val:
            best, best_val = pq, val
        # the achieved value is itself a feasible level: tighten to it
        hi = min(mid, val) if val >= lo else mid
    d_out, d_in = scalings(best)
    d_out, d_in = _polish(work, d_out, d_in, both=side == "both")
    # normalise the scalings (the condition number is invariant to a common factor)
    d_out = d_out / d_out[0]
    d_in = d_in / d_in[0]
    if scaling == "output":
        # cond(D G) = cond(G^H D): the "input" scaling of G^H is the output scaling of G
        d_out, d_in = d_in, np.ones(n)
    value = float(condition_number(d_out[:, None] * H * d_in[None, :]))
    return MinimizedConditionNumber(
        value=value,
        D_out=np.diag(d_out),
        D_in=np.diag(d_in),
        scaling=scaling,
    )
