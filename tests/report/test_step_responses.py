"""Step responses in the report: overshoots equal the closed form of a second-order system.

``1 / (s^2 + c s + 1)`` with ``c`` in ``[0.5, 1.5]``: damping ``z = c / 2``, overshoot
``100 exp(-z pi / sqrt(1 - z^2))`` %, final value 1.  The worst case of the gain
channel is ``c = 0.5`` (``z = 0.25``, 44.4 %); the nominal ``c = 1`` (``z = 0.5``, 16.3 %).
"""

import json

import numpy as np
import pytest
from report_loops import second_order

from robustmb.report import worst_case_report


def overshoot_closed_form(c):
    z = c / 2
    return 100 * np.exp(-z * np.pi / np.sqrt(1 - z * z))


@pytest.fixture(scope="module")
def step_report(tmp_path_factory):
    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    out = tmp_path_factory.mktemp("step")
    return worst_case_report(loop, None, out_dir=out, n_samples=6, seed=2, step=(["y"], ["r"]))


def test_overshoots_match_the_closed_form(step_report):
    data = json.loads(step_report.json_path.read_text())["step_response"]
    assert data["outputs"] == ["y"] and data["inputs"] == ["r"]
    assert data["worst_case_of"] == "r -> y"
    assert data["worst_values"]["c"] == pytest.approx(0.5, abs=1e-9)
    (m,) = data["metrics"]
    assert m["final_nominal"] == pytest.approx(1.0, rel=1e-12)
    assert m["final_worst"] == pytest.approx(1.0, rel=1e-12)
    # the time grid samples the peak: error of second order in the step, well below 1e-3
    assert m["overshoot_nominal"] == pytest.approx(overshoot_closed_form(1.0), rel=1e-3)
    assert m["overshoot_worst"] == pytest.approx(overshoot_closed_form(0.5), rel=1e-3)
    assert m["peak_worst"] == pytest.approx(1 + overshoot_closed_form(0.5) / 100, rel=1e-4)
    assert m["peak_nominal"] == pytest.approx(1 + overshoot_closed_form(1.0) / 100, rel=1e-4)


def test_step_figure_draws_nominal_samples_and_worst(step_report):
    a = step_report.analysis
    assert "step" in step_report.figure_paths and step_report.figure_paths["step"].exists()
    from robustmb.report.figures import step_figure

    fig = step_figure(a)
    (ax,) = fig.axes
    lines = ax.get_lines()
    # 6 samples + nominal + worst case, each on the report's time grid
    assert len(lines) == 6 + 2
    assert all(np.array_equal(line.get_xdata(), a.step.time) for line in lines)
    ydata = {tuple(np.round(line.get_ydata()[-3:], 12)) for line in lines}
    assert tuple(np.round(a.step.nominal[0, 0, -3:], 12)) in ydata
    assert tuple(np.round(a.step.worst[0, 0, -3:], 12)) in ydata
    page = step_report.html_path.read_text()
    assert "<h2>Step responses</h2>" in page and "6 random samples (seed 2)" in page
    o = a.step.metrics()[0]["overshoot_worst"]
    assert f"{o:.3g} %" in page
