"""Full-order H-infinity optimum of the singular COMPleib plants by three routes.

Per plant (``tests/data/compleib_*_data.json``): the primal eliminated-LMI level
(:func:`robustmb.synthesis.lmi.hinf_level_lmi`, an estimate), the face-reduced dual level
(:func:`robustmb.synthesis.lmi_dual.hinf_level_dual`, an estimate; ``dual_bal`` solved in
the state coordinates that balance the primal ``R`` and ``S``), the verified norm
``lmi_K`` of the full-LMI controller at 1.0003 times the primal level (nan when that LMI
has no strict solution), the regularised
Riccati limit (smallest regularised bracket top confirmed by a verified controller within
1 %, from ``hinfsyn``'s ``regularised`` list), the achieved level of ``hinfsyn``'s returned
controller (re-verified here by python-control's ``lft`` and SLICOT AB13DD on the
balanced loop), the certified floor (:func:`robustmb.tuning.full_order_floor`) and the
wall time of each step.  ``rel`` columns are relative differences to the achieved level.

Run: ``PYTHONPATH=. python benchmarks/bench_singular_compleib.py [PLANT ...]``;
``... --eps-study AC7`` for the regularised optima at a finer sequence of sizes, their
linear fit, and the best controller verified on the singular plant at each size.
"""

from __future__ import annotations

import sys
import time
import warnings

import control
import numpy as np
import scipy.linalg

import robustmb as rmb
from robustmb.synthesis.lmi import hinf_level_lmi, lmi_hinf
from robustmb.synthesis.lmi_dual import hinf_level_dual
from robustmb.synthesis.plant import partition_plant
from robustmb.tuning import full_order_floor

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from bench_tuning import DATA_ONLY, load  # noqa: E402


def achieved(P, K):
    """Closed-loop norm by python-control + AB13DD on the balanced loop (inf if unstable)."""
    cl = P.lft(K)
    if np.max(cl.poles().real) >= 0:
        return np.inf
    _, (s, _) = scipy.linalg.matrix_balance(cl.A, permute=False, separate=True)
    bal = control.ss(cl.A / s[:, None] * s[None, :], cl.B / s[:, None], cl.C * s[None, :], cl.D)
    return float(control.norm(bal, "inf"))


def timed(f):
    t = time.perf_counter()
    try:
        out = f()
    except Exception as exc:  # noqa: BLE001 - a benchmark records the failure
        out = exc
    return out, time.perf_counter() - t


def main(names):
    warnings.simplefilter("ignore")
    head = (
        "plant   primal_lmi  dual_lmi    dual_bal    lmi_K       reg_limit   achieved    "
        "rel(dual)  rel(bal)   rel(reg)   floor       cert  t_lmi t_dual t_syn t_floor"
    )
    print(head)
    for name in names:
        P, (a, b1, b, c1, c, d11, d12, d21), _ = load(name)
        nmeas, ncon = c.shape[0], b.shape[1]
        P0 = partition_plant(P, nmeas, ncon).with_d22_zero()
        out, t_lmi = timed(lambda: hinf_level_lmi(P0))  # noqa: B023
        lvl, T = out if isinstance(out, tuple) else (out, None)
        dual, t_dual = timed(lambda: hinf_level_dual(P0))  # noqa: B023
        dual_t, _ = timed(lambda: hinf_level_dual(P0, T=T))  # noqa: B023
        ctrl, _ = timed(lambda: lmi_hinf(P0, gamma=lvl * (1 + 3e-4), T=T)[2])  # noqa: B023
        lmi_k = np.nan if isinstance(ctrl, Exception) else achieved(P, control.ss(*ctrl))
        res, t_syn = timed(lambda: rmb.hinfsyn(P, nmeas, ncon))  # noqa: B023
        fl, t_fl = timed(lambda: full_order_floor(P, nmeas, ncon))  # noqa: B023
        num = lambda x: x if isinstance(x, float) else float("nan")  # noqa: E731
        lvl, dual, dual_t = num(lvl), num(dual), num(dual_t)
        if isinstance(res, Exception):
            reg, ach = float("nan"), float("nan")
        else:
            tops = [top for _, top, norm in res.regularised if norm <= top * 1.01]
            reg = min(tops) if tops else float("nan")
            ach = achieved(P, res.controller)
        lower, cert = (fl.lower, fl.certified) if not isinstance(fl, Exception) else (0.0, False)
        print(
            f"{name:7s} {lvl:<11.7g} {dual:<11.7g} {dual_t:<11.7g} {lmi_k:<11.7g} {reg:<11.7g} "
            f"{ach:<11.7g} "
            f"{dual / ach - 1:<+10.2e} {dual_t / ach - 1:<+10.2e} {reg / ach - 1:<+10.2e} "
            f"{lower:<11.7g} "
            f"{'yes' if cert else 'no':4s}  {t_lmi:5.1f} {t_dual:5.1f} {t_syn:5.1f} {t_fl:5.1f}",
            flush=True,
        )


