"""Multi-model tuning of the SCHEDULED arm surface on growing boxes (problem (27), issue 14).

``robust_start.py`` tuned one 3-state LTI controller on a set of plants of the box scaled
by ``lam`` about a frozen plant and reached ``lam = 0.3``; one LTI controller fails at
``lam = 0.4``.  Here the whole surface ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)`` is
tuned (``M0, M1, M2`` free), starting from such an LTI design (``M1 = M2 = 0``): one
nonsmooth min-max over an active set of frozen plants, each closed with the surface
evaluated at its own ``(t1, t2)`` (shared parameters), by
:func:`scheduled_stacked.tune` (the engine's ``TuningProblem`` on ``TunableLFT`` loops).
The objective per plant is ``max(slack ||W_e S||, ||W_T K S|| / g)`` (``goal="max"``,
``margin = 1 / slack``): below 1 on the set means both goals hold there with slack
``--slack`` on the hard goal.

Active set and box growth (``tune`` subcommand).  For each ``lam`` of ``--lams`` (boxes
scaled by ``lam`` about ``--centre``, a key of ``chained_schedule.CENTRES``, as in
``robust_start.py``), the set starts with the four ``(t1, t2)`` corners of the scaled box
(nominal), its centre, the previous box's set moved into the new box, and the
``--seed-worst`` worst loops of the current design on the screen (``--screen`` x
``--screen`` ``(t1, t2)`` x (nominal + 32 vertices) loops, :func:`guarded_descent.screen`).
After each tuning run the design is screened; if some loop is unstable or has
``gamma1 > --g1-max``, the ``--add`` worst loops join the set and the box is tuned again
(at most ``--rounds`` runs).  A met box is written (atomically) to ``OUT_lam<lam>.json``
and the box grows to the next ``lam``; the best met design (largest ``lam``, then lowest
``gamma2``) is kept in ``OUT_best.json``.  A box not met within ``--rounds`` runs (or
``--minutes``) ends the run.  Files use the layout of ``chained_schedule.py`` (``values``
with ``K.M0, K.M1, K.M2``), readable by ``lpv_synthesis.py --design`` and by
``chained_schedule.py check`` / ``store``.  Everything is sampled; nothing is certified.

Run (one process, one BLAS thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        case_studies/robotic_arm/scheduled_multimodel.py tune \\
        --start case_studies/robotic_arm/checkpoints/arm_lpv_robust_start.json \\
        --lams 0.4 0.6 0.8 1.0 --g 0.8 --slack 1.05 --minutes 25 --out /tmp/arm_sm/S

then ``chained_schedule.py check OUT_best.json --centre c --lam LAM --json CHECK.json``
and ``scheduled_multimodel.py store OUT_best.json CHECKPOINT.json --check CHECK.json
--origin "..."`` (``chained_schedule.py store`` with this driver named in the provenance).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chained_schedule as cs  # noqa: E402
import guarded_descent as gd  # noqa: E402
import scheduled_stacked as sst  # noqa: E402
from robust_start import worst_indices  # noqa: E402
from scheduled_stacked import log  # noqa: E402

HERE = Path(__file__).resolve().parent
START = HERE / "checkpoints" / "arm_lpv_robust_start.json"


def load_values(path):
    """Surface values ``K.M0, K.M1, K.M2`` from a design file (``values`` or ``lti``)."""
    return sst.load_start(path)


def x_of(values):
    """The surface vector of ``guarded_descent`` for the values."""
    return np.concatenate([np.asarray(values[f"K.M{i}"], float).ravel() for i in range(3)])


def screen_values(values, loops):
    """:func:`guarded_descent.screen` of the surface on ``loops``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gd.screen(x_of(values), loops)


def tune_set(points, values, g, slack, maxiter):
    """One multi-model run of the scheduled surface from ``values`` on ``points``.

    Returns the tuned values, the objective over the set and the time.
    """
    sst.set_values(values)
    t0 = time.perf_counter()
    new, obj = sst.tune(points, g, maxiter, goal="max", margin=1.0 / slack)
    return new, obj, time.perf_counter() - t0


def box_set(lam, centre):
    """The four ``(t1, t2)`` corners and the centre of the scaled box, nominal physics."""
    c = cs.shrunk_points(1, 0.0, centre)[0]
    r1, r2 = (gd.ELS[n].range for n in ("t1", "t2"))
    return [
        c | {"t1": c["t1"] + lam * (u - c["t1"]), "t2": c["t2"] + lam * (w - c["t2"])}
        for u in r1 for w in r2
    ] + [dict(c)]  # fmt: skip


def rescale(p, lam_old, lam_new, centre):
    """The point ``p`` of the box scaled by ``lam_old`` moved to the box scaled by ``lam_new``."""
    c = cs.shrunk_points(1, 0.0, centre)[0]
    f = lam_new / lam_old
    return {k: c[k] + f * (v - c[k]) for k, v in p.items()}


