"""Benchmark: cost of the exact (integer) stability test against the model order.

Run from the repository root:  python benchmarks/bench_exact_stability.py

:func:`robustmb.analysis.exact_stability.exact_stable` decides the stability of a
stored matrix in integer arithmetic (Faddeev-LeVerrier characteristic polynomial, Routh
array); ``hinfnorm``, ``h2norm`` and the tuning's stability test call it only when the
floating-point verdict is undecided, for orders up to ``EXACT_MAX_ORDER``.  This prints,
per order ``n``, the bit length of the scaled integer entries and the median time of
the test for

- ``dense``: random dense ``A`` with entries spread over 2^-15 .. 2^15 (about 90-bit
  integers), shifted stable;
- ``chain``: ``n / 2`` identical lightly damped modes in series (``zeta = 1e-6``,
  python-control's realisation of the transfer function), continuous and discrete
  (ZOH at ``dt = 0.1``);

and, in the same run, the time of ``hinfnorm`` on a random stable model of that order
(``rss``, 2 inputs and outputs) for scale: the column ``ratio`` is
``t(exact, dense) / t(hinfnorm)``.  A second table gives the time of the exact H2
Gramian (:func:`robustmb.analysis._h2_exact.exact_h2_squared`, ``h2norm``'s last resort
up to 8 states) on ``n / 2`` modes in series and on random dense models.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robustmb.analysis._h2_exact import exact_h2_squared  # noqa: E402
from robustmb.analysis.exact_stability import _decide, exact_stable, integer_matrix  # noqa: E402
from robustmb.analysis.norms import hinfnorm  # noqa: E402

ORDERS = (4, 8, 12, 16, 20, 24, 28, 32, 40)
H2_ORDERS = (2, 4, 6, 8, 10)
REPEATS = 3


def median_time(fun, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        _decide.cache_clear()  # time the test itself, not the cache of its verdicts
        start = time.perf_counter()
        fun()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def dense(n, rng):
    A = rng.standard_normal((n, n)) * 2.0 ** rng.integers(-15, 16, (n, n))
    shift = np.max(np.linalg.eigvals(A).real) + 1.0
    return A - shift * np.eye(n)


def chain(n, zeta=1e-6):
    den = [1.0]
    for _ in range(n // 2):
        den = np.polymul(den, [1.0, 2 * zeta, 1.0])
    return control.ss(control.tf([1.0], den))


def bits(A):
    M, _ = integer_matrix(A)
    return max(abs(x).bit_length() for row in M for x in row)


def main():
    rng = np.random.default_rng(0)
    unlimited = {"max_order": 10**6, "max_bits": 10**6}
    print(
        "n  | bits dense | dense [s] | chain bits | chain [s] | chain dt [s] | hinfnorm [s] | ratio"
    )
    for n in ORDERS:
        A = dense(n, rng)
        G = chain(n)
        Gd = control.c2d(G, 0.1)
        model = control.rss(n, 2, 2)
        t_dense = median_time(lambda A=A: exact_stable(A, **unlimited))
        t_chain = median_time(lambda G=G: exact_stable(G.A, **unlimited))
        t_chain_d = median_time(lambda Gd=Gd: exact_stable(Gd.A, 0.1, **unlimited))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_hinf = median_time(lambda model=model: hinfnorm(model))
        print(
            f"{n:3d}|{bits(A):11d} |{t_dense:10.4f} |{bits(G.A):11d} |{t_chain:10.4f} |"
            f"{t_chain_d:13.4f} |{t_hinf:13.4f} |{t_dense / t_hinf:7.1f}"
        )


def main_h2():
    rng = np.random.default_rng(1)
    print("n  | chain H2 [s] | dense H2 [s]")
    for n in H2_ORDERS:
        G = chain(n, 1e-5)
        A = dense(n, rng)
        B, C = rng.standard_normal((n, 2)), rng.standard_normal((2, n))
        t_chain = median_time(lambda G=G: exact_h2_squared(G.A, G.B, G.C))
        t_dense = median_time(lambda A=A, B=B, C=C: exact_h2_squared(A, B, C))
        print(f"{n:3d}|{t_chain:13.4f} |{t_dense:13.4f}")


if __name__ == "__main__":
    main()
    main_h2()
