"""Sweep throughput: assembly-study closed loops scored per second, in-process vs Dask.

Each item builds one frozen model of the on-orbit assembly study
(``robustmb.examples.assembly``: hub, solar array with its uncertain mode
substituted, structure F_n, stack, robot), closes the attitude PD loop and
computes the H-infinity cost of Eq. 16 -- the unit of work of the paper's
121 408 closed loops (8672 edges x 14 frozen models).  The same items run
in-process, on a 2-worker Dask ``LocalCluster`` (processes) and, with
``--address``, on an existing Dask cluster reached through its scheduler
address, all through ``robustmb.sweep``; the ratios are measured in the same
run, and the projected time of the full study is printed from each measured
rate.  Cluster start-up is excluded from the rate and printed separately.  The CPU
time of the evaluating processes is printed too: on a shared machine the wall-clock
rate follows the load, loops per CPU-second much less.

Run: ``python benchmarks/bench_sweep.py [n_items] [--address tcp://HOST:PORT]
[--no-local-cluster]``

An address cluster, e.g. a scheduler and two single-threaded workers on this
machine, each its own process (the workers must import this robustmb)::

    dask scheduler --port 0 --no-dashboard --scheduler-file sched.json &
    dask worker --scheduler-file sched.json --nthreads 1 --no-dashboard &
    dask worker --scheduler-file sched.json --nthreads 1 --no-dashboard &
"""

import argparse
import os
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


def _dask_rate(client, work, ref, path, label, rate_in, t_start):
    client.run(score, work[0])  # warm the workers (imports, caches)
    cpu0 = client.run(time.process_time)
    t0 = time.perf_counter()
    res = rmb.sweep(score, work, executor=client, store=path, chunk_size=4, progress=False)
    t_dask = time.perf_counter() - t0
    cpu1 = client.run(time.process_time)
    cpu = sum(cpu1[w] - cpu0[w] for w in cpu1 if w in cpu0)
    rate = len(work) / t_dask
    same = res.values == ref.values
    hours = FULL_STUDY / rate / 3600
    print(
        f"{label:<28}: {len(work)} loops in {t_dask:6.2f} s -> {rate:6.1f} loops/s "
        f"(start-up {t_start:.1f} s, identical results: {same}); ratio to in-process "
        f"{rate / rate_in:.2f}; projected full study ({FULL_STUDY} loops) {hours:.2f} h; "
        f"worker CPU {cpu:.1f} s -> {len(work) / cpu:.1f} loops per CPU-second"
    )
    return rate


def main(count=48, address=None, local_cluster=True):
    work = items(count)
    score(work[0])  # warm imports and caches
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        ref = rmb.sweep(
            score, work, store=os.path.join(tmp, "a.sqlite"), chunk_size=4, progress=False
        )
        t_in, cpu = time.perf_counter() - t0, time.process_time() - c0
        rate_in = count / t_in
        print(
            f"{'in-process':<28}: {count} loops in {t_in:6.2f} s -> {rate_in:6.1f} loops/s; "
            f"projected full study ({FULL_STUDY} loops) {FULL_STUDY / rate_in / 3600:.2f} h; "
            f"CPU {cpu:.1f} s -> {count / cpu:.1f} loops per CPU-second"
        )
        try:
            import distributed
        except ImportError:
            print("distributed not installed: pip install 'robustmb[distributed]'")
            return
        if local_cluster:
            t0 = time.perf_counter()
            with (
                distributed.LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                t_start = time.perf_counter() - t0
                path = os.path.join(tmp, "b.sqlite")
                _dask_rate(client, work, ref, path, "Dask LocalCluster x2", rate_in, t_start)
        if address:
            t0 = time.perf_counter()
            with distributed.Client(address, timeout=60) as client:
                t_start = time.perf_counter() - t0
                n = len(client.scheduler_info()["workers"])
                label = f"Dask at {address} ({n} w)"
                _dask_rate(
                    client, work, ref, os.path.join(tmp, "c.sqlite"), label, rate_in, t_start
                )
        print(f"cpu count: {os.cpu_count()}, load average: {os.getloadavg()}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n_items", nargs="?", type=int, default=48)
    ap.add_argument("--address", default=None, help="scheduler address of a Dask cluster")
    ap.add_argument("--no-local-cluster", action="store_true", help="skip the LocalCluster run")
    args = ap.parse_args()
    main(args.n_items, args.address, not args.no_local_cluster)
