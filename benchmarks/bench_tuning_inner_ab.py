"""Same-process A/B of hinfstruct's inner H-infinity evaluation: AB13DD path on and off.

Per COMPleib plant, ``hinfstruct`` with a static gain (``random_start`` extra runs, the
same seed) is run with ``robustmb.tuning.hinf_slicot.ENABLED`` True (SLICOT AB13DD's
peak checked by one level set) and False (the Python level sets only), alternated
``--reps`` times in one process; the fastest CPU time of each is kept.  The two are
different optimisation paths (a nonsmooth run is steered by every digit of its inner
values), so the load-independent comparison is the CPU time per objective evaluation
(``ms/ev``), printed with the evaluation counts and both gammas (each re-verified by
``hinfnorm``, as every run's value is).

Usage: ``python benchmarks/bench_tuning_inner_ab.py [--plants AC15,HE2] [--reps 2]``
"""

from __future__ import annotations

import argparse
import os
import time

import bench_tuning as bt

import robustmb as rmb
import robustmb.tuning.hinf_slicot as slicot


def run(name, nstarts, seed, enabled):
    P, m, _ = bt.load(name)
    K = rmb.tunable_gain("K", m[2].shape[1], m[4].shape[0])
    saved, slicot.ENABLED = slicot.ENABLED, enabled
    try:
        res, t, count = bt.counted_hinfstruct(P, K, nstarts, seed, clock=time.process_time)
    finally:
        slicot.ENABLED = saved
    return res.gamma, t, count[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plants", default="AC15,HF2D11,AC2,AC6,AC7,AC17,HE1,HE2,REA1,REA2")
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    print(
        f"{'plant':7s} {'gamma_ab':>11s} {'gamma_py':>11s} {'t_ab[s]':>8s} {'t_py[s]':>8s} "
        f"{'ev_ab':>6s} {'ev_py':>6s} {'ms/ev ab':>8s} {'ms/ev py':>8s} {'ratio':>6s} load"
    )
    for name in args.plants.split(","):
        best = {True: None, False: None}
        for _ in range(args.reps):
            for enabled in (True, False):
                g, t, ev = run(name, args.starts, args.seed, enabled)
                if best[enabled] is None or t < best[enabled][1]:
                    best[enabled] = (g, t, ev)
        (ga, ta, ea), (gp, tp, ep) = best[True], best[False]
        ma, mp = 1e3 * ta / max(ea, 1), 1e3 * tp / max(ep, 1)
        print(
            f"{name:7s} {ga:11.6g} {gp:11.6g} {ta:8.2f} {tp:8.2f} {ea:6d} {ep:6d} "
            f"{ma:8.3f} {mp:8.3f} {ma / mp:6.2f} {os.getloadavg()[0]:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
