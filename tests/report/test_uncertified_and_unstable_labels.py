"""Uncertified bounds and unstable samples are labelled as such in every printed place.

- A worst-case disk margin with lower bound 0 and no certificate guarantees nothing:
  it is flagged, and neither the conclusions nor the page call it a certified bound.
  Reference: on ``L = 2 k / (s + 1)^2``, ``k`` in ``[0.5, 2]``, the true worst-case disk
  margin (``2 min_w |1 + L| / |1 - L|`` on a dense grid, minimised over ``k``) is
  positive, so "worst case 0, certified" would be false in the other direction too.
- Monte Carlo statistics of peak gains are of the stable samples (an unstable sample's
  peak gain is infinite) and say so, with the number of unstable ones.  Reference:
  ``s^2 + c s + 1`` is stable iff ``c > 0`` (Routh).
"""

import contextlib
import dataclasses
import io

import control
import numpy as np
import pytest
from report_loops import second_order

import robustmb as rmb
from robustmb.report import worst_case_analysis
from robustmb.report.html import render_html

W = np.logspace(-3, 3, 20001)


@pytest.fixture(scope="module")
def with_margins():
    k = rmb.ureal("k", 1.0, range=(0.5, 2.0))
    s = control.tf("s")
    L = k * 2 / (s + 1) ** 2
    closed = rmb.feedback(L, 1)
    closed.input_names, closed.output_names = ["r"], ["y"]
    return worst_case_analysis(closed, {}, n_samples=0, loop=L)


def test_zero_lower_bound_without_certificate_is_flagged(with_margins):
    true = min(
        2 * np.min(np.abs(1 + 2 * k / (1j * W + 1) ** 2) / np.abs(1 - 2 * k / (1j * W + 1) ** 2))
        for k in np.linspace(0.5, 2.0, 61)
    )
    assert true > 0.1
    wm = dataclasses.replace(with_margins.margins, lower=0.0, certified=False)
    res = dataclasses.replace(with_margins, margins=wm)
    flags = res.flags()
    assert any("disk margin: not certified" in f and "guarantees no margin" in f for f in flags)
    text = " ".join(res.conclusions())
    assert "no margin is certified" in text and "at least 0 " not in text
    page = render_html(res, {})
    assert "worst-case column is NOT certified" in page
    assert "certified lower bound of wcdiskmargin" not in page
    # the genuine (certified) result raises no such flag
    assert not any("not certified" in f for f in with_margins.flags())


def test_monte_carlo_statistics_are_labelled_stable_samples():
    c = rmb.ureal("c", 1.0, range=(-0.5, 1.5))
    s = control.tf("s")
    loop = rmb.uss(1 / (s * s + c * s + 1))
    loop.input_names, loop.output_names = ["r"], ["y"]
    res = worst_case_analysis(loop, {"g": ("y", "r", 3.0)}, n_samples=24, seed=3)
    values = np.array([v["c"] for v in res.sample_values])
    n_stable = int(np.sum(values > 0))  # Routh
    assert 0 < n_stable < values.size
    (ch,) = res.channels
    assert int(np.sum(np.isfinite(ch.sampled_peaks))) == n_stable
    page = render_html(res, {})
    assert f"g: sampled peak gain of the {n_stable} stable samples" in page
    assert f"{values.size - n_stable} unstable (peak gain inf)" in page
    from robustmb.report.figures import margin_rows

    row = dict(margin_rows(res))["g: largest sampled peak gain"]
    assert row.startswith(f"inf ({values.size - n_stable} unstable samples)")


def test_printed_summary_labels_the_stable_samples(tmp_path):
    from robustmb.cli import print_summary
    from robustmb.report import worst_case_report

    loop = second_order(0.5, 1.5)
    loop.input_names, loop.output_names = ["r"], ["y"]
    rep = worst_case_report(loop, {"g": ("y", "r", 3.0)}, out_dir=tmp_path / "r", n_samples=5)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_summary(rep)
    assert "g: sampled peak gain of the 5 stable samples" in buf.getvalue()
