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

``--split CELL ...`` certifies failed cells by splitting them: each cell (``i,j``, or a
piece of one, ``i,j/2x2:a,b/...``) is cut into ``--pieces P1xP2`` equal pieces (``P1``
along t1, ``P2`` along t2; ``1x2`` halves t2 only), each re-centred and certified like a
sub-box; a piece that fails is cut again the same way while ``--depth`` allows (``--depth
2``: the pieces' pieces).  Pieces go to the same checkpoint as records with ``box = [i,
j]`` and ``path = [[P1, P2, a, b], ...]`` (older records have no ``path``: the whole
sub-box), with their own ``t_ranges``, status and check.  ``--split`` implies
``--resume``: recorded pieces (certified or not) are skipped, a certified cell is not
split, and a cell is split one way only (a 2x2 and a 1x2 split of the same cell would
overlap).  The grid's sub-boxes not yet recorded run first, then the splits (``--boxes``
with no value: only the splits).  ``coverage`` is the certified area share counting the
pieces (``coverage_exact``: the same as a fraction).  ``--halves CELL --at W ...`` prints
fully optimised D,G bounds of the cell's four halves (t1 and t2, lower and upper) at the
frequencies ``W`` (robust stability and robust performance) and stops: the direction
whose worse half is lower is the one to split first (a diagnostic, not a certificate).

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
from fractions import Fraction

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, HERE)

from bench_arm_wcgain import arm_channel  # noqa: E402
from check_design import check  # noqa: E402

from robustmb.analysis.branch_and_bound import channel_matrix, recentre_system  # noqa: E402
from robustmb.analysis.freqresp import freqresp  # noqa: E402
from robustmb.analysis.mu_sweep import certified_mu_peak  # noqa: E402
from robustmb.analysis.mu_upper import n_scaling_parameters  # noqa: E402
from robustmb.analysis.mussv import mussv_stack  # noqa: E402
from robustmb.analysis.norms import hinfnorm  # noqa: E402
from robustmb.analysis.sub_box import cell_box, cell_rect, sub_box_problem  # noqa: E402
from robustmb.analysis.uncertain_problem import uncertain_problem  # noqa: E402
from robustmb.errors import ArgumentError  # noqa: E402

SCREEN_FREQUENCIES = np.array([0.0, 0.9, 6.3])
# level certified on the scaled robust-performance problem: mu < 1 strictly
LEVEL = 1.0 / (1.0 + 1e-6)


def parse_pieces(text, what="--pieces"):
    """``"2x2"`` -> ``(2, 2)``: pieces along t1 and along t2 (each >= 1, not both 1)."""
    try:
        p1, p2 = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ArgumentError(f"{what}: {text!r} is not of the form P1xP2 (e.g. 2x2, 1x2)") from None
    if p1 < 1 or p2 < 1 or p1 * p2 < 2:
        raise ArgumentError(f"{what}: {text!r} must split into at least 2 pieces, each count >= 1")
    return p1, p2


def parse_cell(text, n, what="--split"):
    """``"i,j"`` or ``"i,j/2x2:a,b/1x2:c,d"`` -> ``(i, j, path)``.

    ``path`` is a tuple of ``(p1, p2, a, b)`` steps: piece ``(a, b)`` (``a`` along t1,
    ``b`` along t2, from the lower ends) of a ``p1 x p2`` split of the previous cell.
    """
    parts = text.split("/")
    try:
        i, j = (int(v) for v in parts[0].split(","))
    except ValueError:
        raise ArgumentError(f"{what}: {text!r}: the cell must start with 'i,j'") from None
    if not (0 <= i < n and 0 <= j < n):
        raise ArgumentError(f"{what}: {text!r}: cell ({i}, {j}) is outside the {n} x {n} grid")
    path = []
    for step in parts[1:]:
        if ":" not in step:
            raise ArgumentError(f"{what}: {text!r}: step {step!r} is not of the form P1xP2:a,b")
        pieces, piece = step.split(":", 1)
        p1, p2 = parse_pieces(pieces, what=f"{what} {text!r}")
        try:
            a, b = (int(v) for v in piece.split(","))
        except ValueError:
            raise ArgumentError(f"{what}: {text!r}: piece {piece!r} is not 'a,b'") from None
        if not (0 <= a < p1 and 0 <= b < p2):
            raise ArgumentError(f"{what}: {text!r}: piece ({a}, {b}) is outside {p1}x{p2}")
        path.append((p1, p2, a, b))
    return i, j, tuple(path)


