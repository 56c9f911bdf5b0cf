"""Worst-case gain of one channel of a stacked loop: indexed (structurally reduced) vs not.

``vstack(T, S, KS)["e", "r"]`` keeps, without the structural reduction, the states and
uncertainty occurrences of all three stacked closed loops (10 states, k: 3, tau: 6); with
it, exactly those of S built alone (3 states, k: 1, tau: 2).  Prints the bounds, the
times and their ratio measured in this run, with a brute-force reference of the peak.

Run: ``PYTHONPATH=$PWD python benchmarks/bench_channel_selection.py``
"""

import time

import control
import numpy as np

import robustmb as rmb
from robustmb.lft.algebra import select


def main():
    s = control.tf("s")
    k = rmb.ureal("k", 2.0, percent=30)
    tau = rmb.ureal("tau", 0.2, percent=40)
    loop = k / (s * (tau * s + 1)) * control.ss(2 * (s + 1) / (0.05 * s + 1))
    ctrl = control.ss(2 * (s + 1) / (0.05 * s + 1))
    sens = rmb.feedback(1, loop)
    stack = rmb.vstack(rmb.feedback(loop, 1), sens, ctrl * sens)
    stack.input_names, stack.output_names = ["r"], ["y", "e", "u"]
    unreduced = select(stack, [1], [0])
    indexed = stack["e", "r"]
    rows = []
    for name, model in [("unreduced selection", unreduced), ("indexed (sminreal)", indexed)]:
        t0 = time.perf_counter()
        res = rmb.wcgain(model)
        rows.append((name, model, res, time.perf_counter() - t0))
    w = np.geomspace(1e-2, 1e3, 3000)
    brute = 0.0
    for kk in np.linspace(1.4, 2.6, 25):
        for tt in np.linspace(0.12, 0.28, 25):
            sj = 1j * w
            lj = kk / (sj * (tt * sj + 1)) * 2 * (sj + 1) / (0.05 * sj + 1)
            brute = max(brute, float(np.max(np.abs(1 / (1 + lj)))))
    print(f"brute-force peak over a 25x25 parameter grid: {brute:.6f}")
    for name, model, res, dt in rows:
        print(
            f"{name:22s} {model.nstates:2d} states, occurrences {model.blocks}: "
            f"[{res.lower:.6f}, {res.upper:.6f}] in {dt:.1f} s"
        )
    print(f"speed-up of the indexed channel: {rows[0][3] / rows[1][3]:.1f}x")


if __name__ == "__main__":
    main()
