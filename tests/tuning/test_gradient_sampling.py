"""Gradient sampling: adaptive sample counts (few new points, more only without descent)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from robustmb.tuning.nonsmooth_bfgs import gradient_sampling


def _planes(a, b):
    """``max_i (a_i . x + b_i)`` with a counter of its calls."""
    calls = []

    def fun(x):
        calls.append(np.array(x))
        v = a @ x + b
        k = int(np.argmax(v))
        return float(v[k]), a[k].copy()

    return fun, calls


def _vertex(n):
    """``n + 1`` planes through the origin whose gradients have 0 inside their hull:
    the origin is the minimiser (value 0) and every piece is active there."""
    a = np.vstack([np.eye(n), -np.ones((1, n))])
    return a, np.zeros(n + 1)


class _RejectAll:
    """A line-search screen that rejects every backtracking trial unevaluated (exact
    at a minimiser: no trial is below the level there), so that only draws call ``fun``."""

    def above(self, x, level):
        return True

    def rejected(self, x):
        pass


def test_no_descent_from_few_gradients_draws_n_plus_one_before_shrinking():
    """At a vertex minimiser no direction descends, so a step draws more points until
    ``n + 1`` lie in the box (the published method's evidence) before the radius
    shrinks; with ``maxiter=1`` there is one radius, so ``fun`` is called for those
    ``n + 1`` draws only (the trials are screened), and the point stays."""
    n = 8
    a, b = _vertex(n)
    for adaptive in (True, False):
        fun, calls = _planes(a, b)
        x0 = np.zeros(n)
        f0, g0 = fun(x0)
        calls.clear()
        x, f, _ = gradient_sampling(
            fun, x0, f0, g0, radius=1e-2, maxiter=1, seed=3, screen=_RejectAll(), adaptive=adaptive
        )
        assert f == 0.0
        np.testing.assert_array_equal(x, x0)
        assert len(calls) == n + 1
        assert all(np.max(np.abs(p)) <= 1e-2 for p in calls)


def test_descent_from_few_gradients_costs_few_evaluations():
    """Where one piece is active around ``x`` (a plane), the first few gradients give
    descent: one step costs ``ceil(sqrt(n + 1))`` samples and one accepted trial,
    against ``n + 1`` samples for ``adaptive=False``."""
    n = 15
    a = np.vstack([np.ones((1, n)), -np.ones((1, n))])
    b = np.array([0.0, -1e6])  # the second plane is far below near x0
    x0 = np.full(n, 5.0)
    counts = {}
    for adaptive in (True, False):
        fun, calls = _planes(a, b)
        f0, g0 = fun(x0)
        calls.clear()
        _, f, _ = gradient_sampling(fun, x0, f0, g0, maxiter=1, adaptive=adaptive)
        assert f < f0
        counts[adaptive] = len(calls)
    assert counts[True] == int(np.ceil(np.sqrt(n + 1))) + 1
    assert counts[False] == n + 1 + 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6))
def test_never_below_the_lp_minimum_and_never_above_the_start(seed, n):
    """On a bounded max of planes the value returned lies between the minimum found by
    linear programming (scipy's HiGHS, an independent method) and the start value,
    and is the function's value at the point returned."""
    rng = np.random.default_rng(seed)
    m = n + 3
    a = rng.standard_normal((m, n))
    a[-1] = -a[:-1].sum(0)  # 0 in the hull of the gradients: bounded below
    b = rng.standard_normal(m)
    lp = linprog(
        np.r_[np.zeros(n), 1.0],
        A_ub=np.c_[a, -np.ones(m)],
        b_ub=-b,
        bounds=[(None, None)] * (n + 1),
    )
    assert lp.status == 0
    fun, _ = _planes(a, b)
    x0 = 3.0 * rng.standard_normal(n)
    f0, g0 = fun(x0)
    x, f, _ = gradient_sampling(fun, x0, f0, g0, radius=1e-2, maxiter=30, seed=seed)
    assert lp.fun - 1e-9 <= f <= f0
    assert f == fun(x)[0]
