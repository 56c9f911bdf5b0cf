"""Full-order H-infinity optimum of the singular COMPleib plants by three routes.

Per plant (``tests/data/compleib_*_data.json``): the primal eliminated-LMI level
(:func:`robustmb.synthesis.lmi.hinf_level_lmi`, an estimate), the face-reduced dual level
(:func:`robustmb.synthesis.lmi_dual.hinf_level_dual`, an estimate), the regularised
Riccati limit (smallest regularised bracket top confirmed by a verified controller within
1 %, from ``hinfsyn``'s ``regularised`` list), the achieved level of ``hinfsyn``'s returned
controller (re-verified here by python-control's ``lft`` and SLICOT AB13DD on the
balanced loop), the certified floor (:func:`robustmb.tuning.full_order_floor`) and the
wall time of each step.  ``rel`` columns are relative differences to the achieved level.

Run: ``PYTHONPATH=. python benchmarks/bench_singular_compleib.py [PLANT ...]``.
"""

from __future__ import annotations

import sys
import time
import warnings

import control
import numpy as np
import scipy.linalg

import robustmb as rmb
from robustmb.synthesis.lmi import hinf_level_lmi
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
        "plant   primal_lmi  dual_lmi    reg_limit   achieved    rel(dual)  "
        "rel(reg)   floor       cert  t_lmi t_dual t_syn t_floor"
    )
    print(head)
    for name in names:
        P, (a, b1, b, c1, c, d11, d12, d21), _ = load(name)
        nmeas, ncon = c.shape[0], b.shape[1]
        P0 = partition_plant(P, nmeas, ncon).with_d22_zero()
        lvl, t_lmi = timed(lambda: hinf_level_lmi(P0)[0])  # noqa: B023
        dual, t_dual = timed(lambda: hinf_level_dual(P0))  # noqa: B023
        res, t_syn = timed(lambda: rmb.hinfsyn(P, nmeas, ncon))  # noqa: B023
        fl, t_fl = timed(lambda: full_order_floor(P, nmeas, ncon))  # noqa: B023
        num = lambda x: x if isinstance(x, float) else float("nan")  # noqa: E731
        lvl, dual = num(lvl), num(dual)
        if isinstance(res, Exception):
            reg, ach = float("nan"), float("nan")
        else:
            tops = [top for _, top, norm in res.regularised if norm <= top * 1.01]
            reg = min(tops) if tops else float("nan")
            ach = achieved(P, res.controller)
        lower, cert = (fl.lower, fl.certified) if not isinstance(fl, Exception) else (0.0, False)
        print(
            f"{name:7s} {lvl:<11.7g} {dual:<11.7g} {reg:<11.7g} {ach:<11.7g} "
            f"{dual / ach - 1:<+10.2e} {reg / ach - 1:<+10.2e} {lower:<11.7g} "
            f"{'yes' if cert else 'no':4s}  {t_lmi:5.1f} {t_dual:5.1f} {t_syn:5.1f} {t_fl:5.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:] or DATA_ONLY)
