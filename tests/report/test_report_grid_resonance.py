"""The report's singular-value curves resolve lightly damped peaks.

Reference: the closed-form peak of ``1 / (s^2 + 2 zeta wn s + wn^2)``,
``1 / (2 zeta wn^2 sqrt(1 - zeta^2))``, for the nominal value and every sample (their
``k = wn^2`` is read back from the report's own sample values).  A plain 400-point log
grid drew the nominal peak of this loop at a fraction of its height.
"""

import control
import numpy as np

import robustmb as rmb
from robustmb.report.worst_case import worst_case_analysis


def _peak(k, c):
    wn = np.sqrt(k)
    zeta = c / (2 * wn)
    return 1.0 / (2 * zeta * wn**2 * np.sqrt(1 - zeta**2))


def test_singular_value_curves_reach_the_resonance_peaks():
    s = control.tf("s")
    c = 0.02  # zeta = 1e-3 at wn = 10
    k = rmb.ureal("k", 100.0, percent=20)
    loop = 1 / (s * s + c * s + k)
    res = worst_case_analysis(loop, n_samples=6, seed=3)
    (ch,) = res.channels
    assert abs(ch.sigma_nominal.max() / _peak(100.0, c) - 1) < 1e-3
    ks = [v["k"] for v in res.sample_values]
    for row, kv in zip(ch.sigma_samples, ks, strict=True):
        assert abs(row.max() / _peak(kv, c) - 1) < 1e-3
