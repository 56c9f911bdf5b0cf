"""Two savings of ``TuningProblem.solve(polish="deferred")`` that keep its results.

* The first run is verified (``hinfnorm`` of the loop, :meth:`Term.verified`) once, at
  the point its polish ends on, instead of once before and once after the polish: the
  runs, points, values and messages are those of the same solve with every run verified
  before its polish, and every recorded value is at least ``hinfnorm`` of the textbook
  loop at its gain (computed here from the plant's matrices).
* A random start whose verified value ends level with a polished run's (within the
  ``join`` tolerance) is not polished: it joins that run, as its BFGS would have done
  had its inner value been in the band (the inner value is a lower bound of the norm).
"""

import numpy as np
import pytest
from _compleib import static_loop, static_problem

import robustmb as rmb
from robustmb.tuning.tuning_problem import RunRecord, TuningProblem
from robustmb.tuning.tuning_term import Term

JOIN, NEAR = 1e-6, 0.01


def _solve(problem):
    return problem.solve(
        random_start=3, seed=0, polish="deferred", near=NEAR, join=JOIN, abandon=10.0
    )[0]


def test_first_run_verified_once_with_the_same_runs(monkeypatch):
    """HE1, seed 0: the same runs as with every run verified before its polish, every
    record verified, and every value at least hinfnorm of the textbook loop."""
    problem, P, (nu, ny) = static_problem("HE1")
    calls = []
    verified = Term.verified

    def counted(self, x):
        calls.append(np.array(x))
        return verified(self, x)

    monkeypatch.setattr(Term, "verified", counted)
    runs = _solve(problem)
    lean = len(calls)

    run = TuningProblem.run

    def eager(self, x0, **kw):
        kw["verify"] = True
        return run(self, x0, **kw)

    monkeypatch.setattr(TuningProblem, "run", eager)
    calls.clear()
    eager_runs = _solve(static_problem("HE1")[0])
    assert lean == len(calls) - 1  # the first run's point before its polish
    for a, b in zip(runs, eager_runs, strict=True):
        np.testing.assert_array_equal(a.start, b.start)
        np.testing.assert_array_equal(a.x, b.x)
        assert (a.value, a.message, a.polished) == (b.value, b.message, b.polished)
    for r in runs:
        assert r.verified
        k = r.x.reshape(nu, ny)
        ref = rmb.hinfnorm(static_loop(P, k), tol=1e-10)[0]
        assert r.value >= ref * (1 - 1e-9)


def _record(problem, value, *, polished, message="converged"):
    x = problem.params.initial()
    return RunRecord(x, x, value, [("soft", value)], 0.0, True, message, polished=polished)


@pytest.mark.parametrize("join", [JOIN, 0.0])
def test_a_run_level_with_a_polished_run_joins_it(monkeypatch, join):
    """The deferred polish leaves a run whose value is within ``[v, v (1 + join)]`` of
    a polished run's ``v`` unpolished, with the message ``"joined"``; a run just above
    that band but inside the polish window, and every run with ``join = 0``, is
    polished."""
    problem, _, _ = static_problem("AC17")
    polished = []
    monkeypatch.setattr(TuningProblem, "polish_run", lambda self, r: polished.append(r))
    best = _record(problem, 1.0, polished=True)
    level = _record(problem, 1.0 + 0.5 * JOIN, polished=False)
    above = _record(problem, 1.0 + 3 * JOIN, polished=False)
    problem._polish_best([best, level, above], NEAR, join)
    if join:
        assert polished == [above] and level.message == "joined"
    else:
        assert polished == [level, above] and level.message == "converged"
