"""Full-order synthesis: robustmb hinfsyn / h2syn against python-control (SLICOT) in one run.

For each regular plant: wall time of both (median of repeats), the optimal-level estimates
(robustmb's bisection level vs SB10AD's gamma) and the closed-loop H-infinity norm each
controller really achieves (robustmb.hinfnorm on the lower LFT).  Then the count of COMPleib
plants each solves (python-control refuses singular D12 / D21).

Run: PYTHONPATH=$PWD python benchmarks/bench_synthesis.py      (``... h2`` for h2syn only,
``... regular`` for the regular hinfsyn table and h2syn without the COMPleib count,
``... singular`` for the singular COMPleib plants: LMI level against the regularised limit,
``... autocost`` for hinfsyn "auto" against "lmi" on singular plants, same run,
``... mixsyn`` for the S&P Ex. 2.11 mixsyn case alone, alternated, with evaluation counts)
"""

import sys
import time
import warnings
from pathlib import Path

import control
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "synthesis"))
from _plants import compleib_plant, independent_hinf, slicot_plant  # noqa: E402

import robustmb as rmb  # noqa: E402

warnings.filterwarnings("ignore")


def timed(fn, repeats=5):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def achieved(P, K):
    # python-control's lft and SLICOT AB13DD (control.norm), with the stability test on the
    # poles: independent of robustmb
    cl = P.lft(K)
    if np.max(cl.poles().real) >= 0:
        return np.inf
    return float(control.norm(cl, "inf"))


def regular_cases():
    yield ("SB10FD 6 states", *slicot_plant("hinfsyn_slicot_sb10fd_central_controller_gamma15"))
    yield ("COMPleib AC4", *compleib_plant("AC4_full_order_hinf"))
    G = control.tf([200.0], [10.0, 1.0]) * control.tf([1.0], [0.05, 1.0]) ** 2
    W1 = control.tf([1 / 1.5, 10.0], [1.0, 1e-3])
    P = control.augw(control.ss(G), control.ss(W1), control.ss([], [], [], [[0.1]]))
    yield "S&P Ex. 2.11 mixsyn", P, 1, 1
    rng = np.random.default_rng(3)
    for i in range(3):
        P = control.ss(rng.standard_normal((8, 8)) - 2 * np.eye(8), rng.standard_normal((8, 4)),
                       rng.standard_normal((4, 8)), 0.3 * rng.standard_normal((4, 4)))  # fmt: skip
        yield f"random 8 states #{i}", P, 2, 2


def _pyctrl_worker(P, nmeas, ncon, queue):
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        try:
            K, _, gam, _ = control.hinfsyn(P, nmeas, ncon)
            a = achieved(P, K)
            queue.put((f"gamma {gam:.6g}, achieved {a:.6g}", bool(np.isfinite(a))))
        except Exception as exc:  # noqa: BLE001
            queue.put((f"failed: {type(exc).__name__}", False))


