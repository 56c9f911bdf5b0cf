"""Cost of the report's engineering sections on the demo arm (``robustmb demo --frozen``).

Measured in one run, CPU time (``time.process_time``, robust to other jobs sharing the
machine) and wall time of the same report:

* reference: the report without loop margins and step responses (the sections before
  they were added: verdicts, conclusions and histograms cost no analysis);
* full: the report as ``robustmb demo --frozen`` writes it (``wcdiskmargin`` on ``L = K G`` at
  the joint torques, step responses of ``theta <- r`` with 20 samples).

Usage: ``python benchmarks/bench_report_sections.py``
"""

from __future__ import annotations

import tempfile
import time
import warnings

from robustmb.report import worst_case_report
from robustmb.report.arm_demo import demo_loop, loop_at_plant_inputs


def run(**extra):
    loop, channels = demo_loop()
    with tempfile.TemporaryDirectory() as tmp:
        c0, w0 = time.process_time(), time.perf_counter()
        rep = worst_case_report(loop, channels, out_dir=tmp, n_samples=100, seed=0, **extra)
        return rep, time.process_time() - c0, time.perf_counter() - w0


def main():
    warnings.simplefilter("ignore")
    _, c_ref, w_ref = run()
    rep, c_full, w_full = run(
        loop=loop_at_plant_inputs(),
        loop_description="the plant inputs",
        step=(["theta1", "theta2"], ["r1", "r2"]),
    )
    t = rep.analysis.timings
    print(f"reference report (no margins, no steps): CPU {c_ref:.1f} s, wall {w_ref:.1f} s")
    print(f"full report (robustmb demo):             CPU {c_full:.1f} s, wall {w_full:.1f} s")
    print(f"ratio full / reference: CPU {c_full / c_ref:.2f}, wall {w_full / w_ref:.2f}")
    print(f"  of which wcdiskmargin {t['wcdiskmargin']:.1f} s wall, figures {t['figures']:.1f} s")


if __name__ == "__main__":
    main()