def dedupe(points):
    """``points`` without repeats (to 1e-9)."""
    seen, out = set(), []
    for p in points:
        key = tuple(round(float(p[k]), 9) for k in sorted(p))
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def record(values, lam, centre, points, sc, history, g, slack, obj):
    g1, g2, mr = gd.summary(sc)
    m = [float(np.linalg.norm(np.asarray(values[f"K.M{i}"], float), 2)) for i in range(3)]
    return dict(
        values={k: np.asarray(v).tolist() for k, v in values.items()},
        lam=lam, centre=centre, points=points, g=g, slack=slack, objective=obj,
        norms=dict(M0=m[0], M1=m[1], M2=m[2]),
        screen=dict(gamma1=g1, gamma2=g2, max_real=mr, loops=int(sc["g1"].size)),
        history=history, status="NOT certified (sampled screen only)",
    )  # fmt: skip


def tune_main(argv):
    ap = argparse.ArgumentParser(description="multi-model tuning of the scheduled surface")
    ap.add_argument("--lams", type=float, nargs="+", default=(0.4, 0.6, 0.8, 1.0))
    ap.add_argument("--lam0", type=float, default=0.3, help="box of the start's set")
    ap.add_argument("--centre", default="c", choices=sorted(cs.CENTRES))
    ap.add_argument("--slack", type=float, default=1.05)
    ap.add_argument("--g", type=float, default=0.8, help="effort level of the soft goal")
    ap.add_argument("--start", default=str(START))
    ap.add_argument("--screen", type=int, default=5)
    ap.add_argument("--seed-worst", type=int, default=4)
    ap.add_argument("--add", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--g1-max", type=float, default=0.999)
    ap.add_argument("--maxiter", type=int, default=150)
    ap.add_argument("--minutes", type=float, default=25.0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    t_end = time.time() + 60 * a.minutes
    centre = cs.CENTRES[a.centre]
    values = load_values(a.start)
    with open(a.start) as fh:
        d = json.load(fh)
    prev_set = d.get("points") or d.get("active_set") or []
    lam_prev, history, best = a.lam0, [], None
    for lam in a.lams:
        pts = cs.shrunk_points(a.screen, lam, centre)
        loops = [gd.Loop(p) for p in pts]
        t0 = time.perf_counter()
        sc = screen_values(values, loops)
        g1, g2, mr = gd.summary(sc)
        log(f"lam {lam}: start screen {len(loops)} loops gamma1 {g1:.4f} gamma2 {g2:.4f} "
            f"max real {mr:.4f} ({time.perf_counter() - t0:.0f} s)")  # fmt: skip
        history.append(dict(stage=f"lam={lam:g} start", gamma1=g1, gamma2=g2, max_real=mr))
        active = dedupe(
            box_set(lam, centre) + [rescale(p, lam_prev, lam, centre) for p in prev_set]
        )
        idx = set(worst_indices(sc, a.seed_worst))
        active += [pts[i] for i in idx]
        met = None
        for rnd in range(a.rounds):
            if time.time() > t_end:
                log("time budget spent")
                break
            new, obj, dt = tune_set(active, values, a.g, a.slack, a.maxiter)
            sc = screen_values(new, loops)
            n1, n2, nm = gd.summary(sc)
            nu = int(np.sum(sc["mr"] >= 0))
            log(f"lam {lam} round {rnd}: set {len(active)} objective {obj:.4f}; screen "
                f"gamma1 {n1:.4f} gamma2 {n2:.4f} max real {nm:.4f} unstable {nu} "
                f"({dt:.0f} s)")  # fmt: skip
            history.append(dict(stage=f"lam={lam:g}", round=rnd, set=len(active), objective=obj,
                                gamma1=n1, gamma2=n2, max_real=nm, unstable=nu,
                                seconds=round(dt, 1)))  # fmt: skip
            values = new
            if nm < 0 and n1 <= a.g1_max:
                met = record(values, lam, a.centre, active, sc, history, a.g, a.slack, obj)
                cs.write_json(f"{a.out}_lam{lam:g}.json", met)
                best = met
                cs.write_json(f"{a.out}_best.json", best)
                break
            for i in worst_indices(sc, a.add, exclude=idx):
                idx.add(i)
                active.append(pts[i])
        if met is None:
            log(f"lam {lam}: not met; run ends")
            break
        prev_set, lam_prev = active, lam
    cs.write_json(f"{a.out}_history.json", dict(history=history))
    log("best:", None if best is None else (best["lam"], best["screen"], best["norms"]))


def store_main(argv):
    """``chained_schedule.py store`` with the provenance naming this driver."""
    cs.store_main(argv)
    out = argv[1]
    with open(out) as fh:
        d = json.load(fh)
    d["provenance"] = d["provenance"].replace(
        "by case_studies/robotic_arm/chained_schedule.py:",
        "by case_studies/robotic_arm/scheduled_multimodel.py (stored by chained_schedule.py):",
    )
    cs.write_json(out, d)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "tune":
        return tune_main(sys.argv[2:])
    if len(sys.argv) > 1 and sys.argv[1] == "store":
        return store_main(sys.argv[2:])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
