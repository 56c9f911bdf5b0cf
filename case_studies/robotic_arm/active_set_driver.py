"""Active-set design of the arm's problem (27), hard goal and stability first, with checkpoints.

A standalone driver of the robust tuning engine's pieces, used to search for a design
stable over the whole 7-parameter box (run it in the background; every round writes
``$CK_<phase><round>.json`` and ``$CK_latest.json``).  Per round:

1. tune on the active set: ``phase=hard`` minimises the worst ``||W_e S|| / 0.97`` over
   the active set with every sample's loop stable; ``phase=soft`` runs the engine's
   min-max / barrier stage (soft goal subject to the hard goal below 0.97);
2. screen the box: the ``3^7`` grid and 2000 random points (closed-loop eigenvalues for
   stability, the hard goal's peak gain where stable) and three local ascents of the hard
   goal from the worst points;
3. add up to ``NADD`` points, apart from each other: the most unstable first, then those
   where the hard goal reaches ``VIOL``.  With none, ``hard`` moves to ``soft``; with none
   in ``soft``, the run stops (``$CK_final.json``).

Environment: ``CK`` (checkpoint prefix, default ``/tmp/arm/ck``), ``START`` (a checkpoint
to resume: its ``x`` and ``points``, or ``active_set`` when it has no ``points``, as the
stored designs), ``CORNER_VERTICES`` (with ``START``: add the physical vertices at the
four ``(t1, t2)`` corners where the hard goal reaches this level, at least two per corner),
``SCREEN_FIRST`` (screen the resumed design before
tuning), ``PHASE`` (``hard`` or ``soft``), ``NADD``, ``VIOL``, ``MAXITER``, ``STARTS``,
``SEED``, ``SCHED_GRID`` (the screen adds a ``SCHED_GRID`` square ``(t1, t2)`` grid at the
32 physical vertices; default 7, 0: none), ``NASCENT`` (local ascents, from spread
points; default 3).  Example: ``CK=/tmp/arm/ckB NADD=20 MAXITER=300 START=ck_hard0.json
SCREEN_FIRST=1 python case_studies/robotic_arm/active_set_driver.py``.
"""

import itertools
import json
import os
import time

import numpy as np

from robustmb.examples import arm_lpv_tuning_problem, scheduling_corners
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.robust_tuning import _real, _run
from robustmb.tuning.tuning_problem import TuningProblem
from robustmb.tuning.tuning_term import Term
from robustmb.tuning.worst_case_search import (
    _abscissa,
    _DeltaMap,
    _local_ascent,
    _measure,
    _spread,
    _unstable_by_ascent,
)

MARGIN = 0.97
VIOL = float(os.environ.get("VIOL", 0.985))
NADD = int(os.environ.get("NADD", 10))
CK = os.environ.get("CK", "/tmp/arm/ck")
prob = arm_lpv_tuning_problem()
cl = prob.closed_loop
params = ParameterVector(cl.tunables)
els = cl.uncertainty
names = list(els)
goals = prob.soft + prob.hard
models = [g.model(cl) for g in goals]


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def phys(d):
    return {n: float(els[n].denormalize(v)) for n, v in zip(names, d, strict=True)}


def norm(p):
    return np.array([float(els[n].normalize(p[n])) for n in names])


def build(pts, soft=True):
    sterms, hterms = [], []
    for i, (m, measure, scale, poles) in enumerate(models):
        if i == 0 and not soft:
            continue
        sc = scale if i == 0 else scale / MARGIN
        for pt in pts:
            t = Term(TunableLFT(_real(m.usubs(pt)), params), measure, sc, poles, f"{i}")
            (sterms if i == 0 else hterms).append(t)
    loops = [TunableLFT(_real(cl.usubs(pt)), params) for pt in pts]
    if not soft:
        return TuningProblem(params, hterms, [], loops)
    return TuningProblem(params, sterms, hterms, loops)


