"""A channel's robust verdict uses every realised gain; given certificates are checked.

Closed form: ``1 / (s^2 + c s + 1)`` with ``c`` in ``[0.5, 1.5]`` has the peak gain
``1 / (c sqrt(1 - c^2 / 4))``: 1.1547 at the nominal ``c = 1`` and 2.0656 at ``c = 0.5``.
On the grid ``{0.1, 10}`` rad/s the gains are small (about 1.01), so a verdict from
``wcgain(omega=...)`` alone would miss the resonance that the nominal peak and the
Monte Carlo peaks (whole-axis H-infinity norms) show.
"""

import dataclasses
import json

import control
import numpy as np
import pytest
from report_loops import resonance_peak

import robustmb as rmb
from robustmb.errors import ArgumentError
from robustmb.report import worst_case_analysis, worst_case_report
from robustmb.report.figures import mu_caption
from robustmb.report.html import render_html
from robustmb.report.interactive import channel_chart

NOMINAL = resonance_peak(1.0)[0]
WORST = resonance_peak(0.5)[0]
GRID = [0.1, 10.0]


def _grid_gain(c):
    """Largest ``|1 / ((j w)^2 + c j w + 1)|`` over :data:`GRID` (closed form)."""
    return max(1 / abs(complex(1 - w * w, c * w)) for w in GRID)


def _loop():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    loop = rmb.uss(1 / (s * s + c * s + 1))
    loop.input_names, loop.output_names = ["u"], ["y"]
    return loop


@pytest.fixture(scope="module")
def on_grid():
    """The analysis restricted to two frequencies, with specification 1.1."""
    return worst_case_analysis(_loop(), {"g": ("y", "u", 1.1)}, omega=GRID, n_samples=20)


def test_nominal_peak_above_the_spec_fails_on_a_grid(on_grid):
    (ch,) = on_grid.channels
    assert ch.nominal_peak == pytest.approx(NOMINAL, rel=1e-6) and NOMINAL > 1.1
    # the grid bounds stay below the spec: they alone would not decide
    assert not ch.wcgain.certified
    assert ch.wcgain.lower == pytest.approx(_grid_gain(0.5), rel=1e-6) and ch.wcgain.lower < 1.1
    # every sampled peak is a whole-axis norm, below the closed-form worst case
    c_values = np.array([v["c"] for v in on_grid.sample_values])
    expected = [resonance_peak(c)[0] for c in c_values]
    np.testing.assert_allclose(ch.sampled_peaks, expected, rtol=1e-6)
    assert ch.worst_found == pytest.approx(max(expected + [NOMINAL]), rel=1e-9)
    assert ch.worst_found <= WORST * (1 + 1e-9)
    assert ch.verdict == "fail" and on_grid.performance_verdict == "fail"
    assert on_grid.headline().startswith("Robust performance NOT met")


def test_grid_analysis_is_never_called_certified(on_grid):
    text = " ".join(on_grid.conclusions())
    assert "given frequencies" in text and "nothing is certified over the frequency axis" in text
    page = render_html(on_grid, {})
    assert "Given frequencies only." in page
    assert "Lower bounds are certified over the whole frequency axis" not in page
    assert "(given frequencies only, not certified)" in page
    assert "not certified over the axis" in mu_caption(on_grid)
    assert "peak certified over the whole frequency axis" not in mu_caption(on_grid)
    labels = [c["label"] for c in channel_chart(on_grid, on_grid.channels[0])["series"]]
    assert any(lb.startswith("upper bound (not certified)") for lb in labels)
    assert not any(lb.startswith("worst-case bound") for lb in labels)
    data = on_grid.summary()
    assert data["analysis_frequencies"] == GRID
    assert data["channels"][0]["worst_case"]["certified"] is False
    # a spec above every realised gain: still not a pass on a grid
    loose = dataclasses.replace(on_grid.channels[0], spec=3.0)
    assert loose.verdict == "inconclusive"
    assert "no upper bound is certified over the frequency axis" in " ".join(
        dataclasses.replace(on_grid, channels=[loose]).conclusions()
    )


def test_whole_axis_report_states_whole_axis():
    res = worst_case_analysis(_loop(), {"g": ("y", "u", 3.0)}, n_samples=0)
    assert res.frequencies is None and res.summary()["analysis_frequencies"] == "whole axis"
    assert res.channels[0].verdict == "pass"  # 2.0656 < 3, certified
    page = render_html(res, {})
    assert "Given frequencies only." not in page


