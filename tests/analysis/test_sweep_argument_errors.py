"""Bad arguments of ``sweep`` are ArgumentErrors that name the argument or the item."""

import concurrent.futures as cf

import pytest
import sweep_items as si

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import ArgumentError


def test_key_with_a_dict_of_items_is_refused():
    # a dict's own keys are the keys: a key= given with it was ignored without a word
    with pytest.raises(ArgumentError, match="key= applies to items given as a sequence"):
        rmb.sweep(abs, {"a": -1, "b": -2}, key=str, progress=False)


@pytest.mark.parametrize("flag", ["yes", 1, None])
def test_retry_failed_must_be_a_bool(flag):
    with pytest.raises(ArgumentError, match="retry_failed must be True or False"):
        rmb.sweep(abs, [-1, -2], retry_failed=flag, progress=False)


def test_repeated_and_unhashable_keys_are_named():
    items = [(0.0, 0.0), (1.0, 1.0), (0.0, 0.0)]
    with pytest.raises(ArgumentError, match=r"items 0 and 2 both have key \(0.0, 0.0\)"):
        rmb.sweep(si.closed_loop_peak, items, key=lambda it: it, progress=False)
    with pytest.raises(ArgumentError, match=r"key of item 0 is a list \(\[0.0, 0.0\]\)"):
        rmb.sweep(si.closed_loop_peak, items, key=list, progress=False)


def test_a_function_a_process_pool_cannot_pickle_is_named():
    pool = cf.ProcessPoolExecutor(1)  # no worker starts before the first submit
    try:
        with pytest.raises(ArgumentError, match="with a process pool fn must be picklable"):
            rmb.sweep(lambda x: x + 1, range(3), executor=pool, progress=False)
    finally:
        pool.shutdown()


@pytest.mark.parametrize("store", ["", ":memory:", b""])
def test_a_store_sqlite_would_not_keep_is_refused(store):
    # SQLite opens "" and ":memory:" as temporary databases: the sweep ran, claimed a
    # store, and a rerun recomputed everything
    with pytest.raises(ArgumentError, match="is not a file path"):
        rmb.sweep(abs, [-1, -2], store=store, progress=False)
    with pytest.raises(ArgumentError, match="is not a file path"):
        load_sweep(store)


def test_a_key_function_that_raises_is_named_with_the_item():
    with pytest.raises(ArgumentError, match=r"key raised on item 1 \(ZeroDivisionError"):
        rmb.sweep(abs, [0.5, 1.0, 2.0], key=lambda x: 1 / (x - 1), progress=False)
