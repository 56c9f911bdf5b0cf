"""An uncertain goal weight may depend on the loop's own parameters only."""

import control
import numpy as np
import pytest
from static_gain_loop import static_gain_loop

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning import WeightedGain


def _loop():
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    return static_gain_loop(1 / (s - a)), a


@pytest.mark.parametrize("side", ["wl", "wr"])
@pytest.mark.parametrize("kw", [{}, {"samples": [{"a": 1.5}]}])
def test_a_weight_with_an_element_not_in_the_loop_is_named(side, kw):
    cl, _ = _loop()
    b = rmb.ureal("b", 2.5, range=(2.0, 3.0))
    goal = WeightedGain("d", "y", **{side: rmb.uss(b)})
    # was UncertainTypeError "'sys[23]' still has uncertain elements ['b']" from the optimiser
    with pytest.raises(ArgumentError, match=rf"WeightedGain: {side} .*\['b'\]"):
        rmb.systune(cl, [goal], seed=0, **kw)
    p = rmb.realp("p", 1.0)
    with pytest.raises(ArgumentError, match=rf"WeightedGain: {side} .*\['p'\]"):
        rmb.systune(cl, [WeightedGain("d", "y", **{side: rmb.uss(p)})], seed=0, **kw)


def test_a_weight_on_the_loops_own_parameter_is_tuned_against_the_closed_form():
    cl, a = _loop()
    goals = [WeightedGain("d", "y", wl=rmb.uss(2.5 * a)), WeightedGain("r", "u", wl=0.25)]
    res = rmb.systune(cl, goals, seed=0)
    # max over a of 2.5 a / (K - a) (a = 1.5) equals 0.25 K: K^2 - 1.5 K - 15 = 0
    k_ref = (1.5 + np.sqrt(1.5**2 + 60.0)) / 2
    assert float(res.values["K"][0, 0]) == pytest.approx(k_ref, rel=1e-6)
    assert res.certified_values[0] >= 3.75 / (k_ref - 1.5) * (1 - 1e-6)
