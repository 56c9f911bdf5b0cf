"""robstab / wcgain / robgain on a frequency band ``band=(wmin, wmax)`` (MATLAB's
``{wmin, wmax}``): bounds certified on every frequency of the band, checked against
closed forms and brute force (dense parameter grid x dense frequency grid in the band)."""

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.frequency_band import band_mu_peak
from robustmb.errors import ArgumentError

S = control.tf("s")
ZETA = 0.05
WN_RANGE = (0.8, 1.2)
R_PEAK = np.sqrt(1 - 2 * ZETA**2)  # |G| peaks at w = R_PEAK * wn
PEAK = 1 / (2 * ZETA * np.sqrt(1 - ZETA**2))


def _mode():
    """``wn^2 / (s^2 + 2 zeta wn s + wn^2)`` with ``wn`` uncertain in [0.8, 1.2]."""
    wn = rmb.ureal("wn", 1.0, range=WN_RANGE)
    return wn * wn / (S * S + 2 * ZETA * wn * S + wn * wn)


def _mode_gain(r):
    """``|G(jw)|`` as a function of ``r = w / wn`` (closed form)."""
    return 1 / np.sqrt((1 - r * r) ** 2 + (2 * ZETA * r) ** 2)


def _mode_band_sup(band):
    """Closed form of ``sup |G(jw)|`` over ``wn`` in its range and ``w`` in the band:
    the peak when ``R_PEAK wn`` can lie in the band, else the ratio ``w / wn`` nearest
    ``R_PEAK`` (the gain is unimodal in ``r``)."""
    lo, hi = band
    return _mode_gain(np.clip(R_PEAK, lo / WN_RANGE[1], hi / WN_RANGE[0]))


def _mode_brute(band, n_wn=801, n_w=4001):
    """Dense parameter grid x dense frequency grid inside the band, by numpy."""
    wn = np.linspace(*WN_RANGE, n_wn)[:, None]
    w = np.linspace(band[0], min(band[1], 50.0), n_w)[None, :]
    g = wn**2 / np.abs(-(w**2) + 2j * ZETA * wn * w + wn**2)
    return float(g.max())


@pytest.mark.parametrize("band", [(0.3, 0.7), (1.3, 3.0), (0.5, R_PEAK * WN_RANGE[0])])
def test_wcgain_band_brackets_closed_form_and_brute_force(band):
    # the last band ends exactly at the peak frequency of the slowest mode
    res = rmb.wcgain(_mode(), band=band)
    exact, brute = _mode_band_sup(band), _mode_brute(band)
    assert brute <= exact * (1 + 1e-12)
    assert res.certified and res.band == band
    assert res.lower <= exact * (1 + 1e-12) and exact <= res.upper
    assert brute <= res.upper
    assert res.upper <= res.lower * 1.01
    assert band[0] <= res.critical_frequency <= band[1]


def test_wcgain_band_containing_the_peak_gives_the_whole_axis_value():
    # the whole-axis worst-case gain is the closed-form peak (R_PEAK * wn in the band)
    inside = rmb.wcgain(_mode(), band=(0.9, 1.1))
    assert inside.lower <= PEAK * (1 + 1e-9) <= inside.upper * (1 + 1e-9)
    assert inside.upper <= inside.lower * 1.01
    outside = rmb.wcgain(_mode(), band=(1.3, 3.0))
    assert outside.upper < 0.5 * inside.lower  # 4.89 against 10.01
    assert outside.lower <= _mode_brute((1.3, 3.0)) * (1 + 1e-9) <= outside.upper


@pytest.mark.slow
def test_wcgain_band_containing_the_peak_matches_the_whole_axis_run():
    whole = rmb.wcgain(_mode(), max_boxes=0)
    inside = rmb.wcgain(_mode(), band=(0.9, 1.1))
    assert whole.lower <= PEAK * (1 + 1e-9) <= whole.upper * (1 + 1e-9)
    assert inside.upper <= whole.upper * 1.01 and inside.lower >= whole.lower * 0.99


def test_wcgain_band_starting_at_a_peak():
    # starts where the fastest mode peaks: the supremum is the peak itself, at the edge
    band = (R_PEAK * WN_RANGE[1], 3.0)
    res = rmb.wcgain(_mode(), band=band)
    assert res.lower <= PEAK * (1 + 1e-9) <= res.upper * (1 + 1e-9)
    assert res.lower >= PEAK * 0.999


def _damped_pair():
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    w = rmb.ureal("w", 1.0, range=(0.8, 1.2))
    return 1 / (S * S + c * S + w * w)


def _pair_margin_brute(band, n=20001):
    """Smallest scaling of the box putting a root of ``s^2 + c s + w^2`` at ``j omega``,
    ``omega`` on a dense grid of the band: ``c = 0`` and ``w = omega``, so the scaling is
    ``max(|0 - 1| / 1, |omega - 1| / 0.2)``."""
    om = np.linspace(band[0], band[1], n)
    return float(np.min(np.maximum(1.0, np.abs(om - 1.0) / 0.2)))


