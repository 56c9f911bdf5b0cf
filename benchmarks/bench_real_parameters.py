"""Real-parameter robust stability: certified gap and time, new against previous intervals.

Cases: the two-cart loop (7 states, m1, m2, k at 1 +- 20 %, three lead stages; the
MATLAB Robust Control Toolbox example "Getting Reliable Estimates of Robustness
Margins", which publishes a 0.13 % gap) and the 20-state, 5-parameter loop of
``bench_robust.py``.  Each is run with the current interval certificates and with
the previous ones (``frequency_intervals.py`` at commit cb514df: unscaled multiplier,
unbalanced pencil), and the 1000-point SLICOT AB13MD grid is timed in the same run as
the reference.

Run: ``python benchmarks/bench_real_parameters.py`` (from the repository root).
"""

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import robustmb as rmb
from robustmb.analysis import mu_sweep
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
    prev = previous_intervals()
    # (name, loop, AB13MD grid decades): each grid spans the modes of its loop
    cases = [
        ("two carts (7 states, 3 real)", rmb.examples.two_carts_loop(), (-1, 4)),
        ("20 states, 5 real", twenty_state_loop(), (-2, 2)),
    ]
    print(f"{'case':30s} {'algorithm':9s} {'lower':>9s} {'upper':>9s} {'gap %':>8s} {'time s':>7s}")
    for name, loop, decades in cases:
        runs = [("current", None)]
        if prev is not None:
            runs.append(("previous", prev))
        for label, mod in runs:
            saved = (mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate)
            if mod is not None:
                mu_sweep.certified_interval = mod.certified_interval
                mu_sweep.multiplier_from_certificate = mod.multiplier_from_certificate
            try:
                res, t = timed_robstab(loop)
            finally:
                mu_sweep.certified_interval, mu_sweep.multiplier_from_certificate = saved
            gap = 100 * (res.upper / res.lower - 1)
            print(f"{name:30s} {label:9s} {res.lower:9.5f} {res.upper:9.5f} {gap:8.3f} {t:7.2f}")
        problem = uncertain_problem(loop)
        omega = np.logspace(*decades, 1000)
        t0 = time.perf_counter()
        mus = ab13md_grid(problem, omega)
        t_ref = time.perf_counter() - t0
        print(
            f"{name:30s} {'AB13MD':9s} {'':9s} {1 / mus.max():9.5f} {'grid':>8s} {t_ref:7.2f}"
            "  (1000-point grid, no certificate)"
        )


if __name__ == "__main__":
    main()
