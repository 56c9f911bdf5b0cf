"""Sweeps over families of ``control.StateSpace`` models (which python-control 0.10 cannot
pickle: its ``StateSpace`` holds lambdas).

A store must fingerprint such items and state by their structure, so that a resumed store
refuses another family instead of returning the old results; results and items of that
type must travel through a store and a process pool.  The references are python-control's
own ``control.norm`` of every member and the closed form of ``1 / (s^2 + c s + k)``.
"""

import concurrent.futures as cf
import math
import multiprocessing
import threading

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.sweep import load_sweep
from robustmb.errors import ArgumentError, SweepItemWarning


def plant(k, c):
    """``1 / (s^2 + c s + k)`` as a StateSpace."""
    return control.ss([[0.0, 1.0], [-k, -c]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])


def closed_form_peak(k, c):
    # |G(jw)|^2 = 1 / ((k - w^2)^2 + c^2 w^2): peak at w^2 = k - c^2 / 2 when positive
    return 1.0 / (c * math.sqrt(k - c**2 / 4)) if c**2 < 2 * k else 1.0 / k


def family(kmax, n=6):
    """``n`` members of the uncertain plant sampled with k in [1, kmax] (StateSpace)."""
    k = rmb.ureal("k", 2.0, range=(1.0, kmax))
    c = rmb.ureal("c", 0.3, range=(0.05, 0.8))
    U = rmb.uss(
        rmb.umat([[0.0, 1.0], [-k, -c]]),
        np.array([[0.0], [1.0]]),
        np.array([[1.0, 0.0]]),
        np.array([[0.0]]),
    )
    return U.usample(n, seed=1)[0]


def peak(G):
    return rmb.hinfnorm(G)[0]


def reference(models):
    return [control.norm(G, "inf") for G in models]


def closed_loop(item):
    """A StateSpace result: the plant with a unit feedback."""
    k, c = item
    return control.feedback(plant(k, c), 1)


def generator_for_large_k(item):
    k, c = item
    if k > 2.5:
        return (x for x in [k])  # no pickle of a generator exists
    return k


def first_of(item):
    return float(item[0])


FORK = multiprocessing.get_context("fork")


def test_a_store_refuses_another_statespace_family(tmp_path):
    store = tmp_path / "fam.sqlite"
    famA, famB = family(4.0), family(40.0)
    rA = rmb.sweep(peak, famA, store=store, progress=False)
    np.testing.assert_allclose(list(rA.values.values()), reference(famA), rtol=1e-8)
    with pytest.raises(ArgumentError, match="key 0 computed from a different item"):
        rmb.sweep(peak, famB, store=store, progress=False)
    # the same family built again (new objects, new automatic names) resumes
    again = rmb.sweep(peak, family(4.0), store=store, progress=False)
    assert again.computed == 0 and again.values == rA.values
    fresh = rmb.sweep(peak, famB, store=tmp_path / "b.sqlite", progress=False)
    np.testing.assert_allclose(list(fresh.values.values()), reference(famB), rtol=1e-8)


def test_a_store_refuses_another_family_read_from_the_state(tmp_path):
    store = tmp_path / "glob.sqlite"

    def scorer(models):
        return lambda i: rmb.hinfnorm(models[i])[0]

    famA, famB = family(4.0), family(40.0)
    first = rmb.sweep(scorer(famA), range(6), store=store, progress=False)
    np.testing.assert_allclose([first[i] for i in range(6)], reference(famA), rtol=1e-8)
    with pytest.raises(ArgumentError, match="closure models"):
        rmb.sweep(scorer(famB), range(6), store=store, progress=False)
    assert rmb.sweep(scorer(family(4.0)), range(6), store=store, progress=False).computed == 0


def test_items_and_state_without_a_fingerprint_are_argument_errors(tmp_path):
    lock = threading.Lock()  # neither pickle nor cloudpickle takes a lock
    with pytest.raises(ArgumentError, match=r"item 1 \(tuple\) cannot be pickled"):
        rmb.sweep(first_of, [(1.0,), (2.0, lock)], store=tmp_path / "i.sqlite", progress=False)

    def uses_a_lock(item):
        with lock:
            return item

    with pytest.raises(ArgumentError, match=r"lock.*version="):
        rmb.sweep(uses_a_lock, [1, 2], store=tmp_path / "s.sqlite", progress=False)
    res = rmb.sweep(uses_a_lock, [1, 2], store=tmp_path / "s.sqlite", progress=False, version="1")
    assert res.values == {0: 1, 1: 2}


