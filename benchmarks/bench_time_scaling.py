"""robstab and wcgain of a loop time-scaled by ``a`` (frequencies times ``a``, same margins).

The flexible-spacecraft attitude loop of ``tests/analysis/test_frequency_scaling.py``
(rigid body + two flexible modes, uncertain inertia, stiffness and damping), realised
physically at each ``a`` (inertia ``1/a^2``, stiffness ``a^2``).  Prints, per ``a``, the
robstab and wcgain brackets with their times, and each time as a ratio to that of
``a = 1`` in the same run.  The exact values do not depend on ``a``: margin 4.33 (brute
force 4.3336), worst-case gain 25.0768 (brute force).

Run: ``python benchmarks/bench_time_scaling.py``
"""

import sys
import time
from pathlib import Path

import robustmb as rmb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "analysis"))
from test_frequency_scaling import loop  # noqa: E402

SCALES = [1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e4, 1e6]


def main():
    rows = []
    for a in SCALES:
        T = loop(a)
        t0 = time.perf_counter()
        rs = rmb.robstab(T)
        t1 = time.perf_counter()
        wc = rmb.wcgain(T)
        t2 = time.perf_counter()
        rows.append((a, rs.lower, rs.upper, t1 - t0, wc.lower, wc.upper, t2 - t1))
    ref = next(r for r in rows if r[0] == 1.0)
    print(
        "| a | robstab [lower, upper] | time s (ratio) | wcgain [lower, upper] | time s (ratio) |"
    )
    print("|---|---|---|---|---|")
    for a, rl, ru, rt, wl, wu, wt in rows:
        print(f"| {a:g} | [{rl:.5f}, {ru:.5f}] | {rt:.2f} ({rt / ref[3]:.2f}) "
              f"| [{wl:.5f}, {wu:.5f}] | {wt:.2f} ({wt / ref[6]:.2f}) |")  # fmt: skip


if __name__ == "__main__":
    main()
