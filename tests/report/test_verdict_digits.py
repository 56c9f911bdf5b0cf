"""At the edge of a specification the printed numbers show the verdict: a passing upper
bound is never printed above the specification, a failing lower bound never at or below it,
and the specification is printed as given (it was rounded to 4 digits: "peak gain <= 1",
"[0.99, 1.001]", PASS for the specification 1.00004 and the certified bound 1.00002)."""

import dataclasses
import io
import re
from pathlib import Path
from types import SimpleNamespace

import control
import pytest

import robustmb as rmb
from robustmb.cli._common import print_summary
from robustmb.report import worst_case_analysis
from robustmb.report.figures import margin_rows
from robustmb.report.html import channel_rows

NUM = r"([-+0-9.e]+)"


@pytest.fixture(scope="module")
def first_order():
    """``k / (s + 1)``, ``k`` in [0.5, 1]: peak gain ``k`` at DC."""
    k = rmb.ureal("k", 0.75, range=(0.5, 1.0))
    G = rmb.uss(k / (control.tf("s") + 1))
    G.input_names, G.output_names = ["u"], ["y"]
    return worst_case_analysis(G, {"g": ("y", "u")}, n_samples=0)


# (lower, upper, spec, verdict): each bound within 1e-4 of the specification
EDGES = [
    (0.99, 1.00002, 1.00004, "pass"),
    (1.00001, 1.00003, 1.0, "fail"),
    (0.99, 1.00004, 1.00004, "pass"),  # met exactly
    (1.00004, 1.00009, 1.00004, "inconclusive"),  # the lower bound on the specification
    (0.99995, 1.00003, 1.0, "inconclusive"),
]


def _edge(res, lower, upper, spec):
    (ch,) = res.channels
    wc = dataclasses.replace(ch.wcgain, lower=lower, upper=upper, certified=True)
    ch = dataclasses.replace(ch, wcgain=wc, spec=spec, nominal_peak=0.5)
    return dataclasses.replace(res, channels=[ch])


def _check(text_spec, text_lo, text_up, lower, upper, spec, verdict):
    assert float(text_spec) == spec  # the specification as given
    lo, up = float(text_lo), float(text_up)  # as a reader's float reads them
    assert lo <= lower and up >= upper  # still bounds
    if verdict == "pass":
        assert up <= spec
    elif verdict == "fail":
        assert lo > spec
    else:
        assert lo <= spec < up


@pytest.mark.parametrize("lower, upper, spec, verdict", EDGES)
def test_printed_bounds_show_the_verdict(first_order, lower, upper, spec, verdict):
    res = _edge(first_order, lower, upper, spec)
    assert res.channels[0].verdict == verdict
    # the HTML table
    (row,) = channel_rows(res)[1]
    t_spec = re.fullmatch(r"peak gain ≤ " + NUM, row[2]).group(1)
    t_lo, t_up = re.match(r"\[" + NUM + ", " + NUM + r"\]", row[5]).groups()
    _check(t_spec, t_lo, t_up, lower, upper, spec, verdict)
    # the margins table of the figures
    rows = dict(margin_rows(res))
    t_lo, t_up = re.match(
        r"\[" + NUM + ", " + NUM + r"\]", rows["g: worst-case peak gain"]
    ).groups()
    (t_spec,) = [k.rsplit(" ", 1)[1] for k in rows if k.startswith("g: specification")]
    _check(t_spec, t_lo, t_up, lower, upper, spec, verdict)
    # the command line's summary
    out = io.StringIO()
    print_summary(
        SimpleNamespace(analysis=res, html_path=Path("r.html"), json_path=Path("s.json")), out
    )
    line = [ln for ln in out.getvalue().splitlines() if "g: worst-case peak gain" in ln][0]
    t_lo, t_up = re.search(r"\[" + NUM + ", " + NUM + r"\]", line).groups()
    t_spec = re.search(r"spec <= " + NUM + ":", line).group(1)
    _check(t_spec, t_lo, t_up, lower, upper, spec, verdict)
    # the conclusions
    (text,) = [c for c in res.conclusions() if c.startswith("g: ")]
    assert re.search(r"specification " + NUM, text).group(1).rstrip(".") in (
        t_spec,
        t_spec + ".",
    )
    if verdict == "pass":
        t_up = re.search(r"at most " + NUM + ",", text).group(1)
        assert float(t_up) <= spec
    if verdict == "fail":
        t_lo = re.search(r"at least " + NUM, text).group(1)
        assert float(t_lo) > spec
