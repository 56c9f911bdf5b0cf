"""hinfstruct's ``zero_tol``: an absolute tolerance for a gamma that falls towards 0."""

from __future__ import annotations

import control
import numpy as np
import pytest
from _compleib import compleib, static_loop

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning.tuning_problem import ZERO_FALL, TuningProblem, zero_met


def _vanishing_plant():
    """z = w + u + 0 x, y = w, x' = -x + w: with u = K y the closed loop is the constant
    1 + K, so gamma = |1 + K| (0 at K = -1, the performance channel cancelled)."""
    return control.ss([[-1.0]], [[1.0, 0.0]], [[0.0], [0.0]], [[1.0, 1.0], [1.0, 0.0]])


def _counted(**kwargs):
    calls = [0]
    objective = TuningProblem.objective

    def counted(self, x, **kw):
        calls[0] += 1
        return objective(self, x, **kw)

    TuningProblem.objective = counted
    try:
        res = rmb.hinfstruct(_vanishing_plant(), rmb.tunable_gain("K", 1, 1), **kwargs)
    finally:
        TuningProblem.objective = objective
    return res, calls[0]


def test_zero_tol_stops_at_the_absolute_level_and_skips_the_other_starts():
    """Gamma at K = 0 is |1 + 0| = 1, so the level is zero_tol itself; the closed form
    |1 + K| of the returned gain agrees, and the random starts are not run."""
    tol = 1e-4
    res, calls = _counted(random_start=3, seed=0, zero_tol=tol)
    k = res.values["K"].item()
    assert abs(1.0 + k) < tol
    assert res.gamma == pytest.approx(abs(1.0 + k), rel=1e-6, abs=1e-12)
    assert len(res.runs) == 1
    assert res.runs[0].zero_level == pytest.approx(tol)
    off, calls_off = _counted(random_start=3, seed=0, zero_tol=0)
    assert len(off.runs) == 4
    assert abs(1.0 + off.values["K"].item()) <= 1e-6
    assert calls < calls_off