def eps_study(name, sizes=(1e-7, 5e-8, 3e-8, 2e-8, 1e-8, 5e-9)):
    """Regularised optima ``gamma_eps`` (bracket top of the existence test, relative width
    1e-9) at finer sizes, a least-squares line through them, and per size the least norm
    on the singular plant of the central controllers at backoffs 1, 2, 5 per decade from
    1e-6 to 1e-3 (realisation of ``plant.balanced_controller``): ``hinfnorm`` of the
    closed loop (finite only when it proves stability), python-control lft + AB13DD on the
    balanced loop, and the frequency-wise peak of ``Fl(P, K)`` from the data."""
    import importlib

    from robustmb.synthesis import hinf_riccati as ric
    from robustmb.synthesis.gamma_bracket import bisect
    from robustmb.synthesis.plant import balanced_controller, closed_loop, regularise

    hs = importlib.import_module("robustmb.synthesis.hinfsyn")
    P, (a, b1, b, c1, c, d11, d12, d21), _ = load(name)
    nmeas, ncon = c.shape[0], b.shape[1]
    plant = partition_plant(P, nmeas, ncon)
    tops = []
    print(f"{name}: eps, regularised optimum, best verified (hinfnorm / AB13DD / Fl peak) "
          "at backoff")  # fmt: skip
    for eps in sizes:
        Pe = regularise(plant, eps)
        N = ric.normalise(Pe.with_d22_zero())
        _, hi = bisect(N, 1e-9, [])
        tops.append(hi)
        best = None
        for back in [k * 10.0**e for e in range(-6, -3) for k in (1, 2, 5)] + [1e-3]:
            g = hi * (1 + back)
            t = ric.gamma_test(N.plant, g)
            if not t.feasible:
                continue
            Ah, Bh, Ch, Dh, _ = ric.central_controller(N.plant, g, t)
            K = balanced_controller((Ah, Bh @ N.Ty, N.Tu @ Ch, N.Tu @ Dh @ N.Ty))
            cl = closed_loop(plant, K)
            hn = float(rmb.hinfnorm(cl, tol=1e-9)[0])
            if not np.isfinite(hn) or (best is not None and hn >= best[0]):
                continue
            fl = hs._fl_peak(plant, K, 1.0)[0]
            best = (max(hn, fl), achieved(P, control.ss(*K)), fl, back)
        text = (
            "none verified"
            if best is None
            else (f"{best[0]:.9g} / {best[1]:.9g} / {best[2]:.9g} at {best[3]:.0e}")
        )
        print(f"  {eps:7.0e}  {hi:.10g}  {text}", flush=True)
    slope, limit = np.polyfit(np.array(sizes), np.array(tops), 1)
    fit = np.polyval([slope, limit], np.array(sizes))
    print(f"  line through the optima: {limit:.9g} + {slope:.4g} eps (largest residual "
          f"{np.max(np.abs(fit - tops)) / limit:.1e} relative)")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1:2] == ["--eps-study"]:
        warnings.simplefilter("ignore")
        for nm in sys.argv[2:] or ["AC7"]:
            eps_study(nm)
    else:
        main(sys.argv[1:] or DATA_ONLY)
