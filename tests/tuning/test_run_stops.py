"""The progress-window and abandon stops of BFGS, and hinfstruct's ``abandon``."""

from __future__ import annotations

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning.nonsmooth_bfgs import bfgs


def _nesterov(x):
    """Nesterov's nonsmooth Chebyshev--Rosenbrock function, along whose curved kink
    BFGS crawls (Lewis and Overton 2013), and a subgradient."""
    r = x[1:] - 2.0 * x[:-1] ** 2 + 1.0
    s = np.sign(r)
    g = np.zeros_like(x)
    g[0] += np.sign(x[0]) / 4.0
    g[1:] += s
    g[:-1] -= 4.0 * x[:-1] * s
    return abs(x[0]) / 4.0 + float(np.abs(r).sum()), g


X0 = np.r_[-0.5, np.ones(4)]


def test_progress_window_only_stops_earlier_at_the_first_slow_window():
    """The window adds a stop and nothing else: its history is a prefix of the plain
    run's, ending at the first iterate whose gain over the last ``w`` is at most
    ``rtol`` relative."""
    w, rtol = 100, 1e-4
    plain = bfgs(_nesterov, X0, maxiter=1000)
    cut = bfgs(_nesterov, X0, maxiter=1000, window=(w, rtol))
    assert cut.message == "slow progress"
    h = plain.history
    assert cut.history == h[: len(cut.history)]
    slow = [k for k in range(w, len(h)) if h[k - w] - h[k] <= rtol * abs(h[k])]
    assert len(cut.history) - 1 == slow[0]


@pytest.mark.parametrize("m", [0.0, 5.0, 50.0])
def test_abandon_stops_at_the_first_checkpoint_that_cannot_reach_the_level(m):
    """``abandon = (level, m, w)``: the run stops at the first iteration ``k >= w``,
    ``k`` a multiple of 25, with ``f_k - m (f_{k-w} - f_k) > level``; a prefix of the
    plain run otherwise (and no stop when no checkpoint satisfies it)."""
    w = 100
    plain = bfgs(_nesterov, X0, maxiter=1000)
    h = plain.history
    level = 1.05 * h[-1]  # slightly above the plain run's end
    cut = bfgs(_nesterov, X0, maxiter=1000, abandon=(level, m, w))
    assert cut.history == h[: len(cut.history)]
    hits = [k for k in range(w, len(h)) if k % 25 == 0 and h[k] - m * (h[k - w] - h[k]) > level]
    if hits:
        assert cut.message == "abandoned"
        assert len(cut.history) - 1 == hits[0]
    else:
        assert cut.message == plain.message and cut.history == h


def test_abandon_below_the_run_never_stops_it():
    """A level below every value the run takes can never be cleared: the stop needs
    ``f - m gain > level``, which holds at once for ``m = 0``, and never for a level
    above the start value."""
    plain = bfgs(_nesterov, X0, maxiter=1000)
    high = bfgs(_nesterov, X0, maxiter=1000, abandon=(2.0 * plain.history[0], 0.0, 100))
    assert high.history == plain.history and high.message == plain.message


def _plant():
    # Unstable 1/(s - 1), w at the input, z = [x; 0.1 u], y = x + 0.1 n (hinfstruct's example).
    return control.ss(
        [[1.0]], [[1.0, 0.0, 1.0]], [[1.0], [0.0], [1.0]], [[0, 0, 0], [0, 0, 0.1], [0, 0.1, 0]]
    )


@pytest.mark.parametrize("bad", [-1.0, float("nan"), "5", True])
def test_hinfstruct_rejects_a_bad_abandon(bad):
    with pytest.raises(ArgumentError, match="abandon"):
        rmb.hinfstruct(_plant(), rmb.tunable_gain("K", 1, 1), abandon=bad)


def test_hinfstruct_abandon_off_and_on_verify():
    """With and without the abandon rule the result's gamma is hinfnorm's on the
    returned loop, and an abandoned run is never the best one."""
    for abandon in (np.inf, 5.0, 0.0):
        res = rmb.hinfstruct(
            _plant(), rmb.tunable_gain("K", 1, 1), random_start=3, seed=1, abandon=abandon
        )
        assert abs(res.gamma - res.verify()) <= 1e-9 * res.gamma
        assert "abandoned" not in res.runs[0].message


def test_hinfstruct_defaults_reach_the_search(monkeypatch):
    """The documented defaults (hinfstruct's Notes: ``abandon`` 10 on windows of 50
    iterations, ``zero_tol`` 1e-6, ``join`` 1e-6, ``polish_window`` 1 %, the random
    starts' polish deferred) are the ones the multistart search receives."""
    from robustmb.tuning import tuning_problem as tp

    seen = {}
    solve = tp.TuningProblem.solve

    def spy(self, **kw):
        seen.update(kw)
        return solve(self, **kw)

    monkeypatch.setattr(tp.TuningProblem, "solve", spy)
    rmb.hinfstruct(_plant(), rmb.tunable_gain("K", 1, 1))
    assert tp.ABANDON_WINDOW == 50
    assert seen["abandon"] == 10.0 and seen["zero_tol"] == 1e-6
    assert seen["join"] == 1e-6 and seen["near"] == 0.01 and seen["polish"] == "deferred"
