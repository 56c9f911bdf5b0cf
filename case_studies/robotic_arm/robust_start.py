"""Robust start of the scheduled arm design (problem (27), issue 14): one 3-state LTI
controller tuned on several plants of a small box at once, then grown.

``chained_schedule.py`` grew a scheduled design from a 3-state controller tuned at ONE
frozen plant and stalled at 13.75 % of the box: such controllers use up the hard goal
exactly at their plant.  Here the start is tuned on a SET of plants of the box scaled by
``lam`` about a frozen plant (``--centre``, a key of ``chained_schedule.CENTRES``; every
point ``p`` moved to ``centre + lam (p - centre)``), by the engine's multi-model
``rmb.hinfstruct`` on the stacked problem ``[H W_e S; W_T K S / g]`` (one controller, the
worst plant's norm minimised), with slack ``H`` (``--slack``) on the hard goal and the
effort level ``g`` stepped down (``--gs``), each level started from the previous result.

Active set (``tune`` subcommand).  The set starts with the four ``(t1, t2)`` corners of
the scaled box (nominal parameters), its centre, and the ``--seed-worst`` worst loops of
the start controller on the screen.  After each ``hinfstruct`` run the design is screened
on ``--screen`` x ``--screen`` ``(t1, t2)`` x (nominal + 32 vertices) loops of the scaled
box (:func:`guarded_descent.screen`: poles, AB13DD and a frequency grid); if some loop is
unstable or has ``gamma1 > --g1-max``, its ``--add`` worst loops join the set and the same
level is tuned again (at most ``--rounds`` times); otherwise the design is accepted and
``g`` steps down (each round starts from the previous round's result, whether or not its
stacked norm over the set reached 1).  A level not met on the screen within ``--rounds``
runs ends the chain.

Every accepted design is written (atomically) to ``OUT_g<g>.json`` and the best (lowest
screened ``gamma2`` with the screen met) to ``OUT_best.json``, in the layout of
``chained_schedule.py`` / ``scheduled_stacked.py`` (``values`` with ``K.M0`` and ``K.M1 =
K.M2 = 0``, readable by ``lpv_synthesis.py --design``, ``chained_schedule.py --start``,
``check`` and ``store``), with ``lam``, ``centre``, ``lti`` (torque units), the active set
(``points``) and the history.  The growth stage is ``chained_schedule.py``'s box
continuation from that file (``--start OUT_best.json --centre c --grow LAM STEP``): it
frees ``M1``, ``M2`` and grows ``lam``.  Everything is sampled; nothing is certified.

Run (one process, one BLAS thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        case_studies/robotic_arm/robust_start.py tune --lam 0.1 --slack 1.1 \\
        --gs 0.8 0.6 0.5 --out /tmp/arm_rs/L10
    OMP_NUM_THREADS=1 nice -n 10 python case_studies/robotic_arm/chained_schedule.py \\
        --start /tmp/arm_rs/L10_best.json --centre c --grow 0.1 0.025 --grow-g1 1.03 \\
        --delta 0.005 --g1-max 0.9995 --c1 0.995 --screen 5 --minutes 20 --out /tmp/arm_rs/G10

The stored checkpoints came from (2026-12-01, ``OUT`` in ``/tmp/arm_rs``)::

    robust_start.py tune --lam 0.1 --slack 1.1 --gs 1.5 1.0 0.8 0.6 0.5 0.45 --out L10
    robust_start.py tune --lam 0.2 --slack 1.1 --gs 1.5 1.0 0.8 --rounds 3 \
        --start L10_g1.json --minutes 12 --out L20
    robust_start.py tune --lam 0.3 --slack 1.1 --gs 1.5 1.0 --rounds 3 \
        --start L20_best.json --minutes 9 --out L30
    chained_schedule.py check L30_best.json --grid 11 --random 300 --centre c --lam 0.3 \
        --json CHECK_L30.json
    chained_schedule.py store L30_best.json arm_lpv_robust_start.json --check CHECK_L30.json \
        --start-file L20_best.json --origin "..."

and ``arm_lpv_robust_start_grown.json`` from ``chained_schedule.py --start L20_best.json
--centre c --grow 0.2 0.025 --grow-g1 1.03 --delta 0.005 --g1-max 0.9995 --c1 0.995
--screen 5`` (stopped by hand at ``lam = 0.25``), checked and stored the same way.

The default start is the lti stored with ``checkpoints/arm_lpv_chained_subbox.json``
(the order-study controller (c) retuned at its plant with ``||1.15 W_e S|| <= 1``);
``--start FILE`` takes a JSON file with ``lti`` (torque units).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import control
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chained_schedule as cs  # noqa: E402
import guarded_descent as gd  # noqa: E402
from scheduled_continuation import surface_from_lti  # noqa: E402
from scheduled_stacked import log  # noqa: E402
from structure_gap import WE  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.examples.arm_lpv import OUTPUT_SCALE  # noqa: E402

HERE = Path(__file__).resolve().parent
SUBBOX = HERE / "checkpoints" / "arm_lpv_chained_subbox.json"


def plant_at(p):
    """The frozen arm (python-control) at the parameter point ``p``."""
    Gs = gd.PROB.plant.usubs(p)
    return control.ss(Gs.A, Gs.B, Gs.C, Gs.D)


def stacked_slack(G, g, slack):
    """Generalised plant of ``[slack W_e S; W_T K S / g]`` with the control scaled by 100."""
    W1 = control.append(WE, WE) * slack
    W2 = control.ss([], [], [], np.eye(2) * (gd.WT / g))
    return control.augw(G * OUTPUT_SCALE, W1, W2 * OUTPUT_SCALE)


def load_lti(path):
    """``(A, B, C, D)`` in torque units from a JSON file with ``lti`` (or ``start.lti``)."""
    with open(path) as fh:
        d = json.load(fh)
    lti = d["lti"] if "lti" in d else d["start"]["lti"]
    return tuple(np.asarray(lti[k], float) for k in "ABCD")


def x_of(lti):
    """The surface vector of ``guarded_descent`` for the LTI controller (``M1 = M2 = 0``)."""
    v = surface_from_lti(*lti)
    return np.concatenate([np.asarray(v[f"K.M{i}"], float).ravel() for i in range(3)])


def tune_set(points, lti, g, slack, maxiter):
    """One multi-model ``hinfstruct`` run from ``lti`` on the plants at ``points``.

    Returns the stacked norm over the set, the tuned ``lti`` (torque units) and the time.
    """
    A, B, C, D = lti
    K = rmb.tunable_ss("K", A.shape[0], 2, 2)
    for name, M in zip(("K.A", "K.B", "K.C", "K.D"), (A, B, C / OUTPUT_SCALE,
                                                       D / OUTPUT_SCALE), strict=True):  # fmt: skip
        K.tunables[name].value = np.asarray(M, float)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.hinfstruct(
            [stacked_slack(plant_at(p), g, slack) for p in points], K, maxiter=maxiter
        )
    Kc = res.controller
    out = tuple(np.asarray(M, float) for M in (Kc.A, Kc.B, Kc.C, Kc.D))
    out = (out[0], out[1], OUTPUT_SCALE * out[2], OUTPUT_SCALE * out[3])
    return float(res.gamma), out, time.perf_counter() - t0


def screen_lti(lti, loops):
    """:func:`guarded_descent.screen` of the LTI controller on ``loops``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gd.screen(x_of(lti), loops)


