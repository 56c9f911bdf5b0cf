"""Check a design of ``scheduled_stacked.py`` independently and store it as a checkpoint.

The design (a round file or ``PREFIX_best.json`` of ``scheduled_stacked.py``) is checked
by :func:`check_design.check` (python-control loops from the substituted plant and
controller, ``||W_e S||`` and ``||W_T K S||`` by SLICOT AB13DD) on a ``grid x grid``
``(t1, t2)`` grid x (nominal + 32 vertices + ``--random`` samples), then at the nominal
physical point of the four ``(t1, t2)`` corners (the figures the slow test recomputes).
The checkpoint keeps the layout of the other design checkpoints (``provenance``,
``values``, ``checks``, ``active_set``), so ``check_design.py`` and the report loaders
read it.  Everything recorded is sampled: nothing here certifies.

Usage: ``python case_studies/robotic_arm/store_stacked.py DESIGN.json OUT.json [--grid 9]
[--random 6] [--seed 2] [--note TEXT] [--method TEXT]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_design import check  # noqa: E402


def _nominal_only(values, t1, t2):
    import control

    from robustmb.examples import arm_lpv_tuning_problem

    prob = arm_lpv_tuning_problem()
    els = prob.closed_loop.uncertainty
    nominal = {n: float(els[n].nominal) for n in ("m1", "J1", "rho1", "L2", "m3")}
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in values.items()})
    K = ctrl.usubs({"t1": t1, "t2": t2})
    G = prob.plant.usubs({"t1": t1, "t2": t2} | nominal)
    We2 = control.append(control.ss(prob.We), control.ss(prob.We))
    S = control.feedback(control.ss([], [], [], np.eye(2)), control.series(K, G))
    return dict(
        gamma1=float(control.norm(control.series(S, We2), "inf")),
        gamma2=float(control.norm(control.series(S, K), "inf")) * float(prob.WT),
        max_real=float(np.max(np.linalg.eigvals(S.A).real)),
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("design")
    ap.add_argument("out")
    ap.add_argument("--grid", type=int, default=9)
    ap.add_argument("--random", type=int, default=6)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--note", default="")
    ap.add_argument(
        "--method", default=None,
        help="how the design was found (default: the scheduled_stacked.py continuation)",
    )  # fmt: skip
    a = ap.parse_args()
    with open(a.design) as fh:
        d = json.load(fh)
    t0 = time.perf_counter()
    r = check(d["values"], a.grid, a.random, a.seed)
    dt = time.perf_counter() - t0
    key = f"grid{a.grid}x{a.grid}x{33 + a.random}"
    checks = {
        "screen": d.get("screen"),
        key: dict(
            loops=r["loops"], unstable=r["unstable"], gamma1=r["gamma1"], gamma2=r["gamma2"],
            max_pole_real=r["max_real"], where1=r["where1"], where2=r["where2"],
            seed=a.seed, seconds=round(dt, 1),
        ),
        "corners_nominal": [
            dict(t1=float(t1), t2=float(t2)) | _nominal_only(d["values"], float(t1), float(t2))
            for t1, t2 in _corners()
        ],
    }  # fmt: skip
    print(json.dumps(checks[key]))
    prov = (
        "NOT a certified design: sampled only (python-control loops, SLICOT AB13DD), no "
        "wcgain bound. Robust LPV synthesis of the arm, problem (27), by "
        + (
            a.method
            or (
                "case_studies/robotic_arm/scheduled_stacked.py (min-max of the stacked goal "
                "[W_e S; W_T K S / g] or of max(||W_e S|| / margin, ||W_T K S|| / g), from "
                f"arm_lpv_soft_phase.json; this design: g {d.get('g')}, round "
                f"{d.get('round')}, step fraction {d.get('step_fraction', 1.0)})"
            )
        )
        + ". Independent check "
        f"(check_design.py) on {r['loops']} loops ({a.grid}x{a.grid} (t1, t2) x nominal + 32 "
        f"vertices + {a.random} random, seed {a.seed}): unstable {r['unstable']}, worst "
        f"||W_e S|| {r['gamma1']:.4f}, worst ||W_T K S|| {r['gamma2']:.4f}, largest pole real "
        f"part {r['max_real']:.4f}. " + a.note
    )
    out = dict(
        provenance=prov, values=d["values"], checks=checks, active_set=d.get("points", []),
        certified=None,
    )  # fmt: skip
    with open(a.out, "w") as fh:
        json.dump(out, fh, indent=1)
    print("written", a.out)


def _corners():
    from robustmb.examples import arm_lpv_tuning_problem

    els = arm_lpv_tuning_problem().closed_loop.uncertainty
    return [(a, b) for a in els["t1"].range for b in els["t2"].range]


if __name__ == "__main__":
    main()
