"""robstab growth with model size: modal loops of 20, 40, 80, 160 states, 4 real parameters.

Each loop is a lightly damped modal plant (``(n - 2) / 2`` modes, log-spaced natural
frequencies 1..30 rad/s, damping 2-3 %) with a second-order actuator, closed by a static
gain of 70 % of the nominal loop's critical one; four real parameters (+-25 %) scale the
input gains of four modes spread over the band, each occurring once.
``rmb.robstab(loop, sensitivity=False)`` is timed (best of ``--repeats``) and the exponent
is the least-squares slope of ``log t`` against ``log n``.

Run from the repository root:  python benchmarks/bench_robstab_scaling.py [--sizes 20 40 80 160]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import robustmb as rmb  # noqa: E402


def modal_loop(n_states, n_params=4, seed=0, fraction=0.7):
    """Modal loop of ``n_states`` states at ``fraction`` of its critical gain."""
    rng = np.random.default_rng(seed)
    n_modes = (n_states - 2) // 2
    wn = np.geomspace(1.0, 30.0, n_modes)
    zeta = 0.02 + 0.01 * rng.uniform(size=n_modes)
    n = 2 * n_modes
    a = np.zeros((n, n))
    for i in range(n_modes):
        a[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [
            [0.0, 1.0],
            [-(wn[i] ** 2), -2 * zeta[i] * wn[i]],
        ]
    b = np.zeros((n, 1), dtype=object)
    b[:, 0] = 0.0
    gains = 0.3 + rng.uniform(size=n_modes)
    picks = np.linspace(0, n_modes - 1, n_params).round().astype(int)
    pars = {int(i): rmb.ureal(f"k{j}", 1.0, percent=25) for j, i in enumerate(picks)}
    for i in range(n_modes):
        b[2 * i + 1, 0] = gains[i] * wn[i] ** 2 * (pars[i] if i in pars else 1.0)
    c = np.zeros((1, n))
    c[0, 0::2] = 1.0
    plant = rmb.uss(a, rmb.umat(b.tolist()), c, np.zeros((1, 1)))
    act = rmb.uss(
        np.array([[0.0, 1.0], [-400.0, -28.0]]), np.array([[0.0], [400.0]]), np.eye(1, 2), 0.0
    )
    open_loop = plant @ act
    # the feedback gain is a fixed fraction of the nominal loop's critical gain
    a0 = open_loop.nominal()
    lo, hi = 0.0, 1.0
    while _stable(a0, hi):
        lo, hi = hi, 2 * hi
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if _stable(a0, mid) else (lo, mid)
    return rmb.feedback(fraction * lo * open_loop, 1.0)


def _stable(sys, k):
    acl = sys.A - k * sys.B @ np.linalg.solve(np.eye(1) + k * sys.D, sys.C)
    return np.max(np.linalg.eigvals(acl).real) < 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[20, 40, 80, 160])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    times = []
    for n in args.sizes:
        loop = modal_loop(n)
        best, res = np.inf, None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            res = rmb.robstab(loop, sensitivity=False)
            best = min(best, time.perf_counter() - t0)
        times.append(best)
        print(
            f"n = {loop.nstates:4d}  robstab {best:8.2f} s  margin [{res.lower:.6f}, "
            f"{res.upper:.6f}] at {res.critical_frequency:.4f} rad/s, certified "
            f"{res.certified}, {len(res.mu.omega)} frequencies",
            flush=True,
        )
    if len(times) > 1:
        slope = np.polyfit(np.log(args.sizes), np.log(times), 1)[0]
        print(f"fitted exponent t ~ n^{slope:.2f} (goal <= 1.8)")


if __name__ == "__main__":
    main()