def cell_name(i, j, path=()):
    """The inverse of :func:`parse_cell`."""
    return "/".join([f"{i},{j}", *(f"{p1}x{p2}:{a},{b}" for p1, p2, a, b in path)])


def record_path(rec):
    """The ``path`` of a checkpoint record (``()`` for a whole sub-box of the grid)."""
    return tuple(tuple(int(v) for v in step) for step in rec.get("path", []))


def record_key(rec):
    """``(i, j, p1, p2, a, b, ...)``: the record's cell as a flat tuple of ints."""
    return (*(int(v) for v in rec["box"]), *(v for step in record_path(rec) for v in step))


def key_cell(key):
    """The inverse of :func:`record_key`: ``(i, j, path)``."""
    rest = key[2:]
    return key[0], key[1], tuple(tuple(rest[k : k + 4]) for k in range(0, len(rest), 4))


def cell_area(n, path=()):
    """The cell's share of the square's area (exact)."""
    (lo1, hi1), (lo2, hi2) = cell_rect(n, 0, 0, path)
    return (hi1 - lo1) * (hi2 - lo2)


def sub_box(names, n, i, j, path=()):
    """Normalised centre and radius (one per element) of cell ``(i, j, path)`` of ``n x n``
    (:func:`robustmb.analysis.sub_box.cell_box`; kept here for the D,G benchmark)."""
    return cell_box(names, n, i, j, path)


def t_ranges(els, n, i, j, path=()):
    """``(t1_lo, t1_hi), (t2_lo, t2_hi)`` of the cell in the parameters' units."""
    out = []
    for name, (u_lo, u_hi) in zip(("t1", "t2"), cell_rect(n, i, j, path), strict=True):
        lo, hi = els[name].range
        out.append((lo + float(u_lo) * (hi - lo), lo + float(u_hi) * (hi - lo)))
    return out


def is_ancestor(key, other):
    """Whether cell ``key`` strictly contains cell ``other`` (flat keys, one split tree)."""
    return len(key) < len(other) and other[: len(key)] == key


def coverage(records, n):
    """Certified share of the square's area (exact): the certified records' cells, each
    counted once (a certified cell inside a certified ancestor adds nothing)."""
    done = {record_key(r) for r in records if r["status"] == "certified"}
    return sum(
        (cell_area(n, key_cell(k)[2]) for k in done if not any(is_ancestor(a, k) for a in done)),
        Fraction(0),
    )


def split_children(records, i, j, path, pieces):
    """The cells of a ``pieces`` split of cell ``(i, j, path)`` that are not yet recorded.

    Raises if the cell is certified (nothing to split) or was already split another way
    (the two splits' children would overlap).
    """
    key = (i, j, *(v for step in path for v in step))
    p1, p2 = pieces
    for rec in records:
        k = record_key(rec)
        if k == key and rec["status"] == "certified":
            raise ArgumentError(f"--split {cell_name(i, j, path)}: the cell is certified")
        if is_ancestor(key, k) and k[len(key) : len(key) + 2] != (p1, p2):
            raise ArgumentError(
                f"--split {cell_name(i, j, path)}: already split as "
                f"{k[len(key)]}x{k[len(key) + 1]}, not {p1}x{p2}"
            )
        if is_ancestor(k, key) and rec["status"] == "certified":
            raise ArgumentError(
                f"--split {cell_name(i, j, path)}: inside the certified cell "
                f"{cell_name(*key_cell(k))}"
            )
    seen = {record_key(r) for r in records}
    kids = [(*path, (p1, p2, a, b)) for a in range(p1) for b in range(p2)]
    return [p for p in kids if (*key, *(v for step in p[-1:] for v in step)) not in seen]


