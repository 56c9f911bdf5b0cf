"""A Dask sweep in which one item kills every worker that evaluates it.

Dask gives such a task up (``KilledWorker``) after ``allowed-failures`` deaths.  The sweep
must then name the item at fault, keep every other item of its chunk and of the sweep,
and store the failure like any other failed item.  The reference is a plain loop.
"""

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
