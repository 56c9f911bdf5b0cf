"""Interactive charts of the report page: the data they carry, no network, and (in headless
Chromium) what the hover readout and the zoom show."""

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from robustmb.report.bound_format import fmt_upper
from robustmb.report.figures import figure_png, report_figures
from robustmb.report.html import render_html

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")


def charts_of(page):
    blocks = re.findall(
        r'<script type="application/json" class="chart-data">(.*?)</script>', page, re.S
    )
    return [json.loads(b) for b in blocks]


def series(chart, label):
    (s,) = [s for s in chart["series"] if s["label"] == label]
    return s


def as_array(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def test_charts_carry_exactly_the_analysis_numbers(mimo_report):
    page = mimo_report.html_path.read_text(encoding="utf-8")
    res = mimo_report.analysis
    mu_chart, sv_chart = charts_of(page)
    mu = res.robstab.mu
    order = np.argsort(mu.omega)
    w, up = mu.omega[order], mu.mu_upper[order]
    upper = series(mu_chart, "μ upper bound")
    # bit for bit: JSON keeps the shortest round-trip representation of each float
    assert np.array_equal(upper["x"], w[w > 0]) and np.array_equal(upper["y"], up[w > 0])
    # the dotted peak of the static figure and the caption: the tighter certified one
    peak = min(mu.upper, 1.0 / res.robstab.lower)
    assert series(mu_chart, f"certified peak {fmt_upper(peak)}")["y"] == peak
    if np.any(w == 0):
        assert series(mu_chart, "μ upper bound at ω = 0")["y"] == [up[w == 0][0]]
    star = series(mu_chart, "destabilising values found")
    assert star["y"] == [1.0 / res.robstab.upper]
    ch = res.channels[0]
    assert np.array_equal(sv_chart["series"][0]["x"], res.omega)
    assert np.array_equal(series(sv_chart, "nominal")["y"], ch.sigma_nominal)
    assert np.array_equal(series(sv_chart, "worst case found")["y"], ch.sigma_worst)
    stable = ch.sigma_samples[np.isfinite(ch.sampled_peaks)]
    assert np.array_equal(series(sv_chart, "samples: largest")["y"], stable.max(axis=0))
    assert np.array_equal(series(sv_chart, "samples: smallest")["y"], stable.min(axis=0))
    # the label rounds the certified bound up (never below it); the data are exact
    label = fmt_upper(ch.wcgain.upper)
    assert float(label) >= ch.wcgain.upper and float(label) == pytest.approx(ch.wcgain.upper, 1e-3)
    assert series(sv_chart, f"worst-case bound {label}")["y"] == ch.wcgain.upper
    assert series(sv_chart, f"specification {ch.spec:.4g}")["y"] == ch.spec


def test_page_needs_no_network_and_no_file_beside_it(mimo_report):
    page = mimo_report.html_path.read_text(encoding="utf-8")
    # every script is inline, every image a data URI, no style sheet or font fetched
    assert re.findall(r"<script[^>]*\bsrc=", page) == []
    assert re.findall(r'src="(?!data:)', page) == []
    assert "<link" not in page and "@import" not in page
    assert re.findall(r"url\((?!#)", page) == []  # url(#clip): a reference inside the page
    for call in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "navigator.sendBeacon"):
        assert call not in page
    # the only address is the SVG namespace name (an identifier, never requested)
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {"http://www.w3.org/2000/svg"}
    # the static PNG stays as the no-script fallback of each interactive figure
    fallbacks = re.findall(r"<noscript>(.*?)</noscript>", page, re.S)
    assert len(fallbacks) == 2 and all("data:image/png;base64," in f for f in fallbacks)


def test_data_cannot_close_its_script_block():
    from robustmb.report.interactive import chart_figure_html

    chart = {"title": "</script><b>x", "series": [], "xlog": False, "ylog": False}
    out = chart_figure_html([chart], "c")
    assert out.count("</script>") == 1
    block = re.search(r'class="chart-data">(.*?)</script>', out, re.S).group(1)
    assert json.loads(block)["title"] == "</script><b>x"


