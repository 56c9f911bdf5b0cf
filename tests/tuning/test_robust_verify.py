"""``verify()`` of a robust tuning result: the worst cases found are recomputed, and a
design the search found unstable is not reported stable."""

import control
import numpy as np
import pytest
from static_gain_loop import static_gain_loop

import robustmb as rmb
from robustmb.tuning import WeightedGain


def _loop(lo, hi, nominal):
    # G = 1/(s - a), static gain K: d -> y is 1/(s - a + K), r -> u is K (s - a)/(s - a + K)
    a = rmb.ureal("a", nominal, range=(lo, hi))
    s = control.tf("s")
    return static_gain_loop(1 / (s - a))


def test_verify_recomputes_the_worst_cases_against_closed_forms():
    goals = [WeightedGain("d", "y", wl=2.5), WeightedGain("r", "u", wl=0.25)]
    res = rmb.systune(_loop(0.5, 1.5, 1.0), goals, seed=0)
    k = float(res.values["K"][0, 0])
    chk = res.verify()
    # closed forms at the points found: 2.5 / (K - a) (peak at w = 0), 0.25 K (w -> inf)
    a0 = res.worst_found[0].point["a"]
    assert chk["worst_found"][0] == pytest.approx(2.5 / (k - a0), rel=1e-9)
    assert chk["worst_found"][1] == pytest.approx(0.25 * k, rel=1e-9)
    # each worst case found attains the value reported for it
    for wc, v in zip(res.worst_found, chk["worst_found"], strict=True):
        assert v >= wc.value * (1 - 1e-9)
    assert chk["stable"] is True


def test_verify_of_a_design_found_unstable_over_the_box_is_not_stable():
    # One round: K is tuned on the nominal a = 0.2 alone (K ~ 0.81), and the search finds
    # the loop unstable for a > K.  The active set's loop is stable, the design is not.
    goals = [WeightedGain("d", "y", wl=0.5), WeightedGain("r", "u", wl=1.0)]
    with pytest.warns(RuntimeWarning, match="did not converge"):
        res = rmb.systune(_loop(0.0, 2.0, 0.2), goals, seed=0, max_rounds=1)
    k = float(res.values["K"][0, 0])
    assert k < 2.0 and not res.converged
    # brute force: the pole a - K of the loop at the worst case found
    assert res.worst_found[0].point["a"] - k > 0
    chk = res.verify()
    assert chk["stable"] is False  # was True: only the active set was checked
    assert chk["worst_found"] == [np.inf, np.inf]
    # the active-set values are still those tuned (finite, as reported)
    assert chk["soft"] == pytest.approx(res.soft, rel=1e-9)
