"""Warnings raised while evaluating an item are kept with its key in every engine and in
the store, and issued once in the calling process; bad executors, chunk sizes and stores
are argument errors naming the argument.

The reference warnings are those of a plain loop over the items (each item's own
``catch_warnings``), and the reference norm is the closed form of
``1 / (s^2 + 2 zeta s + 1)^3``'s peak.
"""

import concurrent.futures as cf
import multiprocessing
import sqlite3
import warnings

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import ArgumentError

FORK = multiprocessing.get_context("fork")
ITEMS = list(range(8))


def warns_on_odd(i):
    """Every odd item warns twice with the same texts (a repeated warning of a later item
    must not be lost to the once-per-location default)."""
    if i % 2:
        warnings.warn("odd item: value not certified", RuntimeWarning, stacklevel=1)
        warnings.warn("odd item: second note", UserWarning, stacklevel=1)
    return i * i


def expected(items):
    out = {}
    for i in items:
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            warns_on_odd(i)
        if log:
            out[i] = [(w.category, str(w.message)) for w in log]
    return out


def run(engine, store=None):
    if engine == "serial":
        return rmb.sweep(warns_on_odd, ITEMS, store=store, chunk_size=3, progress=False)
    if engine == "threads":
        with cf.ThreadPoolExecutor(4) as pool:
            return rmb.sweep(warns_on_odd, ITEMS, executor=pool, chunk_size=1, progress=False)
    if engine == "processes":
        with cf.ProcessPoolExecutor(2, mp_context=FORK) as pool:
            return rmb.sweep(
                warns_on_odd, ITEMS, executor=pool, store=store, chunk_size=3, progress=False
            )
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        return rmb.sweep(warns_on_odd, ITEMS, executor=client, chunk_size=2, progress=False)


@pytest.mark.parametrize("engine", ["serial", "threads", "processes", "dask"])
def test_item_warnings_are_recorded_and_issued_once(engine):
    filters, hook = list(warnings.filters), warnings.showwarning
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = run(engine)
    assert res.values == {i: i * i for i in ITEMS}
    assert res.warnings == expected(ITEMS)
    # (a Dask cluster may warn from its own threads: only the re-issued ones are counted)
    tagged = sorted(str(w.message) for w in seen if "[sweep item" in str(w.message))
    want = sorted(f"{m} [sweep item {k!r}]" for k, ws in expected(ITEMS).items() for _, m in ws)
    assert tagged == want
    # the process-wide warning state is left as it was found
    assert warnings.filters == filters and warnings.showwarning is hook


def test_warnings_are_stored_and_come_back_on_resume(tmp_path):
    store = tmp_path / "w.sqlite"
    with warnings.catch_warnings(record=True):  # recorded here, not shown
        warnings.simplefilter("always")
        run("processes", store)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again = run("serial", store)
        loaded = load_sweep(store)
    assert again.computed == 0
    assert again.warnings == expected(ITEMS) == loaded.warnings
    assert len(seen) == 2 * sum(len(ws) for ws in expected(ITEMS).values())


def repeated_lag(zeta):
    G = control.tf([1.0], [1.0, 2 * zeta, 1.0])
    return rmb.hinfnorm(control.ss(G * G * G))[0]


def test_a_norm_warning_reaches_the_caller_from_a_process_pool():
    zetas = [0.3, 1e-5]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with cf.ProcessPoolExecutor(2, mp_context=FORK) as pool:
            res = rmb.sweep(repeated_lag, zetas, executor=pool, chunk_size=1, progress=False)
    # closed form: |G(jw)| = 1 / ((1 - w^2)^2 + 4 zeta^2 w^2)^(3/2), peak at w^2 = 1 - 2 zeta^2
    exact = 1.0 / (4 * 0.3**2 * (1 - 0.3**2)) ** 1.5
    assert res[0] == pytest.approx(exact, rel=1e-8)
    assert 0 not in res.warnings and res.warnings[1]
    assert all(issubclass(c, RuntimeWarning) for c, _ in res.warnings[1])
    assert any("[sweep item 1]" in str(w.message) for w in seen)


def test_bad_executor_chunk_size_and_store_are_argument_errors(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with pytest.raises(ArgumentError, match=r"Client\(cluster\)"):
            rmb.sweep(abs, [1, -2], executor=cluster, progress=False)
    with pytest.raises(ArgumentError, match="executor"):
        rmb.sweep(abs, [1, -2], executor=4, progress=False)
    for bad in ("4", "x", 2.7, None, True, 0, -3):
        with pytest.raises(ArgumentError, match="chunk_size must be a positive integer"):
            rmb.sweep(abs, [1, -2], chunk_size=bad, progress=False)
    assert rmb.sweep(abs, [1, -2], chunk_size=np.int64(1), progress=False).values == {0: 1, 1: 2}
    with pytest.raises(ArgumentError, match="store .* is a directory"):
        rmb.sweep(abs, [1, -2], store=tmp_path, progress=False)
    text = tmp_path / "notes.txt"
    text.write_text("not a database, long enough to have a header " * 20)
    with pytest.raises(ArgumentError, match="store .*notes.txt"):
        rmb.sweep(abs, [1, -2], store=text, progress=False)
    with pytest.raises(ArgumentError, match="load_sweep: store .*notes.txt"):
        load_sweep(text)


def test_a_store_of_the_previous_format_gains_a_warnings_column(tmp_path):
    store = tmp_path / "old.sqlite"
    rmb.sweep(warns_on_odd, [0, 2], store=store, progress=False)
    with sqlite3.connect(store) as db:  # the table as written before warnings were kept
        db.execute("ALTER TABLE results DROP COLUMN warnings")
    assert load_sweep(store).values == {0: 0, 1: 4}
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        res = rmb.sweep(warns_on_odd, {0: 0, 1: 2, 2: 3}, store=store, progress=False)
    assert res.computed == 1 and res.warnings == {2: expected([3])[3]}
