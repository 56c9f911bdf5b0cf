"""Conclusions on a channel whose worst case found is unstable: no "peak gain at least inf
at ... rad/s, inf times the specification", no sampled peak "reaching 0 %" of it."""

import control
import numpy as np

import robustmb as rmb
from robustmb.report import worst_case_analysis


def test_unstable_worst_case_is_named_as_such():
    """``T = L / (1 + L)``, ``L = 0.8 k / ((z - 0.9) (z - 0.5))``, sampling time 0.1 s,
    ``k`` in 0.5 +- 40 %: the characteristic polynomial ``z^2 - 1.4 z + 0.45 + 0.8 k`` has
    its roots on the unit circle at ``k = 0.6875`` (constant term 1), inside the range."""
    k = rmb.ureal("k", 0.5, percent=40)
    z = control.tf([1, 0], [1], 0.1)
    T = rmb.feedback(k * 0.8 / ((z - 0.9) * (z - 0.5)), 1)
    T.input_names, T.output_names = ["r"], ["y"]
    res = worst_case_analysis(T, {"T": ("y", "r", 1.2)}, n_samples=10)
    (ch,) = res.channels
    assert np.isinf(ch.wcgain.lower) and ch.verdict == "fail"
    worst_k = ch.wcgain.worst["k"]
    assert np.max(np.abs(np.roots([1, -1.4, 0.45 + 0.8 * worst_k]))) >= 1 - 1e-9
    stable = [
        np.max(np.abs(np.roots([1, -1.4, 0.45 + 0.8 * v["k"]]))) < 1 for v in res.sample_values
    ]
    assert all(stable) == np.isfinite(ch.worst_sample_peak)
    text = " ".join(res.conclusions())
    assert "at least inf" not in text and "inf times" not in text
    assert "T: the specification 1.2 is already violated nominally" in text
    assert "the worst case found is unstable (infinite peak gain)" in text
    if all(stable):  # every sample stable: sampling missed the unstable worst case
        assert "reaches 0 %" not in text
        assert "random sampling alone underestimates the worst case" in text
