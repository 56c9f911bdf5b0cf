"""Uncertain plots draw the data of the systems they claim to draw.

Every curve is checked against closed forms evaluated at the parameter values
the plot reports (and those values against ``usample`` with the same seed), or
against python-control on the substituted systems.
"""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import control  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402
from robustmb.errors import (  # noqa: E402
    ArgumentError,
    DimensionError,
    SignalError,
    UncertainTypeError,
)

s = control.tf("s")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def msd():
    """Mass-spring-damper 1 / (m s^2 + c s + k) with three uncertain parameters."""
    m = rmb.ureal("m", 1.0, percent=20)
    c = rmb.ureal("c", 0.4, percent=30)
    k = rmb.ureal("k", 1.0, percent=20)
    return 1 / (m * s**2 + c * s + k)


def msd_response(v, w):
    jw = 1j * np.asarray(w)
    return 1.0 / (v["m"] * jw**2 + v["c"] * jw + v["k"])


def same_angle(a, b):
    """Phases equal modulo 2 pi (degrees)."""
    d = np.angle(np.exp(1j * np.radians(a - b)))
    return np.max(np.abs(d)) < 1e-9


def test_bode_curves_are_the_sampled_systems():
    G = msd()
    worst = {"m": 1.2, "c": 0.28, "k": 0.8}
    out = plotting.bode(G, n=6, seed=3, worst=worst)
    w = out.data["omega"]
    _, values = G.usample(6, seed=3)
    assert out.family.values == values
    assert len(out.lines["samples"]) == 6
    for v, (lm, lp) in zip(values, out.lines["samples"], strict=True):
        h = msd_response(v, w)
        np.testing.assert_allclose(lm.get_xdata(), w)
        np.testing.assert_allclose(lm.get_ydata(), np.abs(h), rtol=1e-10)
        assert same_angle(lp.get_ydata(), np.degrees(np.angle(h)))
    lm, lp = out.lines["nominal"][0]
    nominal = msd_response({"m": 1.0, "c": 0.4, "k": 1.0}, w)
    np.testing.assert_allclose(lm.get_ydata(), np.abs(nominal), rtol=1e-10)
    lm, lp = out.lines["worst"][0]
    np.testing.assert_allclose(lm.get_ydata(), np.abs(msd_response(worst, w)), rtol=1e-10)
    # The phase is continuous along frequency (unwrapped) and starts at 0 for this system.
    assert abs(lp.get_ydata()[0]) < 1.0
    assert np.max(np.abs(np.diff(lp.get_ydata()))) < 90


def test_bode_mimo_matches_python_control_and_options():
    k = rmb.ureal("k", 2.0, percent=20)
    G = rmb.uss(
        [[-1.0, 0.0], [1.0, -3.0]],
        [[1.0, 0.0], [0.0, 1.0]],
        [[k, 0.0], [0.0, 1.0]],
        [[0.0, 0.1], [0.0, 0.5]],
    )
    w = np.logspace(-2, 2, 50)
    out = plotting.bode(G, n=3, seed=0, omega=w, dB=True, Hz=True)
    assert out.axes.shape == (4, 2)
    samples, _ = G.usample(3, seed=0)
    for smp, drawn in zip(samples, out.lines["samples"], strict=True):
        fr = control.frequency_response(smp, w, squeeze=False)
        for idx, (lm, lp) in enumerate(drawn):
            i, j = divmod(idx, 2)
            np.testing.assert_allclose(lm.get_xdata(), w / (2 * np.pi))
            np.testing.assert_allclose(lm.get_ydata(), 20 * np.log10(fr.magnitude[i, j]), atol=1e-9)
            assert same_angle(lp.get_ydata(), np.degrees(fr.phase[i, j]))


def test_sigma_of_diagonal_system_and_wcgain_bound():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    b = rmb.ureal("b", 3.0, percent=10)
    G = rmb.uss([[-a, 0.0], [0.0, -b]], np.eye(2), np.eye(2), np.zeros((2, 2)))
    out = plotting.sigma(G, n=4, seed=2)
    w = out.data["omega"]
    for v, lines in zip(out.family.values, out.lines["samples"], strict=True):
        g = np.sort(np.abs(np.stack([1 / (1j * w + v["a"]), 1 / (1j * w + v["b"])])), axis=0)
        np.testing.assert_allclose(lines[0].get_ydata(), g[1], rtol=1e-10)
        np.testing.assert_allclose(lines[1].get_ydata(), g[0], rtol=1e-10)
    # With a wcgain result: worst case at its values, certified bound above every curve.
    res = rmb.wcgain(G)
    out = plotting.sigma(G, n=10, seed=2, worst=res)
    (bound,) = out.lines["bound"]
    top = max(np.max(ls[0].get_ydata()) for ls in out.lines["samples"] + out.lines["worst"])
    assert top <= bound.get_ydata()[0] * (1 + 1e-9)
    # Closed form: peak gain over a in [0.5, 2] is 1 / 0.5 at omega = 0.
    assert res.upper >= 2.0 * (1 - 1e-9)


