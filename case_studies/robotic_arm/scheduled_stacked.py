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

Continuation in ``g``: ``--g 13 11 9 7`` lowers the effort level step by step, each level
started from the previous level's last design (a design meeting the hard goal everywhere,
such as a stored checkpoint, is a start that is feasible for a large ``g``).  ``--seed-add``
puts the start screen's worst points into the working set before the first round.  The
design with ``gamma1 < 1`` and the smallest ``gamma2`` on the screen is kept in
``PREFIX_best.json``; with ``--fallback`` a level whose rounds end with ``gamma1 >= 1`` on
the screen hands that kept design (not its own last one) to the next level.

``--cutback F1 F2 ...``: when a round's design misses the hard goal on the screen, the
fractions ``F`` of the step from the kept design toward it are screened in turn and the
first feasible one with a lower ``gamma2`` is kept.  ``--stab-grid N`` guards stability
between the working set's configurations: the loops at an ``N x N`` ``(t1, t2)`` grid x
9 physical points (nominal; ``m1, J1, rho1`` all low or all high x ``L2``, ``m3`` at their
ends) enter the engine's stability barrier (eigenvalues only, no norm).

Usage: ``python case_studies/robotic_arm/scheduled_stacked.py --start START.json --g 3
[--configs 45,135 90,135 ...] [--rounds 4] [--screen 5] [--add 6] [--seed-add 4]
[--seed-g1 4] [--cutback 0.5 0.25] [--restart-best] [--stab-grid 7] [--fallback]
[--out PREFIX]``.
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
from robustmb.tuning.tuning_problem import TuningProblem
from robustmb.tuning.tuning_term import Term

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


class DampedProblem(TuningProblem):
    """The engine's problem with a damping barrier: every loop's poles ``p`` also satisfy
    ``-Re p >= damping |p|``.

    A guard loop with a norm-free barrier otherwise settles on a nearly undamped pole
    (damping 0.02 at 8.9 rad/s after one round from the stored design, whose smallest
    damping on the screen is 0.11), and ``||W_e S||`` there grows to 6.
    """

    damping = 0.0

    def _stable(self, x):
        if not super()._stable(x):
            return False
        for lft in self.loops:
            a = lft.statespace(x)[0]
            if a.shape[0]:
                lam = np.linalg.eigvals(a)
                if np.any(-lam.real < self.damping * np.abs(lam)):
                    return False
        return True


