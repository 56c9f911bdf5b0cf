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
  ``|e|``; mixed real + complex structures on ``diag(a, B)``: ``max(|a|, sigma_max(B))``;
  a real repeated scalar on a complex triangular matrix: the largest modulus of its real
  diagonal entries), how many bounds fall on the wrong side of ``mu`` (0 expected) and the largest
  relative distance to ``mu`` of each bound;
* ``certified_lower`` on dense near-Jordan matrices against the spectral radius (mpmath).

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
    # the upper bound's checks run in mu_rounding (certify_scalings)
    rnd = sys.modules["robustmb.analysis.mu_rounding"]
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
        with _Timed(mod, "certified_lower") as lo, _Timed(rnd, "margin_rounding_allowance") as up:
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
        k, wrong_lo, wrong_up, gap_lo, gap_up = rows.get(name, (0, 0, 0, 0.0, 0.0))
        rows[name] = (
            k + 1,
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
        # mixed real + complex structure on diag(a, B): mu = max(|a|, sigma_max(B))
        for k in range(count // 2):
            for cplx in (True, False):
                a = rng.standard_normal() * (3.0 if k % 2 else 0.3)
                B = rng.standard_normal((2, 2)) + (1j * rng.standard_normal((2, 2)) if cplx else 0)
                M = np.zeros((3, 3), dtype=complex if cplx else float)
                M[0, 0], M[1:, 1:] = a, B
                mu = max(mpmath.mpf(abs(a)), max(mpmath.svd_c(_mp(B), compute_uv=False)))
                kind = "complex" if cplx else "real"
                add(f"diag(a, B), [(-1, 0), (2, 2)], {kind} M", M, [(-1, 0), (2, 2)], mu)
            # complex lower-triangular M, real repeated scalar: the largest |real diagonal|
            M = np.tril(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
            M[0, 0], M[1, 1] = 3 * rng.standard_normal(), rng.standard_normal()
            mu = max(abs(mpmath.mpf(M[0, 0].real)), abs(mpmath.mpf(M[1, 1].real)))
            add("complex triangular, real repeated scalar", M, [(-3, 0)], mu)
    for e in (1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2, 0.1, 1.0):
        for n in (2, 3, 4):
            for sgn in (1.0, -1.0):
                M = sgn * e * np.eye(n) + np.eye(n, k=-1)
                add("near-Jordan +-e I + N, n = 2..4, real scalar", M, [(-n, 0)], mpmath.mpf(e))
                add("near-Jordan +-e I + N, n = 2..4, complex scalar", M, [(n, 0)], mpmath.mpf(e))
    for e in (1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-3, 0.5):
        M = e * np.eye(3) + np.eye(3, k=-1)
        add("e I + N (3x3), 7 values of e, real scalar", M, [(-3, 0)], mpmath.mpf(e))
        add("e I + N (3x3), 7 values of e, complex scalar", M, [(3, 0)], mpmath.mpf(e))
    print("| family | cases | lower > mu | upper < mu | max lower gap | max upper gap |")
    print("|---|---|---|---|---|---|")
    for name, (k, wl, wu, gl, gu) in rows.items():
        print(f"| {name} | {k} | {wl} | {wu} | {gl:.2e} | {gu:.2e} |")


def dense_jordan(count):
    """``certified_lower`` on ``c I`` for dense ``Q J_4(1e-3) Q^T`` (complex scalar)."""
    from robustmb.analysis.mu_lower import certified_lower

    rng = np.random.default_rng(11)
    above, worst = 0, 0.0
    with mpmath.workdps(80):
        for k in range(count):
            Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
            M = Q @ (1e-3 * np.eye(4) + np.eye(4, k=-1)) @ Q.T
            c = 10.0 ** (1.5 + 2.0 * k / max(count - 1, 1))  # 33 .. 3333
            lo, _ = certified_lower(M, [(4, 0)], c * np.eye(4))
            E = mpmath.eig(_mp(M), left=False, right=False)
            rho = max(abs(z) for z in E)
            above += int(mpmath.mpf(lo) > rho)
            worst = max(worst, float(mpmath.mpf(lo) / rho))
    print(
        f"dense Q J_4(1e-3) Q^T, c I, c = 33..3333: {count} cases, lower > rho(M): {above}, "
        f"max lower / rho: {worst:.6f}"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    with single_blas_thread():
        cost(40 if args.quick else 200)
        print()
        exact_families(20 if args.quick else 100)
        print()
        dense_jordan(30)


if __name__ == "__main__":
    main()
