"""``a * M`` for an uncertain scalar ``a`` and a constant matrix ``M``.

``a`` enters ``rank(M)`` times when a factorisation ``M = L R`` reproduces every
entry of ``M`` to rounding relative to that entry without cancellation (a zero of
``M`` has no nonzero term), otherwise once per row (or column).  Every entry of
``a * M`` must equal ``a`` times that entry, whatever the scales of the entries:
the reference is numpy's ``v * M``.
"""

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robustmb as rmb


def _a():
    return rmb.ureal("a", 1.0, range=(0.5, 3.0))


def _assert_entrywise(X, M, values=(2.0, 0.5, 2.9)):
    for v in values:
        got = np.asarray(X.usubs({"a": v}) if X.blocks else X.nominal())
        # relative to each entry, zeros exactly
        np.testing.assert_allclose(got, v * M, rtol=1e-13, atol=0.0)


@pytest.mark.parametrize(
    ("M", "occurrences"),
    [
        (np.diag([1e8, 1e-8]), 2),
        (np.diag([1.0, 3e-16]), 2),
        (np.diag([1e5] * 9 + [1e-10]), 10),
        (np.array([[1e8, 2e8], [1e-8, 2e-8]]), 1),  # rank one, rows 16 decades apart
        (np.outer([1.0, 1e-12, 3.0], [2.0, 0.0, 1e10]), 1),
        (np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.0]]), 2),
        # rank two with isolated zeros: the pivot rows are copied exactly
        (np.array([[-5.0, -8.0, 5.0], [7.0, 0.0, 9.0], [7.0, 0.0, 9.0], [2.0, -8.0, 14.0]]), 2),
        (np.zeros((2, 3)), 0),
    ],
)
def test_scalar_times_constant_matrix_is_exact_in_every_entry(M, occurrences):
    for X in (_a() * M, M * _a()):
        assert X.blocks.get("a", 0) == occurrences
        _assert_entrywise(X, M)


def test_scalar_times_complex_matrix():
    M = np.outer([1.0, 1e-9j], [1.0 + 2.0j, 3.0])
    X = _a() * M
    assert X.blocks == {"a": 1}
    _assert_entrywise(X, M)


def test_scalar_times_static_system_keeps_its_sampling_time():
    G = rmb.uss(rmb.umat(np.array([[1.0, 2.0], [2.0, 4.0]])), dt=0.1)
    X = _a() * G
    assert X.is_system and X.dt == 0.1 and X.blocks == {"a": 1}
    np.testing.assert_allclose(X.usubs({"a": 2.0}).D, [[2.0, 4.0], [4.0, 8.0]], rtol=1e-14)


@settings(max_examples=40, deadline=None)
@given(
    p=st.integers(1, 4),
    q=st.integers(1, 4),
    r=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    row_exp=st.lists(st.integers(-12, 12), min_size=4, max_size=4),
    col_exp=st.lists(st.integers(-12, 12), min_size=4, max_size=4),
)
def test_scalar_times_badly_scaled_low_rank_matrix(p, q, r, seed, row_exp, col_exp):
    """Rows and columns scaled over 24 decades, some entries zero: exact in every entry."""
    rng = np.random.default_rng(seed)
    core = rng.integers(-3, 4, size=(p, r)) @ rng.integers(-3, 4, size=(r, q))
    M = 10.0 ** np.array(row_exp[:p])[:, None] * core * 10.0 ** np.array(col_exp[:q])[None, :]
    X = _a() * M
    rank = np.linalg.matrix_rank(core)  # small integers: an exact rank
    occurrences = X.blocks.get("a", 0)
    assert rank <= occurrences <= min(p, q)
    if rank <= 1:
        # a rank-one matrix (zeros only in whole rows or columns) is factored exactly
        assert occurrences == rank
    _assert_entrywise(X, M)


def _assert_zeros_exact(X, M, values):
    """Zeros of ``M`` are exact zeros of ``X`` under usubs, nominal and usample."""
    zero = M == 0
    got = [np.asarray(X.nominal())]
    for name in X.blocks:
        got += [np.asarray(X.usubs({name: v})) for v in values]
    got += [np.asarray(s) for s in X.usample(4, seed=0)[0]]
    for g in got:
        assert np.all(g[zero] == 0), g[zero]


# integer, rank 3: entry (0, 4) of numpy's left @ right of a rank factorisation is a
# zero by cancellation, which an LFT evaluation summing in another order misses
_CANCELLING = np.array(
    [
        [2.0, 7.0, 2.0, 1.0, 0.0, -4.0],
        [-6.0, -5.0, -2.0, -1.0, 4.0, 8.0],
        [9.0, 4.0, 4.0, 2.0, -8.0, -10.0],
        [-3.0, 4.0, 0.0, 0.0, 4.0, 2.0],
        [-6.0, -8.0, -4.0, -2.0, 4.0, 8.0],
        [2.0, -1.0, 0.0, 0.0, -2.0, -2.0],
    ]
)


def test_scalar_times_zeros_by_cancellation_stay_exact():
    values = (1.1101482568717842, 0.5, 0.7, 1.3, 2.0, 2.9)
    for X in (_a() * _CANCELLING, _CANCELLING * _a()):
        _assert_zeros_exact(X, _CANCELLING, values)
        _assert_entrywise(X, _CANCELLING, values)


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(2, 6),
    q=st.integers(2, 6),
    k=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
    value=st.floats(0.5, 3.0),
    complex_scalar=st.booleans(),
)
# matrices whose zeros cancel inexactly in an LFT evaluation of numpy-exact factors
@example(p=6, q=5, k=4, seed=14, value=1.7, complex_scalar=False)
@example(p=5, q=6, k=3, seed=64, value=1.7, complex_scalar=False)
def test_scalar_times_zeros_of_integer_matrix_are_exact(p, q, k, seed, value, complex_scalar):
    """A low-rank integer matrix has zeros by cancellation of its rank factors: exact."""
    rng = np.random.default_rng(seed)
    k = min(k, p, q)
    M = rng.integers(-2, 3, size=(p, k)) @ rng.integers(-2, 3, size=(k, q)) * 1.0
    if complex_scalar:
        s = rmb.ucomplex("c", 1.0 + 1.0j, radius=0.5)
        values = (value * np.exp(1j * value), 1.0 + 1.5j, 0.5 + 1.0j)
    else:
        s = _a()
        values = (value, 0.5, 3.0)
    for X in (s * M, M * s):
        _assert_zeros_exact(X, M, values)
        name = next(iter(X.blocks), None)
        for v in values:
            got = np.asarray(X.usubs({name: v}) if name else X.nominal())
            np.testing.assert_allclose(got, v * M, rtol=1e-13, atol=0.0)


def test_scalar_times_spread_beyond_float_range_is_silent_and_exact():
    """Entries over 430 decades: no power-of-two scaling fits; no warning, exact values."""
    M = np.array([[-1.428e-212, 0.0], [4.905e-060, 0.0], [-3.614e207, 2.017e-226]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X = _a() * M
        _assert_entrywise(X, M)
