"""hinfstruct's ``zero_tol``: an absolute tolerance for a gamma that falls towards 0."""

from __future__ import annotations

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning.tuning_problem import TuningProblem


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


@pytest.mark.parametrize("bad", [-1e-3, np.nan, np.inf, True, "1e-6"])
def test_zero_tol_validation(bad):
    with pytest.raises(ArgumentError, match="zero_tol"):
        rmb.hinfstruct(_vanishing_plant(), rmb.tunable_gain("K", 1, 1), zero_tol=bad)