@pytest.mark.parametrize("band", [(2.0, 10.0), (1.5, 3.0)])
def test_robstab_band_excluding_the_crossing_has_a_larger_margin(band):
    whole = rmb.robstab(_damped_pair(), sensitivity=False)
    res = rmb.robstab(_damped_pair(), band=band)
    brute = _pair_margin_brute(band)  # 5 and 2.5, at the lower edge
    assert res.certified and res.band == band
    assert res.lower <= brute <= res.upper * (1 + 1e-6)
    assert res.upper <= res.lower * 1.01
    assert res.lower > 2 * whole.upper
    assert band[0] <= res.critical_frequency <= band[1]
    # the destabilising values put a pole on the axis inside the band
    poles = np.roots([1.0, res.destabilizing["c"], res.destabilizing["w"] ** 2])
    assert np.min(np.abs(poles.real)) < 1e-6
    assert band[0] - 1e-6 <= np.max(np.abs(poles.imag)) <= band[1] + 1e-6


def test_robstab_band_containing_the_crossing_gives_the_whole_axis_bounds():
    whole = rmb.robstab(_damped_pair(), sensitivity=False)
    res = rmb.robstab(_damped_pair(), band=(0.5, 2.0))
    assert whole.lower <= 1.0 <= whole.upper and res.lower <= 1.0 <= res.upper
    assert abs(res.upper - whole.upper) <= 5e-3 and res.lower >= 1.0 / 1.005


def test_band_zero_to_infinity_is_the_whole_axis_analysis():
    whole = rmb.robstab(_damped_pair(), sensitivity=False)
    res = rmb.robstab(_damped_pair(), band=(0.0, np.inf), sensitivity=False)
    assert (res.lower, res.upper, res.critical_frequency) == (
        whole.lower,
        whole.upper,
        whole.critical_frequency,
    )
    assert res.band == (0.0, np.inf) and whole.band is None
    assert "band=(0.0, inf)" in repr(res)


def test_robgain_band_margin_against_the_closed_form():
    # gain k / sqrt(1 + w^2) on [1, 10] is largest at 1 rad/s: k reaches 1.25 sqrt(2)
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    res = rmb.robgain(k / (S + 1), 1.25, band=(1.0, 10.0))
    exact = (1.25 * np.sqrt(2) - 1.0) / 0.5
    # brute force: dense k grid x frequency grid in the band, smallest scaling reaching 1.25
    t = np.linspace(0.0, 3.0, 30001)[:, None]
    w = np.linspace(1.0, 10.0, 901)[None, :]
    reach = np.max(np.abs((1.0 + 0.5 * t) / (1j * w + 1)), axis=1) >= 1.25
    brute = float(t[np.argmax(reach), 0])
    assert abs(brute - exact) < 1e-3
    assert res.certified and res.lower <= exact <= res.upper * (1 + 1e-9)
    assert res.upper <= res.lower * 1.01
    whole = rmb.robgain(k / (S + 1), 1.25)
    assert whole.upper < res.lower  # 0.5 on the whole axis (the peak at w = 0)


def test_discrete_band_up_to_nyquist():
    # G(z) = k (1 + a) / (z + a): its gain grows up to the Nyquist frequency pi/dt
    dt, a = 0.1, 0.5
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    g = k * control.tf([1 + a], [1, a], dt)
    band = (1.0, np.pi / dt)
    res = rmb.wcgain(g, band=band)
    exact = 2.0 * (1 + a) / (1 - a)  # at w = pi/dt, k = 2: the end of the band
    w = np.linspace(*band, 20001)
    brute = float(np.max(2.0 * (1 + a) / np.abs(np.exp(1j * w * dt) + a)))
    assert abs(brute - exact) < 1e-9
    assert res.certified and res.lower <= exact * (1 + 1e-12) <= res.upper * (1 + 1e-12)
    assert res.upper <= res.lower * 1.01
    # a band stopping short of the Nyquist frequency: the gain at its upper edge
    low = rmb.wcgain(g, band=(0.0, 20.0))
    edge = 2.0 * (1 + a) / abs(np.exp(1j * 20.0 * dt) + a)
    assert low.lower <= edge * (1 + 1e-12) <= low.upper and low.upper <= edge * 1.01


def test_band_mu_peak_intervals_cover_the_band_and_only_it():
    a, b, c = np.array([[0.0, 1.0], [-1.0, -0.2]]), np.array([[0.0], [1.0]]), np.eye(1, 2)
    data = (a, b, c, np.zeros((1, 1)))
    band = (2.0, 10.0)
    r = band_mu_peak(data, [(1, 1)], 0.0, band)
    assert r.covered
    reach = band[0]
    for lo, hi in r.intervals:
        assert lo <= reach
        reach = max(reach, hi)
    assert reach >= band[1]
    w = np.linspace(*band, 100001)
    brute = float(np.max(1 / np.abs(1 - w**2 + 0.2j * w)))  # |M| at the lower edge
    assert r.lower <= brute * (1 + 1e-12) <= r.upper
    assert np.all((r.omega >= band[0]) & (r.omega <= band[1]))


