"""CPU of the arm's certificate re-check: the lazy segment walk against evaluating every segment.

``frequency_intervals._interval_between`` walks the segments between candidate crossings
outward from the stored frequency, ``batch`` segments per side and evaluation.  With a
batch larger than the number of segments it evaluates every segment and every crossing
(the full evaluation, the reference): same decisions, same interval ends.  This script
re-checks the shipped evidence of both channels with both settings in the same run
(``check_frequency_certificate``, one BLAS thread), prints the CPU of each and their ratio,
and counts the frequencies whose intervals differ (expected: 0).

Usage: ``OMP_NUM_THREADS=1 python benchmarks/bench_interval_walk.py [--stride 4]``
(``--stride k``: every k-th key of each channel).
"""

from __future__ import annotations

import argparse
import functools
import time

from robustmb.analysis import frequency_certificate as fc
from robustmb.analysis import frequency_intervals as fi
from robustmb.report.arm_certificate import (
    LEVEL,
    arm_channel_problem,
    evidence_folders,
    load_evidence,
    load_shipped_design,
    sub_box_system,
)
from robustmb.report.evidence_keys import key_parts

LAZY = fi._interval_between
EVERYTHING = functools.partial(fi._interval_between, batch=10**4)  # more than any segment count


def recheck(sysdata, blk, w, x, walk):
    """CPU seconds and intervals of one key's re-check with the given walk."""
    fi._interval_between = walk
    try:
        t0 = time.process_time()
        chk = fc.check_frequency_certificate(sysdata, blk, LEVEL, w, x)
        return time.process_time() - t0, chk.intervals
    finally:
        fi._interval_between = LAZY


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stride", type=int, default=1, help="every k-th key of each channel")
    args = ap.parse_args()
    values = load_shipped_design()["values"]
    print(f"{'channel':9s} {'keys':>5s} {'freqs':>6s} {'lazy [s]':>9s} {'all [s]':>8s} "
          f"{'ratio':>6s} {'differing':>9s}")  # fmt: skip
    for channel in ("tracking", "effort"):
        meta, ev = load_evidence(evidence_folders()[channel])
        problem = arm_channel_problem(values, channel)
        keys = sorted(ev)[:: args.stride]
        lazy = full = 0.0
        freqs = differing = 0
        for key in keys:
            w, x = ev[key]
            i, j, path = key_parts(key)
            sysdata, blk = sub_box_system(problem, meta["n"], i, j, meta["gamma"], path)
            t_lazy, a = recheck(sysdata, blk, w, x, LAZY)
            t_full, b = recheck(sysdata, blk, w, x, EVERYTHING)
            lazy, full, freqs = lazy + t_lazy, full + t_full, freqs + len(w)
            differing += sum(p != q for p, q in zip(a, b, strict=True))
        print(f"{channel:9s} {len(keys):5d} {freqs:6d} {lazy:9.1f} {full:8.1f} "
              f"{lazy / full:6.2f} {differing:9d}")  # fmt: skip


if __name__ == "__main__":
    main()
