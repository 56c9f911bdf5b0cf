"""Plants of the synthesis tests, built from the reference problems in tests/data."""

import control
import numpy as np
import scipy.linalg
from _oracles import load_oracle


def slicot_plant(name, dt=0):
    """SLICOT example plant (SB10FD / SB10DD / SB10HD layout) and its (nmeas, ncon)."""
    p = load_oracle(name)["plant"]
    return control.ss(p["A"], p["B"], p["C"], p["D"], dt), p["nmeas"], p["ncon"]


def compleib_plant(name, eps=0.0):
    """COMPleib plant ``[w; u] -> [z; y]``; ``eps > 0`` adds ``eps u`` to z and ``eps v`` to y."""
    d = load_oracle(f"compleib_{name}")
    p = d["plant"]
    A, B1, B2 = np.array(p["A"]), np.array(p["B1"]), np.array(p["B"])
    C1, C2 = np.array(p["C1"]), np.array(p["C"])
    D11, D12, D21 = np.array(p["D11"]), np.array(p["D12"]), np.array(p["D21"])
    n, m2, p2 = A.shape[0], B2.shape[1], C2.shape[0]
    if eps:
        B1 = np.hstack([B1, np.zeros((n, p2))])
        D11 = np.hstack([D11, np.zeros((D11.shape[0], p2))])
        D21 = np.hstack([D21, eps * np.eye(p2)])
        C1 = np.vstack([C1, np.zeros((m2, n))])
        D11 = np.vstack([D11, np.zeros((m2, D11.shape[1]))])
        D12 = np.vstack([D12, eps * np.eye(m2)])
    P = control.ss(
        A, np.hstack([B1, B2]), np.vstack([C1, C2]),
        np.block([[D11, D12], [D21, np.zeros((p2, m2))]]),
    )  # fmt: skip
    return P, p2, m2


def independent_hinf(P, K):
    """Closed-loop H-infinity norm by python-control (lft) and SLICOT AB13DD (control.norm).

    The loop is diagonally balanced first (LAPACK's gebal through scipy): on stiff loops
    AB13DD overestimates the norm of the raw realization, e.g. 4.464057 for a loop whose
    peak is 4.4636340 (50-digit mpmath evaluation; balanced AB13DD gives 4.4636340).
    """
    cl = P.lft(K)
    if np.max(np.abs(cl.poles()) if cl.dt else cl.poles().real) >= (1.0 if cl.dt else 0.0):
        return np.inf
    _, (scale, _) = scipy.linalg.matrix_balance(cl.A, permute=False, separate=True)
    balanced = control.ss(
        cl.A / scale[:, None] * scale[None, :],
        cl.B / scale[:, None],
        cl.C * scale[None, :],
        cl.D,
        cl.dt,
    )
    return float(control.norm(balanced, "inf"))


def one_blas_thread():
    """SLICOT's routines run tens of times slower with threaded BLAS on a loaded machine."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
