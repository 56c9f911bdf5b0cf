"""Per-channel specification verdicts and the robust-performance headline.

Closed forms: for ``1 / (s^2 + c s + 1)`` with ``c`` in ``[0.5, 1.5]`` the nominal
peak gain is ``1 / (2 z sqrt(1 - z^2))`` at ``z = 0.5`` (1.1547) and the worst case
is the same at ``z = 0.25`` (2.0656).  A specification between them passes
nominally and fails robustly.
"""

import dataclasses
import itertools
import json

import numpy as np
import pytest
from report_loops import resonance_peak, second_order

from robustmb.errors import ArgumentError
from robustmb.report import worst_case_analysis, worst_case_report
from robustmb.report.html import render_html
from robustmb.report.verdicts import VERDICT_ORDER, gain_verdict, worst_verdict

NOMINAL = resonance_peak(1.0)[0]
WORST = resonance_peak(0.5)[0]


@pytest.fixture(scope="module")
def three_specs():
    """The oscillator's channel checked against three specifications at once."""
    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    channels = {
        "loose": ("y", "r", 3.0),  # above the worst case: pass
        "middle": ("y", "r", 1.5),  # between nominal and worst case
        "tight": ("y", "r", 1.0),  # below the nominal peak
    }
    return worst_case_analysis(loop, channels, n_samples=5, seed=0)


def test_channel_verdicts_follow_the_closed_form(three_specs):
    ch = {c.name: c for c in three_specs.channels}
    assert 1.0 < NOMINAL < 1.5 < WORST < 3.0  # the closed forms place the specs
    assert [ch[k].spec for k in ("loose", "middle", "tight")] == [3.0, 1.5, 1.0]
    assert (ch["loose"].nominal_verdict, ch["loose"].verdict) == ("pass", "pass")
    assert (ch["middle"].nominal_verdict, ch["middle"].verdict) == ("pass", "fail")
    assert (ch["tight"].nominal_verdict, ch["tight"].verdict) == ("fail", "fail")
    # robustly stable, yet robust performance fails: the headline follows the worst channel
    assert three_specs.verdict == "robustly stable"
    assert three_specs.performance_verdict == "fail"
    head = three_specs.headline()
    assert head.startswith("Robust performance NOT met") and "middle, tight" in head


def test_headline_is_never_greener_than_any_part(three_specs):
    """Every combination of stability and channel verdicts: the headline is the worst."""
    ch = three_specs.channels[0]
    rs = three_specs.robstab
    stab = {  # (lower, upper, certified) giving each stability verdict
        "pass": dict(lower=2.0, upper=2.0, certified=True),
        "fail": dict(lower=0.5, upper=0.6, certified=True),
        "inconclusive": dict(lower=0.9, upper=1.1, certified=True),
    }
    gains = {  # (lower, upper) against spec 1
        "pass": (0.5, 0.9),
        "fail": (1.2, 1.3),
        "inconclusive": (0.9, 1.1),
    }
    for s, c1, c2 in itertools.product(VERDICT_ORDER, repeat=3):
        chans = [
            dataclasses.replace(
                ch,
                name=f"c{i}",
                spec=1.0,
                # no realised gain above the worst case found decides the verdict here
                nominal_peak=0.4,
                sampled_peaks=np.full(ch.sampled_peaks.shape, 0.45),
                wcgain=dataclasses.replace(
                    ch.wcgain, lower=gains[v][0], upper=gains[v][1], certified=True
                ),
            )
            for i, v in enumerate((c1, c2))
        ]
        res = dataclasses.replace(
            three_specs, robstab=dataclasses.replace(rs, **stab[s]), channels=chans
        )
        assert res.stability_verdict == s and [c.verdict for c in chans] == [c1, c2]
        expected = max((s, c1, c2), key=VERDICT_ORDER.index)
        assert res.performance_verdict == expected
        word = {"pass": "met", "fail": "NOT met", "inconclusive": "inconclusive"}[expected]
        assert res.headline().startswith(f"Robust performance {word}")
        page = render_html(res, {})
        css = {"pass": "ok", "fail": "bad", "inconclusive": "unknown"}[expected]
        assert f'<div class="verdict {css}" id="headline">' in page
        # the headline is the first verdict box on the page
        first = page.index('<div class="verdict', page.index("</h1>"))
        assert page[first:].startswith(f'<div class="verdict {css}" id="headline">')
        # no other verdict-styled box: a green stability part never reads as the verdict
        assert (
            page.count('<div class="verdict ')
            - page.count('<div class="verdict unknown"><b>Bound gap')
            == 1
        )
        body = page[page.index("</h1>") :]
        assert ('class="verdict ok"' in body) == (expected == "pass")


def test_gain_verdict_rules():
    assert gain_verdict(0.5, 0.99, True, 1.0) == "pass"
    assert gain_verdict(0.5, 0.99, False, 1.0) == "inconclusive"  # bound not certified
    assert gain_verdict(1.0, 1.0, True, 1.0) == "pass"  # spec is "<="
    assert gain_verdict(1.0 + 1e-12, 2.0, False, 1.0) == "fail"
    assert gain_verdict(0.5, float("inf"), True, 1.0) == "inconclusive"
    assert worst_verdict(["pass", "fail", "inconclusive"]) == "fail"


def test_summary_and_page_carry_specs_and_verdicts(tmp_path):
    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    rep = worst_case_report(loop, {"middle": ("y", "r", 1.5)}, out_dir=tmp_path / "r", n_samples=0)
    data = json.loads(rep.json_path.read_text())
    (c,) = data["channels"]
    assert c["specification"] == {"max_peak_gain": 1.5}
    assert (c["nominal_verdict"], c["verdict"]) == ("pass", "fail")
    assert c["nominal_peak"] == pytest.approx(NOMINAL, rel=1e-8)
    assert c["worst_case"]["lower"] == pytest.approx(WORST, rel=1e-6)
    rp = data["robust_performance"]
    assert rp["verdict"] == "fail" and rp["stability_verdict"] == "pass"
    assert rp["channel_verdicts"] == {"middle": "fail"}
    # The top-level verdict is the overall one; stability's own under robust_stability.
    assert data["verdict"] == "fail"
    assert data["robust_stability"]["verdict"] == "robustly stable"
    page = rep.html_path.read_text()
    assert page.index("Robust performance NOT met") < page.index("Robustly stable.")
    assert "peak gain ≤ 1.5" in page and '<td class="fail">FAIL</td>' in page


def test_bad_specification_is_named():
    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    for bad in (0.0, -1.0, "1", float("nan"), True):
        with pytest.raises(ArgumentError, match="channel 'x': the specification"):
            worst_case_analysis(loop, {"x": ("y", "r", bad)}, n_samples=0)
