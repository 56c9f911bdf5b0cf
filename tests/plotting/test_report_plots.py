"""Figures and step metrics of the worst-case report against closed forms.

The report's mu figure draws the certified peak as ``plotting.mu_bounds`` does, and its
step overshoot resolves a lightly damped mode (closed form ``exp(-pi zeta / sqrt(1 - zeta^2))``).
"""

import control
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import robustmb as rmb  # noqa: E402
from robustmb import plotting  # noqa: E402
from robustmb.report.figures import mu_bounds_figure, mu_caption  # noqa: E402
from robustmb.report.step_analysis import refined_step  # noqa: E402
from robustmb.report.worst_case import worst_case_analysis  # noqa: E402

s = control.tf("s")


def test_report_mu_figure_draws_the_certified_peak_of_mu_bounds():
    c = rmb.ureal("c", 0.5, range=(0.2, 0.8))
    k = rmb.ureal("k", 1.0, percent=20)
    res = worst_case_analysis(k / (s**2 + c * s + 1), channels={}, n_samples=0)
    rs = res.robstab
    ax = mu_bounds_figure(res).axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("certified peak")]
    peak = line.get_ydata()[0]
    # closed form: unstable at c = 0, 5/3 half-ranges from the centre: peak mu = 3/5
    assert 0.6 * (1 - 1e-9) <= peak <= 0.6 * 1.01
    assert peak == plotting.mu_bounds(rs).lines["peak"][0].get_ydata()[0]
    assert peak == min(rs.mu.upper, 1 / rs.lower)
    # the label's margin is 1 / the line's height rounded down (a certified lower bound),
    # and the caption names that height
    step = 10.0 ** (np.floor(np.log10(1 / peak)) - 3)
    assert f"margin ≥ {np.floor((1 / peak) / step) * step:.4g}" in line.get_label()
    assert f"the peak {peak:.4g} certified" in mu_caption(res)


def test_report_overshoot_of_a_lightly_damped_mode():
    wn, zeta = 10.0, 7 / (999 * 2 * np.pi)
    k = rmb.ureal("k", wn**2, percent=1)
    G = k / (s**2 + 2 * zeta * wn * s + k)
    res = worst_case_analysis(G, channels={}, n_samples=0, step=([0], [0]))
    (m,) = res.step.metrics()
    exact = 100 * np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2))  # 99.65 %
    assert m["overshoot_nominal"] == pytest.approx(exact, rel=1e-5)
    assert m["peak_nominal"] == pytest.approx(1 + exact / 100, rel=1e-6)
    t = res.step.time
    assert np.max(np.diff(t)) <= 2 * np.pi / (wn * np.sqrt(1 - zeta**2)) / 20 * (1 + 1e-9)


@pytest.mark.parametrize("zeta", [0.5, 0.05, 0.005])
def test_refined_step_peak_against_the_closed_form(zeta):
    # deliberately coarse grid (8 points per period): the refinement finds the crest
    wn = 3.0
    G = control.ss(wn**2 / (s**2 + 2 * zeta * wn * s + wn**2))
    period = 2 * np.pi / (wn * np.sqrt(1 - zeta**2))
    t = np.arange(0, 3 * period, period / 8)
    y = control.step_response(G, T=t).outputs
    tt, yy = refined_step(G, t, y, 0, 0)
    wd = wn * np.sqrt(1 - zeta**2)
    exact = 1 - np.exp(-zeta * wn * tt) * (
        np.cos(wd * tt) + zeta / np.sqrt(1 - zeta**2) * np.sin(wd * tt)
    )
    np.testing.assert_allclose(yy, exact, atol=1e-9)
    peak = 1 + np.exp(-np.pi * zeta / np.sqrt(1 - zeta**2))
    assert np.max(yy) == pytest.approx(peak, abs=1e-4 * peak)
