"""Cost of bracketing each loop-at-a-time ``||S_jj - a||_inf`` at 1e-12 instead of 1e-8.

``diskmargin`` certifies its loop-at-a-time (and single-loop) margins with the upper end
of hinfnorm's bracket, at the relative width ``diskmargin._CHANNEL_TOL = 1e-12``.  This
script times ``diskmargin`` on the SISO loop of Seiler, Packard & Gahinet (2020), the
spinning satellite (two channels) and the Stewart platform (six channels) in the same run
at 1e-12 and at hinfnorm's default 1e-8, and prints the ratios and the largest relative
gap ``upper / alpha - 1`` of the loop-at-a-time margins.

Run: PYTHONPATH=$PWD python benchmarks/bench_diskmargin_channel_tol.py
"""

import importlib
import warnings

import control
import numpy as np
from _timing import median_time

import robustmb as rmb

dm_module = importlib.import_module("robustmb.analysis.diskmargin")


def loops():
    spin = 10.0
    sat = control.ss([[0, spin], [-spin, 0]], np.eye(2), [[1, spin], [-spin, 1]], 0)
    sp = rmb.examples.stewart_platform()
    P = sp.plant()
    P = control.ss(P.A, P.B, P.C, P.D)
    K = control.ss(-np.eye(6), np.linalg.pinv(P.D), 5 * np.eye(6), np.zeros((6, 6)))
    return {
        "SISO 25/(s^3+10s^2+10s+10)": control.tf(25, [1, 10, 10, 10]),
        "satellite (2 channels)": sat,
        "Stewart platform (6)": control.ss(P * K),
    }


def main():
    default = dm_module._CHANNEL_TOL
    print(f"{'loop':28s} {'1e-12 s':>9s} {'1e-8 s':>9s} {'ratio':>6s} {'max gap':>9s}")
    for name, L in loops().items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = rmb.diskmargin(L)
            t_tight = median_time(lambda L=L: rmb.diskmargin(L), 3)
            dm_module._CHANNEL_TOL = 1e-8
            try:
                t_loose = median_time(lambda L=L: rmb.diskmargin(L), 3)
            finally:
                dm_module._CHANNEL_TOL = default
        lat = res.loop_at_a_time
        gap = float(np.max(lat.upper / lat.alpha - 1.0))
        print(f"{name:28s} {t_tight:9.3f} {t_loose:9.3f} {t_tight / t_loose:6.2f} {gap:9.1e}")


if __name__ == "__main__":
    main()
