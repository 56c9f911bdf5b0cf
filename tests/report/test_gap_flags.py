"""The report flags bound gaps above 2 % instead of presenting a weak worst case as the worst."""

import dataclasses

import control
import numpy as np

import robustmb as rmb
from robustmb.report.analysis_result import GAP_FLAG
from robustmb.report.html import render_html
from robustmb.report.worst_case import worst_case_analysis


def _analysis():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    return worst_case_analysis(1 / (s * s + c * s + 1), channels=None, n_samples=0)


def test_tight_bounds_raise_no_flag():
    a = _analysis()
    rs, wc = a.robstab, a.channels[0].wcgain
    assert rs.upper <= rs.lower * (1 + GAP_FLAG) and wc.upper <= wc.lower * (1 + GAP_FLAG)
    assert a.flags() == [] and a.summary()["flags"] == []
    assert "Bound gap" not in render_html(a, {})


def test_wide_gap_and_missing_upper_are_flagged():
    a = _analysis()
    ch = a.channels[0]
    wide = dataclasses.replace(ch.wcgain, upper=ch.wcgain.lower * 2.5)
    a.channels[0] = dataclasses.replace(ch, wcgain=wide)
    a.robstab = dataclasses.replace(a.robstab, upper=np.inf)
    flags = a.flags()
    assert len(flags) == 2
    assert "upper = inf" in flags[0] and "150 %" in flags[1]
    assert a.summary()["flags"] == flags
    assert render_html(a, {}).count("Bound gap") == 2
