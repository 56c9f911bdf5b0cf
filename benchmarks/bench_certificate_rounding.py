"""The rounding-safe acceptance of mu upper-bound certificates outside ``mussv``'s loop.

Prints, in one run, on families where ``mu`` is known exactly (``[[e, 0], [1, e]]``,
``e I + N`` with a real or complex repeated scalar: ``mu = e``):

* the pointwise bounds of the frequency certificates
  (:func:`~robustmb.analysis.frequency_certificate.bounds_at_scalings`) from perturbed
  optimal D,G parameters: how many are below ``mu`` (0 expected) and their distance to it;
* :func:`~robustmb.analysis.mu_upper.verify_upper_bound` at ``tol = 0`` on ``mussv``'s own
  certificates, with the condition numbers of their ``D``;
* ``mussv`` on matrices whose ``mu`` is tiny but nonzero (``mu = 0`` claimed before);
* the share of ``mussv``'s and of ``check_frequency_certificate``'s time spent in
  :func:`~robustmb.analysis.mu_rounding.certify_scalings` (same-run ratios).

Usage: ``python benchmarks/bench_certificate_rounding.py``
"""

from __future__ import annotations

import sys
import time

import numpy as np
from bench_mussv_rounding import _Timed  # this folder is on sys.path

import robustmb as rmb
from robustmb._blas import single_blas_thread
from robustmb.analysis.frequency_certificate import bounds_at_scalings, check_frequency_certificate
from robustmb.analysis.mu_sweep import certified_mu_peak
from robustmb.analysis.mu_upper import verify_upper_bound
from robustmb.analysis.mussv import warm_upper_bounds


def _jordan(e, n):
    return e * np.eye(n) + np.eye(n, k=-1)


def frequency_bounds():
    print("| e | rows | below mu | min bound / mu - 1 | max bound / mu - 1 |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(1)
    for log_e in (-13.0, -12.5, -12.0, -10.0, -8.0):
        e, blk = 10.0**log_e, [(-2, 0)]
        M = _jordan(e, 2)
        _, x = warm_upper_bounds(M[None], blk)
        xs = x * (1.0 + 1e-6 * rng.standard_normal((40, x.shape[1])))
        beta, _, _ = bounds_at_scalings(np.repeat(M[None], 40, axis=0), blk, xs)
        rel = beta / e - 1.0
        print(f"| {e:.3g} | 40 | {int(np.sum(beta < e))} | {rel.min():.3e} | {rel.max():.3e} |")


def verify_family():
    print("\n| structure | cases | cond(D) >= 1e15 | verified at tol 0 | upper < mu |")
    print("|---|---|---|---|---|")
    for real in (True, False):
        count = ill = ok = low = 0
        for n in (2, 3, 4):
            for log_e in (-14, -13, -12, -10, -8, -6, -4, -2):
                e = 10.0**log_e
                blk = [(-n, 0)] if real else [(n, 0)]
                M = _jordan(e, n)
                r = rmb.mussv(M, blk, lower=False)
                count += 1
                ill += int(np.linalg.cond(r.D) >= 1e15)
                ok += int(verify_upper_bound(M, blk, r.upper, r.D, r.G, tol=0.0))
                low += int(r.upper < e)
        kind = "real" if real else "complex"
        print(f"| e I + N, n = 2..4, {kind} repeated scalar | {count} | {ill} | {ok} | {low} |")


def tiny_mu():
    print("\n| M | blk | mu | mussv upper |")
    print("|---|---|---|---|")
    for e in (1e-20, 1e-100, 1e-300):
        for blk in ([(-2, 0)], [(2, 0)], [(-1, 0), (-1, 0)]):
            r = rmb.mussv(_jordan(e, 2), blk, lower=False)
            print(f"| [[e, 0], [1, e]] | {blk} | {e:.0e} | {r.upper:.4g} |")
    r = rmb.mussv(_jordan(0.0, 2), [(-2, 0)], lower=False)
    print(f"| [[0, 0], [1, 0]] | [(-2, 0)] | 0 | {r.upper:.4g} |")


def cost():
    print("\n| case | total s | certify_scalings s | share |")
    print("|---|---|---|---|")
    rng = np.random.default_rng(0)
    mussv_mod = sys.modules["robustmb.analysis.mussv"]
    for blk, cplx in (
        ([(-2, 0), (2, 0), (1, 1), (2, 2)], True),
        ([(-3, 0), (-2, 0), (1, 1)], False),
    ):
        n = sum(c if c else abs(r) for r, c in blk)
        M = rng.standard_normal((100, n, n))
        if cplx:
            M = M + 1j * rng.standard_normal((100, n, n))
        with _Timed(mussv_mod, "certify_scalings") as t:
            t0 = time.perf_counter()
            rmb.mussv(M, blk, lower=False)
            total = time.perf_counter() - t0
        share = 100 * t.seconds / total
        print(f"| mussv upper, 100 x {blk} | {total:.2f} | {t.seconds:.3f} | {share:.1f} % |")
    a = np.array([[0, 1, 0, 0], [-4, -0.4, 1, 0], [0, 0, 0, 1], [1, 0, -25, -1.0]])
    b = np.array([[0, 0], [1, 0], [0, 0], [0, 1.0]])
    c = np.array([[1.0, 0.3, 0, 0], [0, 0, 2.0, 0.1]])
    data, blk = (a, b, c, np.zeros((2, 2))), [(-1, 0), (-1, 0)]
    level = 1.02 * certified_mu_peak(data, blk, lower=False).upper
    sweep = certified_mu_peak(data, blk, level=level, lower=False, relax=False)
    fc_mod = sys.modules["robustmb.analysis.frequency_certificate"]
    with _Timed(fc_mod, "certify_scalings") as t:
        t0 = time.perf_counter()
        chk = check_frequency_certificate(data, blk, level, sweep.omega, sweep.scalings)
        total = time.perf_counter() - t0
    print(
        f"| check_frequency_certificate, {len(sweep.omega)} points (covered {chk.covered}) "
        f"| {total:.3f} | {t.seconds:.3f} | {100 * t.seconds / total:.1f} % |"
    )


if __name__ == "__main__":
    with single_blas_thread():
        frequency_bounds()
        verify_family()
        tiny_mu()
    cost()