def test_wcsigma_marks_the_worst_case_found():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    G = 1 / (s**2 + c * s + 1)
    res = rmb.wcgain(G)
    out = plotting.wcsigma(G, res, n=5, seed=0)
    (peak,) = out.lines["peak"]
    wc, gain = peak.get_xdata()[0], peak.get_ydata()[0]
    # The worst case drawn at the critical frequency has the reported gain (closed form).
    cw = res.worst["c"]
    assert abs(gain - abs(1 / (1 - wc**2 + 1j * cw * wc))) < 1e-6 * gain
    # Closed form of the worst peak: c = 0.2 gives 1 / (c sqrt(1 - c^2/4)).
    exact = 1 / (0.2 * np.sqrt(1 - 0.01))
    assert res.lower <= exact * (1 + 1e-9) <= res.upper * (1 + 2e-9)
    worst_line = out.lines["worst"][0]
    i = np.argmin(np.abs(worst_line.get_xdata() - wc))
    assert abs(worst_line.get_ydata()[i] - gain) < 1e-9 * gain
    assert out.lines["bound"][0].get_ydata()[0] == res.upper


def test_step_and_impulse_closed_forms():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + a)
    worst = {"a": 0.5, "k": 2.4}
    st = plotting.step(G, n=5, seed=7, worst=worst)
    im = plotting.impulse(G, n=5, seed=7, worst=worst)
    t = st.data["time"]
    # The default horizon lets the slowest sample (a >= 0.5) settle: 7 time constants.
    assert t[-1] >= 7 / 0.5 * (1 - 1e-12)
    _, values = G.usample(5, seed=7)
    pairs = list(zip(values, st.lines["samples"], im.lines["samples"], strict=True))
    pairs.append((worst, st.lines["worst"][0], im.lines["worst"][0]))
    pairs.append(({"a": 1.0, "k": 2.0}, st.lines["nominal"][0], im.lines["nominal"][0]))
    for v, ls, li in pairs:
        np.testing.assert_allclose(ls.get_xdata(), t)
        step_exact = v["k"] / v["a"] * (1 - np.exp(-v["a"] * t))
        np.testing.assert_allclose(ls.get_ydata(), step_exact, atol=1e-6 * v["k"] / v["a"])
        np.testing.assert_allclose(
            li.get_ydata(), v["k"] * np.exp(-v["a"] * im.data["time"]), atol=1e-6 * v["k"]
        )


def test_discrete_time_step_and_bode():
    a = rmb.ureal("a", 0.5, range=(0.3, 0.7))
    G = rmb.uss([[a]], [[1.0]], [[1.0]], [[0.0]], dt=0.1)  # x[k+1] = a x[k] + u[k], y = x
    out = plotting.step(G, n=3, seed=4)
    t = out.data["time"]
    np.testing.assert_allclose(np.diff(t), 0.1)
    kk = np.round(t / 0.1).astype(int)
    for v, line in zip(out.family.values, out.lines["samples"], strict=True):
        np.testing.assert_allclose(line.get_ydata(), (1 - v["a"] ** kk) / (1 - v["a"]), atol=1e-12)
        assert line.get_drawstyle() == "steps-post"
    out = plotting.bode(G, n=3, seed=4)
    w = out.data["omega"]
    assert w[-1] <= np.pi / 0.1 * (1 + 1e-12)  # up to the Nyquist frequency
    for v, (lm, _) in zip(out.family.values, out.lines["samples"], strict=True):
        z = np.exp(1j * w * 0.1)
        np.testing.assert_allclose(lm.get_ydata(), np.abs(1 / (z - v["a"])), rtol=1e-10)


