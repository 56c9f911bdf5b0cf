"""Benchmark of rmb.mussv: fast D,G upper bound vs SLICOT AB13MD and vs the LMI bound.

For random mixed structures of size n = 10, 20, 40 (real scalars and square complex full
blocks, the structures AB13MD accepts) on the frequency response of a random stable
state-space model, the script measures in one run:

* the time per frequency point of ``mussv(..., lower=False)`` (fast method, whole stack
  at once) and of ``slycot.ab13md`` (one call per point), and their ratio;
* the relative gap of the fast bound to AB13MD and to the LMI method (``method="lmi"``,
  the optimal D,G bound) on a few points;
* the time per point of the lower bound and the ratio lower / upper.

A last case uses repeated scalars and non-square full blocks (not accepted by AB13MD).
All solvers run with one BLAS thread (threaded LAPACK only slows small matrices down and
makes timings depend on the machine's load).  Figures are printed and written to
``benchmarks/results_mussv.md``.

Usage: ``python benchmarks/bench_mussv.py [--quick] [--out PATH]``
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import time
from pathlib import Path

import numpy as np

from robustmb.analysis.mussv import mussv


def single_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def random_structure(rng, n, *, ab13md_compatible=True):
    """Blocks summing to n: ~40 % real scalars, the rest complex blocks of size 1-4."""
    blk, nblock, itype = [], [], []
    total = 0
    while total < n:
        if rng.random() < 0.4:
            blk.append((-1, 0))
            nblock.append(1)
            itype.append(1)
            total += 1
            continue
        p = int(min(rng.integers(1, 5), n - total))
        if ab13md_compatible or p == 1:
            blk.append((p, p))
        elif rng.random() < 0.5:
            blk.append((p, 0))  # repeated complex scalar
        else:
            blk.append((p, max(1, p - 1)))  # non-square full block (p x p-1)
        nblock.append(p)
        itype.append(2)
        total += p
    return blk, np.array(nblock), np.array(itype)


def frequency_response(rng, blk, nw, nstates=8):
    """M(jw) = C (jw I - A)^-1 B + D of a random stable model, fitted to the structure."""
    n = sum(c if c else abs(r) for r, c in blk)
    m = sum(abs(r) for r, _ in blk)
    A = rng.standard_normal((nstates, nstates))
    A -= (np.abs(np.linalg.eigvals(A)).max() + 0.5) * np.eye(nstates)
    B = rng.standard_normal((nstates, m))
    C = rng.standard_normal((n, nstates))
    D = 0.3 * rng.standard_normal((n, m))
    w = np.logspace(-1, 1, nw)
    return C @ np.linalg.solve(1j * w[:, None, None] * np.eye(nstates) - A, B) + D


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def run_case(rng, n, nw, n_lmi, *, ab13md_compatible=True):
    blk, nblock, itype = random_structure(rng, n, ab13md_compatible=ab13md_compatible)
    M = frequency_response(rng, blk, nw)
    row = {"n": n, "blocks": len(blk), "nw": nw, "blk": blk}
    fast, t_fast = timed(lambda: mussv(M, blk, lower=False))
    row["fast_ms"] = 1e3 * t_fast / nw
    if ab13md_compatible:
        from slycot import ab13md

        def run_ab13md():
            return np.array([ab13md(Mk, nblock, itype)[0] for Mk in M])

        ref, t_ref = timed(run_ab13md)
        row["ab13md_ms"] = 1e3 * t_ref / nw
        gap = (fast.upper - ref) / ref
        row["gap_ab13md_max"] = float(gap.max())
        row["gap_ab13md_median"] = float(np.median(gap))
    pick = np.linspace(0, nw - 1, n_lmi).round().astype(int)
    lmi, t_lmi = timed(lambda: mussv(M[pick], blk, method="lmi", lower=False))
    row["lmi_ms"] = 1e3 * t_lmi / len(pick)
    row["gap_lmi_max"] = float(((fast.upper[pick] - lmi.upper) / lmi.upper).max())
    full, t_full = timed(lambda: mussv(M, blk))
    row["lower_ms"] = 1e3 * max(t_full - t_fast, 0.0) / nw
    row["lower_over_upper_median"] = float(np.median(full.lower / full.upper))
    row["lower_over_upper_min"] = float(np.min(full.lower / full.upper))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller stacks (smoke run)")
    parser.add_argument(
        "--out", default=str(Path(__file__).with_name("results_mussv.md")), help="markdown file"
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2024)
    plan = [(10, 20, 3), (20, 20, 3), (40, 8, 2)]
    if args.quick:
        plan = [(10, 6, 2), (20, 4, 1)]
    rows = []
    with single_thread():
        for n, nw, n_lmi in plan:
            rows.append(run_case(rng, n, nw, n_lmi))
            print_row(rows[-1])
        rows.append(
            run_case(
                rng,
                20 if not args.quick else 10,
                10 if not args.quick else 4,
                2,
                ab13md_compatible=False,
            )
        )
        print_row(rows[-1])
    write_markdown(rows, Path(args.out), quick=args.quick)
    print(f"written to {args.out}")


def print_row(r):
    ab = (
        f"ab13md {r['ab13md_ms']:8.1f} ms/pt  "
        f"ratio fast/ab13md {r['fast_ms'] / r['ab13md_ms']:6.3f}  "
        f"gap to ab13md max {r['gap_ab13md_max']:+.1e}"
        if "ab13md_ms" in r
        else "ab13md n/a (repeated scalars / non-square blocks)"
    )
    print(
        f"n={r['n']:3d} blocks={r['blocks']:2d} nw={r['nw']:3d}  "
        f"fast {r['fast_ms']:8.1f} ms/pt  {ab}  "
        f"lmi {r['lmi_ms']:8.1f} ms/pt gap fast-lmi {r['gap_lmi_max']:+.1e}  "
        f"lower {r['lower_ms']:7.1f} ms/pt lower/upper median {r['lower_over_upper_median']:.4f}"
    )


def write_markdown(rows, path, *, quick):
    lines = [
        "# mussv benchmark (`benchmarks/bench_mussv.py`)",
        "",
        f"Machine: {platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}, one BLAS thread{' (quick run)' if quick else ''}. "
        "Random mixed structures (40 % real scalars, complex blocks of size 1-4) on the "
        "frequency response of a random stable 8-state model.  Times are per frequency "
        "point; the fast method processes the whole stack at once.  Gaps are relative: "
        "(fast - reference) / reference; negative means the fast bound is lower (better).",
        "",
        "| n | blocks | points | fast ms/pt | AB13MD ms/pt | fast/AB13MD | gap to AB13MD max "
        "| gap to AB13MD median | LMI ms/pt | gap to LMI max | lower ms/pt | lower/upper median "
        "| lower/upper min |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ab = (
            f"{r['ab13md_ms']:.1f} | {r['fast_ms'] / r['ab13md_ms']:.3f} | "
            f"{r['gap_ab13md_max']:+.1e} | {r['gap_ab13md_median']:+.1e}"
            if "ab13md_ms" in r
            else "n/a | n/a | n/a | n/a"
        )
        lines.append(
            f"| {r['n']} | {r['blocks']} | {r['nw']} | {r['fast_ms']:.1f} | {ab} | "
            f"{r['lmi_ms']:.0f} | {r['gap_lmi_max']:+.1e} | {r['lower_ms']:.1f} | "
            f"{r['lower_over_upper_median']:.4f} | {r['lower_over_upper_min']:.4f} |"
        )
    lines += [
        "",
        "The last row uses repeated complex scalars and non-square full blocks, which "
        "AB13MD does not accept.  Both upper bounds are D,G bounds of the same kind (full "
        "Hermitian D and G on repeated scalars); certificates of every figure are "
        "re-checked in the tests, not here.",
        "",
    ]
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
