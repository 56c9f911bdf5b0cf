"""robstab's upper bound comes from a loop verified unstable, not from a pole on the
boundary within rounding: near-boundary loops against exact (Fraction) references."""

import warnings
from fractions import Fraction

import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.destabilising_search import _verified_crossing
from robustmb.analysis.uncertain_problem import uncertain_problem


def _k():
    return rmb.ureal("k", 0.0, range=(-1.0, 1.0))


def _triangular(p, dt=0):
    # A = [[p, 1], [k, -1]]: trace p - 1 < 0, det -p - k: stable exactly for k < -p,
    # so the margin (k's range is (-1, 1): normalised = physical) is |p| exactly
    k = _k()
    a = np.array([[p, 1.0], [0.0, -1.0]]) + k * np.array([[0.0, 0.0], [1.0, 0.0]])
    return rmb.uss(a, np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)))


def _triangular_unstable(p, kv):
    # det(A) = -p - k <= 0 in exact arithmetic: a pole at or right of 0
    return -Fraction(p) - Fraction(kv) <= 0


@pytest.mark.parametrize("p", [-1e-17, -2e-16, -1e-14, -1e-12])
def test_upper_bound_of_a_loop_a_rounding_step_from_the_axis_is_true(p):
    # old code: upper 4.93e-32, 1.388e-16, 9.964e-15, 9.999e-13 (all below |p|)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.robstab(_triangular(p), sensitivity=False)
    exact = -Fraction(p)
    assert Fraction(res.lower) <= exact <= Fraction(res.upper)
    assert np.isfinite(res.upper)
    # the reported value itself destabilises the exact loop
    assert _triangular_unstable(p, res.destabilizing["k"])


def test_witness_is_checked_for_the_value_reported_not_for_its_substitution():
    # usubs normalises k = 1.388e-16 on (-1, 1) to 2.22e-16 (2 (k + 1) / 2 - 1), which
    # puts the pole of the stored matrix right of 0 when p = -2e-16; the exact loop at
    # k = 1.388e-16 is stable
    p, kv = -2e-16, 1.388e-16
    problem = uncertain_problem(_triangular(p))
    assert not _triangular_unstable(p, kv)
    assert np.asarray(problem.model.usubs({"k": kv}).A)[1, 0] > -p  # the rounding
    got = _verified_crossing(problem, kv, lambda t: {"k": t * kv})
    # old code: accepted k = 1.388e-16 itself
    assert got is not None and got[1]["k"] > kv
    assert _triangular_unstable(p, got[1]["k"]) and got[0] == got[1]["k"]


def test_a_pole_on_the_boundary_within_rounding_is_pushed_out():
    # the crossing of the exact loop (k = 1e-14) found to rounding: the candidate at the
    # computed crossing is scaled until the pole is beyond 0 by more than its rounding
    p = -1e-14
    problem = uncertain_problem(_triangular(p))
    got = _verified_crossing(problem, 1e-14, lambda t: {"k": t * 1e-14})
    assert got is not None
    scaling, values, freq, ill = got
    assert not ill and freq == pytest.approx(0.0, abs=1e-6)
    assert scaling == values["k"] and _triangular_unstable(p, values["k"])
    # pushed out by the rounding allowance only: within a factor 2 of the exact margin
    assert Fraction(scaling) <= 2 * Fraction(-p)


@pytest.mark.parametrize("gap", [2.0**-45, 3e-12])
def test_discrete_upper_bound_near_the_unit_circle_is_true(gap):
    # z0 + k with z0 = 1 - gap: the margin is 1 - z0 exactly; old code: upper
    # 2.83662e-14 and 2.99999e-12 against 2.84217e-14 and 3.00004e-12
    z0 = 1.0 - gap
    k = _k()
    a = np.array([[z0, 0.0], [0.0, 0.5]]) + k * np.array([[1.0, 0.0], [0.0, 0.0]])
    loop = rmb.uss(a, np.ones((2, 1)), np.ones((1, 2)), np.zeros((1, 1)), dt=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rmb.robstab(loop, sensitivity=False)
    exact = 1 - Fraction(z0)
    assert Fraction(res.lower) <= exact <= Fraction(res.upper)
    assert Fraction(z0) + Fraction(res.destabilizing["k"]) >= 1  # |z| >= 1 exactly


def test_ordinary_loop_keeps_a_tight_bracket():
    # p = -0.5: the crossing is far from rounding; margin 0.5 exactly
    res = rmb.robstab(_triangular(-0.5), sensitivity=False)
    assert res.lower <= 0.5 <= res.upper <= 0.5 * (1 + 1e-6)
    assert _triangular_unstable(-0.5, res.destabilizing["k"])
