"""Sweeps: in-process, process pool and Dask give identical results; interrupted sweeps resume.

The reference of every comparison is a plain Python loop over the items, which
shares nothing with the sweep machinery.
"""

import concurrent.futures as cf
import functools
import multiprocessing
import os
import pickle
import sqlite3
import subprocess
import sys
import textwrap

import pytest
import sweep_items as si

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import ArgumentError, SweepItemWarning

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRID = si.grid(5)
REFERENCE = {i: si.closed_loop_peak(it) for i, it in enumerate(GRID)}


def stored_chunks(path):
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT chunk, COUNT(*) FROM results GROUP BY chunk").fetchall())


def test_in_process_equals_a_plain_loop_and_keys_follow_the_items():
    res = rmb.sweep(si.closed_loop_peak, GRID, progress=False, chunk_size=4)
    assert res.values == REFERENCE and res.ok and res.computed == len(GRID)
    by_item = rmb.sweep(si.closed_loop_peak, GRID, key=lambda it: it, progress=False)
    assert by_item[(0.5, 0.25)] == si.closed_loop_peak((0.5, 0.25))
    named = rmb.sweep(si.closed_loop_peak, {"a": (0.0, 0.0), "b": (1.0, 1.0)}, progress=False)
    assert list(named.values) == ["a", "b"]


def test_failing_items_are_reported_with_their_keys(tmp_path):
    items = {"ok1": (0.1, 0.2), "bad": (-1.0, 0.0), "ok2": (0.3, 0.4), "bad2": (-2.0, 1.0)}
    store = tmp_path / "s.sqlite"
    with pytest.warns(SweepItemWarning, match="2 of 4 items failed: 'bad', 'bad2'"):
        res = rmb.sweep(si.fails_on_negative, items, store=store, progress=False, chunk_size=3)
    assert set(res.values) == {"ok1", "ok2"}
    assert res.values["ok2"] == si.closed_loop_peak((0.3, 0.4))
    assert res.errors["bad"].startswith("ValueError: negative stiffness -1.0")
    with pytest.raises(KeyError, match="'bad' failed"):
        res["bad"]
    # Reopened: failures stay recorded and are not recomputed unless asked.
    with pytest.warns(SweepItemWarning):
        again = rmb.sweep(si.fails_on_negative, items, store=store, progress=False)
    assert again.computed == 0 and set(again.errors) == {"bad", "bad2"}
    with pytest.warns(SweepItemWarning):
        retried = rmb.sweep(
            si.fails_on_negative, items, store=store, progress=False, retry_failed=True
        )
    assert retried.computed == 2


def test_store_refuses_another_function_and_bad_arguments(tmp_path):
    store = tmp_path / "s.sqlite"
    rmb.sweep(si.closed_loop_peak, GRID[:2], store=store, progress=False)
    with pytest.raises(ArgumentError, match="holds results of"):
        rmb.sweep(si.fails_on_negative, GRID[:2], store=store, progress=False)
    with pytest.raises(ArgumentError, match="chunk_size"):
        rmb.sweep(si.closed_loop_peak, GRID, chunk_size=0)
    with pytest.raises(ArgumentError, match="not unique"):
        rmb.sweep(si.closed_loop_peak, [(0.0, 0.0), (0.0, 0.0)], key=lambda it: it)
    with pytest.raises(ArgumentError, match="no sweep store"):
        load_sweep(tmp_path / "missing.sqlite")


def test_interrupt_mid_chunk_keeps_whole_chunks_and_resumes(tmp_path):
    """Ctrl-C (KeyboardInterrupt) inside an item: finished chunks stay, the rest resumes."""
    store = tmp_path / "s.sqlite"
    calls = []

    def fn(item):
        if item == GRID[9] and not calls.count("interrupted"):
            calls.append("interrupted")
            raise KeyboardInterrupt
        calls.append(item)
        return si.closed_loop_peak(item)

    fn.__qualname__ = "interruptible"
    # the closure's call log changes between the runs without changing the results:
    # version= tracks the state by hand
    with pytest.raises(KeyboardInterrupt):
        rmb.sweep(fn, GRID, store=store, chunk_size=4, progress=False, version=1)
    assert stored_chunks(store) == {0: 4, 1: 4}
    calls.clear()
    calls.append("interrupted")
    with pytest.raises(ArgumentError, match="version= was given only to the store"):
        rmb.sweep(fn, GRID, store=store, chunk_size=4, progress=False)
    res = rmb.sweep(fn, GRID, store=store, chunk_size=4, progress=False, version=1)
    assert res.computed == len(GRID) - 8 and calls[1:] == GRID[8:]
    assert res.values == REFERENCE


