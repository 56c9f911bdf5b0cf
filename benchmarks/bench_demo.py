"""Wall and CPU time of ``robustmb demo`` (the certified LPV pipeline) and of its variants.

Runs the command line in a fresh interpreter, as a user would, and prints its wall time
and CPU time (user + system of the child process), next to two references measured in
the same run: ``import robustmb`` alone (the start-up floor) and the machine's load
average (the goals are for an otherwise idle 2-core machine).  The demo's own stage
times are read from its output.

* default: ``robustmb demo``, the certified LPV pipeline (model, stored design, every
  shipped sub-box certificate re-checked, report), against the 3 min goal of
  ``pip install -e . && robustmb demo``; also prints how many frequencies it re-checked
  per channel (a load-independent count) and the verdict lines.  ``--replay`` is the
  same demo (its former name).
* ``--frozen``: ``robustmb demo --frozen``, the arm at one configuration under a joint
  PID (no goal).
* ``--quick`` / ``--full``: ``robustmb demo --lpv --quick`` / ``--lpv`` (goals 30 s and
  3 min; they take hours while the tuning does not converge).

Usage: ``python benchmarks/bench_demo.py [--frozen] [--quick] [--full]`` (several flags run
several modes, in that order; no flag: the default demo).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def run(args):
    """Wall and CPU time (user + system of the child) of one command-line run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(
        [sys.executable, "-m", "robustmb.cli", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frozen", action="store_true", help="robustmb demo --frozen")
    ap.add_argument("--replay", action="store_true", help="the default demo (former name)")
    ap.add_argument("--quick", action="store_true", help="robustmb demo --lpv --quick")
    ap.add_argument("--full", action="store_true", help="robustmb demo --lpv")
    a = ap.parse_args()
    chosen = (
        ("default", a.replay),
        ("frozen", a.frozen),
        ("quick", a.quick),
        ("full", a.full),
    )
    modes = [m for m, on in chosen if on] or ["default"]
    goals = {"default": 180.0, "frozen": None, "quick": 30.0, "full": 180.0}
    flags = {
        "default": [],
        "frozen": ["--frozen"],
        "quick": ["--lpv", "--quick"],
        "full": ["--lpv"],
    }
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import robustmb"], check=True)
    t_import = time.perf_counter() - t0
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"reference: import robustmb {t_import:.1f} s")
    for mode in modes:
        goal = goals[mode]
        with tempfile.TemporaryDirectory() as tmp:
            args = ["demo", *flags[mode], "--out", tmp, "--quiet"]
            wall, cpu, res = run(args)
            if mode == "default" and not res.returncode:
                with open(os.path.join(tmp, "summary.json")) as fh:
                    chans = json.load(fh)["channels"]
                counts = {k: v.get("frequencies_rechecked") for k, v in chans.items()}
                print(f"frequencies re-checked per channel: {counts}")
        if res.returncode:
            print(res.stdout, res.stderr)
            raise SystemExit(f"robustmb {' '.join(args)} failed")
        stages = re.search(r"^  time: (.*)", res.stdout, flags=re.M)
        # On a loaded machine the CPU time (one busy thread) is what an idle one would take.
        against = f"goal {goal:.0f} s: CPU ratio {cpu / goal:.2f}; " if goal else ""
        print(
            f"robustmb {' '.join(['demo', *flags[mode]])}: wall {wall:.1f} s, CPU {cpu:.1f} s "
            f"({against}{wall / t_import:.1f}x the import's wall time); "
            f"{stages.group(1) if stages else ''}"
        )
        for line in res.stdout.splitlines():
            if "verdict:" in line or "worst-case peak gain" in line:
                print("   ", line.strip())


if __name__ == "__main__":
    main()
