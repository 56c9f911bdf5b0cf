"""Bad arguments of the plots raise robustmb errors naming them; worst-case labels and markers."""

import warnings

import control
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402
from robustmb.errors import ArgumentError, DimensionError, UncertainTypeError  # noqa: E402

s = control.tf("s")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def oscillator():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    return 1 / (s**2 + c * s + 1)


def test_wcsigma_takes_only_a_wcgain_result(oscillator):
    G = oscillator
    for result in (rmb.robgain(G, 4.0), rmb.robstab(G), None, {"c": 0.2}):
        with pytest.raises(UncertainTypeError, match="wcsigma: result must be a wcgain result"):
            plotting.wcsigma(G, result, n=0)


def test_array_arguments():
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + 1)
    with pytest.raises(DimensionError, match="omega must be a 1-D"):
        plotting.bode(G, omega=np.ones((3, 2)))
    with pytest.raises(DimensionError, match="omega must be a 1-D"):
        plotting.sigma(G, omega=np.ones((3, 2)))
    with pytest.raises(ArgumentError, match="omega must hold real frequencies"):
        plotting.bode(G, omega=["abc"])
    with pytest.raises(ArgumentError, match="T must hold real times"):
        plotting.step(G, T=[0.0, 1j])
    with pytest.raises(ArgumentError, match="grid: no values given for \\['k'\\]"):
        plotting.bode(G, grid={"k": []})
    for n in (float("nan"), float("inf"), 2.5, "3", True):
        with pytest.raises(ArgumentError, match="n must be a non-negative integer"):
            plotting.bode(G, n=n)


def test_ax_must_be_matplotlib_axes():
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + 1)
    fig, axs = plt.subplots(2, 1)
    for call in (
        lambda: plotting.bode(G, ax=[1, 2]),
        lambda: plotting.bode(G, ax="abc"),
        lambda: plotting.sigma(G, ax="abc"),
        lambda: plotting.sigma(G, ax=fig),
        lambda: plotting.sigma(G, ax=axs),  # two axes for one
        lambda: plotting.bode(G, ax=axs[0]),  # one for two
    ):
        with pytest.raises(ArgumentError, match="^ax: "):
            call()
    out = plotting.bode(G, n=1, seed=0, ax=axs)
    assert out.figure is fig
    fig2, ax2 = plt.subplots()
    out = plotting.sigma(G, n=1, seed=0, ax=ax2)
    assert out.axes[0, 0] is ax2


def test_mu_bounds_omega_is_for_mussv_only(oscillator):
    rs = rmb.robstab(oscillator)
    with pytest.raises(ArgumentError, match="omega"):
        plotting.mu_bounds(rs, omega=[1.0, 2.0, 3.0])
    M = np.ones((3, 1, 1)) * 0.5
    res = rmb.mussv(M, [(1, 0)])
    with pytest.raises(DimensionError, match="omega must be a 1-D"):
        plotting.mu_bounds(res, omega=np.ones((3, 1)))


def test_robstab_values_are_labelled_destabilising(oscillator):
    out = plotting.step(oscillator, n=0, worst=rmb.robstab(oscillator))
    # closed form: c = 0 is 0.5 / 0.3 = 5/3 of the half-range from the centre 0.5
    label = out.lines["worst"][0].get_label()
    assert label == f"destabilising values ({100 * 5 / 3:.3g} % of ranges)"
    assert plotting.step(oscillator, n=0, worst={"c": 0.2}).lines["worst"][0].get_label() == (
        "worst case"
    )


@pytest.mark.parametrize("Hz", [False, True])
def test_worst_case_at_zero_frequency_is_drawn_at_the_left_edge(Hz):
    k = rmb.ureal("k", 2.0, percent=20)
    G = k / (s + 1)
    res = rmb.wcgain(G)
    assert res.critical_frequency == 0.0
    for out in (plotting.wcsigma(G, res, n=0, Hz=Hz), plotting.sigma(G, n=0, worst=res, Hz=Hz)):
        (dot,) = out.lines["peak"]
        x = out.lines["nominal"][0]
        x = (x[0] if isinstance(x, list) else x).get_xdata()
        assert 0 < dot.get_xdata()[0] < np.min(x[x > 0])
        assert dot.get_marker() == "<"
        # closed form: the peak gain 2.4 of k / (s + 1) at omega = 0
        assert dot.get_ydata()[0] == pytest.approx(2.4, rel=1e-9)
        out.figure.canvas.draw()
        lo, hi = out.axes[0, 0].get_xlim()
        assert lo < dot.get_xdata()[0] < hi


def test_mu_at_zero_frequency_is_drawn_at_the_left_edge():
    kk = rmb.ureal("kk", 1.0, range=(0.0, 3.0))
    rs = rmb.robstab(rmb.feedback(kk * 2 / (s + 1), 1))
    out = plotting.mu_bounds(rs)
    assert np.any(rs.mu.omega == 0)  # the sweep evaluates the DC gain
    (mark,) = out.lines["zero"]
    # closed form: 1 + 2 kk has its root at kk = -1/2, 1.5 half-ranges below the centre 1.5
    # ... i.e. mu(0) = 1 / (2 / 1.5) = 0.75
    assert mark.get_ydata()[0] == pytest.approx(0.75, rel=1e-3)
    assert 0 < mark.get_xdata()[0] < np.min(rs.mu.omega[rs.mu.omega > 0])


def test_double_integrator_response_without_overflow_warning():
    G = control.ss(1 / s**2)
    w = np.logspace(-1, 1, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H = rmb.freqresp(G, w)
    np.testing.assert_allclose(H[:, 0, 0], -1 / w**2, rtol=1e-9)
