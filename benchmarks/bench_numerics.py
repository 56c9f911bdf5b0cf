"""Benchmark: mu lower bound with real blocks around a performance block, and norms of
stiff models.

Run from the repository root:  python benchmarks/bench_numerics.py

1. ``mussv`` on the demo arm's robust-performance stack (20 frequencies, gamma = 10),
   with the real-parameter LFT search of the lower bound and, as the reference in the
   same run, without it: time ratio and the mean lower/upper ratio of each.
2. ``hinfnorm`` of the 1e8 N/m two-mass chain against slycot's AB13DD (time and value;
   the closed-form peak is 1000.5).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import robustmb as rmb  # noqa: E402
import robustmb.analysis.mu_lower as mu_lower  # noqa: E402
from robustmb.analysis.uncertain_problem import uncertain_problem  # noqa: E402
from robustmb.analysis.worst_case_gain import _augmented_blk, _responses  # noqa: E402
from robustmb.report.arm_demo import demo_loop  # noqa: E402


def _timed(fn, repeat=2):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_mu_lower():
    loop, channels = demo_loop()
    problem = uncertain_problem(loop[channels["tracking W_e S"]])
    M = _responses(problem, np.geomspace(1.0, 30.0, 20))
    M[:, problem.nz :] /= 10.0
    blk = _augmented_blk(problem)
    t_new, r_new = _timed(lambda: rmb.mussv(M, blk))
    original = mu_lower._lft_candidates
    mu_lower._lft_candidates = lambda Ms, struct, D, val, owner, rng, **k: (D, val, owner)
    try:
        t_ref, r_ref = _timed(lambda: rmb.mussv(M, blk))
    finally:
        mu_lower._lft_candidates = original
    print("mussv, arm robust performance, 20 frequencies, blk", blk)
    print(
        f"  with real-parameter search : {t_new:6.2f} s, mean lower/upper "
        f"{np.mean(r_new.lower / r_new.upper):.4f}, min {np.min(r_new.lower / r_new.upper):.4f}"
    )
    print(
        f"  reference (without it)     : {t_ref:6.2f} s, mean lower/upper "
        f"{np.mean(r_ref.lower / r_ref.upper):.4f}, min {np.min(r_ref.lower / r_ref.upper):.4f}"
    )
    print(f"  time ratio {t_new / t_ref:.2f}")


def bench_stiff_chain():
    from slycot import ab13dd

    m1, m2, k, c, k0, c0 = 1e-3, 1.0, 1e8, 1.0, 1.0, 1e-3
    A = np.array(
        [
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [-k / m1, k / m1, -c / m1, c / m1],
            [k / m2, -(k + k0) / m2, c / m2, -(c + c0) / m2],
        ]
    )
    B, C, D = np.array([[0], [0], [0], [1 / m2]]), np.array([[0.0, 1, 0, 0]]), np.zeros((1, 1))
    G = control.ss(A, B, C, D)
    t_r, (g_r, _) = _timed(lambda: rmb.hinfnorm(G), repeat=5)
    t_s, (g_s, _) = _timed(
        lambda: ab13dd("C", "I", "N", "D", 4, 1, 1, A, np.eye(4), B, C, D), repeat=5
    )
    from scipy.optimize import minimize_scalar

    def gain(w):  # closed form, force on the 1 kg mass to its position
        s = 1j * w
        q = k + c * s
        return abs(1 / (m2 * s**2 + c0 * s + k0 + q * m1 * s**2 / (m1 * s**2 + q)))

    ref = -minimize_scalar(
        lambda w: -gain(w), bounds=(0.99, 1.01), method="bounded", options={"xatol": 1e-12}
    ).fun
    print(f"hinfnorm, 1e8 N/m two-mass chain (closed-form peak {ref:.7f})")
    print(
        f"  robustmb {g_r:.7f} in {1e3 * t_r:.2f} ms; slycot AB13DD {g_s:.7f} in "
        f"{1e3 * t_s:.2f} ms; time ratio {t_r / t_s:.2f}"
    )


if __name__ == "__main__":
    bench_mu_lower()
    bench_stiff_chain()
