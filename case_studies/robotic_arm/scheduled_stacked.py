"""Scheduled design of the arm's problem (27) on the stacked goal ``[W_e S; W_T K S / g]``.

``structure_gap.py`` showed (benchmarks/RESULTS.md, 2026-11-29) that at a frozen
configuration a 3-state LTI controller tuned by ``hinfstruct`` on the stacked problem
from random starts meets ``gamma1 = ||W_e S|| < 1`` with a ``gamma2 = ||W_T K S||``
several times below the stored designs, while starts from the stored (high-gain)
design stay high.  This driver tunes the scheduled surface
``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)`` of :func:`robustmb.examples.arm_lpv_tuning_problem`
the same way: one nonsmooth min-max over a working set of frozen plants (configuration
``(theta1, theta2)`` x physical point), each closed with the controller at its own
configuration, the objective being the largest stacked norm for a fixed ``g``
(both goals hold on the set when it is below 1).

Rounds: tune on the working set, then screen the design on an ``n x n`` ``(t1, t2)``
grid x (nominal + 32 vertices) with python-control + SLICOT AB13DD
(:func:`check_design.check`-style, sampled), add the worst screened points (largest
``max(gamma1, gamma2 / g)``) to the working set, repeat.  Every round's design is
written with its screen to ``--out``, marked not certified (a screen samples the box).

Usage: ``python case_studies/robotic_arm/scheduled_stacked.py --start START.json --g 3
[--configs 45,135 90,135 ...] [--rounds 4] [--screen 5] [--add 6] [--out PREFIX]``.
``START.json`` holds ``values`` (``K.M0``, ``K.M1``, ``K.M2``) or ``lti`` (``A, B, C, D``
in torque units, frozen into ``M0``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import warnings
from pathlib import Path

import control
import numpy as np

from robustmb.examples import arm_lpv_tuning_problem
from robustmb.lft.algebra import lft_lower
from robustmb.lft.model import as_model
from robustmb.tuning.hinfstruct import _balanced
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_problem import Term, TuningProblem

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gamma2_floor import verify  # noqa: E402
from scheduled_continuation import surface_from_lti  # noqa: E402

PHYSICAL = ["m1", "J1", "rho1", "L2", "m3"]
PROB = arm_lpv_tuning_problem()
ELS = PROB.closed_loop.uncertainty
WE2 = control.append(control.ss(PROB.We), control.ss(PROB.We))


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def sched(theta1, theta2):
    return {
        "t1": float(np.tan(np.radians(theta1) / 2)),
        "t2": float(np.tan(np.radians(theta2) / 2)),
    }


def physical(levels):
    """Physical point at ``nominal (1 + 0.2 level)``."""
    return {n: float(ELS[n].nominal) * (1 + 0.2 * s) for n, s in zip(PHYSICAL, levels, strict=True)}


def plant(point):
    """The arm frozen at ``point`` (``t1, t2`` and the five physical values)."""
    G = PROB.plant.usubs(point)
    return control.ss(G.A, G.B, G.C, G.D)


def stacked(G, g):
    """Generalised plant of ``[W_e S; W_T K S / g]`` (torque units)."""
    W2 = control.ss([], [], [], np.eye(2) * (float(PROB.WT) / g))
    return control.augw(G, WE2, W2)


def set_values(values):
    for k, v in values.items():
        PROB.controller.tunables[k].value = np.asarray(v, float)


def tune(points, g, maxiter):
    """Min-max of the stacked norm over ``points`` from the current surface values."""
    K = PROB.controller
    params = ParameterVector(K.tunables)
    loops = []
    for pt in points:
        Kc = K.usubs({"t1": pt["t1"], "t2": pt["t2"]})
        loops.append(lft_lower(as_model(_balanced(stacked(plant(pt), g))), Kc))
    lfts = [TunableLFT(cl, params) for cl in loops]
    prob = TuningProblem(params, [Term(lf) for lf in lfts], loops=lfts, multipeak=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs, best = prob.solve(maxiter=maxiter, polish="near", near=1e-2, join=1e-6)
    values = params.values(runs[best].x)
    return {k: np.asarray(v, float) for k, v in values.items()}, float(runs[best].value)


def screen(values, g, grid, n_random=0, seed=3, configs=None):
    """Sampled check: ``(gamma1, gamma2, max real, rows)``, rows sorted worst first."""
    ctrl = PROB.controller.usubs(values)
    lv = [(0,) * 5] + list(itertools.product((-1, 1), repeat=5))
    rng = np.random.default_rng(seed)
    lv += [tuple(rng.uniform(-1, 1, 5)) for _ in range(n_random)]
    if configs is None:
        r1, r2 = (ELS[n].range for n in ("t1", "t2"))
        configs = [
            {"t1": float(a), "t2": float(b)}
            for a, b in itertools.product(np.linspace(*r1, grid), np.linspace(*r2, grid))
        ]
    rows, g1m, g2m, mrm = [], 0.0, 0.0, -np.inf
    for sc in configs:
        Kc = ctrl.usubs(sc)
        Kc = control.ss(Kc.A, Kc.B, Kc.C, Kc.D)
        for levels in lv:
            pt = sc | physical(levels)
            g1, g2, mr = verify(plant(pt), Kc)
            g1m, g2m, mrm = max(g1m, g1), max(g2m, g2), max(mrm, mr)
            rows.append((max(g1, g2 / g), g1, g2, pt))
    rows.sort(key=lambda r: -r[0])
    return g1m, g2m, mrm, rows


def load_start(path):
    with open(path) as fh:
        d = json.load(fh)
    if "values" in d:
        return {k: np.asarray(v, float) for k, v in d["values"].items()}
    lti = d["lti"] if "lti" in d else d["best_lti"]
    return surface_from_lti(*(np.asarray(lti[k], float) for k in "ABCD"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", required=True)
    ap.add_argument("--g", type=float, nargs="+", default=[4.0])
    ap.add_argument("--configs", nargs="+", default=["45,135", "90,135", "45,45", "90,45"])
    ap.add_argument(
        "--levels", default="worst8", choices=("worst8", "all32", "nominal", "nomworst")
    )
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--screen", type=int, default=5)
    ap.add_argument("--add", type=int, default=6)
    ap.add_argument("--maxiter", type=int, default=150)
    ap.add_argument("--out", default="/tmp/arm_scheduled_stacked")
    ap.add_argument(
        "--resume", action="store_true",
        help="take the working set from START's 'points' and add the start screen's worst",
    )  # fmt: skip
    a = ap.parse_args()
    values = load_start(a.start)
    if a.levels == "worst8":
        lvs = [lv for lv in itertools.product((-1, 1), repeat=5) if lv[3] == -1 and lv[4] == 1]
    elif a.levels == "all32":
        lvs = list(itertools.product((-1, 1), repeat=5))
    elif a.levels == "nomworst":
        lvs = [(0,) * 5, (1, 1, 1, -1, 1)]
    else:
        lvs = [(0,) * 5]
    points = [sched(*map(float, c.split(","))) | physical(lv) for c in a.configs for lv in lvs]
    if a.resume:
        with open(a.start) as fh:
            points = json.load(fh)["points"]
    g1, g2, mr, rows = screen(values, a.g[0], a.screen)
    log(f"start: screen gamma1 {g1:.4f} gamma2 {g2:.4f} max real {mr:.4f}")
    if a.resume:
        points += [r[3] for r in rows[: a.add] if r[0] > 1]
    for g in a.g:
        for rnd in range(a.rounds):
            t0 = time.perf_counter()
            set_values(values)
            values, obj = tune(points, g, a.maxiter)
            g1, g2, mr, rows = screen(values, g, a.screen)
            log(
                f"g {g} round {rnd}: {len(points)} points, stacked {obj:.4f}; screen "
                f"{a.screen}x{a.screen}x33 gamma1 {g1:.4f} gamma2 {g2:.4f} max real {mr:.4f} "
                f"({time.perf_counter() - t0:.0f} s)"
            )
            rec = dict(
                values={k: v.tolist() for k, v in values.items()}, g=g, round=rnd,
                points=points, stacked=obj, screen=dict(grid=a.screen, gamma1=g1, gamma2=g2,
                max_real=mr), status="NOT certified (sampled screen only)",
            )  # fmt: skip
            with open(f"{a.out}_g{g}_r{rnd}.json", "w") as fh:
                json.dump(rec, fh)
            worst = [r[3] for r in rows[: a.add] if r[0] > 1]
            if not worst:
                log(f"g {g}: no screened point above 1, next g")
                break
            points += worst


if __name__ == "__main__":
    main()