def test_step_mimo_axes_and_given_time():
    k = rmb.ureal("k", 2.0, percent=20)
    G = rmb.uss([[-1.0]], [[1.0, 2.0]], [[k], [1.0]], np.zeros((2, 2)))
    fig, axs = plt.subplots(2, 2)
    T = np.linspace(0, 5, 101)
    out = plotting.step(G, n=2, seed=0, ax=axs, T=T)
    assert out.figure is fig
    # Output 1 (= x) to input 2: 2 (1 - e^-t) for every sample.
    for drawn in out.lines["samples"]:
        np.testing.assert_allclose(drawn[3].get_ydata(), 2 * (1 - np.exp(-T)), atol=1e-9)
    with pytest.raises(ArgumentError, match="ax: .*2x2 matplotlib Axes, got 2"):
        plotting.step(G, ax=axs[0])


def test_nyquist_closed_form_and_siso_only():
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + 1) ** 2
    w = np.logspace(-2, 2, 80)
    out = plotting.nyquist(G, n=3, seed=1, omega=w)
    for v, line in zip(out.family.values, out.lines["samples"], strict=True):
        g = v["k"] / (1j * w + 1) ** 2
        np.testing.assert_allclose(line.get_xdata(), g.real, atol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), g.imag, atol=1e-12)
    with pytest.raises(DimensionError, match="SISO"):
        plotting.nyquist(rmb.uss([[-1.0]], [[1.0, 1.0]], [[k]], [[0.0, 0.0]]))


def test_pzmap_roots_of_the_sampled_polynomials():
    m, c, k = (rmb.ureal(*a, percent=20) for a in (("m", 1.0), ("c", 0.4), ("k", 1.0)))
    z = rmb.ureal("z", 2.0, percent=10)
    H = (s + z) / (m * s**2 + c * s + k)
    out = plotting.pzmap(H, n=4, seed=5)
    for v, (lp, lz) in zip(out.family.values, out.lines["samples"], strict=True):
        poles = np.roots([v["m"], v["c"], v["k"]])
        got = lp.get_xdata() + 1j * lp.get_ydata()
        np.testing.assert_allclose(np.sort_complex(got), np.sort_complex(poles), atol=1e-9)
        np.testing.assert_allclose(lz.get_xdata(), [-v["z"]], atol=1e-9)


def test_grid_draws_every_grid_point():
    a = rmb.ureal("a", 1.0, range=(0.5, 2.0))
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + a)
    out = plotting.bode(G, grid={"a": [0.5, 1.0, 2.0]})
    assert [v["a"] for v in out.family.values] == [0.5, 1.0, 2.0]
    assert all(v["k"] == 2.0 for v in out.family.values)
    w = out.data["omega"]
    colours = set()
    for v, (lm, _) in zip(out.family.values, out.lines["samples"], strict=True):
        np.testing.assert_allclose(lm.get_ydata(), np.abs(2.0 / (1j * w + v["a"])), rtol=1e-10)
        colours.add(lm.get_color() if isinstance(lm.get_color(), str) else tuple(lm.get_color()))
    assert len(colours) == 3
    assert [lm.get_label() for lm, _ in out.lines["samples"]] == ["a=0.5", "a=1", "a=2"]
    assert plotting.grid_points({"a": [1, 2], "b": [3, 4]}) == [
        {"a": 1.0, "b": 3.0},
        {"a": 1.0, "b": 4.0},
        {"a": 2.0, "b": 3.0},
        {"a": 2.0, "b": 4.0},
    ]


