"""Independent check of a stored arm design: python-control loops, SLICOT AB13DD norms.

The tuning engine evaluates the goals through the closed loop's LFT (``_DeltaMap``) and
its own peak-gain routine.  This script checks a design without either: for each
``(t1, t2)`` of an ``n x n`` grid it substitutes the plant ``two_link_arm`` and the tuned
controller ``K(s, tau)`` separately (``usubs``), closes the error-feedback loop with
python-control (``S = (I + G K)^-1``), tests stability from the eigenvalues of the
loop's A matrix and evaluates ``||W_e S||`` and ``||W_T K S||`` with ``control.norm``
(SLICOT AB13DD through slycot).  The physical parameters ``m1, J1, rho1, L2, m3`` take
the nominal point, the 32 vertices of their box and ``--random`` uniform samples.

This samples the box: it does not certify anything (``wcgain`` does).

Usage: ``python case_studies/robotic_arm/check_design.py CHECKPOINT [--grid 7]
[--random 6] [--seed 1] [--stability-grid 15]`` (``--stability-grid``: a finer grid
checked for stability only).  Prints the worst values, where they occur and the
largest closed-loop pole real part.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import control
import numpy as np

from robustmb.examples import arm_lpv_tuning_problem

PHYSICAL = ["m1", "J1", "rho1", "L2", "m3"]


def physical_points(els, n_random, seed):
    """Nominal point, the 32 vertices and ``n_random`` uniform samples of the five."""
    verts = [
        {n: float(els[n].range[i]) for n, i in zip(PHYSICAL, idx, strict=True)}
        for idx in itertools.product((0, 1), repeat=5)
    ]
    rng = np.random.default_rng(seed)
    rand = [{n: float(rng.uniform(*els[n].range)) for n in PHYSICAL} for _ in range(n_random)]
    return [{n: float(els[n].nominal) for n in PHYSICAL}] + verts + rand


def check(values, grid=7, n_random=6, seed=1, norms=True, ranges=None):
    """Worst ``||W_e S||``, ``||W_T K S||`` and pole real part over the sampled box.

    ``ranges`` (``((t1_lo, t1_hi), (t2_lo, t2_hi))``) restricts the ``grid x grid``
    (t1, t2) points to a sub-box; by default the whole scheduling square.

    Returns a dict with ``gamma1``, ``gamma2`` (worst values, ``nan`` without norms),
    ``where1``, ``where2`` (their points), ``max_real`` (largest closed-loop pole real
    part), ``unstable`` (number of unstable loops) and ``loops`` (loops checked).
    """
    prob = arm_lpv_tuning_problem()
    els = prob.closed_loop.uncertainty
    ctrl = prob.controller.usubs({k: np.asarray(v, float) for k, v in values.items()})
    We2 = control.append(control.ss(prob.We), control.ss(prob.We))
    eye = control.ss([], [], [], np.eye(2))
    pts = physical_points(els, n_random, seed)
    out = {"gamma1": 0.0, "gamma2": 0.0, "where1": None, "where2": None}
    out |= {"max_real": -np.inf, "unstable": 0, "loops": 0}
    if ranges is None:
        ranges = [els[n].range for n in ("t1", "t2")]
    for t1, t2 in itertools.product(*(np.linspace(*r, grid) for r in ranges)):
        sched = {"t1": float(t1), "t2": float(t2)}
        K = ctrl.usubs(sched)
        for pt in pts:
            G = prob.plant.usubs(sched | pt)
            S = control.feedback(eye, control.series(K, G))  # (I + G K)^-1
            out["loops"] += 1
            mr = float(np.max(np.linalg.eigvals(S.A).real))
            out["max_real"] = max(out["max_real"], mr)
            if mr >= 0:
                out["unstable"] += 1
                continue
            if not norms:
                continue
            g1 = control.norm(control.series(S, We2), "inf")
            g2 = control.norm(control.series(S, K), "inf") * prob.WT
            if g1 > out["gamma1"]:
                out["gamma1"], out["where1"] = float(g1), sched | pt
            if g2 > out["gamma2"]:
                out["gamma2"], out["where2"] = float(g2), sched | pt
    if not norms:
        out["gamma1"] = out["gamma2"] = np.nan
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--grid", type=int, default=7)
    ap.add_argument("--random", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stability-grid", type=int, default=0)
    args = ap.parse_args()
    with open(args.checkpoint) as fh:
        values = json.load(fh)["values"]
    t0 = time.perf_counter()
    r = check(values, args.grid, args.random, args.seed)
    print(
        f"{r['loops']} loops ({args.grid}x{args.grid} (t1, t2) x {33 + args.random} "
        f"parameter points), unstable {r['unstable']}, max pole real part "
        f"{r['max_real']:.4g}, {time.perf_counter() - t0:.1f} s"
    )
    print(f"worst ||W_e S||   = {r['gamma1']:.4f} at {r['where1']}")
    print(f"worst ||W_T K S|| = {r['gamma2']:.4f} at {r['where2']}")
    if args.stability_grid:
        t0 = time.perf_counter()
        s = check(values, args.stability_grid, args.random, args.seed, norms=False)
        print(
            f"stability: {s['loops']} loops on a {args.stability_grid}^2 grid, unstable "
            f"{s['unstable']}, max pole real part {s['max_real']:.4g}, "
            f"{time.perf_counter() - t0:.1f} s"
        )


if __name__ == "__main__":
    main()
