"""Sweeps in which one item kills every worker process that evaluates it.

Dask gives such a task up (``KilledWorker``) after ``allowed-failures`` deaths.  The sweep
must then name the item at fault, keep every other item of its chunk and of the sweep,
and store the failure like any other failed item.  The reference is a plain loop.  A
process pool breaks for good: the error must name the items left unfinished.
"""

import concurrent.futures as cf
import multiprocessing
import os

import pytest
import sweep_items as si

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import SweepItemWarning

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRID = si.grid(5)
BAD = GRID.index((0.5, 0.5))


@pytest.mark.slow  # a LocalCluster of worker processes, restarted after each crash
def test_an_item_that_kills_its_dask_worker_fails_alone_and_named(tmp_path):
    distributed = pytest.importorskip("distributed")
    dask = pytest.importorskip("dask")
    env = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = HERE + os.pathsep + ROOT + (os.pathsep + env if env else "")
    store = tmp_path / "k.sqlite"
    try:
        with (
            dask.config.set({"distributed.scheduler.allowed-failures": 0}),
            distributed.LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            with pytest.warns(SweepItemWarning, match=rf"1 of 25 items failed: {BAD};"):
                res = rmb.sweep(
                    si.always_dies,
                    GRID,
                    executor=client,
                    store=store,
                    chunk_size=4,
                    progress=False,
                )
    finally:
        if env:
            os.environ["PYTHONPATH"] = env
        else:
            del os.environ["PYTHONPATH"]
    expected = {i: si.closed_loop_peak(it) for i, it in enumerate(GRID) if i != BAD}
    assert res.values == expected and list(res.values) == sorted(expected)
    assert list(res.errors) == [BAD]
    assert res.errors[BAD].startswith(f"KilledWorker: the Dask worker evaluating item {BAD} alone")
    stored = load_sweep(store)
    assert stored.values == expected and list(stored.errors) == [BAD]


def test_a_broken_process_pool_names_the_unfinished_items(tmp_path):
    store = tmp_path / "p.sqlite"
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        with pytest.raises(cf.BrokenExecutor) as info:
            rmb.sweep(si.always_dies, GRID, executor=pool, store=store, chunk_size=4)
    note = "\n".join(getattr(info.value, "__notes__", []))
    stored = load_sweep(store).values  # whole chunks
    assert stored == {i: si.closed_loop_peak(GRID[i]) for i in stored} and BAD not in stored
    # every item is either stored or named unfinished (the first 8, in the items' order)
    missing = [i for i in range(len(GRID)) if i not in stored]
    shown = ", ".join(map(str, missing[:8])) + (", ..." if len(missing) > 8 else "")
    assert f"with {len(missing)} items unfinished: {shown};" in note
