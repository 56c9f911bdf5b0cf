"""Small problems and model families: robustmb against SLICOT and python-control.

Run from the repository root:  python benchmarks/bench_small.py [--loops N] [--quick]

Everything is measured in one process, one BLAS thread, so that each ratio compares
two routines under the same machine load:

1. ``mussv`` upper bound on 10x10 mixed real/complex structures: one matrix per call,
   and per matrix in a stack of 100, against SLICOT AB13MD (``slycot.ab13md``, one
   call per matrix).  The bounds are compared too.
2. ``hinfnorm`` on 10-state 4x4 models (``D != 0``) against AB13DD (``slycot.ab13dd``) at
   the same relative tolerance 1e-8: one model per call and per model in a batch.
3. ``h2norm`` on 10-state 4x4 strictly proper models against python-control
   (``control.norm(G, 2)``: pole check, then ``control.lyap``): one per call and
   per model in a batch.
4. A model family: random stable 6-state, 3x3 closed loops (python-control ``rss``,
   ``D = 0``); for each: H-infinity norm, H2 norm and the peak over a 200-point frequency
   grid of the mu upper bound for a real scalar plus a 2x2 complex full block.  robustmb
   does the family in batches (one call each for H-inf, H2, frequency response and the
   mu grid peak, ``model_family.mu_peak_stack``);
   the reference does it with python-control + slycot calls per loop (``control.norm``,
   ``frequency_response``, ``slycot.ab13md`` per grid point).

Ratios are robustmb time / reference time (below 1: robustmb is faster).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# One BLAS thread for every routine timed (threads only slow small matrices down).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Time this checkout, not an installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import control  # noqa: E402
import numpy as np  # noqa: E402
import slycot  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb.analysis.model_family import freqresp_stack, mu_peak_stack  # noqa: E402

TOL = 1e-8
MU_BLK = [(-1, 0), (4, 4), (-1, 0), (2, 2), (1, 1), (-1, 0)]  # 10x10, 3 real scalars
MU_NBLOCK = np.array([1, 4, 1, 2, 1, 1])
MU_ITYPE = np.array([1, 2, 1, 2, 2, 1])
FAMILY_BLK = [(-1, 0), (2, 2)]
FAMILY_NBLOCK = np.array([1, 2])
FAMILY_ITYPE = np.array([1, 2])


def best_of(function, repeats):
    """(smallest wall time of ``repeats`` runs, value of the last run)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - start)
    return min(times), value


def ab13dd(G, tol=TOL):
    A, B, C, D = G.A, G.B, G.C, G.D
    n, m, p = A.shape[0], B.shape[1], C.shape[0]
    return slycot.ab13dd("C", "I", "N", "D", n, m, p, A, np.eye(n), B, C, D, tol)[0]


def random_response_matrices(rng, count, n=10, states=8):
    """``count`` matrices M(j w) of a random stable model (w log-spaced in [0.1, 10])."""
    A = rng.standard_normal((states, states))
    A -= (np.abs(np.linalg.eigvals(A)).max() + 0.5) * np.eye(states)
    B = rng.standard_normal((states, n))
    C = rng.standard_normal((n, states))
    D = 0.3 * rng.standard_normal((n, n))
    w = np.logspace(-1, 1, count)
    return C @ np.linalg.solve(1j * w[:, None, None] * np.eye(states) - A, B) + D


def line(label, ours, ref, ref_name, extra=""):
    ratio = ours / ref
    print(
        f"  {label:<44} {1e3 * ours:9.3f} ms  {ref_name} {1e3 * ref:9.3f} ms  "
        f"ratio {ratio:6.2f} {extra}"
    )
    return ratio