def test_step_charts_and_plain_option(oscillator):
    from robustmb.report.worst_case import worst_case_analysis

    res = worst_case_analysis(oscillator, n_samples=3, step=([0], [0]))
    pngs = {k: figure_png(f) for k, f in report_figures(res).items()}
    page = render_html(res, pngs)
    step = [c for c in charts_of(page) if c["xlabel"] == "time (s)"]
    assert len(step) == 1
    st = res.step
    assert np.array_equal(step[0]["series"][0]["x"], st.time)
    assert np.array_equal(series(step[0], "nominal")["y"], st.nominal[0, 0])
    worst = series(step[0], f"worst case of the parameters of {st.worst_channel}")
    assert np.array_equal(worst["y"], st.worst[0, 0])
    # the caption names what the chart draws
    assert "the envelope (largest and smallest) of 3 random samples" in html.unescape(page)
    # the envelope of the samples the static figure draws (its grey lines)
    fig = report_figures(res)["step"]
    grey = np.array([ln.get_ydata() for ln in fig.axes[0].get_lines()[:3]])
    assert np.allclose(series(step[0], "samples: largest")["y"], grey.max(axis=0), rtol=1e-12)
    assert np.allclose(series(step[0], "samples: smallest")["y"], grey.min(axis=0), rtol=1e-12)
    plain = render_html(res, pngs, interactive_plots=False)
    assert charts_of(plain) == [] and "<script" not in plain


def _browser():
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


