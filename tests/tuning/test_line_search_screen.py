"""The line search's cheap rejection test (``bfgs(..., screen=)``,
``TuningProblem.above`` / ``rejected``): a lower bound that never exceeds the norm, and
a search that takes the same steps whether the screen or the evaluation rejects."""

import numpy as np
import pytest
from _compleib import compleib, static_loop
from hypothesis import example, given, settings
from hypothesis import strategies as st

import robustmb as rmb
from robustmb.lft.algebra import lft_lower
from robustmb.lft.model import as_model
from robustmb.tuning.nonsmooth_bfgs import bfgs, gradient_sampling
from robustmb.tuning.parametrization import ParameterVector, TunableLFT
from robustmb.tuning.tuning_problem import TuningProblem
from robustmb.tuning.tuning_term import Term


def _ac17():
    P, _, m = compleib("AC17")
    nu, ny = m[2].shape[1], m[4].shape[0]
    K = rmb.tunable_gain("K", nu, ny)
    km = as_model(K)
    loop = lft_lower(as_model(P), km)
    params = ParameterVector(km.tunables)
    lft = TunableLFT(loop, params)
    return P, TuningProblem(params, [Term(lft)], loops=[lft]), (nu, ny)


def _stable_point(problem, n):
    """A stabilising static gain (the optimiser's stabilisation phase from K = 0)."""
    x = problem._phase_stabilise(np.zeros(n)).x
    assert problem._stable(x)
    return x


class _Exact:
    """A screen that decides by the function itself (counting its calls)."""

    def __init__(self, fun):
        self.fun, self.calls, self.rejects = fun, 0, 0

    def above(self, x, level):
        self.calls += 1
        return not self.fun(x)[0] <= level

    def rejected(self, x):
        self.rejects += 1


def _maxabs(x):
    """A nonsmooth convex test function: max |A x - b| plus a quadratic."""
    a = np.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.2, -1.5, 1.0]])
    r = a @ x - np.array([1.0, -2.0, 0.5])
    k = int(np.argmax(np.abs(r)))
    return abs(r[k]) + 0.1 * x @ x, np.sign(r[k]) * a[k] + 0.2 * x


def test_an_exact_screen_leaves_the_search_unchanged():
    """A screen that rejects exactly the trials the evaluation would reject: the same
    iterates and value, and every screened trial is a saved evaluation of ``fun``."""
    x0 = np.array([3.0, -2.0, 1.0])
    plain = bfgs(_maxabs, x0, maxiter=200)
    screen = _Exact(_maxabs)
    screened = bfgs(_maxabs, x0, maxiter=200, screen=screen)
    assert screened.history == plain.history
    np.testing.assert_array_equal(screened.x, plain.x)
    assert screened.ntest > 0
    assert screened.nfev + screened.ntest == plain.nfev
    assert screen.rejects == 0  # nothing rejected after an evaluation: the screen saw all
    # gradient sampling's backtracking: the same point and value
    g0 = _maxabs(x0)[1]
    xa, fa, _ = gradient_sampling(_maxabs, x0, _maxabs(x0)[0], g0, maxiter=15)
    xb, fb, _ = gradient_sampling(
        _maxabs, x0, _maxabs(x0)[0], g0, maxiter=15, screen=_Exact(_maxabs)
    )
    assert fa == fb
    np.testing.assert_array_equal(xa, xb)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), spread=st.floats(0.01, 3.0))
