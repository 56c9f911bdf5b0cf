"""Cost and effect of the rounding checks of ``rmb.mussv``'s bounds.

Two checks keep the reported bounds on the right side of the exact ``mu`` of the
floating-point matrix: :func:`~robustmb.analysis.mu_lower.certified_lower` (the lower
bound from an eigenvalue with a bound on its error) and
:func:`~robustmb.analysis.mu_rounding.margin_rounding_allowance` (the upper bound's margin
with a bound on its rounding error).  The script prints, in one run:

* for random stacks (mixed real / complex structures), the share of ``mussv``'s time
  spent in the two checks (a same-run ratio);
* on families where ``mu`` is known exactly (one full complex block: ``sigma_max`` by
  mpmath at 50 digits; a repeated complex scalar on a triangular matrix: the largest
  diagonal modulus; near-Jordan ``e I + N`` with a real or complex repeated scalar:
  ``|e|``), how many bounds fall on the wrong side of ``mu`` (0 expected) and the largest
  relative distance to ``mu`` of each bound.

Usage: ``python benchmarks/bench_mussv_rounding.py [--quick]``
"""

from __future__ import annotations

import argparse
import sys
import time

import mpmath
import numpy as np

import robustmb as rmb
from robustmb._blas import single_blas_thread


class _Timed:
    """Wraps a module function and adds up the time spent in it."""

    def __init__(self, module, name):
        self.module, self.name = module, name
        self.fn = getattr(module, name)
        self.seconds = 0.0

    def __call__(self, *args, **kw):
        t0 = time.perf_counter()
        try:
            return self.fn(*args, **kw)
        finally:
            self.seconds += time.perf_counter() - t0

    def __enter__(self):
        setattr(self.module, self.name, self)
        return self

    def __exit__(self, *exc):
        setattr(self.module, self.name, self.fn)


def cost(nw):
    mod = sys.modules["robustmb.analysis.mussv"]
    rng = np.random.default_rng(0)
    cases = [
        ([(-2, 0), (2, 0), (1, 1), (2, 2)], True),
        ([(-3, 0), (-2, 0), (1, 1)], False),
        ([(3, 0), (2, 0), (1, 1)], True),
    ]
    print("| structure | M | mussv s | certified_lower | margin + allowance | share |")
    print("|---|---|---|---|---|---|")
    for blk, cplx in cases:
        n = sum(c if c else abs(r) for r, c in blk)
        M = rng.standard_normal((nw, n, n))
        if cplx:
            M = M + 1j * rng.standard_normal((nw, n, n))
        with _Timed(mod, "certified_lower") as lo, _Timed(mod, "margin_rounding_allowance") as up:
            t0 = time.perf_counter()
            rmb.mussv(M, blk)
            total = time.perf_counter() - t0
        share = (lo.seconds + up.seconds) / total
        kind = "complex" if cplx else "real"
        print(
            f"| {blk} | {nw} x {kind} | {total:.2f} | {lo.seconds:.3f} | {up.seconds:.3f} "
            f"| {100 * share:.1f} % |"
        )


def _mp(M):
    return mpmath.matrix([[mpmath.mpc(complex(z)) for z in row] for row in M])


def exact_families(count):
    rng = np.random.default_rng(1)
    rows = {}

    def add(name, M, blk, mu):
        r = rmb.mussv(M, blk)
        lo, up = mpmath.mpf(float(r.lower)), mpmath.mpf(float(r.upper))
        wrong_lo, wrong_up, gap_lo, gap_up = rows.get(name, (0, 0, 0.0, 0.0))
        rows[name] = (
            wrong_lo + int(lo > mu),
            wrong_up + int(up < mu),
            max(gap_lo, float(abs(lo - mu) / mu)),
            max(gap_up, float(abs(up - mu) / mu)),
        )

    with mpmath.workdps(50):
        for _ in range(count):
            r, c = (int(v) for v in rng.integers(1, 5, size=2))
            M = (rng.standard_normal((c, r)) + 1j * rng.standard_normal((c, r))) * 2.0 ** int(
                rng.integers(-40, 40)
            )
            add("full block (sigma_max)", M, [(r, c)], max(mpmath.svd_c(_mp(M), compute_uv=False)))
            n = int(rng.integers(1, 5))
            M = np.tril(rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
            mu = max(abs(mpmath.mpc(complex(z))) for z in np.diag(M))
            add("triangular, repeated complex scalar", M, [(n, 0)], mu)
    for e in (1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2, 1.0):
        for n in (2, 3, 4):
            M = e * np.eye(n) + np.eye(n, k=-1)
            add("near-Jordan, real scalar", M, [(-n, 0)], mpmath.mpf(e))
            add("near-Jordan, complex scalar", M, [(n, 0)], mpmath.mpf(e))
    print("| family | cases | lower > mu | upper < mu | max lower gap | max upper gap |")
    print("|---|---|---|---|---|---|")
    total = {"full": count, "tri": count}
    for name, (wl, wu, gl, gu) in rows.items():
        k = total["full"] if "full" in name else total["tri"] if "triangular" in name else 24
        print(f"| {name} | {k} | {wl} | {wu} | {gl:.2e} | {gu:.2e} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with single_blas_thread():
        cost(40 if args.quick else 200)
        print()
        exact_families(20 if args.quick else 100)


if __name__ == "__main__":
    main()