PROBE = """
<script>
(function () {
  var out = {hover: [], zoom: null, reset: null};
  function at(chart, x, y, type) {
    var p = chart.toClient(x, y);
    chart.svg.dispatchEvent(new MouseEvent(type, {clientX: p[0], clientY: p[1], bubbles: true}));
  }
  function readout(chart) {
    return Array.prototype.map.call(chart.readout.querySelectorAll("span.value"), function (s) {
      return {label: s.getAttribute("data-label"), x: s.getAttribute("data-x"),
              y: s.getAttribute("data-y"), text: s.textContent};
    });
  }
  var P = %s;
  P.hover.forEach(function (h) {
    var c = rmbCharts[h.chart];
    at(c, h.x, h.y, "mousemove");
    out.hover.push(readout(c));
  });
  var z = rmbCharts[P.zoom.chart];
  at(z, P.zoom.a, 1, "mousedown");
  at(z, P.zoom.b, 1, "mousemove");
  at(z, P.zoom.b, 1, "mouseup");
  out.zoom = z.svg.getAttribute("data-xdomain");
  out.zoom_points = Array.prototype.map.call(z.svg.querySelectorAll("path[data-label]"),
    function (p) { return [p.getAttribute("data-label"), p.getAttribute("data-points")]; });
  z.svg.dispatchEvent(new MouseEvent("dblclick", {bubbles: true}));
  out.reset = z.svg.getAttribute("data-xdomain");
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


@pytest.mark.skipif(_browser() is None, reason="no headless Chromium installed (looked for "
                    + ", ".join(BROWSERS) + ")")  # fmt: skip
def test_hover_readout_and_zoom_in_headless_chromium(mimo_report, tmp_path):
    page = mimo_report.html_path.read_text(encoding="utf-8")
    res = mimo_report.analysis
    ch = res.channels[0]
    w = res.omega
    k = int(np.argmax(ch.sigma_worst))  # hover over the worst case's peak
    mu = res.robstab.mu
    wpos = np.sort(mu.omega[mu.omega > 0])
    j = len(wpos) // 2
    a, b = w[len(w) // 4], w[len(w) // 2]
    probe = {
        "hover": [
            {"chart": 1, "x": float(w[k]), "y": float(ch.sigma_worst[k])},
            {"chart": 0, "x": float(wpos[j]), "y": 0.5},
        ],
        "zoom": {"chart": 1, "a": float(a), "b": float(b)},
    }
    probed = tmp_path / "probed.html"
    probed.write_text(
        page.replace("</body>", PROBE % json.dumps(probe) + "</body>"), encoding="utf-8"
    )
    dom = subprocess.run(
        [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,3000",
         "--dump-dom", probed.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, "the page's charts did not run"
    out = json.loads(html.unescape(found.group(1)))
    # the readout at the worst case's peak: every curve's value at that grid point
    sv = {r["label"]: r for r in out["hover"][0]}
    for label, curve in (("nominal", ch.sigma_nominal), ("worst case found", ch.sigma_worst)):
        assert float(sv[label]["x"]) == w[k] and float(sv[label]["y"]) == curve[k]
        shown = float(re.search(r": (\S+) at", sv[label]["text"]).group(1))
        assert shown == pytest.approx(curve[k], rel=5e-4)  # 4 significant digits
    assert f"worst-case bound {fmt_upper(ch.wcgain.upper)}" in sv
    mu_read = {r["label"]: r for r in out["hover"][1]}["μ upper bound"]
    i = np.flatnonzero(mu.omega == wpos[j])[0]
    assert float(mu_read["x"]) == wpos[j] and float(mu_read["y"]) == mu.mu_upper[i]
    # drag from a to b: the x range becomes [a, b] (to the pixel), double click restores it
    lo, hi = map(float, out["zoom"].split(","))
    assert lo == pytest.approx(a, rel=0.02) and hi == pytest.approx(b, rel=0.02)
    inside = int(np.sum((w >= lo) & (w <= hi)))
    assert dict(out["zoom_points"])["nominal"] == str(inside)
    lo, hi = map(float, out["reset"].split(","))
    assert (lo, hi) == (w.min(), w.max())


def test_mu_lower_bound_carries_dots_like_the_static_figure(oscillator):
    from robustmb.report.interactive import mu_chart
    from robustmb.report.worst_case import worst_case_analysis

    res = worst_case_analysis(oscillator, channels={}, n_samples=0)
    mu = res.robstab.mu
    lower = [s for s in mu_chart(res)["series"] if s["label"] == "μ lower bound"]
    n = int(np.sum((mu.omega > 0) & (mu.mu_lower > 0)))
    # here computed at one frequency only (the peak): a dot per point, as the static "."
    assert n == 1 and len(lower) == 1
    assert lower[0]["marker"] > 0 and len(lower[0]["x"]) == n


@pytest.mark.skipif(_browser() is None, reason="no headless Chromium installed (looked for "
                    + ", ".join(BROWSERS) + ")")  # fmt: skip
def test_single_point_curve_is_visible_in_headless_chromium(tmp_path):
    # A lower bound computed at one frequency only: a dashed path through one point draws
    # nothing, so the renderer must put a dot there (and on every point of a marked line).
    from robustmb.report.interactive import SCRIPT, STYLE, chart_figure_html

    def line(label, x, y, **extra):
        return {"kind": "line", "label": label, "x": x, "y": y, "color": "#1f77b4",
                "width": 1.4, "dash": "5 3", **extra}  # fmt: skip

    series = [
        line("curve", [0.1, 1.0, 10.0], [0.2, 0.5, 0.3]),
        line("one point", [2.0], [0.4], marker=2.5),
        line("three points", [0.2, 3.0, 5.0], [0.1, 0.2, 0.3], marker=2.5),
    ]
    chart = {"title": "t", "xlabel": "x", "xname": "x", "ylabel": "y", "xlog": True,
             "ylog": False, "yzero": True, "series": series}  # fmt: skip
    page = tmp_path / "chart.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{STYLE}</style></head><body>"
        + chart_figure_html([chart], "c")
        + f"<script>{SCRIPT}</script></body></html>",
        encoding="utf-8",
    )
    dom = subprocess.run(
        [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    dots = lambda label: len(re.findall(rf'<circle[^>]*data-label="{label}"', dom))  # noqa: E731
    assert dots("one point") == 1 and dots("three points") == 3 and dots("curve") == 0
    assert len(re.findall(r'<path[^>]*data-label="three points"', dom)) == 1