rng = np.random.default_rng(int(os.environ.get("SEED", 0)))
grid = np.array(list(itertools.product([-1.0, 0.0, 1.0], repeat=7)))
# A finer (t1, t2) grid at the 32 physical vertices: the worst cases sit at physical
# vertices but between the 3 levels of t1 (e.g. ||W_e S|| 1.19 at t1 = 5/6 normalised,
# missed by the 3^7 grid and the ascents from it).
_SG = int(os.environ.get("SCHED_GRID", 7))
_IT, _I2 = names.index("t1"), names.index("t2")
_PHYS = [i for i in range(7) if i not in (_IT, _I2)]
if _SG > 0:
    _fine = []
    for a, b in itertools.product(np.linspace(-1, 1, _SG), repeat=2):
        for v in itertools.product((-1.0, 1.0), repeat=5):
            p = np.zeros(7)
            p[_IT], p[_I2], p[_PHYS] = a, b, v
            _fine.append(p)
    grid = np.unique(np.vstack([grid, _fine]), axis=0)


def screen(x, nrand=2000, seed=0):
    tuned = cl.usubs(params.values(x))
    lm = _DeltaMap(tuned, names)
    m, measure, scale, poles = prob.hard[0].model(tuned)
    hm = _DeltaMap(m, names)
    ms, mmeas, msc, mpo = prob.soft[0].model(tuned)
    sm = _DeltaMap(ms, names)
    r = np.random.default_rng(seed)
    pts = np.vstack([grid, r.uniform(-1, 1, (nrand, 7))])
    alpha = np.array([_abscissa(lm, p) for p in pts])
    hv = np.full(len(pts), np.inf)
    for i in np.flatnonzero(alpha < 0):
        hv[i] = _measure(hm, pts[i], measure, scale, poles)[0]

    # local ascents of the hard goal from the worst NASCENT stable points
    def f(y, g=False):
        if _abscissa(lm, y) >= 0:
            return np.inf, None
        return _measure(hm, y, measure, scale, poles, g)

    if np.all(alpha < 0):
        # stable at every point scanned: ascend the abscissa between them
        for y in _unstable_by_ascent(lm, pts, 3, 60):
            pts = np.vstack([pts, y])
            hv = np.append(hv, np.inf)
            alpha = np.append(alpha, _abscissa(lm, y))
    fin = np.flatnonzero(np.isfinite(hv))
    extra = []
    for i in _spread(fin[np.argsort(-hv[fin])], pts, int(os.environ.get("NASCENT", 3))):
        y = _local_ascent(lambda z: f(z, True), pts[i], 60)
        extra.append((y, f(y)[0]))
    for y, v in extra:
        pts = np.vstack([pts, y])
        hv = np.append(hv, v)
        alpha = np.append(alpha, _abscissa(lm, y))
    sv = max(
        _measure(sm, p, mmeas, msc, mpo)[0]
        for p in pts[np.isfinite(hv)][np.argsort(-hv[np.isfinite(hv)])][:50]
    )
    return pts, alpha, hv, sv


def corner_vertices(x, level):
    """Physical vertices at the four (t1, t2) corners where the hard goal reaches ``level``.

    Every one of the 4 x 32 points is checked (unstable ones count as violating); the
    worst two of each corner are always returned, so the corners stay in the active set.
    """
    tuned = cl.usubs(params.values(x))
    lm = _DeltaMap(tuned, names)
    m, measure, scale, poles = prob.hard[0].model(tuned)
    hm = _DeltaMap(m, names)
    it, i2 = names.index("t1"), names.index("t2")
    phys_idx = [i for i in range(7) if i not in (it, i2)]
    out = []
    for c1, c2 in itertools.product((-1.0, 1.0), repeat=2):
        vals = []
        for v in itertools.product((-1.0, 1.0), repeat=5):
            p = np.zeros(7)
            p[it], p[i2], p[phys_idx] = c1, c2, v
            h = np.inf if _abscissa(lm, p) >= 0 else _measure(hm, p, measure, scale, poles)[0]
            vals.append((h, p))
        vals.sort(key=lambda hp: -hp[0])
        top = [p for k, (h, p) in enumerate(vals) if k < 2 or h >= level]
        log(f"corner ({c1:+.0f},{c2:+.0f}): worst {vals[0][0]:.4f}, adding {len(top)}")
        out += top
    return out


