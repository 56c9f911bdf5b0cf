"""Time responses: the default grid resolves lightly damped oscillations; T starts at 0.

References: the closed-form step response of ``wn^2 / (s^2 + 2 zeta wn s + wn^2)``
and python-control's ``step_response`` on a fine grid.
"""

import warnings

import control
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402
from robustmb.errors import DimensionError, RobustMBWarning  # noqa: E402
from robustmb.plotting.time import MAX_TIME_POINTS  # noqa: E402

s = control.tf("s")
WN = 10.0
ZETA = 7 / (999 * 2 * np.pi)  # seven time constants span 999 periods: 1000 points alias


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def second_order_step(t, wn, zeta):
    wd = wn * np.sqrt(1 - zeta**2)
    return 1 - np.exp(-zeta * wn * t) * (
        np.cos(wd * t) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * t)
    )


def test_default_time_resolves_the_oscillation():
    G = WN**2 / (s**2 + 2 * ZETA * WN * s + WN**2)
    out = plotting.step(G, n=0)
    t = out.data["time"]
    y = out.lines["nominal"][0].get_ydata()
    period = 2 * np.pi / (WN * np.sqrt(1 - ZETA**2))
    assert np.max(np.diff(t)) <= period / 20 * (1 + 1e-9)
    np.testing.assert_allclose(y, second_order_step(t, WN, ZETA), atol=1e-6)
    # sampled at >= 20 points per period, the first crest is seen within 1 - cos(pi / 20)
    a = np.exp(-np.pi * ZETA / np.sqrt(1 - ZETA**2))
    assert np.max(y) >= 1 + a * np.cos(np.pi / 20) - 1e-9
    # python-control on a fine grid: same number of crossings of the final value
    tf = np.linspace(0, 50, 200001)
    yf = control.step_response(control.ss(G), T=tf).outputs
    m = t <= 50
    crossings = np.sum(np.diff(np.sign(y[m] - 1)) != 0)
    assert abs(crossings - np.sum(np.diff(np.sign(yf - 1)) != 0)) <= 1


def test_uncertain_samples_of_a_light_mode_reach_their_crests():
    k = rmb.ureal("k", WN**2, percent=20)
    G = k / (s**2 + 2 * ZETA * WN * s + k)
    out = plotting.impulse(G, n=3, seed=0)
    t = out.data["time"]
    for v, line in zip(out.family.values, out.lines["samples"], strict=True):
        wn = np.sqrt(v["k"])
        zeta = ZETA * WN / wn
        wd = wn * np.sqrt(1 - zeta**2)
        exact = wn**2 / wd * np.exp(-zeta * wn * t) * np.sin(wd * t)
        np.testing.assert_allclose(line.get_ydata(), exact, atol=1e-6 * wn)
        assert np.max(line.get_ydata()) >= wn**2 / wd * np.cos(np.pi / 20) * 0.99


def test_default_time_cap_warns_and_names_it():
    G = 1 / (s**2 + 2e-4 * s + 1e6)  # 1000 rad/s lasting 7e4 s: 2e8 points needed
    with pytest.warns(RobustMBWarning, match="MAX_TIME_POINTS = 50000"):
        out = plotting.step(G, n=0)
    assert out.data["time"].size == MAX_TIME_POINTS


def test_no_warning_for_a_well_damped_system():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = plotting.step(1 / (s**2 + s + 1), n=0)
    assert out.data["time"].size == 1000


def test_time_must_start_at_zero_and_be_uniform_and_1d():
    G = 2 / (s + 1)
    with pytest.raises(DimensionError, match="T must start at 0"):
        plotting.step(G, T=np.linspace(1.0, 5.0, 41))
    with pytest.raises(DimensionError, match="T must start at 0"):
        plotting.impulse(G, T=np.linspace(1.0, 5.0, 41))
    with pytest.raises(DimensionError, match="T must be equally spaced"):
        plotting.step(G, T=np.r_[0, np.logspace(-2, 1, 30)])
    with pytest.raises(DimensionError, match="T must be a 1-D"):
        plotting.step(G, T=np.linspace(0, 1, 6).reshape(2, 3))
    # from 0: the closed form 2 (1 - exp(-t)) at the times given
    T = np.linspace(0.0, 5.0, 41)
    y = plotting.step(G, T=T).lines["nominal"][0].get_ydata()
    np.testing.assert_allclose(y, 2 * (1 - np.exp(-T)), atol=1e-9)
