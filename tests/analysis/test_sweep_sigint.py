"""Ctrl-C (a real SIGINT) in a running sweep, in-process and on a Dask LocalCluster.

The sweep runs in a child process; once the store holds two chunks the child gets
SIGINT.  It must stop with KeyboardInterrupt, leave only whole chunks in the store, and
a rerun must compute only the missing items and equal a plain loop over the items.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest
import sweep_items as si

import robustmb as rmb

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRID = si.grid(6)
CHUNK = 3

SCRIPT = """
import sys
sys.path[:0] = [{here!r}, {root!r}]
import robustmb as rmb
import sweep_items as si

def run(executor=None):
    try:
        rmb.sweep(si.slow_peak, si.grid(6), executor=executor, store={store!r},
                  chunk_size={chunk}, progress=False)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        raise
    print("finished", flush=True)

if {engine!r} == "dask":
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        run(client)
else:
    run()
"""


def _chunks(store):
    if not os.path.exists(store):
        return {}
    try:
        with sqlite3.connect(store, timeout=10) as db:
            return dict(db.execute("SELECT chunk, COUNT(*) FROM results GROUP BY chunk"))
    except sqlite3.OperationalError:  # the child has not created the table yet
        return {}


@pytest.mark.parametrize("engine", ["in-process", "dask"])
def test_sigint_keeps_whole_chunks_and_a_rerun_completes_the_sweep(tmp_path, engine):
    if engine == "dask":
        pytest.importorskip("distributed")
    store = str(tmp_path / "s.sqlite")
    code = textwrap.dedent(SCRIPT).format(
        here=HERE, root=ROOT, store=store, chunk=CHUNK, engine=engine
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a test run in the background ignores SIGINT, and the child would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 300
        while len(_chunks(store)) < 2 and child.poll() is None:
            assert time.monotonic() < deadline, "the sweep stored no chunks"
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert "interrupted" in out and "finished" not in out, err[-2000:]
    counts = _chunks(store)
    assert len(counts) >= 2 and all(n == CHUNK for n in counts.values())  # whole chunks
    stored = sum(counts.values())
    assert stored < len(GRID)
    res = rmb.sweep(si.slow_peak, GRID, store=store, chunk_size=CHUNK, progress=False)
    assert res.computed == len(GRID) - stored
    assert res.values == {i: si.closed_loop_peak(it) for i, it in enumerate(GRID)}
    assert list(res.values) == list(range(len(GRID)))
