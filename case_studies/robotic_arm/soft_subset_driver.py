"""Soft phase of the arm's problem (27) on working subsets of the active set, with checkpoints.

The soft phase of :mod:`active_set_driver` (``PHASE=soft``: minimise ``||W_T K S||``
subject to ``||W_e S|| < 0.97`` and stability at every active-set sample) evaluates two
H-infinity terms per sample and objective evaluation (320 on the 160-sample set) and
writes nothing before a round ends, which on a loaded 2-core machine is hours.  This
driver runs the same min-max / barrier stage (``robust_tuning._run``) on a *working
subset* and keeps every iterate feasible on the *whole* active set:

1. working subset: the soft terms of the ``NSOFT`` samples of largest ``||W_T K S||``,
   the hard terms of the ``NHARD`` samples of largest ``||W_e S||`` and of every sample
   that has violated the hard goal before; the stability of every sample's loop;
2. ``_run`` on it (``MAXITER`` BFGS steps per stage);
3. the result is evaluated on every sample.  If a hard goal outside the subset is
   violated, those samples join the subset and the step from the previous design is
   cut back (bisection, 6 halvings) to the largest fraction feasible on every sample;
   a design is kept only when it is stable and meets the hard goal (below 0.97) at every
   sample and lowers ``||W_T K S||``;
4. every ``SCREEN_EVERY`` kept designs, the box is screened as in
   :mod:`active_set_driver` (``3^7`` grid, a ``SCHED_GRID`` square ``(t1, t2)`` grid at
   the 32 physical vertices, random points, ascents); up to 8 unstable or violating
   points (``||W_e S|| >= VIOL``) join the active set.

Each kept design is written to ``$CK_it<k>.json`` and ``$CK_latest.json`` (the format
of the stored designs: ``values``, ``x``, ``active_set``; ``history`` holds one entry
per kept design with the values on the active set, the subset sizes and the screen).
The values are sampled: nothing here certifies (``wcgain`` does).

Environment: ``START`` (checkpoint to start from, required), ``CK`` (default
``/tmp/arm/soft_subset``), ``NSOFT`` (12), ``NHARD`` (40), ``MAXITER`` (40),
``SCREEN_EVERY`` (3), ``SCREEN_FIRST`` (screen the start design first), and those of
:mod:`active_set_driver` (``SCHED_GRID``, ``NASCENT``, ``VIOL``).  Example:
``START=case_studies/robotic_arm/checkpoints/arm_lpv_hard.json NHARD=110 NSOFT=8
MAXITER=30 python case_studies/robotic_arm/soft_subset_driver.py``.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from active_set_driver import MARGIN, build, log, params, phys, pick, screen  # noqa: E402

from robustmb.tuning.robust_tuning import _run  # noqa: E402

CK = os.environ.get("CK", "/tmp/arm/soft_subset")
NS, NH = int(os.environ.get("NSOFT", 12)), int(os.environ.get("NHARD", 40))
SCREEN_EVERY = int(os.environ.get("SCREEN_EVERY", 3))


def save(tag, x, points, hist):
    vals = params.values(x)
    d = {
        "values": {k: np.asarray(v).tolist() for k, v in vals.items()},
        "x": np.asarray(x).tolist(),
        "points": points,
        "active_set": points,
        "history": hist,
        "info": hist[-1],
    }
    for name in (f"{CK}_{tag}.json", f"{CK}_latest.json"):
        with open(name, "w") as fh:
            json.dump(d, fh)


def subset_problem(points, full, hs, ss):
    """The problem on the samples ``hs`` (hard terms) and ``ss`` (soft terms)."""
    idx = sorted(hs | ss)
    sub = build([points[i] for i in idx], soft=True)
    sub.soft[:] = [sub.soft[k] for k, i in enumerate(idx) if i in ss]
    sub.hard[:] = [sub.hard[k] for k, i in enumerate(idx) if i in hs]
    sub.loops[:] = full.loops  # stability of every sample
    return sub


def backtrack(full, x, y, sv):
    """Largest fraction of the step ``x -> y`` feasible on every sample (6 halvings)."""
    lo, hi, best = 0.0, 1.0, None
    for _ in range(6):
        lam = 0.5 * (lo + hi)
        z = x + lam * (y - x)
        if not full._stable(z):
            hi = lam
            continue
        svz, hvz = map(np.array, full.values(z))
        if np.all(np.isfinite(hvz)) and hvz.max() < 1.0:
            lo, best = lam, (z, svz, hvz)
        else:
            hi = lam
    if best is not None and best[1].max() < sv.max():
        return lo, best
    return lo, None


def screen_and_add(x, points, extra_h, seed):
    """Screen the box at ``x``; add up to 8 unstable or violating points (in place)."""
    t1 = time.perf_counter()
    pts, alpha, hvs, svs = screen(x, seed=seed)
    nun = int(np.sum(~np.isfinite(hvs)))
    wh = float(np.max(hvs[np.isfinite(hvs)]))
    log(
        f"  screen: {len(pts)} pts unstable {nun} worst gamma1 {wh:.4f} gamma2(top50) "
        f"{svs:.4f} {time.perf_counter() - t1:.0f}s"
    )
    added = pick(pts, alpha, hvs, 8)
    if added:
        points += [phys(p) for p in added]
        extra_h |= set(range(len(points) - len(added), len(points)))
        log(f"  added {len(added)} -> {len(points)} samples")
    return {
        "screen_points": len(pts),
        "screen_unstable": nun,
        "screen_worst_gamma1": wh,
        "screen_gamma2_top50": float(svs),
        "screen_added": len(added),
    }


def main():
    with open(os.environ["START"]) as fh:
        d = json.load(fh)
    x = np.array(d["x"])
    points = d["points"] if "points" in d else d["active_set"]
    full = build(points, soft=True)
    sv, hv = map(np.array, full.values(x))
    log("start", len(points), "gamma2 act", sv.max(), "gamma1 act", hv.max() * MARGIN)
    maxit = int(os.environ.get("MAXITER", 40))
    hist, extra_h, kept = [], set(), 0
    if os.environ.get("SCREEN_FIRST"):
        screen_and_add(x, points, extra_h, 0)
        full = build(points, soft=True)
        sv, hv = map(np.array, full.values(x))
    for it in range(1, 1000):
        t0 = time.perf_counter()
        hs = set(np.argsort(-hv)[:NH].tolist()) | extra_h
        ss = set(np.argsort(-sv)[:NS].tolist())
        r = _run(subset_problem(points, full, hs, ss), x, maxit, None, False)
        took = time.perf_counter() - t0
        new = None
        if np.isfinite(r.value):
            sv2, hv2 = map(np.array, full.values(r.x))
            if np.all(np.isfinite(hv2)) and hv2.max() < 1.0:
                new = (r.x, sv2, hv2)
            else:
                bad = np.flatnonzero(~(hv2 < 1.0)).tolist()
                extra_h |= set(bad)
                log(
                    f"it {it}: {len(bad)} samples violate at the subset optimum (gamma2 act "
                    f"{np.max(sv2):.4f}, gamma1 {np.max(hv2) * MARGIN:.4f}); terms "
                    f"{len(ss)}+{len(hs)}, {r.message}, {took:.0f}s; backtracking"
                )
                lam, new = backtrack(full, x, r.x, sv)
                if new is not None:
                    log(f"  backtracked to lambda {lam:.3f}")
        if new is None:
            log(f"it {it}: rejected ({r.message}); terms {len(ss)}+{len(hs)}, {took:.0f}s")
            maxit = max(10, maxit // 2)
            continue
        x, sv, hv = new
        kept += 1
        info = {
            "it": it,
            "gamma2_active": float(sv.max()),
            "gamma1_active": float(hv.max() * MARGIN),
            "soft_terms": len(ss),
            "hard_terms": len(hs),
            "seconds": took,
            "samples": len(points),
        }
        log(
            f"it {it}: gamma2 act {sv.max():.4f} gamma1 act {hv.max() * MARGIN:.4f} terms "
            f"{len(ss)}+{len(hs)} {r.message} {took:.0f}s"
        )
        if kept % SCREEN_EVERY == 0:
            info |= screen_and_add(x, points, extra_h, it)
            full = build(points, soft=True)
            sv, hv = map(np.array, full.values(x))
        hist.append(info)
        save(f"it{it}", x, points, hist)


if __name__ == "__main__":
    main()