def bench_mussv(rng, repeats):
    print("1. mussv upper bound, 10x10, blk =", MU_BLK)
    M = random_response_matrices(rng, 100)
    singles = M[::10]
    t_ours = np.median(
        [best_of(lambda Mk=Mk: rmb.mussv(Mk, MU_BLK, lower=False), repeats)[0] for Mk in singles]
    )
    t_ref = np.median(
        [
            best_of(lambda Mk=Mk: slycot.ab13md(Mk, MU_NBLOCK, MU_ITYPE), repeats)[0]
            for Mk in singles
        ]
    )
    line("one matrix per call (median of 10)", t_ours, t_ref, "AB13MD")
    t_stack, r = best_of(lambda: rmb.mussv(M, MU_BLK, lower=False), max(1, repeats // 2))
    t_ref_stack, ref = best_of(
        lambda: np.array([slycot.ab13md(Mk, MU_NBLOCK, MU_ITYPE)[0] for Mk in M]),
        max(1, repeats // 2),
    )
    gap = (r.upper - ref) / ref
    line(
        "per matrix in a stack of 100",
        t_stack / 100,
        t_ref_stack / 100,
        "AB13MD",
        f"(bound - AB13MD)/AB13MD in [{gap.min():.1e}, {gap.max():.1e}]",
    )


def bench_hinf(rng, repeats, batch):
    print("2. hinfnorm, 10 states, 4x4, D != 0, tol 1e-8")
    models = [control.rss(10, 4, 4, strictly_proper=False) for _ in range(batch)]
    singles = models[:10]
    t_ours = np.median([best_of(lambda G=G: rmb.hinfnorm(G, tol=TOL), repeats)[0] for G in singles])
    t_ref = np.median([best_of(lambda G=G: ab13dd(G), repeats)[0] for G in singles])
    line("one model per call (median of 10)", t_ours, t_ref, "AB13DD")
    t_batch, (gamma, _) = best_of(lambda: rmb.hinfnorm(models, tol=TOL), max(1, repeats // 2))
    t_ref_all, ref = best_of(lambda: np.array([ab13dd(G) for G in models]), max(1, repeats // 2))
    diff = np.max(np.abs(gamma - ref) / ref)
    line(
        f"per model in a batch of {batch}",
        t_batch / batch,
        t_ref_all / batch,
        "AB13DD",
        f"max rel diff {diff:.1e}",
    )


def bench_h2(rng, repeats, batch):
    print("3. h2norm, 10 states, 4x4, D = 0")
    models = [control.rss(10, 4, 4, strictly_proper=True) for _ in range(batch)]
    singles = models[:10]
    t_ours = np.median([best_of(lambda G=G: rmb.h2norm(G), repeats)[0] for G in singles])
    t_ref = np.median([best_of(lambda G=G: control.norm(G, 2), repeats)[0] for G in singles])
    line("one model per call (median of 10)", t_ours, t_ref, "control.norm")
    t_batch, values = best_of(lambda: rmb.h2norm(models), max(1, repeats // 2))
    t_ref_all, ref = best_of(
        lambda: np.array([control.norm(G, 2) for G in models]), max(1, repeats // 2)
    )
    diff = np.max(np.abs(values - ref) / ref)
    line(
        f"per model in a batch of {batch}",
        t_batch / batch,
        t_ref_all / batch,
        "control.norm",
        f"max rel diff {diff:.1e}",
    )


def family_ours(models, omega):
    gamma, _ = rmb.hinfnorm(models, tol=TOL)
    h2 = rmb.h2norm(models)
    response = freqresp_stack(models, omega)  # (loops, nw, 3, 3)
    mu, _ = mu_peak_stack(response, FAMILY_BLK)
    return gamma, h2, mu


def family_reference(models, omega):
    gamma, h2, mu = [], [], []
    for G in models:
        gamma.append(control.norm(G, "inf", tol=TOL))
        h2.append(control.norm(G, 2))
        response = control.frequency_response(G, omega).frdata  # (3, 3, nw)
        mu.append(
            max(
                slycot.ab13md(np.ascontiguousarray(response[:, :, k]), FAMILY_NBLOCK, FAMILY_ITYPE)[
                    0
                ]
                for k in range(omega.size)
            )
        )
    return np.array(gamma), np.array(h2), np.array(mu)


def bench_family(loops):
    print(
        f"4. family: {loops} random stable 6-state 3x3 loops; H-inf + H2 + mu peak over "
        "200 frequencies"
    )
    models = [control.rss(6, 3, 3, strictly_proper=True) for _ in range(loops)]
    omega = np.logspace(-2, 2, 200)
    t_ours, (gamma, h2, mu) = best_of(lambda: family_ours(models, omega), 1)
    t_ref, (gamma_r, h2_r, mu_r) = best_of(lambda: family_reference(models, omega), 1)
    print(f"  robustmb (batched)            {t_ours:8.2f} s  {loops / t_ours:9.0f} loops/s")
    print(f"  python-control + slycot       {t_ref:8.2f} s  {loops / t_ref:9.0f} loops/s")
    print(
        f"  ratio {t_ours / t_ref:.3f}; max rel diff H-inf "
        f"{np.max(np.abs(gamma - gamma_r) / gamma_r):.1e}, H2 "
        f"{np.max(np.abs(h2 - h2_r) / h2_r):.1e}, mu peak (ours - AB13MD)/AB13MD in "
        f"[{np.min((mu - mu_r) / mu_r):.1e}, {np.max((mu - mu_r) / mu_r):.1e}]"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops", type=int, default=1000, help="size of the model family")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 100 loops")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 7
    loops = 100 if args.quick else args.loops
    np.random.seed(0)  # noqa: NPY002  (control.rss draws from the global generator)
    rng = np.random.default_rng(0)
    bench_mussv(rng, repeats)
    bench_hinf(rng, repeats, 100)
    bench_h2(rng, repeats, 100)
    bench_family(loops)


if __name__ == "__main__":
    main()
