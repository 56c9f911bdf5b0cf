"""Step table of a report whose worst case is unstable: no final value, no overshoot.

``K / (s (s + 1)^2)`` in unit feedback, ``K`` in ``[0.5, 3]``: the closed loop
``s^3 + 2 s^2 + s + K`` is stable iff ``2 * 1 > K`` (Routh), so ``K = 3`` diverges
while the nominal ``K = 1.5`` settles at ``T(0) = 1``.
"""

import dataclasses

import control
import numpy as np
import pytest

import robustmb as rmb
from robustmb.report import worst_case_analysis
from robustmb.report.html import render_html
from robustmb.report.step_analysis import StepAnalysis


def _routh_stable(k):
    """Routh test of ``s^3 + 2 s^2 + s + k`` (all coefficients positive and 2 * 1 > k)."""
    return k > 0 and 2 * 1 > k


@pytest.fixture(scope="module")
def step():
    K = rmb.ureal("K", 1.5, range=(0.5, 3.0))
    s = control.tf("s")
    T = rmb.feedback(K / (s * (s + 1) ** 2), 1)
    T.input_names, T.output_names = ["r"], ["y"]
    t = np.linspace(0, 30, 601)

    def resp(g):
        return np.asarray(control.step_response(g, T=t).outputs).reshape(1, 1, -1)

    worst = {"K": 3.0}
    return StepAnalysis(["y"], ["r"], T, "T", worst, t, resp(T.nominal()), resp(T.usubs(worst)))


def test_unstable_worst_case_has_no_final_value_nor_overshoot(step):
    assert _routh_stable(1.5) and not _routh_stable(3.0)
    (m,) = step.metrics()
    assert m["stable_nominal"] and not m["stable_worst"]
    assert np.isnan(m["final_worst"]) and np.isnan(m["overshoot_worst"])
    assert m["final_nominal"] == pytest.approx(1.0, rel=1e-12)  # T(0) = K / K
    # the diverging response is not mistaken for a settled one
    assert abs(step.worst[0, 0, -1]) > 10


def test_html_step_table_says_unstable(step):
    loop = step.system
    base = worst_case_analysis(loop, {}, n_samples=0)
    page = render_html(dataclasses.replace(base, step=step), {})
    table = page[page.index("final value, nominal") :]
    table = table[: table.index("</table>")]
    assert "unstable (diverges)" in table
    assert "%" in table  # the nominal overshoot is still given
    assert "5.3e+06" not in table and "n/a" in table
