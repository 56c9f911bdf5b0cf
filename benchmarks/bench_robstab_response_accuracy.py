"""robstab's certified lower bound on ill-conditioned loops against an exact reference.

Family: the 4-state loops ``A0 + k u v`` of ``tests/analysis/rank_one_loops.py`` (seeds
0..699) whose ``cond(A)`` lies in ``[1e8, 1e14]``; the reference margin comes from the
rational characteristic polynomial and mpmath (no robustmb code).  Counts the certified
lower bounds above it (false), those that are positive, and the CPU time.
Ordinary loops: 200 random stable 3..6-state loops with 1..3 real parameters (moderate
conditioning); prints the CPU time and, with ``--compare FILE`` (the JSON this script
wrote with another checkout on ``PYTHONPATH``), the largest relative change of ``lower``.
Run: ``python benchmarks/bench_robstab_response_accuracy.py [--out FILE] [--compare FILE]``.
"""

import argparse
import json
import pathlib
import sys
import time
import warnings

import numpy as np
import scipy.linalg as sla

import robustmb as rmb

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "analysis"))
from rank_one_loops import exact_margin, rank_one_loop  # noqa: E402


def ordinary(seed):
    """A stable loop with well-separated, moderately damped modes in a mild basis."""
    rng = np.random.default_rng(10_000 + seed)
    n = int(rng.integers(3, 7))
    npar = int(rng.integers(1, 4))
    T = rng.standard_normal((n, n)) + 3 * np.eye(n)
    blocks = []
    while sum(b.shape[0] for b in blocks) < n:
        if n - sum(b.shape[0] for b in blocks) >= 2 and rng.random() < 0.6:
            wr = 10 ** rng.uniform(-1, 2)
            z = rng.uniform(0.02, 0.5)
            blocks.append(np.array([[-z * wr, wr], [-wr, -z * wr]]))
        else:
            blocks.append(np.array([[-(10 ** rng.uniform(-1, 1.5))]]))
    A = T @ sla.block_diag(*blocks)[:n, :n] @ np.linalg.inv(T)
    for i in range(npar):
        k = rmb.ureal(f"k{i}", 0.0, range=(-1.0, 1.0))
        A = A + k * np.outer(rng.standard_normal(n), rng.standard_normal(n)) * 10 ** rng.uniform(
            -1, 0.5
        )
    return rmb.uss(A, rng.standard_normal((n, 1)), rng.standard_normal((1, n)), np.zeros((1, 1)))


def timed(loop):
    start = time.process_time()
    res = rmb.robstab(loop, sensitivity=False)
    return res, time.process_time() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out")
    parser.add_argument("--compare")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    family, false, positive, t_family = 0, [], 0, 0.0
    for seed in range(700):
        loop, (A, b, c) = rank_one_loop(seed)
        if not 1e8 <= np.linalg.cond(A) <= 1e14:
            continue
        res, t = timed(loop)
        ref = exact_margin(A, b, c)
        family += 1
        t_family += t
        positive += res.lower > 0
        if res.lower > ref:
            false.append((seed, res.lower, ref))
    print(f"family: {family} loops, {positive} with lower > 0, {len(false)} false: {false}")
    print(f"family CPU time {t_family:.1f} s")
    lowers, t_ord = {}, 0.0
    for seed in range(200):
        res, t = timed(ordinary(seed))
        lowers[seed] = res.lower
        t_ord += t
    print(f"ordinary: 200 loops, CPU time {t_ord:.2f} s")
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps({"lower": lowers, "time": t_ord}))
    if args.compare:
        other = json.loads(pathlib.Path(args.compare).read_text())
        change = max(
            abs(lowers[s] - other["lower"][str(s)]) / other["lower"][str(s)]
            for s in lowers
            if other["lower"][str(s)] > 0
        )
        ratio = t_ord / other["time"]
        print(f"largest relative change of lower: {change:.3g}; time ratio {ratio:.3f}")


if __name__ == "__main__":
    main()