def tune(points, g, maxiter, stab_points=(), goal="stacked", margin=1.0, decay=None, damping=0.0):
    """Min-max over ``points`` from the current surface values.

    ``goal="stacked"``: the largest stacked norm ``||[W_e S; W_T K S / g]||``;
    ``goal="max"``: the largest of ``||W_e S|| / margin`` and ``||W_T K S|| / g`` (two
    terms per point, the screen's ranking for ``margin = 1``).  The stacked norm lies
    between that maximum and ``sqrt(2)`` times it, near the top when both goals peak at
    the same frequency, as on the high-gain stored designs.
    ``stab_points``: frozen plants whose loops only have to stay stable (the engine's
    barrier: an eigenvalue test per loop, no norm), a cheap guard for the configurations
    between the working set's.  ``decay``: every loop's poles (working set and guard,
    without the weights' poles) must have real parts ``<= -decay`` (``None``: the
    engine's default ``1e-7``, which lets a guard loop settle on a nearly undamped pole)
    and, with ``decay``, ``damping``: their damping ratios must be ``>= damping``.
    """
    K = PROB.controller
    params = ParameterVector(K.tunables)

    def loop(pt, P):
        Kc = K.usubs({"t1": pt["t1"], "t2": pt["t2"]})
        return TunableLFT(lft_lower(as_model(_balanced(P)), Kc), params)

    W2 = control.ss([], [], [], np.eye(2) * float(PROB.WT))
    if goal == "stacked":
        lfts = [loop(pt, stacked(plant(pt), g)) for pt in points]
        terms = [Term(lf) for lf in lfts]
    else:
        lfts = [loop(pt, control.augw(plant(pt), WE2)) for pt in points]
        terms = [Term(lf, scale=1 / margin) for lf in lfts]
        terms += [Term(loop(pt, control.augw(plant(pt), None, W2)), scale=1 / g) for pt in points]
    if decay is None:
        prob = TuningProblem(params, terms, loops=lfts, multipeak=True)
        prob.loops += [loop(pt, control.augw(plant(pt), WE2)) for pt in stab_points]
    else:
        # the static weight adds no states: W_e's pole at -0.01 would cap the decay
        guard = [loop(pt, control.augw(plant(pt), None, W2)) for pt in [*points, *stab_points]]
        prob = DampedProblem(params, terms, loops=guard, multipeak=True, min_decay=decay)
        prob.damping = damping
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
    ap.add_argument("--seed-add", type=int, default=0)
    ap.add_argument("--fallback", action="store_true")
    ap.add_argument("--seed-g1", type=int, default=0)
    ap.add_argument("--cutback", type=float, nargs="*", default=[])
    ap.add_argument("--restart-best", action="store_true")
    ap.add_argument("--stab-grid", type=int, default=0)
    ap.add_argument("--goal", default="stacked", choices=("stacked", "max"))
    ap.add_argument("--margin", type=float, default=1.0)
    ap.add_argument("--decay", type=float, default=None)
    ap.add_argument("--damping", type=float, default=0.0)
    ap.add_argument(
        "--g1-max", type=float, default=1.0,
        help="largest screened gamma1 of a kept design (below 1: room for the grid's gaps)",
    )  # fmt: skip
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
    points += [r[3] for r in rows[: a.seed_add]]
    points += distinct_configs(sorted(rows, key=lambda r: -r[1]), a.seed_g1)
    stab_points = []
    if a.stab_grid:
        r1, r2 = (ELS[n].range for n in ("t1", "t2"))
        # L2 and m3 decide the loop's stability margin most (screens of the rounds);
        # the other three at both ends together
        levels = [(0,) * 5] + [
            (e, e, e, l2, m3) for e in (-1, 1) for l2 in (-1, 1) for m3 in (-1, 1)
        ]  # fmt: skip
        stab_points = [
            {"t1": float(t1), "t2": float(t2)} | physical(lv)
            for t1 in np.linspace(*r1, a.stab_grid)
            for t2 in np.linspace(*r2, a.stab_grid)
            for lv in levels
        ]
    log(f"working set: {len(points)} points, stability guard: {len(stab_points)} loops")
    best = None
    if g1 < a.g1_max and mr < 0:
        best = record(values, None, None, points, None, a.screen, (g1, g2, mr, rows))
    for g in a.g:
        ok = False
        for rnd in range(a.rounds):
            t0 = time.perf_counter()
            set_values(values)
            values, obj = tune(
                points, g, a.maxiter, stab_points, a.goal, a.margin, a.decay, a.damping
            )
            scr = screen(values, g, a.screen)
            g1, g2, mr, rows = scr
            log(
                f"g {g} round {rnd}: {len(points)} points, stacked {obj:.4f}; screen "
                f"{a.screen}x{a.screen}x33 gamma1 {g1:.4f} gamma2 {g2:.4f} max real {mr:.4f} "
                f"({time.perf_counter() - t0:.0f} s)"
            )
            rec = record(values, g, rnd, points, obj, a.screen, scr)
            with open(f"{a.out}_g{g}_r{rnd}.json", "w") as fh:
                json.dump(rec, fh)
            ok = g1 < a.g1_max and mr < 0
            cand = (rec, values) if ok else None
            if not ok and best is not None and a.cutback:
                # The step of the round left the hard goal somewhere off the working set:
                # the shortest fraction of it tried first that keeps gamma1 < 1 and lowers
                # gamma2 on the screen is a feasible design closer to the round's optimum.
                b = {k: np.asarray(v, float) for k, v in best["values"].items()}
                for frac in a.cutback:
                    v = {k: b[k] + frac * (values[k] - b[k]) for k in b}
                    c = screen(v, g, a.screen)
                    log(
                        f"  cut back {frac}: gamma1 {c[0]:.4f} gamma2 {c[1]:.4f} "
                        f"max real {c[2]:.4f}"
                    )
                    if c[0] < a.g1_max and c[2] < 0 and c[1] < best["screen"]["gamma2"]:
                        cand = (record(v, g, rnd, points, None, a.screen, c, frac), v)
                        break
            if cand is not None and (
                best is None or cand[0]["screen"]["gamma2"] < best["screen"]["gamma2"]
            ):
                best = cand[0]
                with open(f"{a.out}_best.json", "w") as fh:
                    json.dump(best, fh)
                log(f"best so far: g {g} round {rnd}, screen {best['screen']}")
            worst = [r[3] for r in rows[: a.add] if r[0] > 1]
            if a.restart_best and best is not None:
                values = {k: np.asarray(v, float) for k, v in best["values"].items()}
            if not worst:
                log(f"g {g}: no screened point above 1, next g")
                break
            points += worst
        if not ok and a.fallback and best is not None:
            values = {k: np.asarray(v, float) for k, v in best["values"].items()}
            log(f"g {g}: hard goal missed on the screen, next g from the best design")


def distinct_configs(rows, n):
    """The first ``n`` points of ``rows`` at distinct ``(t1, t2)``."""
    out, seen = [], set()
    for r in rows:
        key = (round(r[3]["t1"], 12), round(r[3]["t2"], 12))
        if len(out) < n and key not in seen:
            seen.add(key)
            out.append(r[3])
    return out


def record(values, g, rnd, points, obj, grid, scr, frac=1.0):
    """A design with its working set and screen, as written to the round files."""
    g1, g2, mr, rows = scr
    w1 = max(rows, key=lambda r: r[1])[3]
    w2 = max(rows, key=lambda r: r[2])[3]
    return dict(
        values={k: np.asarray(v).tolist() for k, v in values.items()}, g=g, round=rnd,
        points=list(points), stacked=obj, step_fraction=frac,
        screen=dict(grid=grid, gamma1=g1, gamma2=g2, max_real=mr, where1=w1, where2=w2),
        status="NOT certified (sampled screen only)",
    )  # fmt: skip


if __name__ == "__main__":
    main()
