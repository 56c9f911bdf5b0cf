"""Loop margins in the report: equal to a direct wcdiskmargin call and to closed forms.

``L = k * 2 / (s + 1)^2`` with ``k`` in ``[0.5, 2]``.  With a symmetric disk (skew 0)
the disk margin is ``1 / max_w |S - 1/2| = 2 min_w |1 + L| / |1 - L|``; its gain
margin is ``[(1 - a/2) / (1 + a/2), (1 + a/2) / (1 - a/2)]`` and its phase margin
``2 atan(a / 2)``.  Both are evaluated here on a dense grid, sharing no code with
``diskmargin``.
"""

import json

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.analysis.worst_case_disk_margin import wcdiskmargin
from robustmb.report import worst_case_report

W = np.logspace(-3, 3, 200001)


def brute_disk_margin(k):
    L = 2 * k / (1j * W + 1) ** 2
    return float(2 * np.min(np.abs(1 + L) / np.abs(1 - L)))


def gain_phase(a):
    gmin = (1 - a / 2) / (1 + a / 2)
    return [gmin, 1 / gmin], float(np.degrees(2 * np.arctan(a / 2)))


@pytest.fixture(scope="module")
def margins_report(tmp_path_factory):
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    s = control.tf("s")
    L = k * 2 / (s + 1) ** 2
    closed = rmb.feedback(L, 1)
    closed.input_names, closed.output_names = ["r"], ["y"]
    out = tmp_path_factory.mktemp("margins")
    rep = worst_case_report(
        closed, {}, out_dir=out, n_samples=0, loop=L, loop_description="the plant input"
    )
    return rep, L


def test_margins_equal_a_direct_call(margins_report):
    rep, L = margins_report
    direct = wcdiskmargin(L)
    wm = rep.analysis.margins
    assert (wm.lower, wm.upper, wm.frequency, wm.certified) == (
        direct.lower,
        direct.upper,
        direct.frequency,
        direct.certified,
    )
    data = json.loads(rep.json_path.read_text())["loop_margins"]
    assert data["loop"] == "the plant input"
    assert data["nominal"]["disk_margin"] == direct.nominal.multiloop.alpha
    assert data["worst_case"]["disk_margin"] == direct.lower
    assert data["at_worst_values"]["disk_margin"] == direct.upper
    assert data["at_worst_values"]["values"] == {"k": pytest.approx(direct.worst["k"])}


def test_margins_match_the_closed_form(margins_report):
    rep, _ = margins_report
    data = json.loads(rep.json_path.read_text())["loop_margins"]
    nominal = brute_disk_margin(1.0)
    # the margin shrinks as k grows: the worst case is k = 2
    worst = min(brute_disk_margin(k) for k in np.linspace(0.5, 2.0, 31))
    assert worst == pytest.approx(brute_disk_margin(2.0), rel=1e-12)
    assert data["nominal"]["disk_margin"] == pytest.approx(nominal, rel=1e-5)
    assert data["worst_case"]["disk_margin"] <= worst * (1 + 1e-9)  # certified: never above
    assert data["worst_case"]["disk_margin"] >= worst * (1 - 0.02)
    assert data["at_worst_values"]["disk_margin"] == pytest.approx(worst, rel=1e-5)
    for key in ("nominal", "worst_case", "at_worst_values"):
        d = data[key]
        gm, pm = gain_phase(d["disk_margin"])
        assert d["gain_margin"] == pytest.approx(gm, rel=1e-9)
        assert d["gain_margin_db"] == pytest.approx(list(20 * np.log10(gm)), rel=1e-9)
        assert d["phase_margin_deg"] == pytest.approx(pm, rel=1e-9)
    page = rep.html_path.read_text()
    assert "Loop margins: disk, gain and phase" in page and "the plant input" in page
    assert f"±{gain_phase(data['nominal']['disk_margin'])[1]:.3g}°" in page
