"""robgain with ultidyn elements: both bounds finite and bracketing closed-form margins."""

import control
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robustmb as rmb

s = control.tf("s")


def _gain_of(sys):
    """Peak gain on a dense grid (python-control's frequency response, no robustmb code)."""
    w = np.concatenate([[0.0], np.geomspace(1e-3, 1e3, 4000)])
    mag = np.abs(sys(1j * w))
    return float(np.max(mag))


def test_static_multiplicative_ultidyn():
    # |(1 + 0.5 D)/(s + 1)| <= 1 + 0.5 alpha, reached at w = 0 with D = alpha: margin 0.5
    d = rmb.ultidyn("D", (1, 1))
    res = rmb.robgain((1 + 0.5 * d) / (s + 1), 1.25)
    # the upper end is a realised violating size: it may land an ulp below the exact 0.5
    assert res.lower <= 0.5 and 0.5 * (1 - 4 * np.finfo(float).eps) <= res.upper
    assert res.upper <= 0.5 * (1 + 1e-3)
    worst = control.ss(res.worst["D"])
    assert _gain_of(control.tf(worst)) <= res.upper * (1 + 1e-9)
    g = control.tf([1], [1, 1]) * (1 + 0.5 * control.tf(worst))
    assert _gain_of(g) >= 1.25 * (1 - 1e-5)
    assert "realised" in res.reason


def test_resonant_ultidyn_margin():
    # 1/(s^2 + 0.2 s + 1) (1 + 0.2 D): peak 1/(0.2 sqrt(0.99)) times (1 + 0.2 alpha)
    d = rmb.ultidyn("D", (1, 1))
    h = 1.0 / (0.2 * np.sqrt(0.99))
    gamma = 6.0
    exact = (gamma / h - 1.0) / 0.2
    res = rmb.robgain((1 + 0.2 * d) / (s * s + 0.2 * s + 1), gamma)
    assert res.lower <= exact * (1 + 1e-9) and exact * (1 - 1e-9) <= res.upper
    assert res.upper <= exact * (1 + 1e-2)
    assert res.critical_frequency == pytest.approx(np.sqrt(0.98), rel=1e-2)
    worst = control.tf(control.ss(res.worst["D"]))
    assert _gain_of(worst) <= res.upper * (1 + 1e-9)
    g = control.tf([1], [1, 0.2, 1]) * (1 + 0.2 * worst)
    assert _gain_of(g) >= gamma * (1 - 1e-3)


def test_mixed_real_and_ultidyn():
    # k (1 + 0.5 D)/(s + 1), k in [0.5, 1.5]: gain (1 + 0.5 a)^2 at scaling a -> margin 1
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    d = rmb.ultidyn("D", (1, 1))
    res = rmb.robgain(k * (1 + 0.5 * d) / (s + 1), 2.25)
    assert res.lower <= 1.0 <= res.upper <= 1.0 + 1e-2
    assert np.isfinite(res.upper) and set(res.worst) == {"k", "D"}


def test_unstable_witness_has_the_frequency_of_its_pole():
    # 1/(s^2 + a s + 1) peaks at 1/(a sqrt(1 - a^2/4)) (a < sqrt 2): gain 1e6 needs the
    # damping a = 1 - 0.5 alpha down to about 1e-6, at scaling about 2, poles near +-j
    from scipy.optimize import brentq

    a_star = brentq(lambda x: 1 / (x * np.sqrt(1 - x * x / 4)) - 1e6, 1e-9, 1e-3)
    exact = 2 * (1 - a_star)
    a = rmb.ureal("a", 1.0, range=(0.5, 1.5))
    res = rmb.robgain(1 / (s * s + a * s + 1), 1e6)
    assert res.lower <= exact * (1 + 1e-9) and res.upper >= exact * (1 - 1e-9)
    assert res.upper <= exact * (1 + 1e-3)
    assert res.critical_frequency == pytest.approx(1.0, rel=1e-3)


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(
    a=st.floats(0.2, 2.0),
    b=st.floats(0.1, 1.0),
    c=st.floats(0.5, 3.0),
    ratio=st.floats(1.1, 3.0),
)
def test_robgain_ultidyn_closed_form(a, b, c, ratio):
    # (a + b D)/(s + c) peaks at w = 0: (a + b alpha)/c, so margin = (gamma c - a)/b
    gamma = ratio * a / c
    exact = (gamma * c - a) / b
    d = rmb.ultidyn("D", (1, 1))
    res = rmb.robgain((a + b * d) / (s + c), gamma)
    assert res.lower <= exact * (1 + 1e-9)
    assert res.upper >= exact * (1 - 1e-9)
    assert res.upper <= exact * (1 + 1e-2)
