"""Interactive charts of the report page: the data they carry, no network, and (in headless
Chromium) what the hover readout and the zoom show."""

import html
import json
import re
import shutil
import subprocess

import numpy as np
import pytest

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
    assert series(mu_chart, f"certified peak {mu.upper:.4g}")["y"] == mu.upper
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
    assert series(sv_chart, f"worst-case bound {ch.wcgain.upper:.4g}")["y"] == ch.wcgain.upper
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
    assert f"worst-case bound {ch.wcgain.upper:.4g}" in sv
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
