"""Certify a stored arm design over a partition of the (t1, t2) scheduling square.

``wcgain`` over the whole 7-parameter box of the arm certifies no finite level: with
``t1`` and ``t2`` each repeated 11 times in the LFT, the D,G bound of the uncertainty
part alone is 2.6-4.3 below 10 rad/s (benchmarks/RESULTS.md, issue 11).  This driver
splits the scheduling square ``[t1] x [t2]`` into ``n x n`` equal sub-boxes (the five
physical parameters ``m1, J1, rho1, L2, m3`` kept whole, +-20 %) and, on each chosen
sub-box, re-centres the LFT (``branch_and_bound.recentre_system``: the sub-box centre
closed into the loop, the perturbation scaled to the sub-box) and runs the sub-box
certificate of ``wcgain``'s branch and bound (``branch_and_bound._certify_box``: robust
performance at the level ``gamma``, the main loop theorem with a full performance block,
a fixed-level mu sweep with interval certificates over the whole frequency axis):

- ``screen``: D,G bounds of the uncertainty part alone at a few frequencies (optimised
  until below 1); a bound above 1 means this sub-box cannot be certified at any level
  by one D,G certificate, and the expensive sweep is skipped (nothing is claimed);
- ``probe``: the robust-performance bound at ``--hint`` x (1, 0.9, 1.1, 0.8, 1.25)
  (the sensitivity hump); above 1 the sub-box fails at this level at once;
- ``sweep``: the whole-axis sweep; ``certified`` means every loop of the sub-box (every
  (t1, t2) in it, every value of the five parameters) is stable with
  ``||channel||_inf < gamma``.

The certified region is the union of the certified sub-boxes; ``coverage`` is its share
of the (t1, t2) square's area.  The bound on it is ``gamma``.  Results (per sub-box:
status, frequency where it failed, the centre's peak gain, time) go to ``--out`` (JSON)
as each sub-box ends, with the commit and the options.

``--check N`` then samples every certified sub-box independently of the certificate
(python-control loops, SLICOT AB13DD through ``control.norm``, as ``check_design.py``):
an ``N x N`` (t1, t2) grid of the sub-box x the nominal point, the 32 physical vertices
and ``--random`` samples; the largest sampled gain must stay below ``gamma``.

Usage (from the repository root)::

    python case_studies/robotic_arm/certify_lpv_partition.py \\
        --design case_studies/robotic_arm/checkpoints/arm_lpv_hard.json \\
        --n 4 --gamma 0.95 --boxes 0,0 1,0 --check 5 --out /tmp/cert.json

``--boxes i,j ...`` (``i`` indexes t1, ``j`` t2, from the lower end) picks sub-boxes;
default all, in order of increasing distance from the ``(0, 0)`` corner.  Slow: on a
loaded 2-core machine a sub-box takes 1.5-6 minutes at gamma = 0.95 (measured: 80-368 s
with the limited-memory D,G optimiser; 247-976 s before it; see benchmarks/RESULTS.md).

``--out`` is written atomically (temporary file, then rename) after every sub-box, so an
interrupted run leaves a valid file; ``--resume`` keeps its sub-boxes (same design,
channel, gamma and partition, else it stops) and runs only the others.  ``--warm`` starts
each sweep at the frequencies of the nearest certified sub-box (Chebyshev distance <= 2)
from the D,G parameters its sweep ended at, kept in ``--scalings`` (``.npz``, default next
to ``--out``; not part of the certificate: every bound is certified as from a cold
start).  ``--profile PATH`` writes a cProfile of the first sub-box.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, HERE)

from bench_arm_wcgain import arm_channel  # noqa: E402
from check_design import check  # noqa: E402

from robustmb.analysis.branch_and_bound import recentre_system  # noqa: E402
from robustmb.analysis.freqresp import freqresp  # noqa: E402
from robustmb.analysis.mu_sweep import certified_mu_peak  # noqa: E402
from robustmb.analysis.mu_upper import n_scaling_parameters  # noqa: E402
from robustmb.analysis.mussv import mussv_stack  # noqa: E402
from robustmb.analysis.norms import hinfnorm  # noqa: E402
from robustmb.analysis.uncertain_problem import is_stable, uncertain_problem  # noqa: E402

SCREEN_FREQUENCIES = np.array([0.0, 0.9, 6.3])
# level certified on the scaled robust-performance problem: mu < 1 strictly
LEVEL = 1.0 / (1.0 + 1e-6)


def sub_box(names, n, i, j):
    """Normalised centre and radius (one per element) of sub-box ``(i, j)`` of ``n x n``."""
    c, r = np.zeros(len(names)), np.ones(len(names))
    for idx, k in ((names.index("t1"), i), (names.index("t2"), j)):
        c[idx] = -1.0 + (2 * k + 1) / n
        r[idx] = 1.0 / n
    return c, r


def t_ranges(els, n, i, j):
    """``(t1_lo, t1_hi), (t2_lo, t2_hi)`` of sub-box ``(i, j)`` in the parameters' units."""
    out = []
    for name, k in (("t1", i), ("t2", j)):
        lo, hi = els[name].range
        step = (hi - lo) / n
        out.append((lo + k * step, lo + (k + 1) * step))
    return out


