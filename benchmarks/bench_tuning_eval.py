"""Cost of one inner-loop H-infinity evaluation of hinfstruct (value, peak, gradient).

Per COMPleib plant, the closed loop with a random stabilising static gain (the plant is
open-loop stable or the gain is scaled down until it is) is evaluated repeatedly by
``robustmb.tuning.gradients.hinf_gradient``:

* ``new``: the peak frequency polished by a secant iteration on the analytic derivative of
  the largest singular value (modal form), a peak at 0 accepted by one check;
* ``grid``: the same evaluation with the earlier polish (bracket zoom by 9-point grids,
  then parabolic steps), measured in the same run;
* ``ab13dd``: the default inner evaluation, SLICOT AB13DD's peak checked by one level set
  (``robustmb.tuning.hinf_slicot``; ``new`` and ``grid`` are measured with it turned off);
* ``hinfnorm``: ``rmb.hinfnorm`` of the same loop (no gradient), for scale.

The same loop is evaluated ``reps`` times, so the one-call memos of the modal form and of
the peak gradient (``robustmb/tuning/_memo.py``) hit after the first call in every
column: the figures are those of the rest of the evaluation.

Plants where a scaled random gain does not stabilise the loop are skipped.  Printed:
milliseconds per evaluation, the ratios new / grid and ab13dd / new; the values must
agree with hinfnorm to 1e-6 (printed).

Usage: ``python benchmarks/bench_tuning_eval.py [--plants AC2,AC15] [--reps 200]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import robustmb as rmb
import robustmb.tuning.gradients as grads
import robustmb.tuning.hinf_slicot as slicot

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def load(name):
    for suffix in ("static_hinf", "data"):
        f = DATA / f"compleib_{name}_{suffix}.json"
        if f.exists():
            p = json.loads(f.read_text())["plant"]
            return [np.array(p[k], float) for k in ("A", "B1", "B", "C1", "C", "D11", "D12", "D21")]
    raise FileNotFoundError(name)


def loop(name, seed=0):
    a, b1, b2, c1, c2, d11, d12, d21 = load(name)
    rng = np.random.default_rng(seed)
    k = rng.standard_normal((b2.shape[1], c2.shape[0]))
    for _ in range(60):
        acl = a + b2 @ k @ c2
        if np.max(np.linalg.eigvals(acl).real) < 0:
            break
        k *= 0.5
    if np.max(np.linalg.eigvals(acl).real) >= 0:
        return None  # no stabilising gain on this ray (open-loop unstable plant)
    return acl, b1 + b2 @ k @ d21, c1 + d12 @ k @ c2, d11 + d12 @ k @ d21


def per_eval(fun, m, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        out = fun(m)
    return 1e3 * (time.perf_counter() - t0) / reps, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plants", default="AC2,AC15,AC6,AC7,DIS1,HE2,HE4,REA1")
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args()
    new_polish = grads._polish_modal

    def grid_polish(lam, cv, vb, d, sig, lower, wpeak, bracket):
        return grads._polish(sig, lower, wpeak, bracket)

    head = (
        f"{'plant':7s} {'new[ms]':>8s} {'grid[ms]':>9s} {'ratio':>6s} {'ab13dd[ms]':>10s} "
        f"{'ab/new':>6s} {'hinfnorm[ms]':>12s}"
    )
    print(head + " agree")

    def evaluate(m):
        return grads.hinf_gradient(*m)

    for name in args.plants.split(","):
        m = loop(name)
        if m is None:
            print(f"{name:7s} (no stabilising gain found on the random ray: skipped)")
            continue
        slicot.ENABLED = False
        grads._polish_modal = new_polish
        t_new, (g_new, _, _) = per_eval(evaluate, m, args.reps)
        grads._polish_modal = grid_polish
        t_grid, (g_grid, _, _) = per_eval(evaluate, m, args.reps)
        grads._polish_modal = new_polish
        slicot.ENABLED = True
        t_ab, (g_ab, _, _) = per_eval(evaluate, m, args.reps)
        t_ref, (g_ref, _) = per_eval(rmb.hinfnorm, m, max(args.reps // 4, 1))
        ok = all(abs(g / g_ref - 1) < 1e-6 for g in (g_new, g_grid, g_ab))
        print(
            f"{name:7s} {t_new:8.3f} {t_grid:9.3f} {t_new / t_grid:6.2f} {t_ab:10.3f} "
            f"{t_ab / t_new:6.2f} {t_ref:12.3f} {ok}",
            flush=True,
        )


if __name__ == "__main__":
    main()
