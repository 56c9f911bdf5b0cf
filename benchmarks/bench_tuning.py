"""Benchmark of hinfstruct on COMPleib static output-feedback problems.

Measured in one run, per plant:

* robustmb ``hinfstruct`` with a static gain (``random_start`` extra runs): best gamma,
  time, and the closed loop re-verified (stable, ``hinfnorm`` of the textbook loop);
* reference: scipy Nelder--Mead multistart from the *same* start points on the same
  objective (``hinfnorm`` of the closed loop, a penalty on the spectral abscissa when
  unstable), with scipy's default iteration limit;
* the full-order level: ``gamma_full``, the SDP optimum of the Gahinet--Apkarian LMIs
  (an estimate), and ``floor``, the certified lower bound of ``full_order_floor`` (a dual
  point checked in exact arithmetic; ``-`` when not certified), which no static gain may
  beat.

Printed: gamma (10 significant digits) and time of each, the ratios ``gamma_rmb / gamma_ref`` and
``t_rmb / t_ref``, gamma_full, the load-independent counts ``ev_rmb`` (closed-loop
objective evaluations of robustmb's optimiser, each an inner H-infinity value and
subgradient), ``screen`` (line-search trials rejected by one response at the last peak
frequency, without an evaluation) and ``ev_NM`` (the reference's objective calls, each
a ``hinfnorm``), the time per evaluation of each (``ms/ev``: robustmb's time over its
evaluations, screened trials and multi-peak sets included; ``ms/NM``: the reference's
time over its calls), the process (CPU) time of each and its ratio ``c ratio`` (one thread:
less moved by other jobs on the machine than the wall-clock ratio, whose two halves can
see different loads), and the load average.  Plants come from ``tests/data/compleib_*``.

Usage: ``python benchmarks/bench_tuning.py [--plants AC15,HE4] [--starts 3] [--no-floor]``
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import control
import numpy as np
from scipy.optimize import minimize

import robustmb as rmb
from robustmb.tuning import full_order_floor
from robustmb.tuning.stability import proved_stable
from robustmb.tuning.tuning_problem import TuningProblem

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
PUBLISHED = ["AC15", "HE4", "HF2D11", "DLR2"]
DATA_ONLY = ["AC1", "AC2", "AC6", "AC7", "AC17", "HE1", "HE2", "REA1", "REA2", "DIS1"]


def load(name):
    for suffix in ("static_hinf", "data"):
        f = DATA / f"compleib_{name}_{suffix}.json"
        if f.exists():
            d = json.loads(f.read_text())
            break
    p = d["plant"]
    a, b1, b, c1, c, d11, d12, d21 = (
        np.array(p[k], float) for k in ("A", "B1", "B", "C1", "C", "D11", "D12", "D21")
    )
    P = control.ss(
        a,
        np.hstack([b1, b]),
        np.vstack([c1, c]),
        np.block([[d11, d12], [d21, np.zeros((c.shape[0], b.shape[1]))]]),
    )
    published = d.get("expected", {}).get("hinfstruct_static_hinf")
    return P, (a, b1, b, c1, c, d11, d12, d21), published


def static_loop(m, k):
    a, b1, b2, c1, c2, d11, d12, d21 = m
    return (a + b2 @ k @ c2, b1 + b2 @ k @ d21, c1 + d12 @ k @ c2, d11 + d12 @ k @ d21)


def reference(m, starts, nu, ny):
    """Nelder--Mead multistart on the closed-loop norm (penalised when unstable)."""

    def f(x):
        cl = static_loop(m, x.reshape(nu, ny))
        alpha = np.max(np.linalg.eigvals(cl[0]).real)
        if alpha >= -1e-7:
            return 1e8 * (1.0 + alpha)
        return rmb.hinfnorm(cl, tol=1e-6)[0]

    best, nfev = (np.inf, None), 0
    for s in starts:
        r = minimize(f, s, method="Nelder-Mead")
        nfev += r.nfev
        if r.fun < best[0]:
            best = (r.fun, r.x)
    return best, nfev


def _counted_objective():
    """Count the optimiser's objective evaluations (a wrapper around the method) and
    the line-search trials its screen rejects without one (``count[1]``)."""
    count = [0, 0]
    objective, above = TuningProblem.objective, TuningProblem.above

    def counted(self, x, **kwargs):
        count[0] += 1
        return objective(self, x, **kwargs)

    def screened(self, x, level):
        out = above(self, x, level)
        count[1] += bool(out)
        return out

    return count, (objective, above), (counted, screened)


def counted_hinfstruct(P, K, nstarts, seed, clock=time.perf_counter):
    """``hinfstruct(P, K)`` with its evaluations counted: ``(result, time, count)``,
    ``count`` as :func:`_counted_objective`'s, the time by ``clock``."""
    count, originals, wrapped = _counted_objective()
    TuningProblem.objective, TuningProblem.above = wrapped
    try:
        t0 = clock()
        res = rmb.hinfstruct(P, K, random_start=nstarts, seed=seed)
        t = clock() - t0
    finally:
        TuningProblem.objective, TuningProblem.above = originals
    return res, t, count