def channel_matrix(problem):
    """``(nw, k)`` 0/1 matrix sending the ``k`` real elements' values to Delta's diagonal."""
    s = np.zeros((problem.nw, len(problem.blocks)))
    for j, bi in enumerate(problem.blocks):
        s[bi.w, j] = 1.0
    return s


def warm_start(store, i, j):
    """``(omega, scalings, (i', j'))`` of the nearest certified sub-box in ``store``
    (``{(i, j): (omega, scalings)}``, its sweep's final D,G parameters; Chebyshev
    distance 1, then 2), or None."""
    near = [(max(abs(a - i), abs(b - j)), (a, b)) for a, b in store]
    near = sorted(x for x in near if x[0] <= 2)
    if not near:
        return None
    box = near[0][1]
    return (*store[box], box)


def load_scalings(path):
    """The warm-start store written by :func:`save_scalings` (empty if no file)."""
    if not path or not os.path.exists(path):
        return {}
    with np.load(path) as z:
        return {
            tuple(int(v) for v in k.split("_")[1:]): (z[k], z["s" + k[1:]])
            for k in z.files
            if k.startswith("w_")
        }


def save_scalings(path, store):
    """Atomically write the warm-start store (``w_i_j``: frequencies, ``s_i_j``: rows)."""
    arrays = {}
    for (i, j), (w, x) in store.items():
        arrays[f"w_{i}_{j}"], arrays[f"s_{i}_{j}"] = w, x
    tmp = f"{path}.tmp{os.getpid()}.npz"
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def certify_sub_box(problem, names, n, i, j, gamma, hint, n_grid=20, rounds=6, warm=None):
    """Screen, probe and sweep one sub-box; a dict of the result.

    ``warm = (omega, scalings, box)``: the sweep starts at a certified neighbour's
    frequencies from its D,G parameters (a start only: every bound is certified as from
    a cold start).
    """
    chan = channel_matrix(problem)
    c, r = sub_box(names, n, i, j)
    cd, rd = chan @ c, chan @ r
    out = {"box": [i, j]}
    t0 = time.perf_counter()
    sub = recentre_system(problem.m11, problem.nw, problem.nz, cd, rd)
    if sub is None:
        return out | {"status": "ill-posed centre", "time": time.perf_counter() - t0}
    screen = mussv_stack(freqresp(sub, SCREEN_FREQUENCIES), problem.blk, lower=False, target=1.0)
    out["screen"] = [float(u) for u in screen.upper]
    out["screen_time"] = time.perf_counter() - t0
    if np.max(screen.upper) >= 1.0:
        return out | {"status": "screened out", "time": time.perf_counter() - t0}
    ny, nu = problem.model.shape
    blk = [*problem.blk, (nu, ny)]
    full = (problem.a, problem.b, problem.c, problem.d)
    a, b, c_, d = recentre_system(full, problem.nw, problem.nz, cd, rd)
    nz, nw = problem.nz, problem.nw
    if not is_stable(a, problem.dt):
        return out | {"status": "unstable centre", "time": time.perf_counter() - t0}
    gain = float(hinfnorm((a, b[:, nw:], c_[nz:], d[nz:, nw:]))[0])
    out["centre_gain"] = gain
    if not gain < gamma:
        return out | {"status": "centre above level", "time": time.perf_counter() - t0}
    c_, d = c_.copy(), d.copy()
    c_[nz:] /= gamma
    d[nz:] /= gamma
    sub = (a, b, c_, d)
    t1 = time.perf_counter()
    if hint:
        probe = hint * np.array([1.0, 0.9, 1.1, 0.8, 1.25])
        ub = mussv_stack(freqresp(sub, probe), blk, lower=False, target=LEVEL).upper
        out["probe"] = [float(u) for u in ub]
        if np.max(ub) > LEVEL:
            out["failed_at"] = float(probe[int(np.argmax(ub))])
            return out | {"status": "probe failed", "time": time.perf_counter() - t0}
    out["probe_time"] = time.perf_counter() - t1
    start = None
    if warm is not None:
        start = warm[:2]
        out["warm_from"] = list(warm[2])
    elif n_grid:
        grid = np.concatenate([[0.0], np.logspace(-3, 3.7, n_grid - 1)])
        start = (grid, np.full((n_grid, n_scaling_parameters(blk)), np.nan))
    peak = certified_mu_peak(
        sub, blk, problem.dt, level=LEVEL, lower=False, max_rounds=rounds, relax=False,
        start=start,
    )  # fmt: skip
    out["frequencies"] = len(peak.omega)
    out["largest_mu_upper"] = float(np.max(peak.mu_upper))
    out["sweep_time"] = time.perf_counter() - t1 - out["probe_time"]
    if peak.covered:
        out["status"] = "certified"
        # the warm start of the neighbours (not part of the certificate)
        out["omega"], out["scalings"] = peak.omega, peak.scalings
    else:
        out["status"] = "sweep failed"
        out["failed_at"] = float(peak.omega[int(np.argmax(peak.mu_upper))])
    return out | {"time": time.perf_counter() - t0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", required=True)
    ap.add_argument("--channel", choices=["tracking", "effort"], default="tracking")
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--gamma", type=float, required=True)
    ap.add_argument("--boxes", nargs="*", default=None)
    ap.add_argument("--hint", type=float, default=9.5)
    ap.add_argument("--grid", type=int, default=20, help="initial sweep grid (0: default)")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--check", type=int, default=0)
    ap.add_argument("--random", type=int, default=4)
    ap.add_argument("--out", default=None)
    ap.add_argument("--resume", action="store_true", help="keep --out's sub-boxes and skip them")
    ap.add_argument(
        "--warm", action="store_true", help="start from a certified neighbour's scalings"
    )
    ap.add_argument(
        "--scalings",
        default=None,
        help="warm-start store (.npz; default: --out with .scalings.npz)",
    )
    ap.add_argument("--profile", default=None, help="cProfile the first sub-box into PATH")
    args = ap.parse_args()

    t_start = time.perf_counter()
    model = arm_channel(args.channel, design=args.design)
    problem = uncertain_problem(model)
    names = [b.name for b in problem.blocks]
    els = model.uncertainty
    n = args.n
    if args.boxes:
        boxes = [tuple(int(v) for v in b.split(",")) for b in args.boxes]
    else:
        boxes = sorted(itertools.product(range(n), repeat=2), key=lambda b: (sum(b), b))
    with open(args.design) as fh:
        values = json.load(fh)["values"]
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    with open(args.design, "rb") as fh:
        design_hash = hashlib.sha256(fh.read()).hexdigest()
    record = {
        "design": args.design,
        "design_sha256": design_hash,
        "channel": args.channel,
        "gamma": args.gamma,
        "partition": f"{n} x {n} equal sub-boxes of the (t1, t2) square; m1, J1, rho1, L2, "
        "m3 whole (+-20 %)",
        "commit": commit,
        "sub_boxes": [],
    }
    if args.resume and args.out and os.path.exists(args.out):
        with open(args.out) as fh:
            old = json.load(fh)
        # the same design file content, not only the same path (older records: the path)
        for key in ("design", "design_sha256", "channel", "gamma", "partition"):
            if key in old and old[key] != record[key]:
                raise SystemExit(
                    f"--resume: {args.out} has {key}={old[key]!r}, not {record[key]!r}"
                )
        commits = old.get("commits") or [old["commit"]]
        record = old | {"commit": commit, "design_sha256": design_hash}
        record["commits"] = commits + [commit]
        t_start -= record.get("time", 0.0)
        seen = {tuple(b["box"]) for b in record["sub_boxes"]}
        boxes = [b for b in boxes if b not in seen]
    scal_path = args.scalings or (
        os.path.splitext(args.out)[0] + ".scalings.npz" if args.out else None
    )
    store = load_scalings(scal_path) if args.resume else {}
    # scalings left in the record by an older version of this driver: to the store
    for b in record["sub_boxes"]:
        if "scalings" in b:
            store[tuple(b["box"])] = (
                np.array(b.pop("omega"), float),
                np.array(b.pop("scalings"), float),
            )

    def save():
        done = [b for b in record["sub_boxes"] if b["status"] == "certified"]
        record["coverage"] = len(done) / n**2
        record["certified_bound_on_covered_part"] = args.gamma if done else None
        record["time"] = time.perf_counter() - t_start
        if args.out:
            # atomic: an interrupted run leaves the previous complete file
            tmp = f"{args.out}.tmp{os.getpid()}"
            with open(tmp, "w") as fh:
                json.dump(record, fh, indent=1)
            os.replace(tmp, args.out)

    for i, j in boxes:
        warm = warm_start(store, i, j) if args.warm else None
        prof = None
        if args.profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        res = certify_sub_box(
            problem, names, n, i, j, args.gamma, args.hint, args.grid, args.rounds, warm
        )
        if prof is not None:
            prof.disable()
            prof.dump_stats(args.profile)
            args.profile = None
        res["t_ranges"] = t_ranges(els, n, i, j)
        if "scalings" in res:
            store[(i, j)] = (res.pop("omega"), res.pop("scalings"))
            if scal_path:
                save_scalings(scal_path, store)
        if res["status"] == "certified" and args.check:
            got = check(values, args.check, args.random, ranges=res["t_ranges"])
            gamma, where = (
                ("gamma1", "where1") if args.channel == "tracking" else ("gamma2", "where2")
            )
            chk = {"worst": got[gamma], "where": got[where]}
            chk |= {k: got[k] for k in ("max_real", "unstable", "loops")}
            chk["below_bound"] = chk["worst"] < args.gamma and chk["max_real"] < 0
            res["check"] = chk
        record["sub_boxes"].append(res | {"commit": commit})
        save()
        print(json.dumps(res), flush=True)
    save()
    print(f"coverage {record['coverage']:.4f} at gamma {args.gamma}, {record['time']:.0f} s")


if __name__ == "__main__":
    main()
