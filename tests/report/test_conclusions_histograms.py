"""Conclusions generated from the numbers; Monte Carlo histograms and how samples were drawn.

Closed forms for ``1 / (s^2 + c s + 1)``, ``c`` in ``[0.5, 1.5]``: stability margin 2
(``c = 0`` at 1 rad/s), nominal peak 1.1547, worst-case peak 2.0656 at ``c = 0.5``.
"""

import json
from fractions import Fraction

import numpy as np
import pytest
from matplotlib.figure import Figure
from report_loops import resonance_peak, second_order
from scipy import stats

from robustmb.report import worst_case_report
from robustmb.report.bound_format import fmt_lower
from robustmb.report.figures import _fmt, histogram_figure

NOMINAL = resonance_peak(1.0)[0]
WORST = resonance_peak(0.5)[0]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    out = tmp_path_factory.mktemp("concl")
    return worst_case_report(loop, {"gain": ("y", "r", 1.5)}, out_dir=out, n_samples=200, seed=4)


def test_conclusions_state_the_closed_form_numbers(report):
    a = report.analysis
    c = a.conclusions()
    assert c[0] == a.headline() and c[0].startswith("Robust performance NOT met")
    # stability: margin 2 -> ranges up to 200 %, lost at 1 rad/s; the certified lower
    # bound is printed rounded down (never above the margin it guarantees)
    shown = c[1].split("up to ")[1].split(" %")[0]
    assert 199 <= Fraction(shown) <= 100 * Fraction(a.robstab.lower) <= 200
    assert f"at {_fmt(1.0)} rad/s" in c[1]
    gain = next(t for t in c if t.startswith("gain:"))
    assert "met nominally" in gain and f"(peak {_fmt(NOMINAL)})" in gain
    at_least = gain.split("at least ")[1].split(" ")[0]
    assert Fraction(at_least) <= Fraction(WORST) and float(at_least) == pytest.approx(WORST, 1e-3)
    assert f"{fmt_lower(WORST / 1.5, 3)} times the specification" in gain  # at least
    # sampling: the largest sampled peak relative to the worst case, from the closed form
    ch = a.channels[0]
    c_min = min(v["c"] for v in a.sample_values)
    ratio = resonance_peak(c_min)[0] / ch.wcgain.lower
    mc = next(t for t in c if "random samples are stable" in t)
    assert mc.startswith("200 of 200") and f"{_fmt(100 * ratio, 3)} % (gain)" in mc
    data = json.loads(report.json_path.read_text())
    assert data["conclusions"] == c
    page = report.html_path.read_text()
    assert page.index("<h2>Conclusions</h2>") < page.index("<h2>Margins</h2>")
    for t in c:
        assert t.replace("&", "&amp;") in page


def test_histogram_and_sampling_description(report):
    a = report.analysis
    ch = a.channels[0]
    # the samples are uniform over the declared range (Kolmogorov-Smirnov, seed fixed)
    vals = np.array([v["c"] for v in a.sample_values])
    assert vals.min() >= 0.5 and vals.max() <= 1.5
    assert stats.kstest(vals, stats.uniform(loc=0.5, scale=1.0).cdf).pvalue > 1e-3
    how = a.sampling_description()
    assert how == (
        "200 samples drawn independently (usample, seed 4): each real parameter "
        "uniformly over its declared range."
    )
    assert json.loads(report.json_path.read_text())["monte_carlo"]["how"] == how
    assert how in report.html_path.read_text()
    fig = histogram_figure(a)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    heights = [p.get_height() for p in ax.patches]
    assert sum(heights) == 200
    lefts = [p.get_x() for p in ax.patches]
    assert min(lefts) == pytest.approx(ch.sampled_peaks.min())
    xs = {round(float(line.get_xdata()[0]), 12) for line in ax.get_lines()}
    for x in (ch.nominal_peak, ch.wcgain.lower, ch.wcgain.upper, 1.5):
        assert round(float(x), 12) in xs
    assert "histograms" in report.figure_paths