def bench(name, nstarts, seed, floor=True):
    P, m, published = load(name)
    nu, ny = m[2].shape[1], m[4].shape[0]
    K = rmb.tunable_gain("K", nu, ny)
    c0 = time.process_time()
    res, t_rmb, count = counted_hinfstruct(P, K, nstarts, seed)
    c_rmb = time.process_time() - c0
    cl = static_loop(m, res.values["K"])
    stable = proved_stable(cl[0])  # hinfnorm's test (bands, verified inclusion)
    g_check = rmb.hinfnorm(cl)[0]
    starts = [r.start for r in res.runs]
    t0, c0 = time.perf_counter(), time.process_time()
    (g_ref, _), nfev = reference(m, starts, nu, ny)
    t_ref, c_ref = time.perf_counter() - t0, time.process_time() - c0
    g_full = lower = float("nan")
    if floor:
        try:
            fl = full_order_floor(P, ny, nu)
            g_full, lower = fl.estimate, (fl.lower if fl.certified else float("nan"))
        except Exception:  # noqa: BLE001 - report a solver failure, do not stop the benchmark
            pass
    return dict(
        plant=name,
        nx=m[0].shape[0],
        g=res.gamma,
        g_check=g_check,
        stable=stable,
        t=t_rmb,
        g_ref=g_ref,
        t_ref=t_ref,
        c=c_rmb,
        c_ref=c_ref,
        g_full=g_full,
        floor=lower,
        published=published,
        ev=count[0],
        screened=count[1],
        ev_ref=nfev,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plants", default=",".join(PUBLISHED + DATA_ONLY))
    ap.add_argument("--starts", type=int, default=3, help="random starts besides K = 0")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-floor", action="store_true", help="skip the full-order LMI floor")
    args = ap.parse_args()
    head = (
        f"{'plant':7s} {'nx':>3s} {'gamma_rmb':>16s} {'t_rmb[s]':>8s} {'gamma_NM':>16s} "
        f"{'t_NM[s]':>8s} {'g ratio':>8s} {'t ratio':>8s} {'gamma_full':>11s} {'floor':>11s} "
        f"{'published':>10s} stable {'ev_rmb':>6s} {'screen':>6s} {'ev_NM':>6s} "
        f"{'ms/ev':>6s} {'ms/NM':>6s} {'cpu_rmb':>7s} {'cpu_NM':>7s} {'c ratio':>7s} load"
    )
    print(head)
    for name in args.plants.split(","):
        r = bench(name, args.starts, args.seed, floor=not args.no_floor)
        pub = f"{r['published']:.6g}" if r["published"] else "-"
        ok = r["stable"] and abs(r["g_check"] / r["g"] - 1) < 1e-6
        print(
            f"{r['plant']:7s} {r['nx']:3d} {r['g']:16.10g} {r['t']:8.2f} {r['g_ref']:16.10g} "
            f"{r['t_ref']:8.2f} {r['g'] / r['g_ref']:8.4f} {r['t'] / r['t_ref']:8.3f} "
            f"{r['g_full']:11.6g} {r['floor']:11.6g} {pub:>10s} {ok!s:6s} {r['ev']:6d} "
            f"{r['screened']:6d} {r['ev_ref']:6d} {1e3 * r['t'] / max(r['ev'], 1):6.2f} "
            f"{1e3 * r['t_ref'] / max(r['ev_ref'], 1):6.2f} {r['c']:7.2f} {r['c_ref']:7.2f} "
            f"{r['c'] / r['c_ref']:7.3f} {os.getloadavg()[0]:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
