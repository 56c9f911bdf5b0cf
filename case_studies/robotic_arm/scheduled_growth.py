"""Box growth of the scheduled arm surface in small steps, tuned in box-normalised
coordinates (problem (27), issue 14).

``scheduled_multimodel.py`` tunes ``K(s, tau) = Fu(M0 + M1 s1 + M2 s2, I3/s)`` with
``s1, s2`` normalised over the WHOLE scheduling box: on the box scaled by ``lam`` about a
frozen plant they only span ``[-lam, lam]`` (shifted), so the scheduling coefficients
enter the tuning ``lam`` times weaker than ``M0`` (the lam-0.4 design has ``||M1||,
||M2|| ~ 0.4`` against ``||M0|| = 37.7``).  This driver tunes the same surface written
in coordinates normalised over the CURRENT box,

    ``M0 + M1 s1 + M2 s2 = M0b + M1b b1 + M2b b2``,  ``b_i = (t_i - m_i) / h_i``,

with ``m_i, h_i`` the centre and half-width of the current ``t_i`` range, so that
``b_i`` spans ``[-1, 1]`` there: ``M_ib = lam M_i`` and ``M0b = M0 + sum_i M_i (m_i -
mf_i) / hf_i`` (``mf_i, hf_i`` of the whole range) -- the same controller, an invertible
linear change of the tuned variables (:func:`to_box`, :func:`from_box`; the driver checks
on random ``(t1, t2)`` that both give the same surface).  Files are always written in the
whole-box coordinates of ``chained_schedule.py`` (``values`` with ``K.M0, K.M1, K.M2``),
so ``chained_schedule.py check`` / ``store`` and ``lpv_synthesis.py --design`` read them.
The scheduling basis is the issue's affine one.

Growth (``tune`` subcommand).  From a met design at ``--lam0`` the box grows by
``--step``; at each ``lam`` the active set is the four ``(t1, t2)`` corners and the centre
of the box (nominal physics), the previous set moved into the new box and the
``--seed-worst`` worst screen loops of the warm start.  Each round tunes
``max(slack ||W_e S||, ||W_T K S|| / g)`` over the set (the engine's ``TuningProblem``,
as ``scheduled_stacked.tune(goal="max")``) and screens the result (``--screen`` x
``--screen`` ``(t1, t2)`` x (nominal + 32 vertices)); a miss (unstable loop or ``gamma1 >
--g1-max``) adds the ``--add`` worst loops and tunes again, warm started from that round.
A box met on the screen is written (atomically) to ``OUT_lam<lam>.json`` and
``OUT_best.json`` and the step is kept; a box missed within ``--rounds`` rounds halves the
step (from the last MET design and its set) down to ``--min-step``, below which the run
ends.  ``--gs`` gives the soft level ``g`` per growth stage (the last one repeats): a
higher ``g`` trades ``gamma2`` for reach.  Everything is sampled; nothing is certified.

Run (one process, one BLAS thread)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python \\
        case_studies/robotic_arm/scheduled_growth.py tune \\
        --start case_studies/robotic_arm/checkpoints/arm_lpv_scheduled_multimodel.json \\
        --lam0 0.4 --step 0.1 --gs 0.9 --slack 1.03 --rounds 3 --out /tmp/arm_g/G

then ``chained_schedule.py check OUT_best.json --centre c --lam LAM --json CHECK.json``
and ``scheduled_growth.py store OUT_best.json CHECKPOINT.json --check CHECK.json --origin
"..."`` (``chained_schedule.py store`` with this driver named in the provenance).
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
import scheduled_multimodel as sm  # noqa: E402
import scheduled_stacked as sst  # noqa: E402
from robust_start import worst_indices  # noqa: E402
from scheduled_stacked import log  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.examples.arm_lpv import ERRORS, OUTPUT_SCALE, TORQUES  # noqa: E402
from robustmb.lft.algebra import lft_lower  # noqa: E402
from robustmb.lft.connect import connect  # noqa: E402
from robustmb.lft.model import as_model  # noqa: E402
from robustmb.tuning import tunable_surface  # noqa: E402
from robustmb.tuning.hinfstruct import _balanced  # noqa: E402
from robustmb.tuning.parametrization import ParameterVector, TunableLFT  # noqa: E402
from robustmb.tuning.tuning_problem import TuningProblem  # noqa: E402
from robustmb.tuning.tuning_term import Term  # noqa: E402

NAMES = ("t1", "t2")


def box_ranges(lam, centre):
    """``(lo, hi)`` of ``t1``, ``t2`` on the box scaled by ``lam`` about ``centre``."""
    c = cs.shrunk_points(1, 0.0, centre)[0]
    out = {}
    for n in NAMES:
        lo, hi = gd.ELS[n].range
        out[n] = (c[n] + lam * (lo - c[n]), c[n] + lam * (hi - c[n]))
    return out


def _affine(lam, centre):
    """``(a, f)``: whole-box ``s_i = a_i + f_i b_i`` with ``b_i`` the box coordinate."""
    rng = box_ranges(lam, centre)
    a, f = [], []
    for n in NAMES:
        lo, hi = rng[n]
        mb, hb = 0.5 * (lo + hi), 0.5 * (hi - lo)
        a.append((mb - gd.CENTRE[n]) / gd.HALF[n])
        f.append(hb / gd.HALF[n])
    return a, f


def to_box(values, lam, centre):
    """Whole-box values ``K.M0..2`` -> box-normalised ones (same surface)."""
    a, f = _affine(lam, centre)
    M = [np.asarray(values[f"K.M{i}"], float) for i in range(3)]
    return {
        "K.M0": M[0] + a[0] * M[1] + a[1] * M[2],
        "K.M1": f[0] * M[1],
        "K.M2": f[1] * M[2],
    }


def from_box(values, lam, centre):
    """Box-normalised values -> whole-box ``K.M0..2`` (inverse of :func:`to_box`)."""
    a, f = _affine(lam, centre)
    B = [np.asarray(values[f"K.M{i}"], float) for i in range(3)]
    M1, M2 = B[1] / f[0], B[2] / f[1]
    return {"K.M0": B[0] - a[0] * M1 - a[1] * M2, "K.M1": M1, "K.M2": M2}


def box_controller(lam, centre):
    """The arm's scheduled controller (output scaled by 100) normalised over the box."""
    rng = box_ranges(lam, centre)
    els = [rmb.ureal(n, 0.5 * sum(rng[n]), range=rng[n]) for n in NAMES]
    K = tunable_surface("K", (2, 2), els, states=3)
    K.input_names, K.output_names = list(ERRORS), ["v[0]", "v[1]"]
    scale = control.ss([], [], [], OUTPUT_SCALE * np.eye(2), inputs=["v[0]", "v[1]"],
                       outputs=TORQUES, name="Kscale")  # fmt: skip
    return connect([K, scale], None, ERRORS, TORQUES)


