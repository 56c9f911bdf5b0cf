"""Cost of mu with and without the occurrence reduction robstab / wcgain / robgain apply.

A 3-state matrix written entry by entry (``A0[i, j] + A1[i, j] * qa + ...``, the model of
``tests/analysis/test_occurrence_reduction.py``) repeats its two real parameters once per
entry.  Times, in the same run: (1) the reduction itself (``reduce_occurrences``), (2)
``mussv`` of ``M11(jw)`` on 40 frequencies for the realisation as written and for the
reduced one, and (3) a whole ``robstab`` (which reduces first).  Prints the repetitions
and the ratios.  The unreduced ``robstab`` is not timed: it ran for minutes.

Run: ``python benchmarks/bench_occurrence_reduction.py``
"""

import sys
from pathlib import Path

import control
import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.analysis.freqresp import freqresp
from robustmb.analysis.occurrence_reduction import reduce_occurrences, reduced_problem
from robustmb.analysis.uncertain_problem import uncertain_problem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))
from test_occurrence_reduction import _entry_by_entry  # noqa: E402


def mu_on_grid(problem, w):
    a, b, c, d = problem.m11
    m = freqresp(control.ss(a, b, c, d), w)
    return rmb.mussv(m, problem.blk)


def main():
    usys = _entry_by_entry()
    w = np.logspace(-1, 1, 40)
    raw = uncertain_problem(usys)
    red, _ = reduced_problem(usys, "robstab")
    t_red, _ = best_time(lambda: reduce_occurrences(usys), 3)
    t_raw_mu, r_raw = best_time(lambda: mu_on_grid(raw, w), 1)
    t_red_mu, r_red = best_time(lambda: mu_on_grid(red, w), 3)
    t_rs, rs = best_time(lambda: rmb.robstab(usys, sensitivity=False), 1)
    reps = lambda p: {b.name: b.reps for b in p.blocks}  # noqa: E731
    print(f"repetitions as written {reps(raw)}, reduced {reps(red)}")
    print(f"reduction itself                 {t_red * 1e3:8.1f} ms")
    print(f"mussv on 40 frequencies, written {t_raw_mu:8.3f} s, peak upper {r_raw.upper.max():.6f}")
    print(f"mussv on 40 frequencies, reduced {t_red_mu:8.3f} s, peak upper {r_red.upper.max():.6f}")
    print(f"ratio written / reduced          {t_raw_mu / t_red_mu:8.1f}")
    print(f"robstab (reduces first)          {t_rs:8.3f} s, [{rs.lower:.6f}, {rs.upper:.6f}]")


if __name__ == "__main__":
    main()
