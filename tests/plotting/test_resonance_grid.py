"""The default frequency grid draws lightly damped peaks and notches at their true height.

References: the closed-form resonance peak of a second-order factor,
``1 / (2 zeta sqrt(1 - zeta^2))`` of ``wn^2 / (s^2 + 2 zeta wn s + wn^2)`` at
``wn sqrt(1 - 2 zeta^2)``, and numpy brute force on a dense linear grid.
"""

import control
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402
from robustmb.plotting import _style  # noqa: E402
from robustmb.plotting._style import default_omega  # noqa: E402

s = control.tf("s")
ZETAS = [1e-2, 1e-3, 1e-4, 1e-5]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def exact_peak(zeta):
    """Peak of wn^2 / (s^2 + 2 zeta wn s + wn^2) over frequency (any wn)."""
    return 1.0 / (2.0 * zeta * np.sqrt(1.0 - zeta**2))


@pytest.mark.parametrize("zeta", ZETAS)
def test_bode_sigma_nyquist_draw_the_exact_resonance_peak(zeta):
    wn0 = 10.0
    k = rmb.ureal("k", wn0**2, percent=20)
    G = k / (s**2 + 2 * zeta * wn0 * s + k)
    out = plotting.bode(G, n=4, seed=0)
    sig = plotting.sigma(G, n=4, seed=0)
    nyq = plotting.nyquist(G, n=4, seed=0)
    values = [*out.family.values, {"k": wn0**2}]
    mags = [lm for lm, _ in out.lines["samples"]] + [out.lines["nominal"][0][0]]
    svs = [ls[0] for ls in sig.lines["samples"]] + [sig.lines["nominal"][0][0]]
    curves = nyq.lines["samples"] + nyq.lines["nominal"]
    for v, lm, sv, cu in zip(values, mags, svs, curves, strict=True):
        # each sample is wn^2 / (s^2 + 2 zeta_v wn s + wn^2) with wn^2 = k
        zeta_v = zeta * wn0 / np.sqrt(v["k"])
        ref = exact_peak(zeta_v)
        assert np.max(lm.get_ydata()) == pytest.approx(ref, rel=1e-3)
        assert np.max(sv.get_ydata()) == pytest.approx(ref, rel=1e-3)
        g = cu.get_xdata() + 1j * cu.get_ydata()
        assert np.max(np.abs(g)) == pytest.approx(ref, rel=1e-3)


@pytest.mark.parametrize("zeta", ZETAS)
def test_antiresonance_notch_depth(zeta):
    # A lightly damped zero pair over a well-damped pole pair: |G| dips to ~ 2 zeta / 1.4.
    wn = 3.0
    G = (s**2 + 2 * zeta * wn * s + wn**2) / (s**2 + 1.4 * wn * s + wn**2)
    out = plotting.bode(G, n=0)
    drawn = np.min(out.lines["nominal"][0][0].get_ydata())
    # numpy brute force on a dense linear grid around the notch
    w = np.linspace(wn * (1 - 20 * zeta), wn * (1 + 20 * zeta), 400001)
    jw = 1j * w
    ref = np.min(np.abs((jw**2 + 2 * zeta * wn * jw + wn**2) / (jw**2 + 1.4 * wn * jw + wn**2)))
    assert drawn == pytest.approx(ref, rel=1e-3)


def test_bode_and_nyquist_draw_the_wcgain_worst_case_through_its_peak():
    c = rmb.ureal("c", 0.02, range=(0.01, 0.03))
    k = rmb.ureal("k", 100.0, percent=20)
    G = 1 / (s**2 + c * s + k)
    res = rmb.wcgain(G)
    # closed form peak of 1 / (s^2 + c s + k): 1 / (c sqrt(k - c^2 / 4))
    cw, kw = res.worst["c"], res.worst["k"]
    ref = 1 / (cw * np.sqrt(kw - cw**2 / 4))
    bo = plotting.bode(G, n=2, seed=0, worst=res)
    assert res.critical_frequency in bo.data["omega"]
    assert np.max(bo.lines["worst"][0][0].get_ydata()) == pytest.approx(ref, rel=1e-3)
    ny = plotting.nyquist(G, n=2, seed=0, worst=res)
    line = ny.lines["worst"][0]
    assert np.max(np.hypot(line.get_xdata(), line.get_ydata())) == pytest.approx(ref, rel=1e-3)
    # the worst case found lies on the drawn worst curve at the critical frequency
    i = int(np.flatnonzero(bo.data["omega"] == res.critical_frequency)[0])
    assert bo.lines["worst"][0][0].get_ydata()[i] == pytest.approx(res.lower, rel=1e-6)


def test_grid_size_is_bounded_and_refines_the_lightest_modes(monkeypatch):
    # 60 distinct lightly damped modes; bands for at most 20, peaks for at most 50
    monkeypatch.setattr(_style, "MAX_REFINED_MODES", 20)
    monkeypatch.setattr(_style, "MAX_PEAK_POINTS", 50)
    wn = np.linspace(1.0, 100.0, 60)
    zeta = np.geomspace(1e-5, 0.15, 60)[::-1]
    A = np.zeros((120, 120))
    for i, (w, z) in enumerate(zip(wn, zeta, strict=True)):
        A[2 * i : 2 * i + 2, 2 * i : 2 * i + 2] = [[0.0, 1.0], [-(w**2), -2 * z * w]]
    # a diagonal MIMO system: 60 modes and no transmission zeros
    B, C = np.zeros((120, 60)), np.zeros((60, 120))
    B[2 * np.arange(60) + 1, np.arange(60)] = 1.0
    C[np.arange(60), 2 * np.arange(60)] = 1.0
    sys = control.ss(A, B, C, np.zeros((60, 60)))
    assert _style._zeros(sys).size == 0
    w = default_omega([sys])
    assert w.size <= 500 + 31 * 20 + 50
    assert np.all(np.diff(w) > 0)

    def on_grid(k):
        return np.min(np.abs(w / (wn[k] * np.sqrt(1 - 2 * zeta[k] ** 2)) - 1)) < 1e-14

    def in_band(k):
        return np.sum(np.abs(w / wn[k] - 1) < 2 * zeta[k])

    assert all(on_grid(k) for k in range(10, 60))  # the lightest 50 have their exact peak
    assert not any(on_grid(k) for k in range(10))
    # the lightest 20 have a band (>= 8 points within two half-bandwidths); the next not
    assert all(in_band(k) >= 8 for k in range(40, 60))
    assert in_band(39) <= 2


def test_many_moderately_damped_samples_add_peaks_not_bands():
    # 300 samples with zeta in about [0.06, 0.3]: the log grid resolves their width
    k = rmb.ureal("k", 2.0, percent=30)
    m = rmb.ureal("m", 1.0, range=(0.7, 1.5))
    c = rmb.ureal("c", 0.4, range=(0.2, 0.6))
    G = k / (m * s**2 + c * s + 1)
    out = plotting.bode(G, n=300, seed=0)
    w = out.data["omega"]
    assert w.size <= 500 + 2 * 302  # a peak per pole pair (and its conjugate's twin)
    for v, (lm, _) in zip(out.family.values[:20], out.lines["samples"][:20], strict=True):
        zeta = v["c"] / (2 * np.sqrt(v["m"]))
        if zeta < 1 / np.sqrt(2):
            # closed form peak of k / (m s^2 + c s + 1): k / (2 zeta sqrt(1 - zeta^2))
            ref = v["k"] / (2 * zeta * np.sqrt(1 - zeta**2))
            assert np.max(lm.get_ydata()) == pytest.approx(ref, rel=1e-3)
