"""Benchmark of the worst-case report on the demo arm (``robustmb demo --frozen``).

Measured in one run:

* the time of each step of ``robustmb demo --frozen`` (robust stability margin, the worst-case
  gain of each channel, everything else) and of the whole report;
* as reference, the time of a Monte Carlo estimate of the same worst-case gains
  (1,000 random parameter samples, exact peak gain of each): the ratio shows what the
  certified answer costs against sampling, which only gives a lower estimate;
* the fast and LMI D,G bounds of the tracking channel's robust-performance matrix
  ``diag(I, I/gamma) M(j w)`` at 8.43 rad/s, where the performance inputs are four
  decades above the uncertainty channels (a scale-invariance check of ``mussv``).

Usage: ``python benchmarks/bench_report.py [--no-lmi]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings

import numpy as np

import robustmb as rmb
from robustmb.analysis.norms import hinfnorm
from robustmb.analysis.uncertain_problem import uncertain_problem
from robustmb.analysis.worst_case_gain import _augmented_blk, _responses
from robustmb.report import worst_case_report
from robustmb.report.arm_demo import demo_loop


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def monte_carlo_peak(channel, n, seed=0):
    """Largest exact peak gain over ``n`` random parameter samples (a lower estimate)."""
    samples, _ = channel.usample(n, seed=seed)
    return max(hinfnorm(s)[0] for s in samples)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-lmi", action="store_true", help="skip the LMI bounds (slow)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    loop, channels = demo_loop()

    rs, t_rs = timed(lambda: rmb.robstab(loop))
    print(
        f"robstab: margin [{rs.lower:.4f}, {rs.upper:.4f}] at {rs.critical_frequency:.4g} "
        f"rad/s, certified={rs.certified}, {t_rs:.1f} s"
    )
    print(
        "  sensitivities:",
        {k: round(v, 4) for k, v in rs.sensitivity.items()},
        f"sum {sum(rs.sensitivity.values()):.4f}",
    )
    for name, (outs, ins) in channels.items():
        channel = loop[outs, ins]
        wc, t_wc = timed(lambda channel=channel: rmb.wcgain(channel))
        mc, t_mc = timed(lambda channel=channel: monte_carlo_peak(channel, 1000))
        print(
            f"wcgain {name}: [{wc.lower:.4f}, {wc.upper:.4f}] at "
            f"{wc.critical_frequency:.4g} rad/s, certified={wc.certified}, {t_wc:.1f} s; "
            f"reference Monte Carlo (1,000 samples): {mc:.4f} in {t_mc:.1f} s; "
            f"time ratio {t_wc / t_mc:.2f}"
        )

    with tempfile.TemporaryDirectory() as out:
        _, t_report = timed(
            lambda: worst_case_report(loop, channels, out_dir=out, n_samples=100, seed=0)
        )
    print(f"whole report (analysis, 100 samples, figures, HTML): {t_report:.1f} s")

    problem = uncertain_problem(loop[channels["tracking W_e S"]])
    M = _responses(problem, [8.4316397])[0]
    blk = _augmented_blk(problem)
    print("robust-performance matrix at 8.43 rad/s, D,G bounds of diag(I, I/gamma) M:")
    for gamma in (5.0, 10.0, 30.0):
        S = M.copy()
        S[problem.nz :] /= gamma
        fast, t_fast = timed(lambda S=S: rmb.mussv(S, blk))
        line = f"  gamma {gamma:>4}: fast {fast.upper:.4f} ({t_fast:.2f} s), lower {fast.lower:.4f}"
        if not args.no_lmi:
            lmi, t_lmi = timed(lambda S=S: rmb.mussv(S, blk, method="lmi", lower=False))
            line += f", LMI {lmi.upper:.4f} ({t_lmi:.1f} s)"
        print(line)
    print(
        "fast/upper are certified (D,G), lower by a structured perturbation; sigma_max(M) =",
        np.round(np.linalg.norm(M, 2), 1),
    )


if __name__ == "__main__":
    main()
