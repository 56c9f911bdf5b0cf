"""Sweep throughput: assembly-study closed loops scored per second, in-process vs Dask.

Each item builds one frozen model of the on-orbit assembly study
(``robustmb.examples.assembly``: hub, solar array with its uncertain mode
substituted, structure F_n, stack, robot), closes the attitude PD loop and
computes the H-infinity cost of Eq. 16 -- the unit of work of the paper's
121 408 closed loops (8672 edges x 14 frozen models).  The same items run
in-process and on a 2-worker Dask ``LocalCluster`` (processes), both through
``robustmb.sweep``; the ratio is measured in the same run, and the projected
time of the full study is printed from each measured rate.  Cluster start-up
is excluded from the rate and printed separately.

Run: ``python benchmarks/bench_sweep.py [n_items]``
"""

import os
import sys
import tempfile
import time

import numpy as np

import robustmb as rmb
from robustmb.examples import assembly

FULL_STUDY = assembly.edge_count() * 2 * assembly.Z_WAYPOINTS


def score(item):
    n, tile, carrying, delta = item
    return assembly.hinf_cost(n, tile, carrying, delta)


def items(count, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(2, 29))
        out.append(
            (n, int(rng.integers(1, n + 1)), bool(rng.integers(0, 2)), float(rng.uniform(-1, 1)))
        )
    # F_1 carries the paper's inconsistent modal data (warned); not part of the timing sample.
    return out


def main(count=48):
    work = items(count)
    score(work[0])  # warm imports and caches
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        ref = rmb.sweep(
            score, work, store=os.path.join(tmp, "a.sqlite"), chunk_size=4, progress=False
        )
        t_in = time.perf_counter() - t0
        rate_in = count / t_in
        print(f"in-process           : {count} loops in {t_in:6.2f} s -> {rate_in:6.1f} loops/s")
        try:
            import distributed
        except ImportError:
            print("distributed not installed: pip install 'robustmb[distributed]'")
            return
        here = os.path.dirname(os.path.abspath(__file__))
        os.environ["PYTHONPATH"] = here + os.pathsep + os.environ.get("PYTHONPATH", "")
        t0 = time.perf_counter()
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            client.run(lambda: __import__("bench_sweep").score(work[0]))  # warm the workers
            t_start = time.perf_counter() - t0
            t0 = time.perf_counter()
            res = rmb.sweep(
                score,
                work,
                executor=client,
                store=os.path.join(tmp, "b.sqlite"),
                chunk_size=4,
                progress=False,
            )
            t_dask = time.perf_counter() - t0
        rate_dask = count / t_dask
        same = res.values == ref.values
        print(
            f"Dask LocalCluster x2 : {count} loops in {t_dask:6.2f} s -> {rate_dask:6.1f} loops/s "
            f"(start-up {t_start:.1f} s, identical results: {same})"
        )
        print(f"speed-up (Dask 2 workers / in-process): {rate_dask / rate_in:.2f}")
        hours_in, hours_dask = FULL_STUDY / rate_in / 3600, FULL_STUDY / rate_dask / 3600
        print(
            f"projected full study ({FULL_STUDY} loops): in-process {hours_in:.2f} h, "
            f"2 workers {hours_dask:.2f} h"
        )
        print(f"cpu count: {os.cpu_count()}, load average: {os.getloadavg()}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 48)
