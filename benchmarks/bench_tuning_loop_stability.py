"""Cost of the whole-loop robust stability proof in robust tuning's certificate.

A goal's certificate now needs ``robstab`` of the whole tuned closed loop (every state,
including modes no goal's transfer sees) besides each goal's ``wcgain``.  Measured in
one run, per loop: the time of that ``robstab`` and of the goals' ``wcgain``
certificates on the same tuned loop, and their ratio; plus the outcome on a loop whose
second, fixed loop ``1 / (s - c)`` under the gain 2 is unstable for ``c > 2`` (no goal
sees it): its goals' ``wcgain`` bounds are finite, the loop's margin is below 1.

Usage: ``python benchmarks/bench_tuning_loop_stability.py``
"""

from __future__ import annotations

import control
from _timing import best_time

import robustmb as rmb
from robustmb.tuning import WeightedGain


def _loop(c_hi=None):
    s = control.tf("s")
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    G = rmb.uss(1 / (s - a))
    G.input_names, G.output_names, G.name = ["v"], ["y"], "G"
    K = rmb.tunable_gain("K", 1, 1)
    K.input_names, K.output_names = ["e"], ["u"]
    if c_hi is None:
        S = control.ss(
            [],
            [],
            [],
            [[1, -1, 0, 0], [0, 0, 1, 1]],
            name="S",
            inputs=["r", "y", "u", "d"],
            outputs=["e", "v"],
        )
        return rmb.connect([G, K, S], None, ["r", "d"], ["y", "u"])
    c = rmb.ureal("c", 1.0, range=(0.5, c_hi))
    G2 = rmb.uss(1 / (s - c))
    G2.input_names, G2.output_names, G2.name = ["v2"], ["y2"], "G2"
    S = control.ss(
        [],
        [],
        [],
        [[1, -1, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, -2, 1]],
        name="S",
        inputs=["r", "y", "u", "d", "y2", "r2"],
        outputs=["e", "v", "v2"],
    )
    return rmb.connect([G, G2, K, S], None, ["r", "d", "r2"], ["y", "u", "y2"])


def main():
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    print(f"{'loop':34s} {'robstab s':>10s} {'wcgain s':>10s} {'ratio':>7s}  margin / bounds")
    for label, c_hi in (
        ("unstable pole, K = 4", None),
        ("+ hidden loop, c in [0.5, 1.9]", 1.9),
        ("+ hidden loop, c in [0.5, 3.0]", 3.0),
    ):
        tuned = _loop(c_hi).usubs({"K": [[4.0]]})
        t_rs, rs = best_time(lambda t=tuned: rmb.robstab(t, sensitivity=False))
        models = [g.model(tuned) for g in goals]
        t_wc, wc = best_time(lambda ms=models: [rmb.wcgain(m * sc) for m, _, sc, _ in ms])
        bounds = ", ".join(f"[{w.lower:.5g}, {w.upper:.5g}]" for w in wc)
        print(
            f"{label:34s} {t_rs:10.3f} {t_wc:10.3f} {t_rs / t_wc:7.2f}  "
            f"[{rs.lower:.5g}, {rs.upper:.5g}] / {bounds}"
        )


if __name__ == "__main__":
    main()
