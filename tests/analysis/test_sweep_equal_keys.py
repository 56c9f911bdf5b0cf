"""A key stored under other bytes than an equal key given now (``numpy.float64(0.75)``
and ``0.75``) stays one item: a retried failure replaces its row, never adds a second."""

import warnings

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep

FAILING = {"on": True}


def doubled_above_half_fails(x):
    """``2 x``; raises for ``x > 0.5`` while ``FAILING["on"]`` (the state is tracked by
    ``version=``, so turning it off does not refuse the store)."""
    if FAILING["on"] and x > 0.5:
        raise ValueError(f"no result for {x}")
    return 2.0 * float(x)


def test_retry_with_equal_keys_of_another_type_keeps_one_row_per_item(tmp_path):
    store = tmp_path / "equal_keys.sqlite"
    grid = list(np.linspace(0.0, 1.0, 5))  # numpy.float64 items
    expected = {float(x): 2.0 * float(x) for x in grid}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rmb.errors.SweepItemWarning)
        FAILING["on"] = True
        try:
            first = rmb.sweep(
                doubled_above_half_fails, grid, key=lambda x: x, store=store, progress=False,
                version="1",
            )  # fmt: skip
        finally:
            FAILING["on"] = False
        assert sorted(first.errors) == [0.75, 1.0]
        # the same items keyed by Python floats: equal keys, other pickled bytes
        retried = rmb.sweep(
            doubled_above_half_fails, grid, key=float, store=store, progress=False,
            retry_failed=True, version="1",
        )  # fmt: skip
        again = rmb.sweep(
            doubled_above_half_fails, grid, key=float, store=store, progress=False, version="1"
        )
        loaded = load_sweep(store)
    for res in (retried, again, loaded):
        assert res.errors == {}
        assert len(res) == len(grid)
        assert {float(k): v for k, v in res.values.items()} == expected
    assert again.computed == 0


def row_sum(row):
    return float(np.sum(row[1:]))


def test_unequal_keys_of_one_pickle_are_refused_with_a_store(tmp_path):
    # two NaN keys are two items (NaN equals nothing) but one key in the store: the
    # second result overwrote the first, and a resume recomputed it on every run
    grid = list(np.array([[np.nan, 1.0], [np.nan, 2.0], [0.5, 3.0]]))
    plain = rmb.sweep(row_sum, grid, key=lambda row: row[0], progress=False)
    assert list(plain.values.values()) == [1.0, 2.0, 3.0]
    store = tmp_path / "nan_keys.sqlite"
    with pytest.raises(rmb.errors.ArgumentError, match="keys np.float64.nan. and .* pickle alike"):
        rmb.sweep(row_sum, grid, key=lambda row: row[0], store=store, progress=False)
    keyed = rmb.sweep(row_sum, grid, key=lambda row: tuple(row), store=store, progress=False)
    again = rmb.sweep(row_sum, grid, key=lambda row: tuple(row), store=store, progress=False)
    assert list(again.values.values()) == list(keyed.values.values()) == [1.0, 2.0, 3.0]
    assert again.computed == 0