@pytest.mark.parametrize(
    "band, match",
    [
        ((np.nan, 1.0), "band"),
        ((2.0, 1.0), "band"),
        ((1.0, 1.0), "band"),
        ((-1.0, 1.0), "band"),
        ((1.0,), "band"),
        ("ab", "band"),
    ],
)
@pytest.mark.parametrize("fn", ["robstab", "wcgain", "robgain"])
def test_bad_bands_are_rejected_naming_band(fn, band, match):
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    args = (k / (S + 1), 2.0) if fn == "robgain" else (k / (S + 1),)
    with pytest.raises(ArgumentError, match=match):
        getattr(rmb, fn)(*args, band=band)


@pytest.mark.parametrize("fn", ["robstab", "wcgain", "robgain"])
def test_band_with_omega_or_above_nyquist_is_rejected(fn):
    k = rmb.ureal("k", 1.0, range=(0.5, 1.5))
    sys = k / (S + 1)
    args = (sys, 2.0) if fn == "robgain" else (sys,)
    with pytest.raises(ArgumentError, match="band"):
        getattr(rmb, fn)(*args, band=(0.1, 1.0), omega=[0.5])
    dsys = k * control.tf([0.5], [1, -0.5], 0.1)
    dargs = (dsys, 2.0) if fn == "robgain" else (dsys,)
    with pytest.raises(ArgumentError, match="band.*Nyquist"):
        getattr(rmb, fn)(*dargs, band=(0.1, 40.0))


@pytest.mark.parametrize("seed", range(6))
def test_band_mu_peak_of_a_full_block_brackets_the_dense_sigma_max(seed):
    # one full complex block: mu = sigma_max, computed by numpy on a dense grid of the band
    rng = np.random.default_rng(seed)
    n = 4
    a = rng.standard_normal((n, n))
    a -= (np.max(np.linalg.eigvals(a).real) + 0.3) * np.eye(n)
    b, c = rng.standard_normal((n, 2)), rng.standard_normal((2, n))
    d = 0.1 * rng.standard_normal((2, 2))
    lo = float(rng.uniform(0.0, 2.0))
    band = (lo, lo + float(rng.uniform(0.2, 5.0)))
    r = band_mu_peak((a, b, c, d), [(2, 2)], 0.0, band)
    w = np.linspace(*band, 20001)
    resp = c @ np.linalg.solve(1j * w[:, None, None] * np.eye(n) - a, b) + d
    brute = float(np.max(np.linalg.norm(resp, 2, axis=(1, 2))))
    assert r.covered
    assert r.lower <= brute * (1 + 1e-9) and brute <= r.upper
    assert r.upper <= brute * 1.01


@pytest.mark.parametrize("seed", range(4))
def test_discrete_band_mu_peak_of_a_full_block_brackets_the_dense_sigma_max(seed):
    # the bilinear path: bands ending at or below the Nyquist frequency pi/dt
    rng = np.random.default_rng(100 + seed)
    n, dt = 4, 0.1
    a = rng.standard_normal((n, n))
    a *= 0.9 / np.max(np.abs(np.linalg.eigvals(a)))
    b, c = rng.standard_normal((n, 2)), rng.standard_normal((2, n))
    d = 0.1 * rng.standard_normal((2, 2))
    lo = float(rng.uniform(0.0, 20.0))
    band = (lo, np.pi / dt if seed % 2 else lo + float(rng.uniform(1.0, 10.0)))
    r = band_mu_peak((a, b, c, d), [(2, 2)], dt, band)
    w = np.linspace(*band, 20001)
    z = np.exp(1j * w * dt)
    resp = c @ np.linalg.solve(z[:, None, None] * np.eye(n) - a, b) + d
    brute = float(np.max(np.linalg.norm(resp, 2, axis=(1, 2))))
    assert r.covered
    assert r.lower <= brute * (1 + 1e-9) and brute <= r.upper
    assert r.upper <= brute * 1.01
    assert np.all((r.omega >= band[0]) & (r.omega <= band[1] * (1 + 1e-12)))


@pytest.mark.parametrize("band", [(0.5, 1.5), (3.0, 10.0)])
def test_robstab_band_of_a_dynamic_uncertainty_against_the_small_gain_value(band):
    # T = G (1 + D) / (1 + G (1 + D)), D a unit-ball ultidyn: the loop seen by D is
    # -T0 = -G / (1 + G), so the band margin is 1 / max over the band of |T0(jw)|
    D = rmb.ultidyn("D", (1, 1), bound=1.0)
    g = 2 / (S * S + 0.4 * S + 1)
    loop = g * (1 + D)
    res = rmb.robstab(loop / (1 + loop), band=band)
    w = np.linspace(*band, 200001)
    g_j = 2 / (1 - w**2 + 0.4j * w)
    brute = 1 / float(np.max(np.abs(g_j / (1 + g_j))))  # the peak is at 1.71 rad/s
    assert res.certified
    assert res.lower <= brute * (1 + 1e-9) and brute <= res.upper * (1 + 1e-9)
    assert res.upper <= res.lower * 1.01
    assert band[0] * (1 - 1e-8) <= res.critical_frequency <= band[1] * (1 + 1e-8)