@pytest.mark.slow
def test_process_killed_mid_sweep_resumes_without_recomputing(tmp_path):
    store = tmp_path / "s.sqlite"
    log = tmp_path / "calls.log"
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {HERE!r})
        import robustmb as rmb
        import sweep_items as si
        # the same function as the resumed run: it kills the process on item 13
        rmb.sweep(si.logged, si.grid(5), store={str(store)!r}, chunk_size=4, progress=False)
        """
    )
    env = dict(os.environ, SWEEP_LOG=str(log), SWEEP_KILL_AT=repr(GRID[13]), PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", script], env=env, timeout=120)
    assert proc.returncode == -9
    # Only whole chunks were written: items 0..11 (chunks 0-2); item 12 was computed but lost.
    assert stored_chunks(store) == {0: 4, 1: 4, 2: 4}
    partial = load_sweep(store)
    assert partial.values == {i: REFERENCE[i] for i in range(12)}
    os.environ["SWEEP_LOG"] = str(log)
    try:
        log.write_text("")
        res = rmb.sweep(si.logged, GRID, store=store, chunk_size=4, progress=False)
    finally:
        del os.environ["SWEEP_LOG"]
    assert res.computed == len(GRID) - 12
    assert len(log.read_text().splitlines()) == len(GRID) - 12
    assert res.values == REFERENCE
    assert load_sweep(store).values == REFERENCE


def test_worker_killed_in_a_process_pool_resumes(tmp_path):
    store = tmp_path / "s.sqlite"
    os.environ["SWEEP_MARKER"] = str(tmp_path / "marker")
    ctx = multiprocessing.get_context("fork")
    try:
        with pytest.raises(cf.BrokenExecutor):
            with cf.ProcessPoolExecutor(2, mp_context=ctx) as pool:
                rmb.sweep(
                    si.dies_once, GRID, executor=pool, store=store, chunk_size=3, progress=False
                )
        counts = stored_chunks(store)
        assert all(n == 3 or (c == 8 and n == 1) for c, n in counts.items())  # whole chunks
        with cf.ProcessPoolExecutor(2, mp_context=ctx) as pool:
            res = rmb.sweep(
                si.dies_once, GRID, executor=pool, store=store, chunk_size=3, progress=False
            )
    finally:
        del os.environ["SWEEP_MARKER"]
    assert res.computed == len(GRID) - sum(counts.values())
    assert res.values == REFERENCE


def test_thread_pool_equals_in_process():
    with cf.ThreadPoolExecutor(2) as pool:
        res = rmb.sweep(si.closed_loop_peak, GRID, executor=pool, chunk_size=2, progress=False)
    assert res.values == REFERENCE


def test_dask_threaded_cluster_equals_in_process():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        res = rmb.sweep(si.closed_loop_peak, GRID, executor=client, chunk_size=3, progress=False)
    assert res.values == REFERENCE


def _stored_and_failing_sweeps(client, store):
    """On a Dask ``client``: the GRID sweep written to ``store``, and a three-item sweep
    whose second item fails (it must warn, naming the failure)."""
    res = rmb.sweep(
        si.closed_loop_peak, GRID, executor=client, store=store, chunk_size=3, progress=False
    )
    with pytest.warns(SweepItemWarning, match="1 of 3"):
        bad = rmb.sweep(
            si.fails_on_negative,
            [(0.0, 0.0), (-1.0, 0.0), (1.0, 1.0)],
            executor=client,
            progress=False,
        )
    return res, bad


@pytest.mark.slow
def test_dask_local_cluster_equals_in_process(tmp_path):
    distributed = pytest.importorskip("distributed")
    env = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = HERE + os.pathsep + ROOT + (os.pathsep + env if env else "")
    try:
        with (
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            store = tmp_path / "d.sqlite"
            res, bad = _stored_and_failing_sweeps(client, store)
    finally:
        if env:
            os.environ["PYTHONPATH"] = env
        else:
            del os.environ["PYTHONPATH"]
    assert res.values == REFERENCE
    assert load_sweep(store).values == REFERENCE
    assert list(bad.errors) == [1] and "negative stiffness" in bad.errors[1]


def test_partial_functions_resume_from_their_store(tmp_path):
    import functools

    store = tmp_path / "p.sqlite"
    fn = functools.partial(si.fails_on_negative)
    first = rmb.sweep(fn, GRID[:6], store=store, progress=False)
    again = rmb.sweep(
        functools.partial(si.fails_on_negative), GRID[:6], store=store, progress=False
    )
    assert again.computed == 0 and again.values == first.values


def _start_dask_cluster(tmp_path, env, n_workers=2):
    """A scheduler and ``n_workers`` worker processes started as separate subprocesses
    (``python -m distributed.cli.dask_scheduler`` / ``dask_worker``); returns the
    scheduler address and the processes."""
    import json
    import time

    sched_file = tmp_path / "scheduler.json"
    logs = [open(tmp_path / f"dask{i}.log", "w") for i in range(n_workers + 1)]  # noqa: SIM115
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0"]
            + ["--no-dashboard", "--scheduler-file", str(sched_file)],
            env=env,
            stdout=logs[0],
            stderr=subprocess.STDOUT,
        )
    ]
    deadline = time.monotonic() + 120
    while not (sched_file.exists() and sched_file.stat().st_size):
        if procs[0].poll() is not None or time.monotonic() > deadline:
            raise RuntimeError((tmp_path / "dask0.log").read_text())
        time.sleep(0.2)
    time.sleep(0.2)  # the file is written in one go; let the writer close it
    address = json.loads(sched_file.read_text())["address"]
    for i in range(n_workers):
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address]
                + ["--nthreads", "1", "--no-dashboard", "--name", f"w{i}"],
                env=env,
                stdout=logs[i + 1],
                stderr=subprocess.STDOUT,
            )
        )
    return address, procs, logs


@pytest.mark.slow
def test_dask_scheduler_address_in_subprocesses_equals_in_process(tmp_path):
    """A Client connected by address to a scheduler and two workers running as separate
    processes: same result as the plain loop, the store reopens, a failing item is
    reported with its key, and a worker process that dies mid-sweep loses nothing."""
    distributed = pytest.importorskip("distributed")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE, ROOT] + [env.get("PYTHONPATH", "")]).rstrip(
        os.pathsep
    )
    env["SWEEP_MARKER"] = str(tmp_path / "died")
    address, procs, logs = _start_dask_cluster(tmp_path, env)
    try:
        assert address.startswith("tcp://")
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            pids = set(client.run(os.getpid).values())
            assert len(pids) == 2 and os.getpid() not in pids
            assert all(p.pid not in pids for p in procs)  # workers run under their nannies
            store = tmp_path / "a.sqlite"
            res, bad = _stored_and_failing_sweeps(client, store)
            died = rmb.sweep(si.dies_once, GRID, executor=client, chunk_size=2, progress=False)
    finally:
        for p in procs[::-1]:
            p.terminate()
        for p in procs[::-1]:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for f in logs:
            f.close()
    assert res.values == REFERENCE and res.computed == len(GRID)
    assert load_sweep(store).values == REFERENCE
    assert list(bad.errors) == [1] and "negative stiffness" in bad.errors[1]
    assert (tmp_path / "died").exists()  # a worker process did exit mid-sweep
    assert died.values == REFERENCE and died.ok


def _scaled(x, factor):
    return factor * x


def test_a_store_refuses_results_of_another_function_or_other_items(tmp_path):
    """Resuming must not hand back results computed by something else: a partial with
    other arguments, a lambda with another body, or other items under the same keys."""
    path = tmp_path / "p.sqlite"
    first = rmb.sweep(
        functools.partial(_scaled, factor=2.0), [1.0, 2.0], store=path, progress=False
    )
    assert first.values == {0: 2.0, 1: 4.0}
    with pytest.raises(ArgumentError, match="holds results of"):
        rmb.sweep(functools.partial(_scaled, factor=10.0), [1.0, 2.0], store=path, progress=False)
    same = rmb.sweep(functools.partial(_scaled, factor=2.0), [1.0, 2.0], store=path, progress=False)
    assert same.computed == 0 and same.values == first.values
    path = tmp_path / "l.sqlite"
    rmb.sweep(lambda x: x**2, [1, 2, 3], store=path, progress=False)
    with pytest.raises(ArgumentError, match="holds results of"):
        rmb.sweep(lambda x: x**3, [1, 2, 3], store=path, progress=False)
    path = tmp_path / "i.sqlite"
    rmb.sweep(abs, [-1, -2, -3], store=path, progress=False)
    with pytest.raises(ArgumentError, match="key 0 computed from a different item"):
        rmb.sweep(abs, [-10, -20, -30, -40], store=path, progress=False)
    grown = rmb.sweep(abs, [-1, -2, -3, -4], store=path, progress=False)  # same items, one more
    assert grown.computed == 1 and grown.values == {0: 1, 1: 2, 2: 3, 3: 4}


def test_a_store_of_the_older_format_is_read_but_not_resumed(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);"
        "CREATE TABLE results (key BLOB PRIMARY KEY, chunk INTEGER, ok INTEGER, value BLOB,"
        " error TEXT, seconds REAL)"
    )
    with db:
        db.execute("INSERT INTO meta VALUES ('function', 'builtins.abs')")
        db.execute(
            "INSERT INTO results VALUES (?, 0, 1, ?, NULL, 0.0)", (pickle.dumps(0), pickle.dumps(1))
        )
    db.close()
    assert load_sweep(path).values == {0: 1}
    with pytest.raises(ArgumentError, match="older format"):
        rmb.sweep(abs, [-1], store=path, progress=False)
