"""Sampled tuning of a loop with a ``ucomplex`` element: held at its nominal, as in
robust tuning's active set (the optimiser works on real models)."""

import warnings

import control
import numpy as np
import pytest
from static_gain_loop import static_gain_loop

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.tuning import WeightedGain


def _loop():
    # G = (1 + c)/(s - a), static gain K: at c = 0, ||d -> y|| = 1/(K - a), ||r -> u|| = K
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    c = rmb.ucomplex("c", 0.0, radius=0.3)
    s = control.tf("s")
    return static_gain_loop((1 + c) / (s - a))


def test_drawn_samples_hold_a_complex_element_at_its_nominal():
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    with warnings.catch_warnings():
        # was: complex models cast to real (ComplexWarning), then a TypeError
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        res = rmb.systune(_loop(), goals, samples=3, seed=1, certify=False)
    assert all(p["c"] == 0 for p in res.models)
    a_max = max(p["a"] for p in res.models)
    # 2.5 / (K - a_max) = K / 4 at the optimum
    k_ref = (a_max + np.sqrt(a_max**2 + 40.0)) / 2
    assert float(res.values["K"][0, 0]) == pytest.approx(k_ref, rel=1e-6)
    assert res.verify()["soft"] == pytest.approx([k_ref / 4] * 2, rel=1e-6)


def test_a_given_sample_of_a_complex_element_is_refused():
    with pytest.raises(ArgumentError, match=r"samples\[1\] sets the complex element 'c'"):
        rmb.systune(_loop(), [WeightedGain("d", "y")], samples=[{"a": 1.5}, {"c": 0.2j}])