def _pyctrl_with_timeout(P, nmeas, ncon, timeout=30.0):
    """python-control's hinfsyn in a child process: SB10AD does not return on some plants."""
    import multiprocessing as mp

    queue = mp.Queue()
    proc = mp.Process(target=_pyctrl_worker, args=(P, nmeas, ncon, queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return f"no answer within {timeout:.0f} s", False
    return queue.get() if not queue.empty() else ("failed (no result)", False)


def _interleaved(f1, f2, rounds=7, inner=40, clock=time.perf_counter):
    """Median over rounds of the per-call time of f1 and f2, alternated (shared machine)."""
    t1, t2 = [], []
    for _ in range(rounds):
        for fn, acc in ((f1, t1), (f2, t2)):
            t = clock()
            for _ in range(inner):
                fn()
            acc.append((clock() - t) / inner)
    return float(np.median(t1)), float(np.median(t2))


def h2_section():
    """h2syn against python-control (SB10HD) and, in discrete time, SB10DD at gamma -> inf."""
    import slycot

    G, nmeas, ncon = slicot_plant("h2syn_slicot_sb10hd")
    r, K = rmb.h2syn(G, nmeas, ncon), control.h2syn(G, nmeas, ncon)
    t1, t2 = _interleaved(lambda: rmb.h2syn(G, nmeas, ncon), lambda: control.h2syn(G, nmeas, ncon))
    h2 = rmb.h2norm(G.lft(K))
    print(f"\nh2syn SB10HD: robustmb {t1 * 1e3:.3f} ms, python-control {t2 * 1e3:.3f} ms "
          f"(ratio {t1 / t2:.2f}); H2 {r.norm:.10g} vs {h2:.10g} "
          f"(rel diff {abs(r.norm - h2) / h2:.1e})")  # fmt: skip
    Gd, nmeas, ncon = slicot_plant("hinfsyn_slicot_sb10dd_discrete_gamma111", dt=1.0)
    rd = rmb.h2syn(Gd, nmeas, ncon)
    n, m, p = Gd.nstates, Gd.ninputs, Gd.noutputs

    def sb10dd():
        return slycot.sb10dd(n, m, p, ncon, nmeas, 1e5, Gd.A, Gd.B, Gd.C, Gd.D)

    t1, t2 = _interleaved(lambda: rmb.h2syn(Gd, nmeas, ncon), sb10dd, inner=10)
    hd = rmb.h2norm(Gd.lft(control.ss(*sb10dd()[1:5], 1.0)))
    print(f"h2syn discrete SB10DD plant: robustmb {t1 * 1e3:.3f} ms, SB10DD(gamma=1e5) "
          f"{t2 * 1e3:.3f} ms (ratio {t1 / t2:.2f}); H2 {rd.norm:.12g} vs {hd:.12g} "
          f"(rel diff {abs(rd.norm - hd) / hd:.1e})")  # fmt: skip


def singular_section():
    """Singular COMPleib plants: LMI level against the regularised Riccati limit, and the
    controller hinfsyn (method="auto") returns, checked by python-control + AB13DD on the
    diagonally balanced loop (raw AB13DD overestimates on these stiff loops)."""
    import importlib

    from robustmb.synthesis.plant import partition_plant

    lmi = importlib.import_module("robustmb.synthesis.lmi")
    print(f"{'plant':5s} {'LMI level':>12s} {'reg. limit':>12s} {'rel diff':>9s} "
          f"{'returned':>12s} {'route':>11s} {'AB13DD':>12s} {'lower':>12s} {'cert':>5s} "
          f"{'time s':>7s}")  # fmt: skip
    for nm in ["AC1", "AC2", "AC6", "AC7", "AC17", "HE1", "HE2", "REA1", "REA2", "DIS1"]:
        P, nmeas, ncon = compleib_plant(nm + "_data")
        level, _ = lmi.hinf_level_lmi(partition_plant(P, nmeas, ncon).with_d22_zero())
        t = time.perf_counter()
        r = rmb.hinfsyn(P, nmeas, ncon)
        tr = time.perf_counter() - t
        tops = [top for _, top, norm in r.regularised if norm <= top * 1.01]
        lim = min(tops) if tops else np.nan
        print(f"{nm:5s} {level:12.8g} {lim:12.8g} {abs(level - lim) / lim:9.1e} "
              f"{r.gamma:12.8g} {r.method:>11s} {independent_hinf(P, r.controller):12.8g} "
              f"{r.gamma_bracket[0]:12.8g} {r.lower_certified!s:>5s} {tr:7.2f}")  # fmt: skip
        for eps, top, norm in r.regularised:
            print(f"      eps {eps:7.0e}: regularised top {top:.9g}, verified {norm:.9g}")


def auto_cost_section(names=("HE1", "AC7", "AC6", "REA2")):
    """hinfsyn on singular plants: method="auto" (LMI + regularised Riccati limit) against
    method="lmi" alone, alternated in one run, with the norms each returns."""
    print(f"{'plant':5s} {'lmi s':>7s} {'auto s':>7s} {'ratio':>6s} {'gamma lmi':>12s} "
          f"{'gamma auto':>12s} {'route':>11s} {'eps sizes':>9s}")  # fmt: skip
    for nm in names:
        P, nmeas, ncon = compleib_plant(nm + "_data")
        t = time.perf_counter()
        r_lmi = rmb.hinfsyn(P, nmeas, ncon, method="lmi")
        t_lmi = time.perf_counter() - t
        t = time.perf_counter()
        r = rmb.hinfsyn(P, nmeas, ncon)
        t_auto = time.perf_counter() - t
        print(f"{nm:5s} {t_lmi:7.2f} {t_auto:7.2f} {t_auto / t_lmi:6.2f} {r_lmi.gamma:12.8g} "
              f"{r.gamma:12.8g} {r.method:>11s} {len(r.regularised):9d}")  # fmt: skip


def mixsyn_section(rounds=9, inner=5):
    """S&P Ex. 2.11 (W2 = 0.1): robustmb's hinfsyn and python-control's, alternated in one
    process (median per-call time over rounds), with the load-independent counts: Riccati
    existence tests and full closed-loop norm computations of robustmb's call."""
    import importlib

    hs = importlib.import_module("robustmb.synthesis.hinfsyn")
    _, P, nmeas, ncon = next(c for c in regular_cases() if c[0].startswith("S&P"))
    calls, real = [], hs.hinfnorm

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    hs.hinfnorm = counted
    try:
        r = rmb.hinfsyn(P, nmeas, ncon)
    finally:  # the module is restored even when the call fails
        hs.hinfnorm = real
    t1, t2 = _interleaved(lambda: rmb.hinfsyn(P, nmeas, ncon),
                          lambda: control.hinfsyn(P, nmeas, ncon), rounds, inner)  # fmt: skip
    c1, c2 = _interleaved(lambda: rmb.hinfsyn(P, nmeas, ncon),
                          lambda: control.hinfsyn(P, nmeas, ncon), rounds, inner,
                          time.process_time)  # fmt: skip
    K, _, gam, _ = control.hinfsyn(P, nmeas, ncon)
    print(f"S&P Ex. 2.11 mixsyn: robustmb {t1 * 1e3:.1f} ms, python-control {t2 * 1e3:.1f} ms "
          f"(ratio {t1 / t2:.2f}; CPU time {c1 * 1e3:.1f} / {c2 * 1e3:.1f} ms, ratio "
          f"{c1 / c2:.2f}); existence tests {len(r.history)}, hinfnorm calls "
          f"{len(calls)}; gamma_opt {r.gamma_opt:.9g} vs SB10AD {gam:.9g}; achieved "
          f"{r.gamma:.9g} (AB13DD {achieved(P, r.controller):.9g}) vs python-control's "
          f"{achieved(P, K):.9g}")  # fmt: skip


def main():
    # Both libraries on one BLAS thread: with threaded BLAS on this shared 2-core machine,
    # SLICOT's SB10AD runs up to 40x slower, which would flatter robustmb.
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        if sys.argv[1:] == ["h2"]:
            h2_section()
        elif sys.argv[1:] == ["regular"]:
            _main(compleib=False)
        elif sys.argv[1:] == ["mixsyn"]:
            mixsyn_section()
            return
        elif sys.argv[1:] == ["autocost"]:
            auto_cost_section()
            return
        elif sys.argv[1:] == ["singular"]:
            singular_section()
            return
        else:
            _main()
    h2_unpinned()


def h2_unpinned():
    """h2syn as a user calls it, without the global pin: robustmb pins BLAS to one thread
    around its SLICOT calls, python-control does not."""
    G, nmeas, ncon = slicot_plant("h2syn_slicot_sb10hd")
    t1, t2 = _interleaved(lambda: rmb.h2syn(G, nmeas, ncon), lambda: control.h2syn(G, nmeas, ncon))
    print(f"h2syn SB10HD, BLAS threads as installed: robustmb {t1 * 1e3:.3f} ms, "
          f"python-control {t2 * 1e3:.3f} ms (ratio {t1 / t2:.2f})")  # fmt: skip


def _main(compleib=True):
    print(f"{'plant':24s} {'rmb s':>8s} {'pyctrl s':>9s} {'ratio':>6s} "
          f"{'gamma_opt rmb':>14s} {'gamma pyctrl':>13s} {'rel diff':>9s} "
          f"{'achieved rmb':>13s} {'achieved pyctrl':>15s}")  # fmt: skip
    for name, P, nmeas, ncon in regular_cases():
        t1, r = timed(lambda P=P, nmeas=nmeas, ncon=ncon: rmb.hinfsyn(P, nmeas, ncon))
        try:
            t2, (K, _, gam, _) = timed(
                lambda P=P, nmeas=nmeas, ncon=ncon: control.hinfsyn(P, nmeas, ncon)
            )
            ach = achieved(P, K)
        except Exception as exc:  # noqa: BLE001
            t2, gam, ach = np.nan, np.nan, f"failed: {type(exc).__name__}"
        print(f"{name:24s} {t1:8.4f} {t2:9.4f} {t1 / t2:6.2f} {r.gamma_opt:14.8g} {gam:13.8g} "
              f"{abs(r.gamma_opt - gam) / gam:9.1e} {r.gamma:13.8g} {ach!s:>15.10s}")  # fmt: skip
    h2_section()
    if not compleib:
        return
    print("\nCOMPleib (full order):")
    ok_r = ok_p = 0
    names = ["AC1", "AC2", "AC4", "AC6", "AC7", "AC17", "HE1", "HE2", "REA1", "REA2", "DIS1"]
    for nm in names:
        P, nmeas, ncon = compleib_plant(nm + ("_full_order_hinf" if nm == "AC4" else "_data"))
        t = time.perf_counter()
        try:
            r = rmb.hinfsyn(P, nmeas, ncon)
            s_r = f"{r.method:7s} gamma {r.gamma:.6g} (opt est. {r.gamma_opt:.6g})"
            ok_r += 1
        except Exception as exc:  # noqa: BLE001
            s_r = f"failed: {exc}"[:60]
        tr = time.perf_counter() - t
        s_p, ok = _pyctrl_with_timeout(P, nmeas, ncon)
        ok_p += ok
        print(f"  {nm:5s} robustmb {s_r:48s} {tr:6.2f} s | python-control {s_p}")
    print(f"solved: robustmb {ok_r}/{len(names)}, python-control {ok_p}/{len(names)}")


if __name__ == "__main__":
    main()
