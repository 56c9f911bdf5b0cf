"""Continuous-time H2 LMI of ``h2syn`` against Riccati optima (scipy), per plant family.

Families (seeded): the 2-state plants with ``D21 = 1`` (the noise is measured exactly),
random regular plants with 2-6 states (every third with ``D22 != 0``), and singular plants
(``D12 = 0``, ``D21 = 0``, ``D11 != 0`` with a strictly proper closed loop possible, modes
on the imaginary axis unseen by ``z``), whose reference is the Riccati optimum of the
plant regularised here (relative size 1e-6) or loop-shifted (``D11``).  Per family: the
failures, the worst relative gap of the verified norm (python-control ``lft`` and a
scipy Lyapunov solve) to the reference, the worst gap of the bracket's lower end, and the
mean wall time of ``h2syn(..., method="lmi")``.

Run: ``PYTHONPATH=. python benchmarks/bench_h2syn_lmi.py`` (one BLAS thread advised).
"""

from __future__ import annotations

import time
import warnings

import control
import numpy as np
import scipy.linalg as sla

import robustmb as rmb
from robustmb.errors import RobustMBError


def plant(A, B1, B2, C1, C2, D11, D12, D21, D22):
    return control.ss(
        A, np.hstack([B1, B2]), np.vstack([C1, C2]), np.block([[D11, D12], [D21, D22]])
    )


def riccati_optimum(A, B1, B2, C1, C2, D12, D21):
    X = sla.solve_continuous_are(A, B2, C1.T @ C1, D12.T @ D12, s=C1.T @ D12)
    Y = sla.solve_continuous_are(A.T, C2.T, B1 @ B1.T, D21 @ D21.T, s=B1 @ D21.T)
    F = -np.linalg.solve(D12.T @ D12, B2.T @ X + D12.T @ C1)
    return float(np.sqrt(np.trace(B1.T @ X @ B1) + np.trace(D12.T @ D12 @ F @ Y @ F.T)))


def measured_noise(k):
    rng = np.random.default_rng(0)
    for _ in range(k + 1):
        A = rng.standard_normal((2, 2))
        B1, B2 = rng.standard_normal((2, 1)), rng.standard_normal((2, 1))
        C1 = np.vstack([rng.standard_normal((1, 2)), np.zeros((1, 2))])
        C2 = rng.standard_normal((1, 2))
    D12, D21 = np.array([[0.0], [1.0]]), np.array([[1.0]])
    P = plant(A, B1, B2, C1, C2, np.zeros((2, 1)), D12, D21, np.zeros((1, 1)))
    return P, 1, 1, riccati_optimum(A, B1, B2, C1, C2, D12, D21)


def regular(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    m2, p2 = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    m1, p1 = p2 + int(rng.integers(0, 2)), m2 + 1 + int(rng.integers(0, 2))
    A = rng.standard_normal((n, n))
    B1, B2 = rng.standard_normal((n, m1)), rng.standard_normal((n, m2))
    C1, C2 = rng.standard_normal((p1, n)), rng.standard_normal((p2, n))
    D12, D21 = rng.standard_normal((p1, m2)), rng.standard_normal((p2, m1))
    D22 = rng.standard_normal((p2, m2)) if seed % 3 == 0 else np.zeros((p2, m2))
    P = plant(A, B1, B2, C1, C2, np.zeros((p1, m1)), D12, D21, D22)
    return P, p2, m2, riccati_optimum(A, B1, B2, C1, C2, D12, D21)


def singular(kind, seed, eps=1e-6):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(3, 5))
    m2, p2 = 1 + seed % 2, 1 + (seed // 2) % 2
    m1, p1 = p2 + 1, m2 + 1
    A = rng.standard_normal((n, n))
    B1, B2 = rng.standard_normal((n, m1)), rng.standard_normal((n, m2))
    C1, C2 = rng.standard_normal((p1, n)), rng.standard_normal((p2, n))
    D12, D21 = rng.standard_normal((p1, m2)), rng.standard_normal((p2, m1))
    D11, D22 = np.zeros((p1, m1)), np.zeros((p2, m2))
    if kind == "D12=0":
        D12 = np.zeros((p1, m2))
    elif kind == "D21=0":
        D21 = np.zeros((p2, m1))
    elif kind == "D11":
        Q0 = rng.standard_normal((m2, p2))
        D11 = D12 @ Q0 @ D21
        As, B1s, C1s = A - B2 @ Q0 @ C2, B1 - B2 @ Q0 @ D21, C1 - D12 @ Q0 @ C2
        P = plant(A, B1, B2, C1, C2, D11, D12, D21, D22)
        return P, p2, m2, riccati_optimum(As, B1s, B2, C1s, C2, D12, D21)
    elif kind == "jw-zero":
        w0 = 0.5 + rng.random()
        A = sla.block_diag([[0.0, w0], [-w0, 0.0]], A[: n - 2, : n - 2])
        C1[:, :2] = 0.0
    P = plant(A, B1, B2, C1, C2, D11, D12, D21, D22)
    e12 = eps * max(np.linalg.norm(C1), np.linalg.norm(B2), 1.0)
    e21 = eps * max(np.linalg.norm(B1), np.linalg.norm(C2), 1.0)
    ex = eps * max(np.linalg.norm(A), 1.0)
    B1r = np.hstack([B1, np.zeros((n, p2)), ex * np.eye(n)])
    D21r = np.hstack([D21, e21 * np.eye(p2), np.zeros((p2, n))])
    C1r = np.vstack([C1, np.zeros((m2, n)), ex * np.eye(n)])
    D12r = np.vstack([D12, e12 * np.eye(m2), np.zeros((n, m2))])
    return P, p2, m2, riccati_optimum(A, B1r, B2, C1r, C2, D12r, D21r)


def independent_h2(P, K):
    cl = P.lft(K)
    if np.max(cl.poles().real) >= 0:
        return np.inf
    W = sla.solve_continuous_lyapunov(cl.A, -cl.B @ cl.B.T)
    return float(np.sqrt(np.trace(cl.C @ W @ cl.C.T)))


def run(name, cases):
    fails, gaps, lows, times = 0, [], [], []
    for P, nmeas, ncon, ref in cases:
        t = time.perf_counter()
        try:
            res = rmb.h2syn(P, nmeas, ncon, method="lmi")
        except (RobustMBError, np.linalg.LinAlgError, ValueError):
            fails += 1
            continue
        finally:
            times.append(time.perf_counter() - t)
        gaps.append(independent_h2(P, res.controller) / ref - 1)
        lows.append(res.gamma_bracket[0] / ref - 1)
    worst = max(gaps, default=np.nan)
    low = max(lows, default=np.nan)
    print(
        f"{name:24s} {len(cases):3d} plants  failures {fails:2d}  worst gap {worst:9.2e}  "
        f"worst lower end {low:9.2e}  mean {np.mean(times):.2f} s/call",
        flush=True,
    )


def main():
    warnings.simplefilter("ignore")
    run("D21 = 1, 2 states", [measured_noise(k) for k in range(10)])
    run("regular, 2-6 states", [regular(s) for s in range(32)])
    for kind in ("D12=0", "D21=0", "D11", "jw-zero"):
        run(f"singular {kind}", [singular(kind, s) for s in range(4)])


if __name__ == "__main__":
    main()
