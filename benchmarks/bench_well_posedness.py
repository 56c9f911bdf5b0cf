"""robstab on loops that lose well-posedness inside the box, against closed forms.

``G = -(s + 0.5)/(s + 1)`` in negative feedback with ``K = a c - a c^2``: ``1 + G K = 0``
gives the pole ``s = -(1 - K/2)/(1 - K)``, ill-posed at ``K = 1`` and unstable for
``1 < K < 2`` (the pole leaves through ``s = inf``).  The exact margin (normalised) is the
distance from the nominal to the nearest root of ``a c - a c^2 = 1`` over the half-range.
Printed per loop: the exact margin, robstab's ``[lower, upper]`` (``lower <= exact <=
upper`` is checked), its time, and the time of a reference computed in the same run: a
dense numpy scan (``--grid`` values of ``c`` on each side of the nominal) of the same pole
by hand, and its first bad point.

Run from the repository root: ``python benchmarks/bench_well_posedness.py [--grid N]``.
"""

from __future__ import annotations

import argparse
import time

import control
import numpy as np

import robustmb as rmb

# (a, low, high) of K = a c - a c^2 with c in [low, high], nominal the centre
LOOPS = [(5.0, -0.5, 0.9), (5.0, -10.0, 10.4), (4.0, 0.0, 0.6), (4.0, -3.0, 1.0)]


def exact_margin(a, c0, r):
    """Distance from ``c0`` to the nearest root of ``a c - a c^2 = 1``, over ``r``."""
    roots = np.roots([-a, a, -1.0])
    return float(np.min(np.abs(roots.real - c0)) / r)


def scan_margin(a, c0, r, n):
    """First bad point of a dense scan of ``|c - c0| / r`` in ``[0, 3]`` (numpy only)."""
    t = np.linspace(0.0, 3.0, n)
    bad = np.zeros(n, bool)
    for c in (c0 + t * r, c0 - t * r):
        k = a * c - a * c * c
        with np.errstate(divide="ignore", invalid="ignore"):
            pole = -(1 - k / 2) / (1 - k)
        bad |= (np.abs(1 - k) <= 1e-12) | ~(pole < 0)
    return float(t[np.argmax(bad)]) if bad.any() else np.inf


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=int, default=400_001)
    args = parser.parse_args()
    s = control.tf("s")
    print(f"{'loop':<28} {'exact':>11} {'lower':>11} {'upper':>11} {'t (s)':>7} "
          f"{'scan':>9} {'t scan':>7} {'ratio':>6}")  # fmt: skip
    for a, lo, hi in LOOPS:
        c0, r = (lo + hi) / 2, (hi - lo) / 2
        c = rmb.ureal("c", c0, range=(lo, hi))
        loop = rmb.feedback(-(s + 0.5) / (s + 1) * (a * c - a * c * c), 1.0)
        t0 = time.perf_counter()
        res = rmb.robstab(loop, sensitivity=False)
        t_rob = time.perf_counter() - t0
        t0 = time.perf_counter()
        scan = scan_margin(a, c0, r, args.grid)
        t_scan = time.perf_counter() - t0
        exact = exact_margin(a, c0, r)
        assert res.lower <= exact * (1 + 1e-12) and exact <= res.upper * (1 + 1e-12), res
        name = f"{a:g}c-{a:g}c^2, c in [{lo:g}, {hi:g}]"
        print(f"{name:<28} {exact:11.8f} {res.lower:11.8f} {res.upper:11.8f} {t_rob:7.2f} "
              f"{scan:9.6f} {t_scan:7.2f} {t_rob / t_scan:6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
