"""Figures and the HTML page of a report, and its rendering in headless Chromium."""

import base64
import re
import shutil
import subprocess
from fractions import Fraction

import control
import numpy as np
import pytest
from matplotlib.image import imread

from robustmb.report.bound_format import fmt_lower, fmt_upper
from robustmb.report.figures import report_figures


def _sigma_max(sys, w):
    resp = control.frequency_response(sys, np.asarray(w, float)).frdata  # (ny, nu, nw)
    return np.linalg.svd(np.moveaxis(resp, -1, 0), compute_uv=False)[:, 0]


def test_singular_value_curves_match_python_control(mimo, mimo_report):
    res = mimo_report.analysis
    w = res.omega
    for ch in res.channels:
        sub = mimo[ch.outputs, ch.inputs]
        np.testing.assert_allclose(ch.sigma_nominal, _sigma_max(sub.nominal(), w), rtol=1e-9)
        np.testing.assert_allclose(
            ch.sigma_worst, _sigma_max(sub.usubs(ch.wcgain.worst), w), rtol=1e-9
        )
        # the curve reaches the worst-case lower bound at the critical frequency (on the
        # grid when positive; the DC gain otherwise)
        wc = ch.wcgain
        if wc.critical_frequency > 0:
            k = np.argmin(abs(w - wc.critical_frequency))
            assert w[k] == wc.critical_frequency
            assert ch.sigma_worst[k] == pytest.approx(wc.lower, rel=1e-6)
        else:
            dc = _sigma_max(sub.usubs(wc.worst), [0.0])[0]
            assert dc == pytest.approx(wc.lower, rel=1e-6)
            assert ch.sigma_worst.max() <= wc.lower * (1 + 1e-9)


def test_figures_show_the_analysis_data(mimo_report):
    res = mimo_report.analysis
    figs = report_figures(res)
    assert list(figs) == [
        "overview",
        "margins",
        "mu_bounds",
        "singular_values",
        "histograms",
        "sensitivity",
    ]
    upper_line = figs["mu_bounds"].axes[0].get_lines()[0]
    mu = res.robstab.mu
    order = np.argsort(mu.omega)
    keep = mu.omega[order] > 0
    np.testing.assert_array_equal(upper_line.get_xdata(), mu.omega[order][keep])
    np.testing.assert_array_equal(upper_line.get_ydata(), mu.mu_upper[order][keep])
    (sv_ax,) = figs["singular_values"].axes
    labels = [ln.get_label() for ln in sv_ax.get_lines()]
    assert "nominal" in labels and "worst case found" in labels
    assert labels.count("12 stable random samples") == 1
    bars = figs["sensitivity"].axes[0].patches
    assert sorted(p.get_width() for p in bars) == pytest.approx(
        sorted(res.robstab.sensitivity.values())
    )
    table = figs["margins"].axes[0].tables[0]
    texts = [c.get_text().get_text() for c in table.get_celld().values()]
    assert "Robust stability margin" in texts
    for key, path in mimo_report.figure_paths.items():
        assert path.name == f"{key}.png" and path.read_bytes()[:4] == b"\x89PNG"


def test_html_is_self_contained(mimo_report):
    page = mimo_report.html_path.read_text()
    res = mimo_report.analysis
    # no external resources: every src is a data URI, the only link is the JSON beside it
    assert re.findall(r'src="(?!data:)', page) == []
    assert re.findall(r'href="([^"]+)"', page) == ["summary.json"]
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    on_disk = {p.read_bytes() for p in mimo_report.figure_paths.values()}
    assert len(embedded) == 4 and all(base64.b64decode(d) in on_disk for d in embedded)
    # the tables carry the analysis numbers
    # (bounds printed outwards: the interval shown contains the bounds)
    wc = res.channels[0].wcgain
    for lo, hi in ((res.robstab.lower, res.robstab.upper), (wc.lower, wc.upper)):
        assert f"[{fmt_lower(lo)}, {fmt_upper(hi)}]" in page
        assert Fraction(fmt_lower(lo)) <= Fraction(lo) and Fraction(fmt_upper(hi)) >= Fraction(hi)
        assert float(fmt_lower(lo)) == pytest.approx(lo, rel=1e-3)
    for name, v in res.robstab.destabilizing.items():
        assert f"<td>{name}</td>" in page and f"{v:.6g}" in page


def _chromium():
    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium not installed")
def test_report_renders_in_headless_chromium(mimo_report, tmp_path):
    shot = tmp_path / "page.png"
    cmd = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--screenshot={shot}",
        "--window-size=1200,3000",
        mimo_report.html_path.as_uri(),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert shot.exists(), res.stderr[-2000:]
    img = imread(shot)[..., :3]
    assert img.shape[:2] == (3000, 1200)
    # The embedded figures were decoded and drawn: their line colours (matplotlib C0
    # blue and C3 red, used by no text or table style of the page) cover many pixels.
    blue = np.all(np.abs(img - [0.122, 0.467, 0.706]) < 0.06, axis=-1).sum()
    red = np.all(np.abs(img - [0.839, 0.153, 0.157]) < 0.06, axis=-1).sum()
    assert blue > 300 and red > 300
    # and text was laid out (dark pixels), so it is not a blank or error page
    assert (img.mean(axis=-1) < 0.3).sum() > 2000
