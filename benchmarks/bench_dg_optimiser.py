"""D,G upper-bound optimiser: the current ``batched_bfgs`` against the one of a git revision.

The arm's robust-performance matrices (tracking channel, stored design, one sub-box of the
8 x 8 (t1, t2) partition re-centred as ``certify_lpv_partition.py`` does, 523 D,G
parameters per frequency) at a few frequencies; :func:`robustmb.analysis.mussv.mussv_stack`
computes the upper bounds twice in the same process: with the optimiser of ``REV``
(``robustmb/analysis/mu_upper.py``'s dense-BFGS ``batched_bfgs`` as of that revision) put
in place of the current one, and as the code is now.  Everything else (objective,
stages, stopping rules, certificate check) is the same code.

Two modes, as the sweep uses them: ``full`` (no target: optimised to convergence, as
``tighten_points`` does) and ``target`` (stop once below the sweep's level 1 / 1.001).
``--old bfgs`` takes only REV's optimiser, ``--old all`` (default) also its D,G
parametrisation (dense parameter-to-entry maps); ``--nfreq K`` keeps the first ``K``
frequencies.  Printed: the bounds of both, their ratio and largest difference, objective evaluations
(load-independent), and the times with their ratio.

Run from the repository root: ``python benchmarks/bench_dg_optimiser.py [--rev REV]
[--box I,J] [--gamma G] [--repeat K]`` (slow: minutes per mode on a loaded machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, os.path.join(ROOT, "case_studies", "robotic_arm"))

from bench_arm_wcgain import arm_channel  # noqa: E402
from bench_real_parameters import module_at  # noqa: E402
from certify_lpv_partition import sub_box  # noqa: E402

from robustmb.analysis import mu_upper  # noqa: E402
from robustmb.analysis.branch_and_bound import channel_matrix, recentre_system  # noqa: E402
from robustmb.analysis.freqresp import freqresp  # noqa: E402
from robustmb.analysis.mussv import mussv_stack  # noqa: E402
from robustmb.analysis.uncertain_problem import uncertain_problem  # noqa: E402

DESIGN = os.path.join(ROOT, "case_studies", "robotic_arm", "checkpoints", "arm_lpv_hard.json")
# the sensitivity hump and omega = 0 first (--nfreq keeps a prefix)
FREQUENCIES = np.array([9.5, 0.0, 6.3, 20.0, 0.9, 3.0, 8.55, 10.45, 60.0, 200.0])


def arm_matrices(i, j, gamma, n=8, omega=FREQUENCIES):
    """Robust-performance matrices of sub-box ``(i, j)`` at level ``gamma`` and ``blk``."""
    problem = uncertain_problem(arm_channel("tracking", design=DESIGN))
    names = [b.name for b in problem.blocks]
    chan = channel_matrix(problem)
    c, r = sub_box(names, n, i, j)
    full = (problem.a, problem.b, problem.c, problem.d)
    a, b, c_, d = recentre_system(full, problem.nw, problem.nz, chan @ c, chan @ r)
    nz = problem.nz
    c_, d = c_.copy(), d.copy()
    c_[nz:] /= gamma
    d[nz:] /= gamma
    ny, nu = problem.model.shape
    return freqresp((a, b, c_, d), omega), [*problem.blk, (nu, ny)]


class Counter:
    """Counts the calls of ``mu_upper.scaled_objective`` and the problems evaluated."""

    def __init__(self):
        self.calls = self.rows = 0
        self.inner = mu_upper.scaled_objective

    def __call__(self, M, x, param, t=None):
        self.calls += 1
        self.rows += x.shape[0]
        return self.inner(M, x, param, t)


def run(M, blk, impl, target):
    """Upper bounds of ``M`` with ``impl = (batched_bfgs, ScalingParametrization)``."""
    mu_upper.batched_bfgs, mu_upper.ScalingParametrization = impl
    count = Counter()
    mu_upper.scaled_objective = count
    try:
        t0 = time.perf_counter()
        res = mussv_stack(M, blk, lower=False, target=target)
        dt = time.perf_counter() - t0
    finally:
        mu_upper.scaled_objective = count.inner
    return np.asarray(res.upper, float), dt, count


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", default="bfbf034", help="revision with the dense-BFGS optimiser")
    ap.add_argument("--box", default="6,1")
    ap.add_argument("--gamma", type=float, default=0.95)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--modes", default="full,target")
    ap.add_argument("--old", choices=["all", "bfgs"], default="all")
    ap.add_argument("--nfreq", type=int, default=len(FREQUENCIES))
    args = ap.parse_args()
    i, j = (int(v) for v in args.box.split(","))
    M, blk = arm_matrices(i, j, args.gamma, omega=FREQUENCIES[: args.nfreq])
    from robustmb.analysis.mu_upper import n_scaling_parameters

    print(f"sub-box ({i},{j}), gamma {args.gamma}, {len(M)} frequencies, "
          f"{n_scaling_parameters(blk)} D,G parameters, M {M.shape[1]}x{M.shape[2]}")  # fmt: skip
    new = (mu_upper.batched_bfgs, mu_upper.ScalingParametrization)
    was = module_at(args.rev, "mu_upper")
    # "bfgs": only the optimiser of REV; "all": its D,G parametrisation (dense maps) too
    old = (was.batched_bfgs, was.ScalingParametrization if args.old == "all" else new[1])
    for mode in args.modes.split(","):
        target = None if mode == "full" else 1.0 / 1.001
        for rep in range(args.repeat):
            # alternate the order so that a load change does not favour one side
            order = [("old", old), ("new", new)] if rep % 2 == 0 else [("new", new), ("old", old)]
            out = {}
            for name, fn in order:
                out[name] = run(M, blk, fn, target)
            (uo, to, co), (un, tn, cn) = out["old"], out["new"]
            print(f"[{mode} #{rep}] old {to:.1f} s, {co.calls} calls / {co.rows} evaluations; "
                  f"new {tn:.1f} s, {cn.calls} calls / {cn.rows} evaluations; "
                  f"time ratio old/new {to / tn:.2f}")  # fmt: skip
            print(f"    bound ratio new/old: min {np.min(un / uo):.6f} max {np.max(un / uo):.6f}; "
                  f"max |new - old| {np.max(np.abs(un - uo)):.2e}")  # fmt: skip
            print("    old", np.array2string(uo, precision=5, max_line_width=200))
            print("    new", np.array2string(un, precision=5, max_line_width=200))
    mu_upper.batched_bfgs, mu_upper.ScalingParametrization = new


if __name__ == "__main__":
    main()
