"""Soundness campaign: many generated uncertain systems, every certificate checked.

Runs the generators of ``tests/soundness/_soundness_cases.py`` over ``--seeds`` seeds
each (robstab, wcgain, robgain as the generator declares), plus random mussv
problems, and prints a summary: cases, certificates checked, false certificates
(split into the known issue-10 defects and new ones; the target is 0), analyses
that raised, and the bound gaps.

    PYTHONPATH=. python benchmarks/soundness_campaign.py --seeds 5
    PYTHONPATH=. python benchmarks/soundness_campaign.py --seeds 20 --only robstab
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "soundness"))

from _soundness_cases import GENERATORS  # noqa: E402
from _soundness_checks import run  # noqa: E402

# (generator, analysis) -> issue-10 defect the case is known to exercise
KNOWN = {
    ("wc_lft_ltidyn", "robgain"): "8",
    ("wc_lft_mixed", "robgain"): "8",
    ("wc_lft_complex", "wcgain"): "1",
    ("wc_lft_complex", "robgain"): "1",
    ("mass_spring_pid", "robstab"): "11",
}


def _gap(v):
    lo, up = v.numbers.get("lower"), v.numbers.get("upper")
    if lo is None or up is None or not np.isfinite(up) or up <= 0:
        return None
    return (up - lo) / up


def campaign(seeds, only=None, mu_cases=0, out=print):
    rows = []
    t_start = time.perf_counter()
    for name, (_, analyses) in GENERATORS.items():
        for analysis in analyses:
            if only and analysis not in only:
                continue
            for seed in range(seeds):
                t0 = time.perf_counter()
                try:
                    v = run(name, seed, analysis)
                    err = None
                except Exception as exc:  # an analysis that raises is a finding too
                    v, err = None, f"{type(exc).__name__}: {str(exc)[:120]}"
                dt = time.perf_counter() - t0
                defect = KNOWN.get((name, analysis)) or (v.numbers.get("defect") if v else None)
                rows.append((name, analysis, seed, v, err, defect, dt))
                if err or (v is not None and not v.ok):
                    tag = f"known defect {defect}" if defect else "NEW"
                    out(f"[{tag}] {name}[seed={seed}] {analysis}: {err or v}")
    mu_rows = _mu_campaign(mu_cases, out) if mu_cases else []
    elapsed = time.perf_counter() - t_start
    _summary(rows, mu_rows, elapsed, out)
    return rows, mu_rows


def _mu_campaign(n, out):
    from test_mussv_soundness import BLOCKS, _block_scaling, _dims, check_mussv

    import robustmb as rmb

    rows = []
    for seed in range(n):
        rng = np.random.default_rng(seed)
        blk = [BLOCKS[i] for i in rng.integers(0, len(BLOCKS), rng.integers(1, 4))]
        rows_, cols = _dims(blk)
        m = rng.standard_normal((rows_, cols))
        if rng.uniform() < 0.5:
            m = m + 1j * rng.standard_normal((rows_, cols))
        decades = [0.0, 3.0, 6.0][seed % 3]
        dl, dr = _block_scaling(blk, rng.uniform(-decades / 2, decades / 2, len(blk)))
        ms = dl @ m @ np.linalg.inv(dr)
        try:
            bad = check_mussv(ms, blk, rmb.mussv(ms, blk), rng)
            err = None
        except Exception as exc:
            bad, err = [], f"{type(exc).__name__}: {str(exc)[:120]}"
        rows.append((blk, decades, bad, err))
        if bad or err:
            out(f"[mussv] seed={seed} blk={blk} decades={decades}: {err or bad}")
    return rows


def _summary(rows, mu_rows, elapsed, out):
    out("\n=== soundness campaign ===")
    n_cases = len(rows)
    checked = [r for r in rows if r[3] is not None]
    false_known = [r for r in checked if not r[3].ok and r[5]]
    false_new = [r for r in checked if not r[3].ok and not r[5]]
    errors = [r for r in rows if r[4]]
    out(f"cases: {n_cases} ({len(checked)} analysed, {len(errors)} raised), {elapsed:.0f} s")
    out(
        f"false certificates / wrong numbers: {len(false_known) + len(false_new)} "
        f"(known issue-10 defects: {len(false_known)}, new: {len(false_new)})"
    )
    by_analysis = {}
    for _name, analysis, _seed, v, err, _defect, dt in rows:
        s = by_analysis.setdefault(analysis, {"n": 0, "bad": 0, "err": 0, "gaps": [], "t": []})
        s["n"] += 1
        s["t"].append(dt)
        if err:
            s["err"] += 1
        elif not v.ok:
            s["bad"] += 1
        else:
            g = _gap(v)
            if g is not None:
                s["gaps"].append(g)
    out(
        f"{'analysis':10s} {'cases':>5s} {'viol':>5s} {'raised':>6s} "
        f"{'gap med':>8s} {'gap p90':>8s} {'gap max':>8s} {'s/case':>7s}"
    )
    for analysis, s in by_analysis.items():
        g = np.array(s["gaps"]) if s["gaps"] else np.array([np.nan])
        out(
            f"{analysis:10s} {s['n']:5d} {s['bad']:5d} {s['err']:6d} {np.median(g):8.2e} "
            f"{np.percentile(g, 90):8.2e} {np.max(g):8.2e} {np.mean(s['t']):7.2f}"
        )
    # certified lower margin against the brute-force (exact) margin, where one is known
    ratios = [
        r[3].numbers["lower"] / r[3].numbers["brute_margin"]
        for r in checked
        if r[3].ok and "brute_margin" in r[3].numbers and np.isfinite(r[3].numbers["brute_margin"])
    ]
    if ratios:
        ratios = np.array(ratios)
        out(
            f"robstab lower / exact margin over {len(ratios)} cases: min {ratios.min():.4f}, "
            f"median {np.median(ratios):.6f}, max {ratios.max():.8f} (must be <= 1)"
        )
    if mu_rows:
        bad = sum(1 for r in mu_rows if r[2])
        err = sum(1 for r in mu_rows if r[3])
        out(f"mussv: {len(mu_rows)} problems, {bad} false certificates, {err} raised")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3, help="seeds per generator and analysis")
    p.add_argument("--only", nargs="*", help="analyses to run (robstab, wcgain, robgain)")
    p.add_argument("--mu", type=int, default=60, help="random mussv problems")
    args = p.parse_args(argv)
    campaign(args.seeds, args.only, args.mu)


if __name__ == "__main__":
    main()
