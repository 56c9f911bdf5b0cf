"""Benchmark: cost of the defective-pole-safe stability test inside ``hinfnorm``.

Run from the repository root:  python benchmarks/bench_stability_defective.py

The quick accept of ``hinfnorm``'s stability test (every computed pole farther from the
boundary than the widest rounding band, no eigenvectors needed) used the band of a
condition number capped at ``1/sqrt(eps)``; it now uses Elsner's bound
(:func:`robustmb.analysis.balancing.defective_radius`), which is wider for ``n >= 3``,
so fewer models are accepted without eigenvectors.  For random stable models (python-
control ``rss``, 4 inputs and outputs, continuous and ZOH-discretised at dt = 0.1) this
prints, per size, the quick-accept hits, eigenvector and verified-inclusion calls, and
the median time of ``hinfnorm`` with the new test over the old quick accept (restored in
the same process, interleaved: the ratio is load-independent to first order).
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import control  # noqa: E402
import numpy as np  # noqa: E402

try:
    import robustmb  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import robustmb.analysis.balancing as bal  # noqa: E402
import robustmb.analysis.norms_stability as ns  # noqa: E402
from robustmb.analysis.norms import hinfnorm  # noqa: E402

SIZES = (4, 10, 20, 40)
SYSTEMS = 6
REPEATS = 5
EPS = np.finfo(float).eps
COUNTS = Counter()
NEW_QUICK, EIG, VERIFIED = ns._beyond_widest_band, bal.eigenvectors, ns.verified_stable


def old_quick(poles, A, dt, raw=None):
    """The quick accept before the change (capped condition number)."""
    widest = 2 * 100.0 * np.sqrt(EPS) * float(np.abs(A).sum(axis=0).max())
    if dt > 0:
        return bool(np.all(np.abs(poles) - 1.0 < -max(widest, 200.0 * EPS)))
    return bool(np.all(poles.real < -widest))


def counted(key, fun):
    def wrapper(*args, **kwargs):
        out = fun(*args, **kwargs)
        COUNTS[key] += 1
        if key.startswith("quick"):
            COUNTS[key + "_hits"] += bool(out)
        return out

    return wrapper


def use(quick, tag):
    ns._beyond_widest_band = counted("quick_" + tag, quick)
    bal.eigenvectors = counted("eigenvectors_" + tag, EIG)
    ns.verified_stable = counted("verified_" + tag, VERIFIED)


def timed(G):
    t0 = time.perf_counter()
    g = hinfnorm(G)[0]
    return time.perf_counter() - t0, g


def main():
    rng_seed = 0
    print("n   dt   quick hits new/old  eig calls new/old  verified new/old  time new/old")
    for n in SIZES:
        for dt in (0.0, 0.1):
            COUNTS.clear()
            ratios = []
            for k in range(SYSTEMS):
                np.random.seed(rng_seed + 97 * n + k)  # noqa: NPY002  (control.rss draws from it)
                G = control.rss(n, 4, 4)
                if dt:
                    G = control.c2d(G, dt)
                times = {"new": [], "old": []}
                for _ in range(REPEATS):
                    for quick, tag in ((NEW_QUICK, "new"), (old_quick, "old")):
                        use(quick, tag)
                        t, g = timed(G)
                        times[tag].append(t)
                        if tag == "new":
                            g_new = g
                        else:
                            assert g == g_new, (g, g_new)  # same value, either test
                ratios.append(np.median(times["new"]) / np.median(times["old"]))
            c = {k: v / REPEATS for k, v in COUNTS.items()}
            print(
                f"{n:<3} {dt:<4} {c.get('quick_new_hits', 0):.0f}/{c.get('quick_old_hits', 0):.0f}"
                f" of {SYSTEMS}"
                f"   {c.get('eigenvectors_new', 0):.0f}/{c.get('eigenvectors_old', 0):.0f}"
                f"   {c.get('verified_new', 0):.0f}/{c.get('verified_old', 0):.0f}"
                f"   {np.median(ratios):.3f}"
            )
    ns._beyond_widest_band, bal.eigenvectors, ns.verified_stable = NEW_QUICK, EIG, VERIFIED


if __name__ == "__main__":
    main()