@example(seed=435, spread=1.0)  # the test once compared bounds at two different hints
def test_lower_bound_never_exceeds_the_norm(seed, spread):
    """``Term.lower_bound`` at a point near the last evaluated one is at most the
    closed-loop norm there: hinfnorm of the textbook static loop (no tuning code) when
    that loop is stable, and it is then also at most the inner value."""
    P, problem, (nu, ny) = _ac17()
    term = problem.soft[0]
    rng = np.random.default_rng(seed)
    x0 = _stable_point(problem, nu * ny) + 0.05 * rng.standard_normal(nu * ny)
    v0, _ = problem.objective(x0)
    if not np.isfinite(v0):
        return
    problem.pieces(x0)  # the multi-peak set: its peak frequencies join the bound's candidates
    assert term._peaks is not None
    x = x0 + spread * 0.1 * rng.standard_normal(x0.size)
    lb = term.lower_bound(x)
    # above() is this lower-bound test (at the same peak-frequency hint)
    assert problem.above(x, lb * (1 - 1e-9)) == (lb > 0)
    assert not problem.above(x, lb)
    ref = rmb.hinfnorm(static_loop(P, x.reshape(nu, ny)), tol=1e-10)[0]
    if np.isfinite(ref):
        assert lb <= ref * (1 + 1e-10)
        v, _ = problem.objective(x)
        assert lb <= v * (1 + 1e-10)


def test_rejected_trial_leaves_the_peak_hint_unchanged():
    P, problem, (nu, ny) = _ac17()
    term = problem.soft[0]
    x0 = _stable_point(problem, nu * ny)
    v0, _ = problem.objective(x0)
    assert np.isfinite(v0)
    state = term._state
    problem.above(x0 + 0.3, v0)  # keeps the state ...
    problem.objective(x0 + 0.3)  # ... an evaluation moves it ...
    assert term._state is not state
    problem.rejected(x0 + 0.3)  # ... and a rejection puts it back
    assert term._state is state


def test_rejected_trial_leaves_the_hard_terms_hint_unchanged():
    """Hard terms' peak hints are restored too (a hard goal evaluated at a rejected
    trial must not steer the next evaluation's level set)."""
    P, problem, (nu, ny) = _ac17()
    x0 = _stable_point(problem, nu * ny)
    soft, lft = problem.soft[0], problem.loops[0]
    v0, _ = soft.evaluate(x0)
    hard = Term(lft, scale=0.5 / v0)  # the same loop as a hard goal, met at x0
    problem = TuningProblem(problem.params, [soft], [hard], loops=[lft])
    assert np.isfinite(problem.objective(x0)[0])
    states = (soft._state, hard._state, soft._last, hard._last)
    x = x0 + 0.01
    problem.above(x, np.inf)
    problem.objective(x)
    assert hard._state is not states[1]  # the evaluation moved the hard term's hint
    problem.rejected(x)
    restored = (soft._state, hard._state, soft._last, hard._last)
    assert all(new is old for new, old in zip(restored, states, strict=True))


def test_out_of_bounds_trials_are_rejected_unevaluated():
    params = ParameterVector({"p": rmb.realp("p", 1.0, minimum=0.0, maximum=2.0)})
    problem = TuningProblem(params, [])
    assert problem.above(np.array([3.0]), 1e300)
    assert not problem.above(np.array([1.0]), 0.0)


@pytest.mark.parametrize("name", ["AC17"])
def test_screened_hinfstruct_is_verified_and_not_worse_than_nelder_mead(name):
    """hinfstruct with the screen on (always): its gamma is hinfnorm's on the textbook
    loop and not above a Nelder--Mead run on hinfnorm from K = 0 (6.61243 for AC17)."""
    from scipy.optimize import minimize

    P, _, m = compleib(name)
    nu, ny = m[2].shape[1], m[4].shape[0]
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", nu, ny), random_start=1, seed=0)
    cl = static_loop(P, res.values["K"])
    assert res.gamma == pytest.approx(rmb.hinfnorm(cl, tol=1e-10)[0], rel=1e-9)

    def f(x):
        loop = static_loop(P, x.reshape(nu, ny))
        if np.max(np.linalg.eigvals(loop.A).real) >= 0:
            return 1e8
        return rmb.hinfnorm(loop, tol=1e-8)[0]

    nm = minimize(f, np.zeros(nu * ny), method="Nelder-Mead")
    assert res.gamma <= nm.fun * (1 + 1e-6)