def test_sampled_and_unstable_peaks_count_as_failures(on_grid):
    ch = on_grid.channels[0]
    base = dataclasses.replace(
        ch,
        spec=1.5,
        nominal_peak=1.0,
        wcgain=dataclasses.replace(ch.wcgain, lower=1.2, upper=1.4, certified=True),
    )
    assert dataclasses.replace(base, sampled_peaks=np.array([1.1, 1.3])).verdict == "pass"
    above = dataclasses.replace(base, sampled_peaks=np.array([1.1, 1.6]))
    assert above.verdict == "fail" and above.worst_found_source == "sample"
    unstable = dataclasses.replace(base, sampled_peaks=np.array([1.1, np.inf]))
    assert unstable.verdict == "fail" and unstable.worst_found_source == "unstable sample"
    nominal = dataclasses.replace(base, nominal_peak=1.7, sampled_peaks=np.zeros(0))
    assert nominal.verdict == "fail" and nominal.worst_found_source == "nominal"
    res = dataclasses.replace(on_grid, channels=[above])
    assert "(a Monte Carlo sample)" in " ".join(res.conclusions())


def test_certificate_of_another_system_is_refused(monkeypatch):
    from robustmb.report import worst_case

    loop = _loop()
    other = rmb.wcgain(0.1 * loop)
    assert other.lower == pytest.approx(0.1 * WORST, rel=1e-6)

    def robstab_must_not_run(*args, **kwargs):  # refused before the long analyses
        raise AssertionError("robstab ran")

    monkeypatch.setattr(worst_case, "robstab", robstab_must_not_run)
    with pytest.raises(ArgumentError, match=r"certificates\['g'\]: not a wcgain result"):
        worst_case_analysis(loop, {"g": ("y", "u", 1.0)}, n_samples=0, certificates={"g": other})


def test_certificate_of_the_channel_is_used_and_a_misspelt_key_is_named():
    loop = _loop()
    own = rmb.wcgain(loop)
    assert own.lower == pytest.approx(WORST, rel=1e-6)
    res = worst_case_analysis(loop, {"g": ("y", "u", 3.0)}, n_samples=3, certificates={"g": own})
    assert res.channels[0].wcgain is own and res.channels[0].verdict == "pass"
    with pytest.raises(ArgumentError, match=r"unknown channel 'G'; the channels are \['g'\]"):
        worst_case_analysis(loop, {"g": ("y", "u")}, n_samples=0, certificates={"G": own})
    with pytest.raises(ArgumentError, match=r"certificates\['g'\] must be a wcgain result"):
        worst_case_analysis(loop, {"g": ("y", "u")}, n_samples=0, certificates={"g": 1.0})
    # a forged bound: claimed worst values whose gain is not the lower bound
    forged = dataclasses.replace(own, lower=1.5, upper=1.6)
    with pytest.raises(ArgumentError, match="substituting its worst values gives the peak gain"):
        worst_case_analysis(loop, {"g": ("y", "u")}, n_samples=0, certificates={"g": forged})


@pytest.mark.parametrize("seed", [-1, "x", 1.5, True, None])
def test_bad_seed_is_named_before_the_analysis(seed):
    with pytest.raises(ArgumentError, match="seed"):
        worst_case_analysis(_loop(), {}, n_samples=2, seed=seed)


@pytest.mark.parametrize("bad", [float("inf"), np.inf])
def test_infinite_specification_is_refused(bad):
    with pytest.raises(ArgumentError, match="positive finite number"):
        worst_case_analysis(_loop(), {"g": ("y", "u", bad)}, n_samples=0)


def test_written_summary_carries_the_evidence(tmp_path, on_grid):
    rep = worst_case_report(
        _loop(), {"g": ("y", "u", 1.1)}, out_dir=tmp_path / "r", omega=GRID, n_samples=20
    )
    data = json.loads(rep.json_path.read_text())
    (c,) = data["channels"]
    assert c["verdict"] == "fail" and data["verdict"] == "fail"
    assert c["largest_gain_found"]["value"] == pytest.approx(on_grid.channels[0].worst_found)


def test_table_and_printed_summary_show_the_realised_gain(on_grid, tmp_path):
    import contextlib
    import io

    from robustmb.cli import print_summary
    from robustmb.report.html import channel_rows
    from robustmb.report.writer import WorstCaseReport

    (row,) = channel_rows(on_grid)[1]
    top = on_grid.channels[0].worst_found
    assert top > on_grid.channels[0].wcgain.lower
    assert "realised" in row[5] and row[7] == "FAIL"
    out = io.StringIO()
    rep = WorstCaseReport(on_grid, tmp_path / "report.html", tmp_path / "summary.json", {})
    with contextlib.redirect_stdout(out):
        print_summary(rep)
    line = next(ln for ln in out.getvalue().splitlines() if ln.strip().startswith("g:"))
    assert "largest gain realised" in line and line.endswith("nominal fail, robust fail")