def warm_start(store, i, j, path=()):
    """``(omega, scalings, key)`` of the nearest certified cell in ``store``
    (``{key: (omega, scalings)}``, ``key`` as :func:`record_key`, its sweep's final D,G
    parameters), by the Chebyshev distance of the cells' centres in units of the grid's
    cells (at most 2; ties: the smaller key), or None."""
    if not store:
        return None

    def centre(i_, j_, p_):
        # in cells of the grid: cell (i_, j_) is [i_, i_ + 1] x [j_, j_ + 1]
        (a1, b1), (a2, b2) = cell_rect(1, 0, 0, p_)
        return i_ + (a1 + b1) / 2, j_ + (a2 + b2) / 2

    c1, c2 = centre(i, j, path)
    near = []
    for key in store:
        d1, d2 = centre(*key_cell(key))
        near.append((max(abs(d1 - c1), abs(d2 - c2)), key))
    near = sorted(x for x in near if x[0] <= 2)
    if not near:
        return None
    key = near[0][1]
    return (*store[key], key)


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
    """Atomically write the warm-start store (``w_i_j``: frequencies, ``s_i_j``: rows;
    a split cell's key continues with its path, ``w_i_j_p1_p2_a_b...``)."""
    arrays = {}
    for key, (w, x) in store.items():
        name = "_".join(str(int(v)) for v in key)
        arrays[f"w_{name}"], arrays[f"s_{name}"] = w, x
    tmp = f"{path}.tmp{os.getpid()}.npz"
    np.savez_compressed(tmp, **arrays)
    os.replace(tmp, path)


def certify_sub_box(problem, names, n, i, j, gamma, hint, n_grid=20, rounds=6, warm=None, path=()):
    """Screen, probe and sweep one sub-box (or a piece ``path`` of it); a dict of the result.

    ``warm = (omega, scalings, key)``: the sweep starts at a certified neighbour's
    frequencies from its D,G parameters (a start only: every bound is certified as from
    a cold start).
    """
    chan = channel_matrix(problem)
    c, r = sub_box(names, n, i, j, path)
    cd, rd = chan @ c, chan @ r
    out = {"box": [i, j]}
    if path:
        out["path"] = [list(step) for step in path]
    t0 = time.perf_counter()
    sub = recentre_system(problem.m11, problem.nw, problem.nz, cd, rd)
    if sub is None:
        return out | {"status": "ill-posed centre", "time": time.perf_counter() - t0}
    screen = mussv_stack(freqresp(sub, SCREEN_FREQUENCIES), problem.blk, lower=False, target=1.0)
    out["screen"] = [float(u) for u in screen.upper]
    out["screen_time"] = time.perf_counter() - t0
    if np.max(screen.upper) >= 1.0:
        out["failed_at"] = float(SCREEN_FREQUENCIES[int(np.argmax(screen.upper))])
        return out | {"status": "screened out", "time": time.perf_counter() - t0}
    rp = sub_box_problem(problem, c, r, gamma)
    if rp.status != "ok":
        return out | {"status": rp.status, "time": time.perf_counter() - t0}
    gain = float(hinfnorm(rp.centre_channel)[0])
    out["centre_gain"] = gain
    if not gain < gamma:
        return out | {"status": "centre above level", "time": time.perf_counter() - t0}
    sub, blk = rp.sysdata, rp.blk
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


