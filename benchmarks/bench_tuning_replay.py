"""Cost of hinfstruct's evaluations on a fixed sequence of calls (issue 13, evaluation cost).

A run of ``hinfstruct`` asks its tuning problem for objective values and subgradients
(``objective``), multi-peak sets (``pieces``), line-search screens (``above``) and state
restorations (``rejected``).  A change of the evaluation's rounding moves the optimiser's
path, so two code versions timed on their own runs do different work.  Here:

* ``record``: one run (3 random starts, seed 0, as ``bench_tuning.py``) with every call
  of those four methods recorded (arguments and results) to a pickle;
* ``replay``: the same sequence of calls on a fresh problem built as ``hinfstruct``
  builds it, timed (the fastest of ``--rounds`` replays, each on a fresh problem), and
  the objective values compared with the recorded ones (largest relative difference:
  the two versions agree at rounding level when it is ~1e-12).  Times are the process's
  CPU time (``time.process_time``), less sensitive than wall time to other processes.

Run ``replay`` with the code versions to compare on ``PYTHONPATH``, alternately, on the
same recording: the ratio of their times is the ratio of the cost of the same
evaluations.  Printed: plant, calls of each kind, total ms, ms per objective call (all
four kinds' time over the objective calls, as ``bench_tuning.py``'s ms/ev), and the
largest relative difference of the objective values and of the pieces' largest value.

Usage: ``python benchmarks/bench_tuning_replay.py record AC6 /tmp/ac6.pkl`` then
``python benchmarks/bench_tuning_replay.py replay AC6 /tmp/ac6.pkl [--rounds 3]``
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

import robustmb as rmb
from robustmb.tuning.tuning_problem import TuningProblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tuning import load  # noqa: E402 - the benchmark's plant loader

METHODS = ("objective", "pieces", "above", "rejected")


class _Built(Exception):
    """Raised by the patched ``solve`` once ``hinfstruct`` has built its problem."""


def build(name):
    """The tuning problem ``hinfstruct`` builds for a static gain on plant ``name``."""
    P, m, _ = load(name)
    K = rmb.tunable_gain("K", m[2].shape[1], m[4].shape[0])
    solve = TuningProblem.solve

    def stop(self, *args, **kwargs):
        raise _Built(self)

    TuningProblem.solve = stop
    try:
        rmb.hinfstruct(P, K, random_start=3, seed=0)
    except _Built as built:
        return built.args[0], P, K
    finally:
        TuningProblem.solve = solve
    raise RuntimeError("hinfstruct did not build a tuning problem")


def record(name, path):
    P, m, _ = load(name)
    K = rmb.tunable_gain("K", m[2].shape[1], m[4].shape[0])
    calls, depth = [], [0]
    originals = {k: getattr(TuningProblem, k) for k in METHODS}

    def wrap(kind):
        fn = originals[kind]

        def recorded(self, x, *args, **kwargs):
            depth[0] += 1
            try:
                out = fn(self, x, *args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                calls.append((kind, np.array(x, float), args, kwargs, _summary(kind, out)))
            return out

        return recorded

    for k in METHODS:
        setattr(TuningProblem, k, wrap(k))
    try:
        res = rmb.hinfstruct(P, K, random_start=3, seed=0)
    finally:
        for k, fn in originals.items():
            setattr(TuningProblem, k, fn)
    Path(path).write_bytes(pickle.dumps(calls))
    print(f"{name}: gamma {res.gamma:.9g}, {len(calls)} calls recorded to {path}")


def _summary(kind, out):
    """The part of a result compared between versions: the objective's value, the
    pieces' largest value, the screen's verdict."""
    if kind == "objective":
        return float(out[0])
    if kind == "pieces":
        return None if out is None else float(np.max(out[0]))
    if kind == "above":
        return bool(out)
    return None


def _rel(a, b):
    if a is None or b is None or not (np.isfinite(a) and np.isfinite(b)):
        return 0.0 if a == b else np.inf
    return abs(a - b) / max(abs(b), 1e-300)


def replay(name, path, rounds):
    calls = pickle.loads(Path(path).read_bytes())
    best, diff = np.inf, {"objective": 0.0, "pieces": 0.0, "above": 0}
    spent = dict.fromkeys(METHODS, 0.0)
    for _ in range(rounds):
        problem = build(name)[0]
        this = dict.fromkeys(METHODS, 0.0)
        for kind, x, args, kwargs, ref in calls:
            fn = getattr(problem, kind)
            t0 = time.process_time()
            out = fn(x, *args, **kwargs)
            this[kind] += time.process_time() - t0
            got = _summary(kind, out)
            if kind == "above":
                diff["above"] += got != ref
            elif kind in diff:
                diff[kind] = max(diff[kind], _rel(got, ref))
        if sum(this.values()) < best:
            best, spent = sum(this.values()), this
    count = {k: sum(c[0] == k for c in calls) for k in METHODS}
    print(
        f"{name:7s} objective {count['objective']:5d} pieces {count['pieces']:5d} "
        f"above {count['above']:5d} total {1e3 * best:8.1f} ms  "
        f"ms/objective {1e3 * best / max(count['objective'], 1):6.3f}  "
        + " ".join(f"{k} {1e3 * v:7.1f}" for k, v in spent.items())
        + f"  max rel diff: objective {diff['objective']:.1e} pieces {diff['pieces']:.1e}"
        f" above {diff['above']}  load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "replay"))
    ap.add_argument("plant")
    ap.add_argument("path")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if args.mode == "record":
        record(args.plant, args.path)
    else:
        replay(args.plant, args.path, args.rounds)


if __name__ == "__main__":
    main()