def test_mu_bounds_of_robstab_and_mussv():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    G = 1 / (s**2 + c * s + 1)
    rs = rmb.robstab(G)
    out = plotting.mu_bounds(rs)
    # Closed form: unstable at c = 0, i.e. delta = -5/3; peak mu = 3/5 (at omega = 1).
    (peak,) = out.lines["peak"]
    assert 0.6 * (1 - 1e-9) <= peak.get_ydata()[0] <= 0.6 * 1.01
    (up,) = out.lines["upper"]
    w = out.data["omega"]
    np.testing.assert_allclose(up.get_xdata(), w[w > 0])
    assert np.all(np.diff(up.get_xdata()) > 0)
    # the curve stays below the level its own sweep certified; the peak line is the
    # margin's (here certified by the vertex polytope, the sweep being looser evidence)
    assert np.max(up.get_ydata()) <= rs.mu.upper * (1 + 1e-12)
    assert peak.get_ydata()[0] == pytest.approx(1 / rs.lower, rel=1e-12)
    for line in out.lines["lower"]:
        assert np.all(line.get_ydata() > 0)  # no "lower bound" drawn where none was computed
    # mussv over frequency: the curve is the result's upper bound at the given omega.
    wg = np.logspace(-1, 1, 7)
    M = np.stack([np.array([[1.0 / (1 - x**2 + 0.5j * x)]]) * 0.3 for x in wg])
    res = rmb.mussv(M, [(1, 0)])
    out = plotting.mu_bounds(res, omega=wg)
    # One complex scalar block: mu = |M| (closed form), both bounds drawn.
    np.testing.assert_allclose(out.lines["upper"][0].get_ydata(), np.abs(M[:, 0, 0]), rtol=1e-6)
    np.testing.assert_allclose(out.lines["lower"][0].get_ydata(), np.abs(M[:, 0, 0]), rtol=1e-6)
    with pytest.raises(DimensionError, match="omega"):
        plotting.mu_bounds(res)
    with pytest.raises(UncertainTypeError, match="mu_bounds"):
        plotting.mu_bounds({"c": 1.0})


def test_worst_from_analysis_results_and_errors():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    G = 1 / (s**2 + c * s + 1)
    rs = rmb.robstab(G)
    out = plotting.step(G, n=0, worst=rs)
    assert out.family.worst_values == rs.destabilizing
    # A stability margin is not a gain: sigma draws no gain bound for a robstab result.
    assert "bound" not in plotting.sigma(G, n=0, worst=rs).lines
    # The destabilising value puts a pole on the imaginary axis.
    assert np.max(out.family.worst.poles().real) > -1e-6
    with pytest.raises(UncertainTypeError, match="worst="):
        plotting.bode(G, worst=3.0)
    with pytest.raises(SignalError, match="'d'"):
        plotting.bode(G, worst={"d": 1.0})
    with pytest.raises(ValueError, match="n must be"):
        plotting.bode(G, n=-1)


def test_certain_system_and_python_control_message():
    out = plotting.bode(control.tf([1.0], [1.0, 1.0]), n=5)
    assert out.lines["samples"] == []
    G = rmb.ureal("k", 2.0, percent=10) / (s + 1)
    with pytest.raises(AttributeError, match="robustmb.plotting"):
        control.bode(G, plot=False)
    with pytest.raises(AttributeError, match="nominal()"):
        control.frequency_response(G)


def test_python_control_conversions_are_explicit_as_documented():
    # docs/matlab.md: StateSpace/ss/tf decide by isinstance before reading G, so they raise
    # python-control's own TypeError; an uncertain system is deliberately not an LTI.
    G = rmb.ureal("k", 2.0, percent=10) / (s + 1)
    assert not isinstance(G, control.LTI)
    for convert in (control.StateSpace, control.ss, control.tf):
        with pytest.raises(TypeError, match="StateSpace"):
            convert(G)
    G0 = control.StateSpace(G.nominal())
    assert np.allclose(control.evalfr(G0, 1j), 2.0 / (1j + 1), rtol=0, atol=1e-12)


def test_import_robustmb_does_not_load_plotting():
    code = "import sys, robustmb; print('robustmb.plotting' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "False"
    assert rmb.plotting is plotting


def test_zero_channel_in_decibels_is_not_drawn_and_does_not_warn():
    import warnings

    k = rmb.ureal("k", 2.0, percent=20)
    G = rmb.uss([[-1.0]], [[1.0, 0.0]], [[k]], [[0.0, 0.0]])  # input 2 reaches no output
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = plotting.bode(G, n=2, seed=0, dB=True)
    lm, _ = out.lines["nominal"][0][1]
    assert np.all(np.isneginf(lm.get_ydata()))


def test_mu_bounds_of_a_wcgain_result_stay_below_one():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    res = rmb.wcgain(1 / (s**2 + c * s + 1))
    out = plotting.mu_bounds(res)
    # The performance mu at the level res.upper stays below 1: that is the certificate.
    assert np.max(out.data["upper"]) <= 1.0 + 1e-12
    assert out.lines["peak"][0].get_ydata()[0] <= 1.0 + 1e-12
    assert out.lines["lower"] == []  # not searched by wcgain: not drawn
    labels = [line.get_label() for line in out.axes[0, 0].get_lines()]
    assert any(lab.startswith("μ = 1: peak gain") for lab in labels)
