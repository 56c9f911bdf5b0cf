"""Benchmark: robustmb.hinfnorm against SLICOT AB13DD (through slycot).

Run from the repository root:  python benchmarks/bench_hinfnorm.py

For random stable 4x4 models with D != 0 (python-control ``rss``; discrete ones by ZOH
with dt = 0.1) of 10 to 60 states, prints the median best-of-N time of both routines at
the same relative tolerance, the ratio (robustmb / AB13DD; below 1 means robustmb is
faster) and the largest relative difference of the norms (reference: AB13DD at 1e-12).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# One BLAS thread for every routine timed, so that the ratio is not skewed by thread
# oversubscription on a shared machine (override by setting the variable yourself).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402
import slycot  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import best_time  # noqa: E402

from robustmb.analysis.norms import hinfnorm  # noqa: E402

SIZES = (10, 20, 40, 60)
SYSTEMS_PER_SIZE = 5
REPEATS = 3
TOL = 1e-8


def ab13dd(G, tol):
    A, B, C, D = G.A, G.B, G.C, G.D
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    dico = "D" if G.dt else "C"
    return slycot.ab13dd(dico, "I", "N", "D", n, m, p, A, np.eye(n), B, C, D, tol)[0]


def main():
    header = ("states", "time", "robustmb", "AB13DD", "ratio", "max rel diff")
    print("{:>6} {:>10} {:>10} {:>10} {:>7} {:>13}".format(*header))
    for discrete in (False, True):
        for n in SIZES:
            ours, theirs, diffs = [], [], []
            for k in range(SYSTEMS_PER_SIZE):
                np.random.seed(1000 * n + k)  # noqa: NPY002  (rss uses the global generator)
                G = control.rss(n, 4, 4, strictly_proper=False)
                if discrete:
                    G = control.c2d(G, 0.1)
                t_ours, (gamma, _) = best_time(lambda G=G: hinfnorm(G, tol=TOL), REPEATS)
                t_ref, _ = best_time(lambda G=G: ab13dd(G, TOL), REPEATS)
                reference = ab13dd(G, 1e-12)
                ours.append(t_ours)
                theirs.append(t_ref)
                diffs.append(abs(gamma - reference) / reference)
            t_ours, t_ref = np.median(ours), np.median(theirs)
            label = "disc" if discrete else "cont"
            print(
                f"{n:>6} {label:>10} {1e3 * t_ours:>8.2f}ms {1e3 * t_ref:>8.2f}ms "
                f"{t_ours / t_ref:>7.2f} {max(diffs):>13.1e}"
            )


if __name__ == "__main__":
    main()