def assert_same_statespace(G, H):
    for X in "ABCD":
        np.testing.assert_array_equal(getattr(G, X), getattr(H, X))  # exact round trip
    assert G.dt == H.dt
    assert (G.input_labels, G.output_labels, G.state_labels) == (
        H.input_labels,
        H.output_labels,
        H.state_labels,
    )


ITEMS = [(float(k), 0.3) for k in np.linspace(1.0, 4.0, 5)]


@pytest.mark.parametrize("engine", ["store", "pool", "store+pool"])
def test_statespace_results_travel_exactly(tmp_path, engine):
    store = tmp_path / "ss.sqlite" if "store" in engine else None
    if "pool" in engine:
        with cf.ProcessPoolExecutor(2, mp_context=FORK) as pool:
            res = rmb.sweep(closed_loop, ITEMS, executor=pool, store=store, progress=False)
    else:
        res = rmb.sweep(closed_loop, ITEMS, store=store, chunk_size=2, progress=False)
    assert res.ok and len(res.values) == len(ITEMS)
    for i, (k, c) in enumerate(ITEMS):
        assert type(res[i]) is control.StateSpace
        assert_same_statespace(res[i], closed_loop((k, c)))
        # the closed loop is 1 / (s^2 + c s + k + 1)
        assert rmb.hinfnorm(res[i])[0] == pytest.approx(closed_form_peak(k + 1, c), rel=1e-8)
    if store is not None:
        loaded = load_sweep(store)
        for i in range(len(ITEMS)):
            assert_same_statespace(loaded.values[i], res[i])


@pytest.mark.parametrize("engine", ["store", "pool"])
def test_an_unpicklable_result_fails_alone(tmp_path, engine):
    store = tmp_path / "gen.sqlite" if engine == "store" else None
    with pytest.warns(SweepItemWarning, match="2 of 5 items failed"):
        if engine == "pool":
            with cf.ProcessPoolExecutor(2, mp_context=FORK) as pool:
                res = rmb.sweep(generator_for_large_k, ITEMS, executor=pool, progress=False)
        else:
            res = rmb.sweep(generator_for_large_k, ITEMS, store=store, progress=False)
    assert res.values == {i: k for i, (k, _) in enumerate(ITEMS) if k <= 2.5}
    assert sorted(res.errors) == [3, 4]
    assert "result of item 3 cannot be pickled" in res.errors[3]


def test_statespace_items_run_on_a_process_pool_and_unpicklable_ones_fail_alone():
    fam = family(4.0)
    lock = threading.Lock()
    with cf.ProcessPoolExecutor(2, mp_context=FORK) as pool:
        res = rmb.sweep(peak, fam, executor=pool, chunk_size=2, progress=False)
        with pytest.warns(SweepItemWarning, match="1 of 3"):
            mixed = rmb.sweep(
                first_of, [(1.0,), (2.0, lock), (3.0,)], executor=pool, progress=False
            )
    np.testing.assert_allclose([res[i] for i in range(len(fam))], reference(fam), rtol=1e-8)
    assert mixed.values == {0: 1.0, 2: 3.0}
    assert "item 1 cannot be pickled" in mixed.errors[1]


def test_statespace_items_on_dask():
    distributed = pytest.importorskip("distributed")
    fam = family(4.0)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        res = rmb.sweep(peak, fam, executor=client, chunk_size=2, progress=False)
    np.testing.assert_allclose([res[i] for i in range(len(fam))], reference(fam), rtol=1e-8)


def twice(item):
    return 2.0 * item[0]


def test_nan_keys_are_found_in_the_store(tmp_path):
    store = tmp_path / "nan.sqlite"
    items = [(1.0, 0.3), (float("nan"), 0.3), (3.0, 0.3)]
    first = rmb.sweep(twice, items, key=lambda it: it, store=store, progress=False)
    again = rmb.sweep(twice, items, key=lambda it: it, store=store, progress=False)
    assert first.computed == 3 and again.computed == 0
    assert again.values[items[0]] == 2.0 and again.values[items[2]] == 6.0
    assert math.isnan(again.values[items[1]])