def test_zero_tol_leaves_runs_above_the_level_unchanged():
    """On a plant whose optimum is far above the level, the run values and gains are
    those of ``zero_tol=0`` (the scale evaluation does not move the path)."""
    P = control.ss(
        [[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    )
    K = rmb.tunable_gain("K", 1, 1)
    on = rmb.hinfstruct(P, K, random_start=2, seed=0)
    off = rmb.hinfstruct(P, K, random_start=2, seed=0, zero_tol=0)
    assert [r.value for r in on.runs] == [r.value for r in off.runs]
    assert [len(r.history) for r in on.runs] == [len(r.history) for r in off.runs]
    assert on.gamma == off.gamma
    # the level is 1e-6 of the first run's soft start, far below the optimum
    assert 0 < on.runs[0].zero_level < 1e-3 * on.gamma


def test_zero_tol_run_stops_unpolished_at_the_first_value_meeting_the_rule():
    """The run's BFGS stops at the first value below the level that has also fallen by
    ZERO_FALL from the first value below it; no earlier value met that rule, and
    gradient sampling never ran."""
    res = rmb.hinfstruct(_vanishing_plant(), rmb.tunable_gain("K", 1, 1), zero_tol=1e-4)
    r = res.runs[0]
    soft = [v for kind, v in r.history if kind == "soft"]
    assert "sampling" not in r.message and all(k != "sampling" for k, _ in r.history)
    first = next(v for v in soft if v < r.zero_level)
    assert soft[-1] < r.zero_level and soft[-1] * ZERO_FALL <= first
    assert not any(zero_met(v, first, r.zero_level) for v in soft[:-1])
    assert r.zero_done


def test_zero_level_is_the_first_runs_for_every_start():
    """Every run records the first run's level (the others do not take their own)."""
    P = control.ss(
        [[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    )
    res = rmb.hinfstruct(P, rmb.tunable_gain("K", 1, 1), random_start=3, seed=0)
    assert len(res.runs) == 4
    assert len({r.zero_level for r in res.runs}) == 1
    assert not any(r.zero_done for r in res.runs)


def test_zero_tol_level_above_the_infimum_does_not_stop_the_search():
    """First-order plant x' = -a0 x + w + u, z = (c0 x, rho u), y = x: with u = K y,
    gamma(K) = sqrt(c0^2 + rho^2 K^2) / (a0 - K) (peak at w = 0), decreasing towards its
    infimum rho as K -> -inf.  From K = 0, gamma0 = c0 / a0 = 1e3 and the level
    1e-6 gamma0 = 1e-3 is 1000 times rho: the search must go on to rho all the same."""
    a0, c0, rho = 1.0, 1e3, 1e-6
    P = control.ss([[-a0]], [[1.0, 1.0]], [[c0], [0.0], [1.0]], [[0, 0], [0, rho], [0, 0]])
    K = rmb.tunable_gain("K", 1, 1)
    res = rmb.hinfstruct(P, K, random_start=2, seed=0)
    k = res.values["K"].item()
    assert res.runs[0].zero_level == pytest.approx(1e-6 * c0 / a0, rel=1e-9)
    assert res.gamma == pytest.approx(np.hypot(c0, rho * k) / (a0 - k), rel=1e-6)
    assert rho <= res.gamma < 1.01 * rho
    # no run met the rule (a fall by ZERO_FALL below the level would be below rho)
    assert len(res.runs) == 3 and not any(r.zero_done for r in res.runs)
    off = rmb.hinfstruct(P, K, random_start=2, seed=0, zero_tol=0)
    assert res.gamma <= off.gamma * (1 + 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["HE1", "REA1"])
def test_zero_tol_from_a_barely_stabilising_gain(name):
    """From K0 = t Kopt with the closed loop's abscissa at -2e-7 (a huge initial norm, so
    the level 1e-6 gamma0 is above the optimum), zero_tol must change nothing: the runs
    and gamma are those of zero_tol=0 from the same K0."""
    P, _, parts = compleib(name)
    ny, nu = parts[4].shape[0], parts[2].shape[1]
    ref = rmb.hinfstruct(P, rmb.tunable_gain("K", nu, ny), random_start=1, seed=0, zero_tol=0)
    kopt = ref.values["K"]

    def abscissa(k):
        return np.max(np.linalg.eigvals(static_loop(P, k).A).real)

    lo, hi = 0.0, 1.0  # bisection on t for the abscissa -2e-7 (t = 1 is stable)
    assert abscissa(kopt) < -2e-7 <= abscissa(0 * kopt)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if abscissa(mid * kopt) < -2e-7 else (mid, hi)
    k0 = hi * kopt
    gamma0 = rmb.hinfnorm(static_loop(P, k0))[0]
    on = rmb.hinfstruct(P, rmb.tunable_gain("K", nu, ny, value=k0), random_start=3, seed=0)
    off = rmb.hinfstruct(
        P, rmb.tunable_gain("K", nu, ny, value=k0), random_start=3, seed=0, zero_tol=0
    )
    assert on.runs[0].zero_level > off.gamma  # the level is above the optimum found
    assert on.runs[0].zero_level == pytest.approx(1e-6 * gamma0, rel=1e-3)
    assert len(on.runs) == 4
    assert on.gamma <= off.gamma * (1 + 1e-9)
    assert on.gamma == pytest.approx(rmb.hinfnorm(static_loop(P, on.values["K"]))[0], rel=1e-6)


@pytest.mark.parametrize("bad", [-1e-3, np.nan, np.inf, True, "1e-6"])
def test_zero_tol_validation(bad):
    with pytest.raises(ArgumentError, match="zero_tol"):
        rmb.hinfstruct(_vanishing_plant(), rmb.tunable_gain("K", 1, 1), zero_tol=bad)
