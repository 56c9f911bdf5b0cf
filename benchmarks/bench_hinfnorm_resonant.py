"""Benchmark: hinfnorm on very lightly damped and stiff models, against SLICOT AB13DD.

Run from the repository root:  python benchmarks/bench_hinfnorm_resonant.py

Such models take the refined-solve path of :func:`robustmb.hinfnorm` (responses from
solves refined with double-double residuals).  Prints the time of both routines (best
of 3), their ratio, and for each the relative difference between the returned norm and
``sigma_max(G(j fpeak))`` evaluated in mpmath (40 digits) on the same data: how far the
value is from being attained.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import mpmath as mp  # noqa: E402
import numpy as np  # noqa: E402
import slycot  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_time  # noqa: E402

from robustmb.analysis.norms import hinfnorm  # noqa: E402


def model(modes, zeta, w_max, fast, seed):
    """Modes at 1..w_max rad/s with damping zeta (and a fast pole), random coordinates."""
    rng = np.random.default_rng(seed)
    w = np.geomspace(1.0, w_max, modes)
    n = 2 * modes + (1 if fast else 0)
    A = np.zeros((n, n))
    for i, wi in enumerate(w):
        A[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[0, 1], [-(wi**2), -2 * zeta * wi]]
    if fast:
        A[-1, -1] = -fast
    V = np.eye(n) + 0.1 * rng.normal(size=(n, n))
    A = V @ A @ np.linalg.inv(V)
    return A, V @ rng.normal(size=(n, 2)), rng.normal(size=(2, n)) @ np.linalg.inv(V)


def mp_sigma(A, B, C, w):
    with mp.workdps(40):
        n = A.shape[0]
        M = mp.mpc(0, w) * mp.eye(n) - mp.matrix(A.tolist())
        X = mp.matrix(n, B.shape[1])
        for j in range(B.shape[1]):
            col = mp.lu_solve(M, mp.matrix(B[:, j].tolist()))
            for i in range(n):
                X[i, j] = col[i]
        G = mp.matrix(C.tolist()) * X
        return float(max(mp.svd_c(G, compute_uv=False)))


CASES = [(10, 1e-5, 1e3, 0.0), (20, 1e-4, 1e4, 0.0), (5, 1e-3, 10.0, 1e9), (40, 1e-6, 1e2, 0.0)]

if __name__ == "__main__":
    print(
        f"{'n':>4} {'zeta':>7} {'fast':>7} {'robustmb':>10} {'AB13DD':>10} {'ratio':>6}"
        f" {'rmb attained':>13} {'AB13DD attained':>16}"
    )
    for k, (modes, zeta, w_max, fast) in enumerate(CASES):
        A, B, C = model(modes, zeta, w_max, fast, k)
        n, D = A.shape[0], np.zeros((2, 2))
        t_r, (g_r, f_r) = best_time(lambda A=A, B=B, C=C, D=D: hinfnorm((A, B, C, D)))

        def slicot(A=A, B=B, C=C, D=D, n=n):
            return slycot.ab13dd(
                "C", "I", "N", "Z", n, 2, 2, A.copy(), np.eye(n), B.copy(), C.copy(), D.copy(), 1e-8
            )

        t_s, (g_s, f_s) = best_time(slicot)
        e_r = g_r / mp_sigma(A, B, C, f_r) - 1
        e_s = g_s / mp_sigma(A, B, C, f_s) - 1
        print(
            f"{n:>4} {zeta:>7.0e} {fast:>7.0e} {t_r * 1e3:>8.1f}ms {t_s * 1e3:>8.1f}ms"
            f" {t_r / t_s:>6.1f} {e_r:>13.1e} {e_s:>16.1e}"
        )
