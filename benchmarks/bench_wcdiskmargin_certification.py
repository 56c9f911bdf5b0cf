"""Certification of wcdiskmargin's lower bound: a fixed level ``mu <= 1`` against a free sweep.

``wcdiskmargin`` certifies ``mu(diag(I, I/beta) M(jw)) <= 1`` on the whole axis.  It asks
``certified_mu_peak`` to prove the fixed level 1 (``level=1.0``), whose bounds stop as soon
as they are below it; a free sweep (no ``level``) looks for the smallest level it can cover
and reported more than 1 for ``beta`` up to 3.57 on the loop below, while the fixed level
is proved at ``beta = 2.72``.  This script times both at the first trial level of the
loops, in the same run, and prints the worst-case margins against exact closed forms
(skew 0: ``1 / sup_w |D - N| / (2 |D + N|)``, peak at a real root of the derivative).

Run: PYTHONPATH=$PWD python benchmarks/bench_wcdiskmargin_certification.py
"""

import sys
from pathlib import Path

import control
import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.analysis import worst_case_disk_margin as wcdm
from robustmb.analysis.disk_loops import _response
from robustmb.analysis.mu_sweep import certified_mu_peak, default_grid
from robustmb.analysis.uncertain_problem import uncertain_problem

# the closed-form reference of the tests (numpy only)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))
from test_wcdiskmargin_certification import _exact_disk_margin  # noqa: E402

s = control.tf("s")


def cases():
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    c = rmb.ureal("c", 10.0, range=(5.0, 15.0))
    return {
        "6k/((s+1)(s+k)(0.2s+1))": (
            k * 6 / ((s + 1) * (s + k) * (0.2 * s + 1)),
            lambda x: ([6 * x], np.polymul(np.polymul([1, 1], [1, x]), [0.2, 1])),
            np.linspace(0.5, 2.0, 301),
        ),
        "2k/(s+1)^2": (
            k * 2 / (s + 1) ** 2,
            lambda x: ([2 * x], [1, 2, 1]),
            np.linspace(0.5, 2, 301),
        ),
        "25/(s^3+10s^2+cs+10)": (
            25 / (s**3 + 10 * s**2 + c * s + 10),
            lambda x: ([25.0], [1, 10, x, 10]),
            np.linspace(5, 15, 301),
        ),
    }


def main():
    print(
        f"{'loop':<26}{'fixed s':>9}{'free s':>9}{'ratio':>7}{'free upper':>12}"
        f"{'wcdm s':>8}{'lower':>9}{'upper':>9}{'exact min':>11}"
    )
    for name, (L, poly, values) in cases().items():
        problem = uncertain_problem(L, what="bench")
        M = wcdm._disk_interconnection(problem, [0], 0.0)
        blk = list(problem.blk) + [(1, 0)]
        grid = default_grid(problem.a, problem.dt)
        levels = wcdm._worst_case_levels(_response(M, grid, 0.0), problem.nz, problem.nw, blk)
        beta = float(np.max(levels)) * (1 + 2 * wcdm._WC_REL_GAP)
        data = wcdm._scaled_rows(M, problem.nz, beta)
        t_fixed, _ = best_time(
            lambda data=data, blk=blk: certified_mu_peak(
                data, blk, 0.0, level=1.0, lower=False, rel_gap=wcdm._WC_REL_GAP
            ),
            2,
        )
        t_free, free = best_time(
            lambda data=data, blk=blk: certified_mu_peak(data, blk, 0.0, rel_gap=wcdm._WC_REL_GAP),
            2,
        )
        t_wc, res = best_time(lambda L=L: rmb.wcdiskmargin(L), 1)
        exact = min(_exact_disk_margin(*poly(x)) for x in values)
        print(
            f"{name:<26}{t_fixed:>9.2f}{t_free:>9.2f}{t_free / t_fixed:>7.1f}{free.upper:>12.5f}"
            f"{t_wc:>8.2f}{res.lower:>9.5f}{res.upper:>9.5f}{exact:>11.6f}"
        )


if __name__ == "__main__":
    main()
