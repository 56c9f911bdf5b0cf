"""Real-parameter robust stability: certified gap and time, new against previous intervals.

Cases: the two-cart loop (7 states, m1, m2, k at 1 +- 20 %, three lead stages; the
MATLAB Robust Control Toolbox example "Getting Reliable Estimates of Robustness
Margins", which publishes a 0.13 % gap) and the 20-state, 5-parameter loop of
``bench_robust.py``.  Each is run with the current interval certificates and with
the previous ones (``frequency_intervals.py`` at commit cb514df: unscaled multiplier,
unbalanced pencil), and once with the search-first path of all-real problems switched off
(``mu-first``: free sweep, then real-mu lower bounds, then the parameter search); the
1000-point SLICOT AB13MD grid is timed in the same run as the reference.

The ``/grid`` column is the time over the grid's, measured in the same run (below 1:
faster than the grid).

Run: ``python benchmarks/bench_real_parameters.py`` (from the repository root);
``--no-previous`` skips the previous-interval runs.
"""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import robustmb as rmb
from robustmb.analysis import mu_sweep, robust_stability
from robustmb.analysis.uncertain_problem import uncertain_problem

sys.path.insert(0, str(Path(__file__).parent))
from bench_robust import ab13md_grid, twenty_state_loop  # noqa: E402

PREVIOUS = "cb514df"


def previous_intervals():
    """The interval module as of ``PREVIOUS`` (read from git), or None."""
    root = Path(__file__).resolve().parents[1]
    try:
        src = subprocess.run(
            ["git", "show", f"{PREVIOUS}:robustmb/analysis/frequency_intervals.py"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_loader("robustmb.analysis._previous_intervals", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "robustmb.analysis"
    exec(compile(src, "previous_frequency_intervals.py", "exec"), mod.__dict__)
    return mod


def timed_robstab(loop):
    t0 = time.perf_counter()
    res = rmb.robstab(loop, sensitivity=False)
    return res, time.perf_counter() - t0


def main():
    prev = None if "--no-previous" in sys.argv else previous_intervals()
    # (name, loop, AB13MD grid decades): each grid spans the modes of its loop
    cases = [
        ("two carts (7 states, 3 real)", rmb.examples.two_carts_loop(), (-1, 4)),
        ("20 states, 5 real", twenty_state_loop(), (-2, 2)),
    ]
    print(
        f"{'case':30s} {'algorithm':9s} {'lower':>9s} {'upper':>9s} {'gap %':>8s} {'time s':>7s}"
        f" {'/grid':>6s}"
    )
    for name, loop, decades in cases:
        runs = [("current", None), ("mu-first", "mu-first")]
        if prev is not None:
            runs.append(("previous", prev))
        problem = uncertain_problem(loop)
        omega = np.logspace(*decades, 1000)
        t0 = time.perf_counter()
        mus = ab13md_grid(problem, omega)
        t_ref = time.perf_counter() - t0
        for label, mod in runs:
            saved = (mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate)
            robust_stability._SEARCH_FIRST = mod != "mu-first"
            if mod not in (None, "mu-first"):
                mu_sweep.certified_interval = mod.certified_interval
                mu_sweep.multiplier_from_certificate = mod.multiplier_from_certificate
            try:
                res, t = timed_robstab(loop)
            finally:
                mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate = saved
                robust_stability._SEARCH_FIRST = True
            gap = 100 * (res.upper / res.lower - 1)
            print(
                f"{name:30s} {label:9s} {res.lower:9.5f} {res.upper:9.5f} {gap:8.3f} {t:7.2f}"
                f" {t / t_ref:6.2f}"
            )
        print(
            f"{name:30s} {'AB13MD':9s} {'':9s} {1 / mus.max():9.5f} {'grid':>8s} {t_ref:7.2f}"
            "  (1000-point grid, no certificate)"
        )


if __name__ == "__main__":
    main()
