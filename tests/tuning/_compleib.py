"""COMPleib plants from tests/data (static output-feedback H-infinity problems)."""

import control
import numpy as np
from _oracles import load_oracle


def compleib(name):
    """``(P, oracle)``: the generalised plant ``ss(A, [B1 B], [C1; C], [D11 D12; D21 0])``."""
    for suffix in ("static_hinf", "data"):
        try:
            data = load_oracle(f"compleib_{name}_{suffix}")
            break
        except FileNotFoundError:
            continue
    p = data["plant"]
    a, b1, b, c1, c, d11, d12, d21 = (
        np.array(p[k], float) for k in ("A", "B1", "B", "C1", "C", "D11", "D12", "D21")
    )
    P = control.ss(
        a,
        np.hstack([b1, b]),
        np.vstack([c1, c]),
        np.block([[d11, d12], [d21, np.zeros((c.shape[0], b.shape[1]))]]),
    )
    return P, data, (a, b1, b, c1, c, d11, d12, d21)


def full_order_floor(a, b1, b2, c1, c2, d11, d12, d21):
    """Optimal full-order H-infinity level by the Gahinet--Apkarian LMIs (cvxpy).

    No controller of any order, static ones included, can reach a lower norm.  Returns
    a value slightly below the optimum (solver tolerance), so it is a safe floor.
    """
    import cvxpy as cp
    import scipy.linalg as sla

    n = a.shape[0]
    nw, nz = b1.shape[1], c1.shape[0]
    no = sla.null_space(np.hstack([c2, d21]))
    nc = sla.null_space(np.hstack([b2.T, d12.T]))
    x = cp.Variable((n, n), symmetric=True)
    y = cp.Variable((n, n), symmetric=True)
    g = cp.Variable()
    eps = 1e-7
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
    cons = [
        to.T @ mx @ to << -eps * np.eye(to.shape[1]),
        tc.T @ my @ tc << -eps * np.eye(tc.shape[1]),
        cp.bmat([[x, np.eye(n)], [np.eye(n), y]]) >> 0,
    ]
    prob = cp.Problem(cp.Minimize(g), cons)
    prob.solve(solver=cp.CLARABEL)
    return float(g.value)


def static_loop(P, K):
    """``Fl(P, K)`` for a static ``K`` by the textbook formulas (``D22 = 0`` required)."""
    K = np.atleast_2d(K)
    nu, ny = K.shape
    a, b, c, d = (np.asarray(m) for m in (P.A, P.B, P.C, P.D))
    b1, b2 = b[:, :-nu], b[:, -nu:]
    c1, c2 = c[:-ny], c[-ny:]
    d11, d12, d21, d22 = d[:-ny, :-nu], d[:-ny, -nu:], d[-ny:, :-nu], d[-ny:, -nu:]
    assert not np.any(d22)
    return control.ss(a + b2 @ K @ c2, b1 + b2 @ K @ d21, c1 + d12 @ K @ c2, d11 + d12 @ K @ d21)
