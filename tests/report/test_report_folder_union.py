"""A report folder never mixes two runs of different robustmb writers.

The worst-case report writes ``report.html``, ``summary.json`` and ``figures/``; the arm
replay (``robustmb demo``) ``report.html``, ``report.md`` and ``summary.json``.  Both
default to ``./robustmb-report``: a new run removes the entries of any robustmb writer
that it does not write itself, and keeps the user's other files.
"""

import json

import control
import pytest

import robustmb as rmb
from robustmb.report.arm_certificate import _write_together
from robustmb.report.writer import REPORT_NAMES, worst_case_report


def _loop():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    return 1 / (s * s + c * s + 1)


def _demo_run(out, tag):
    _write_together(
        out,
        {
            "report.html": f"<p>run {tag}</p>",
            "report.md": f"# run {tag}\n",
            "summary.json": json.dumps({"run": tag}),
        },
    )


@pytest.mark.parametrize("foreign", [False, True])
def test_runs_of_two_writers_do_not_mix(tmp_path, foreign):
    out = tmp_path / "robustmb-report"
    _demo_run(out, "A")
    if foreign:  # a file of the user's: kept by every run
        (out / "notes.txt").write_text("mine")
    worst_case_report(_loop(), {}, out_dir=out, n_samples=2)
    names = {p.name for p in out.iterdir()}
    assert names == {"report.html", "summary.json", "figures"} | (
        {"notes.txt"} if foreign else set()
    )
    assert "run A" not in (out / "report.html").read_text()
    _demo_run(out, "C")
    names = {p.name for p in out.iterdir()}
    assert names == {"report.html", "report.md", "summary.json"} | (
        {"notes.txt"} if foreign else set()
    )
    assert json.loads((out / "summary.json").read_text()) == {"run": "C"}
    if foreign:
        assert (out / "notes.txt").read_text() == "mine"
    # no temporary or old folder is left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robustmb-report"]


def test_the_union_holds_every_name_the_writers_produce():
    assert {"report.html", "report.md", "summary.json", "figures"} <= REPORT_NAMES