def halves_bounds(problem, names, n, i, j, path, gamma, omegas):
    """Where to split a failing cell: fully optimised D,G upper bounds on its halves.

    For each of the four halves (t1 lower / upper, t2 lower / upper) of cell
    ``(i, j, path)``: the bound of the uncertainty part alone (robust stability) and of
    the robust-performance problem at ``gamma`` (nan if the half's centre is unstable or
    above ``gamma``) at each frequency of ``omegas``.  A split along the direction whose
    worse half has the smaller bound is the one more likely to certify.  Diagnostic only:
    nothing here is part of a certificate.
    """
    chan = channel_matrix(problem)
    nz, nw = problem.nz, problem.nw
    omegas = np.asarray(omegas, float)
    out = {}
    for label, step in (
        ("t1 lower", (2, 1, 0, 0)),
        ("t1 upper", (2, 1, 1, 0)),
        ("t2 lower", (1, 2, 0, 0)),
        ("t2 upper", (1, 2, 0, 1)),
    ):
        c, r = sub_box(names, n, i, j, (*path, step))
        sub = recentre_system(problem.m11, nw, nz, chan @ c, chan @ r)
        unc = mussv_stack(freqresp(sub, omegas), problem.blk, lower=False).upper
        rp = sub_box_problem(problem, c, r, gamma)
        perf = np.full(len(omegas), np.nan)
        if rp.status == "ok" and float(hinfnorm(rp.centre_channel)[0]) < gamma:
            perf = mussv_stack(freqresp(rp.sysdata, omegas), rp.blk, lower=False).upper
        out[label] = {
            "uncertainty": [float(u) for u in unc],
            "performance": [float(u) for u in perf],
        }
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", required=True)
    ap.add_argument("--channel", choices=["tracking", "effort"], default="tracking")
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--gamma", type=float, required=True)
    ap.add_argument(
        "--boxes", nargs="*", default=None, help="sub-boxes i,j (default all; none: only --split)"
    )
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
    ap.add_argument(
        "--split",
        nargs="+",
        default=[],
        help="cells to split (i,j or i,j/P1xP2:a,b/...), after the --boxes; implies --resume",
    )
    ap.add_argument("--pieces", default="2x2", help="split into P1 (t1) x P2 (t2) pieces")
    ap.add_argument(
        "--depth", type=int, default=1, help="split a failing piece again, down to this depth"
    )
    ap.add_argument(
        "--halves",
        default=None,
        help="print the D,G bounds of a cell's four halves at --at frequencies, then stop",
    )
    ap.add_argument("--at", type=float, nargs="+", default=[0.0], help="frequencies of --halves")
    args = ap.parse_args()
    n = args.n
    pieces = parse_pieces(args.pieces)
    splits = [parse_cell(text, n) for text in args.split]
    if args.split and not args.out:
        raise ArgumentError("--split: needs --out (the checkpoint the pieces are added to)")
    if args.depth < 1:
        raise ArgumentError(f"--depth: {args.depth} must be >= 1")
    resume = args.resume or bool(args.split)

    t_start = time.perf_counter()
    model = arm_channel(args.channel, design=args.design)
    problem = uncertain_problem(model)
    names = [b.name for b in problem.blocks]
    els = model.uncertainty
    if args.halves:
        i, j, path = parse_cell(args.halves, n, what="--halves")
        t0 = time.perf_counter()
        got = halves_bounds(problem, names, n, i, j, path, args.gamma, args.at)
        print(json.dumps({"cell": args.halves, "omega": args.at} | got))
        print(f"{time.perf_counter() - t0:.0f} s")
        return
    if args.boxes is None:
        boxes = sorted(itertools.product(range(n), repeat=2), key=lambda b: (sum(b), b))
    else:
        boxes = [parse_cell(b, n, what="--boxes")[:2] for b in args.boxes]
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
    if resume and args.out and os.path.exists(args.out):
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
    # a grid cell already recorded, or split into pieces, is not run again as a whole
    seen = {tuple(b["box"]) for b in record["sub_boxes"]}
    boxes = [b for b in boxes if b not in seen]
    scal_path = args.scalings or (
        os.path.splitext(args.out)[0] + ".scalings.npz" if args.out else None
    )
    store = load_scalings(scal_path) if resume else {}
    # scalings left in the record by an older version of this driver: to the store
    for b in record["sub_boxes"]:
        if "scalings" in b:
            store[record_key(b)] = (
                np.array(b.pop("omega"), float),
                np.array(b.pop("scalings"), float),
            )
    # the work list: (i, j, path, depth left for re-splitting a failing piece)
    queue = [(i, j, (), 0) for i, j in boxes]
    for i, j, path in splits:
        queue += [
            (i, j, p, args.depth - 1)
            for p in split_children(record["sub_boxes"], i, j, path, pieces)
        ]

    def save():
        cov = coverage(record["sub_boxes"], n)
        record["coverage"] = float(cov)
        record["coverage_exact"] = str(cov)
        done = any(b["status"] == "certified" for b in record["sub_boxes"])
        record["certified_bound_on_covered_part"] = args.gamma if done else None
        record["time"] = time.perf_counter() - t_start
        if args.out:
            # atomic: an interrupted run leaves the previous complete file
            tmp = f"{args.out}.tmp{os.getpid()}"
            with open(tmp, "w") as fh:
                json.dump(record, fh, indent=1)
            os.replace(tmp, args.out)

    while queue:
        i, j, path, depth_left = queue.pop(0)
        warm = warm_start(store, i, j, path) if args.warm else None
        prof = None
        if args.profile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        res = certify_sub_box(
            problem, names, n, i, j, args.gamma, args.hint, args.grid, args.rounds, warm, path
        )
        if prof is not None:
            prof.disable()
            prof.dump_stats(args.profile)
            args.profile = None
        res["t_ranges"] = t_ranges(els, n, i, j, path)
        if "scalings" in res:
            store[record_key(res)] = (res.pop("omega"), res.pop("scalings"))
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
        if res["status"] != "certified" and depth_left > 0:
            kids = split_children(record["sub_boxes"], i, j, path, pieces)
            queue[:0] = [(i, j, p, depth_left - 1) for p in kids]
    save()
    print(f"coverage {record['coverage']:.4f} at gamma {args.gamma}, {record['time']:.0f} s")


if __name__ == "__main__":
    main()