def pick(pts, alpha, hv, count):
    bad = np.flatnonzero(~np.isfinite(hv))
    out = []
    if bad.size:
        out = _spread(bad[np.argsort(-alpha[bad])], pts, count)
    if len(out) < count:
        over = np.flatnonzero(np.isfinite(hv) & (hv >= VIOL))
        o2 = _spread(over[np.argsort(-hv[over])], pts, count - len(out))
        out += o2
    return [pts[i] for i in out]


def save(tag, x, points, info):
    vals = params.values(x)
    d = {
        "values": {k: np.asarray(v).tolist() for k, v in vals.items()},
        "x": np.asarray(x).tolist(),
        "points": points,
        "active_set": points,  # robustmb.tuning.checkpoint.read_checkpoint format
        "history": [info],
        "info": info,
    }
    with open(f"{CK}_{tag}.json", "w") as fh:
        json.dump(d, fh)
    with open(f"{CK}_latest.json", "w") as fh:
        json.dump(d, fh)


def main():
    """The active-set rounds (module docstring)."""
    start = os.environ.get("START")
    if start:
        d = json.load(open(start))
        x = np.array(d["x"])
        # driver checkpoints hold "points"; systune's and the stored designs "active_set"
        points = d["points"] if "points" in d else d["active_set"]
        log("resumed", start, len(points))
        if os.environ.get("CORNER_VERTICES"):
            new = corner_vertices(x, float(os.environ["CORNER_VERTICES"]))
            points += [phys(p) for p in new if not any(np.allclose(norm(q), p) for q in points)]
            log("corner vertices added:", len(points))
    else:
        points = [{n: el.nominal for n, el in els.items()}] + scheduling_corners(prob)
        x = None
    phase = os.environ.get("PHASE", "hard")
    for rnd in range(100):
        t0 = time.perf_counter()
        if rnd == 0 and start and os.environ.get("SCREEN_FIRST"):
            pass
        elif x is None:
            hp = build(points, soft=False)
            x0 = params.initial()
            best = None
            for k in range(int(os.environ.get("STARTS", 3))):
                s = x0 if k == 0 else hp.random_point(rng, x0)
                r = hp.run(s, maxiter=1000, polish=False)
                log("start", k, r.value, r.message, round(r.time, 1))
                if best is None or r.value < best.value:
                    best = r
            x = best.x
        elif phase == "hard":
            hp = build(points, soft=False)
            r = hp.run(x, maxiter=int(os.environ.get("MAXITER", 1000)), polish=False)
            log("hard run", len(points), r.value, r.message, round(r.time, 1))
            if np.isfinite(r.value):
                x = r.x
        else:
            pb = build(points, soft=True)
            r = _run(pb, x, int(os.environ.get("MAXITER", 1000)), None, False)
            log("soft run", len(points), r.value, r.message, round(r.time, 1))
            if np.isfinite(r.value):
                x = r.x
        hp = build(points, soft=False)
        act = max(hp.values(x)[0]) * MARGIN
        pts, alpha, hv, sv = screen(x, seed=rnd + 1000 * (phase == "soft"))
        nun = int(np.sum(~np.isfinite(hv)))
        fin = np.isfinite(hv)
        worst_h = float(np.max(hv[fin])) if fin.any() else np.nan
        log(
            f"round {rnd} [{phase}]: {len(points)} pts, active hard {act:.4f}, "
            f"screen unstable {nun}/{len(pts)}, max alpha {alpha.max():.3g}, "
            f"worst hard {worst_h:.4f}, soft(top) {sv:.4f}, {time.perf_counter() - t0:.1f}s"
        )
        info = {
            "round": rnd,
            "phase": phase,
            "active_hard": act,
            "unstable": nun,
            "worst_hard": worst_h,
            "soft": sv,
        }
        save(f"{phase}{rnd}", x, points, info)
        new = pick(pts, alpha, hv, NADD)
        if not new:
            if phase == "hard":
                log("hard phase clean; switching to soft")
                phase = "soft"
                continue
            log("soft phase clean: done")
            save("final", x, points, info)
            break
        for p in new:
            points.append(phys(p))


if __name__ == "__main__":
    main()