def worst_indices(sc, count, exclude=()):
    """The ``count`` worst loops: unstable ones first (by pole real part), then by gamma1."""
    key = np.where(sc["mr"] >= 0, 1e6 + sc["mr"], sc["g1"])
    order = [int(i) for i in np.argsort(-key) if int(i) not in exclude]
    return order[:count]


def record(lti, lam, centre, points, sc, history, g, slack, stacked):
    g1, g2, mr = gd.summary(sc)
    v = surface_from_lti(*lti)
    return dict(
        values={k: np.asarray(m).tolist() for k, m in v.items()},
        lti={k: np.asarray(m).tolist() for k, m in zip("ABCD", lti, strict=True)},
        lam=lam, centre=centre, points=points, g=g, slack=slack, stacked=stacked,
        screen=dict(gamma1=g1, gamma2=g2, max_real=mr, loops=int(sc["g1"].size)),
        history=history, status="NOT certified (sampled screen only)",
    )  # fmt: skip


def tune_main(argv):
    ap = argparse.ArgumentParser(description="multi-model robust start on a scaled box")
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--centre", default="c", choices=sorted(cs.CENTRES))
    ap.add_argument("--slack", type=float, default=1.1, help="hard goal ||H W_e S|| in the set")
    ap.add_argument("--gs", type=float, nargs="+", default=(0.8, 0.6, 0.5))
    ap.add_argument("--start", default=str(SUBBOX))
    ap.add_argument("--screen", type=int, default=5)
    ap.add_argument("--seed-worst", type=int, default=4)
    ap.add_argument("--add", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--g1-max", type=float, default=0.999)
    ap.add_argument("--maxiter", type=int, default=200)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    t_end = time.time() + 60 * a.minutes
    centre = cs.CENTRES[a.centre]
    pts = cs.shrunk_points(a.screen, a.lam, centre)
    loops = [gd.Loop(p) for p in pts]
    lti = load_lti(a.start)
    t0 = time.perf_counter()
    sc = screen_lti(lti, loops)
    g1, g2, mr = gd.summary(sc)
    nu = int(np.sum(sc["mr"] >= 0))
    dt = time.perf_counter() - t0
    log(f"start: {len(loops)} loops, lam {a.lam}: gamma1 {g1:.4f} gamma2 {g2:.4f} max real "
        f"{mr:.4f} unstable {nu} ({dt:.0f} s)")  # fmt: skip
    # the set: (t1, t2) corners and centre of the scaled box at nominal, and the start's worst
    c = cs.shrunk_points(1, 0.0, centre)[0]
    r1, r2 = (gd.ELS[n].range for n in ("t1", "t2"))
    active = [
        c | {"t1": c["t1"] + a.lam * (u - c["t1"]), "t2": c["t2"] + a.lam * (w - c["t2"])}
        for u in r1 for w in r2
    ] + [dict(c)]  # fmt: skip
    idx = set()
    for i in worst_indices(sc, a.seed_worst):
        idx.add(i)
        active.append(pts[i])
    history = [dict(stage="start", gamma1=g1, gamma2=g2, max_real=mr, set=len(active))]
    best = None
    for g in a.gs:
        cur = None
        for rnd in range(a.rounds):
            if time.time() > t_end:
                break
            st, new, dt = tune_set(active, lti, g, a.slack, a.maxiter)
            sc_new = screen_lti(new, loops)
            n1, n2, nm = gd.summary(sc_new)
            nu = int(np.sum(sc_new["mr"] >= 0))
            log(f"g {g:g} round {rnd}: set {len(active)} stacked {st:.4f}; screen "
                f"gamma1 {n1:.4f} gamma2 {n2:.4f} max real {nm:.4f} unstable {nu} "
                f"({dt:.0f} s)")  # fmt: skip
            history.append(dict(stage=f"g={g:g}", round=rnd, set=len(active), stacked=st,
                                gamma1=n1, gamma2=n2, max_real=nm, unstable=nu,
                                seconds=round(dt, 1)))  # fmt: skip
            lti = new
            if nm < 0 and n1 <= a.g1_max:
                cur = record(lti, a.lam, a.centre, active, sc_new, history, g, a.slack, st)
                cs.write_json(f"{a.out}_g{g:g}.json", cur)
                if best is None or n2 < best["screen"]["gamma2"]:
                    best = cur
                    cs.write_json(f"{a.out}_best.json", best)
                break
            for i in worst_indices(sc_new, a.add, exclude=idx):
                idx.add(i)
                active.append(pts[i])
        if cur is None:
            log(f"g {g:g}: not met; chain ends")
            break
    cs.write_json(f"{a.out}_history.json", dict(history=history, points=active))
    log("best:", None if best is None else best["screen"])


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "tune":
        return tune_main(sys.argv[2:])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