def check_map(values, lam, centre, n=5, seed=0):
    """Largest difference of the controller's matrices between both coordinate systems
    at ``n`` random ``(t1, t2)`` of the box (a consistency check of :func:`to_box`)."""
    ctrl = box_controller(lam, centre)
    vb = to_box(values, lam, centre)
    back = from_box(vb, lam, centre)
    rng, r = np.random.default_rng(seed), box_ranges(lam, centre)
    err = max(float(np.max(np.abs(back[k] - values[k]))) for k in values)
    for _ in range(n):
        t = {k: float(rng.uniform(*r[k])) for k in NAMES}
        K1 = cs.controller_at(values, t["t1"], t["t2"])
        K2 = ctrl.usubs(vb | t)
        for m1, m2 in zip((K1.A, K1.B, K1.C, K1.D), (K2.A, K2.B, K2.C, K2.D), strict=True):
            err = max(err, float(np.max(np.abs(np.asarray(m1) - np.asarray(m2)))))
    return err


def tune_box(points, values, lam, centre, g, slack, maxiter):
    """One min-max run of ``max(slack ||W_e S||, ||W_T K S|| / g)`` over ``points`` in
    box-normalised coordinates; returns whole-box values, the objective and the time."""
    t0 = time.perf_counter()
    ctrl = box_controller(lam, centre)
    for k, v in to_box(values, lam, centre).items():
        ctrl.tunables[k].value = np.asarray(v, float)
    params = ParameterVector(ctrl.tunables)
    W2 = control.ss([], [], [], np.eye(2) * float(sst.PROB.WT))

    def loop(pt, P):
        Kc = ctrl.usubs({n: pt[n] for n in NAMES})
        return TunableLFT(lft_lower(as_model(_balanced(P)), Kc), params)

    lfts = [loop(pt, control.augw(sst.plant(pt), sst.WE2)) for pt in points]
    terms = [Term(lf, scale=slack) for lf in lfts]
    terms += [Term(loop(pt, control.augw(sst.plant(pt), None, W2)), scale=1 / g) for pt in points]
    prob = TuningProblem(params, terms, loops=lfts, multipeak=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs, best = prob.solve(maxiter=maxiter, polish="near", near=1e-2, join=1e-6)
    vb = {k: np.asarray(v, float) for k, v in params.values(runs[best].x).items()}
    return from_box(vb, lam, centre), float(runs[best].value), time.perf_counter() - t0


def grow(a):
    t_end = time.time() + 60 * a.minutes
    centre = cs.CENTRES[a.centre]
    values = sm.load_values(a.start)
    with open(a.start) as fh:
        d = json.load(fh)
    met_set = d.get("points") or d.get("active_set") or []
    err = check_map(values, a.lam0 + a.step, centre)
    log(f"coordinate map check: largest matrix difference {err:.2e}")
    if err > 1e-8:
        raise SystemExit(f"box coordinates do not reproduce the surface ({err:.2e})")
    met_lam, step, stage, history, best = a.lam0, a.step, 0, [], None
    while met_lam < 1.0 - 1e-9 and time.time() < t_end:
        lam = round(min(1.0, met_lam + step), 6)
        g = a.gs[min(stage, len(a.gs) - 1)]
        pts = cs.shrunk_points(a.screen, lam, centre)
        loops = [gd.Loop(p) for p in pts]
        cur = {k: np.asarray(v, float) for k, v in values.items()}
        sc = sm.screen_values(cur, loops)
        g1, g2, mr = gd.summary(sc)
        log(f"lam {lam} (step {step:g}, g {g}): start screen gamma1 {g1:.4f} gamma2 {g2:.4f}")
        history.append(dict(stage=f"lam={lam:g} start", g=g, gamma1=g1, gamma2=g2, max_real=mr))
        active = sm.dedupe(
            sm.box_set(lam, centre) + [sm.rescale(p, met_lam, lam, centre) for p in met_set]
        )
        idx = set(worst_indices(sc, a.seed_worst))
        active += [pts[i] for i in idx]
        met = None
        for rnd in range(a.rounds):
            if time.time() > t_end:
                log("time budget spent")
                break
            cur, obj, dt = tune_box(active, cur, lam, centre, g, a.slack, a.maxiter)
            sc = sm.screen_values(cur, loops)
            n1, n2, nm = gd.summary(sc)
            nu = int(np.sum(sc["mr"] >= 0))
            log(f"lam {lam} round {rnd}: set {len(active)} objective {obj:.4f}; screen "
                f"gamma1 {n1:.4f} gamma2 {n2:.4f} max real {nm:.4f} unstable {nu} "
                f"({dt:.0f} s)")  # fmt: skip
            history.append(dict(stage=f"lam={lam:g}", round=rnd, g=g, set=len(active),
                                objective=obj, gamma1=n1, gamma2=n2, max_real=nm,
                                unstable=nu, seconds=round(dt, 1)))  # fmt: skip
            if nm < 0 and n1 <= a.g1_max:
                met = sm.record(cur, lam, a.centre, active, sc, history, g, a.slack, obj)
                met["parametrisation"] = "tuned in box-normalised coordinates, stored whole-box"
                cs.write_json(f"{a.out}_lam{lam:g}.json", met)
                best = met
                cs.write_json(f"{a.out}_best.json", best)
                break
            for i in worst_indices(sc, a.add, exclude=idx):
                idx.add(i)
                active.append(pts[i])
        if met is None:
            if time.time() > t_end:
                break
            step /= 2
            log(f"lam {lam}: not met; step halved to {step:g} from lam {met_lam}")
            if step < a.min_step - 1e-12:
                break
            continue
        values, met_set, met_lam, stage = cur, active, lam, stage + 1
    cs.write_json(f"{a.out}_history.json", dict(history=history))
    log("best:", None if best is None else (best["lam"], best["screen"], best["norms"]))


def store_main(argv):
    """``chained_schedule.py store`` with the provenance naming this driver."""
    cs.store_main(argv)
    with open(argv[1]) as fh:
        d = json.load(fh)
    d["provenance"] = d["provenance"].replace(
        "by case_studies/robotic_arm/chained_schedule.py:",
        "by case_studies/robotic_arm/scheduled_growth.py (stored by chained_schedule.py):",
    )
    cs.write_json(argv[1], d)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "store":
        return store_main(sys.argv[2:])
    if len(sys.argv) < 2 or sys.argv[1] != "tune":
        raise SystemExit(__doc__)
    ap = argparse.ArgumentParser(description="scheduled surface grown in small box steps")
    ap.add_argument(
        "--start", default=str(sm.HERE / "checkpoints" / "arm_lpv_scheduled_multimodel.json")
    )
    ap.add_argument("--lam0", type=float, default=0.4, help="box the start met")
    ap.add_argument("--step", type=float, default=0.1)
    ap.add_argument("--min-step", type=float, default=0.025)
    ap.add_argument("--centre", default="c", choices=sorted(cs.CENTRES))
    ap.add_argument("--slack", type=float, default=1.03)
    ap.add_argument("--gs", type=float, nargs="+", default=(0.9,))
    ap.add_argument("--screen", type=int, default=5)
    ap.add_argument("--seed-worst", type=int, default=4)
    ap.add_argument("--add", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--g1-max", type=float, default=0.999)
    ap.add_argument("--maxiter", type=int, default=100)
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--out", required=True)
    grow(ap.parse_args(sys.argv[2:]))


if __name__ == "__main__":
    main()
