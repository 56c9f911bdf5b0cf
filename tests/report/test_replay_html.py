"""``robustmb demo`` writes report.html: its table, parsed with html.parser, holds the numbers
of summary.json; the shipped evidence is traced to the case study's checkpoints (design,
level, commits, certified keys, the whole square)."""

import hashlib
import json
import math
import os
import re
from fractions import Fraction

import numpy as np
import pytest
from _html_tables import number_cell as _number
from _html_tables import parse_tables as _parse
from _html_tables import table_rows as _rows
from _scripts import ROOT

from robustmb.report import arm_certificate
from robustmb.report.arm_certificate import (
    PartitionReplay,
    design_sha256,
    load_shipped_design,
    summary_text,
)
from robustmb.report.replay_html import render_replay_html

CHECKPOINTS = os.path.join(ROOT, "case_studies", "robotic_arm", "checkpoints")


@pytest.fixture
def demo_out(tmp_path, monkeypatch):
    """certified_demo with a synthetic replay (no arm re-check: the page is under test)."""
    from fractions import Fraction

    # tracking: rows 0 and 1 proven, as 15 whole cells and the 4 quarters of cell (1, 7)
    status = {(i, j): "proven" if i < 2 else "no evidence" for i in range(8) for j in range(8)}
    del status[(1, 7)]
    status.update({(1, 7, ((2, 2, a, b),)): "proven" for a in (0, 1) for b in (0, 1)})
    replays = {
        "tracking": PartitionReplay(
            "tracking", 0.95, 8, status, 16 / 64, 0.9312345678, {"t1": 0.5}, 412, 1584,
            coverage_exact=Fraction(1, 4), whole_cells=15, pieces=4,
            finest=(Fraction(1, 16), Fraction(1, 16)), square_worst=0.9354321,
            square_where={"t1": 0.6}, square_samples=528,
        ),
        "effort": PartitionReplay(
            "effort", np.nan, 4, {(i, j): "no evidence" for i in range(4) for j in range(4)},
            0.0, 13.0812345, {"t1": 0.7}, 0, 528, coverage_exact=Fraction(0),
            square_worst=13.0812345, square_samples=528,
        ),
    }  # fmt: skip
    monkeypatch.setattr(
        arm_certificate, "replay_partition", lambda values, meta, ev, **kw: replays[meta["channel"]]
    )
    arm_certificate.certified_demo(str(tmp_path))
    return tmp_path


def test_html_tables_hold_the_numbers_of_the_json(demo_out):
    summary = json.loads((demo_out / "summary.json").read_text())
    page = _parse(demo_out / "report.html")
    rows = _rows(page.tables["rechecked"])
    assert [a["data-channel"] for a, _ in rows] == list(summary["channels"])
    for attrs, cells in rows:
        ch = summary["channels"][attrs["data-channel"]]
        assert cells["specification"][0] == ch["specification"]
        _number(cells["certified level"], ch["certified_level"])
        _number(cells["certified share of the square (%)"], 100 * ch["certified_coverage"])
        _number(cells["frequencies re-checked"], ch["frequencies_rechecked"])
        _number(cells["sampled worst where not proven"], ch["not_proven_sampled_worst"])
        _number(cells["loops sampled"], ch["not_proven_samples"])
        _number(cells["sampled worst over the whole square"], ch["whole_square_sampled_worst"])
        _number(cells["loops sampled over the whole square"], ch["whole_square_samples"])
        _number(cells["proven whole cells"], ch["proven_whole_cells"])
        _number(cells["proven pieces"], ch["proven_pieces"])
        assert cells["certified share (exact)"][0] == ch["certified_coverage_exact"]
        assert cells["finest proven"][0] == (ch["finest_proven"] or "-")
        assert Fraction(ch["certified_coverage_exact"]) == ch["certified_coverage"]
        assert cells["verdict"][0] == ch["verdict"]
    # the synthetic replay's figures went through unchanged
    track = summary["channels"]["tracking W_e S"]
    assert (track["certified_level"], track["certified_coverage"]) == (0.95, 0.25)
    assert track["verdict"] == "not proven"  # 25 % proven, sampled worst below the spec
    assert track["certified_coverage_exact"] == "1/4"
    assert (track["proven_whole_cells"], track["proven_pieces"]) == (15, 4)
    assert track["finest_proven"] == "1/16 x 1/16 of the square"
    assert [1, 7, [[2, 2, 1, 1]]] in track["proven_sub_boxes"]
    assert track["worst_case_bracket"] == [0.9354321, None]  # not the whole square proven
    effort = summary["channels"]["effort W_T K S"]
    assert effort["verdict"] == "fail"  # 13.08 > 1 sampled
    assert effort["certified_coverage_exact"] == "0" and effort["finest_proven"] is None
    assert effort["worst_case_bracket"] == [13.0812345, None]
    # the headlines state the exact share, the pieces and the whole-square sample
    text = " ".join(page.text)
    assert "exactly 1/4 of its area (15 whole cells and 4 pieces, finest 1/16 x 1/16" in text
    assert "sampled over the whole square: worst 0.9354 (528 loops)" in text

    # one table: what this run re-checked (nothing stated that the run did not check)
    assert set(page.tables) == {"rechecked"}


def test_provenance_names_the_design_and_each_evidence_source(demo_out):
    """The summary, the page and the markdown trace the report to the design's values hash
    and to the partition records and commits each evidence folder was built from."""
    summary = json.loads((demo_out / "summary.json").read_text())
    values = load_shipped_design()["values"]
    assert summary["design_sha256"] == design_sha256(values)
    html = (demo_out / "report.html").read_text()
    md = (demo_out / "report.md").read_text()
    assert summary["design_sha256"] in html and summary["design_sha256"] in md
    for name, ch in summary["channels"].items():
        meta, _ = arm_certificate.load_evidence(
            arm_certificate.evidence_folders()[ch["evidence_folder"].split("_")[0]]
        )
        assert ch["evidence_built_from"] == meta["source"]
        assert ch["evidence_commits"] == sorted(set(meta["source_commits"]))
        assert f"{name}: evidence {ch['evidence_folder']}, built from {meta['source']}" in md
        for commit in ch["evidence_commits"]:
            assert commit[:12] in html and commit[:12] in md


def test_html_claims_no_more_than_the_replay(demo_out):
    page = _parse(demo_out / "report.html")
    text = " ".join(page.text)
    for _, cells in _rows(page.tables["rechecked"]):
        assert cells["verdict"][0] != "pass"
    assert "25.0 % of the (t1, t2) square (re-checked)" in text
    assert "a lower bound, not a proof" in text


def _checkpoint(name):
    path = os.path.join(CHECKPOINTS, name)
    with open(path, "rb") as fh:
        raw = fh.read()
    rec = json.loads(raw)
    n = int(re.match(r"(\d+) x (\d+) equal sub-boxes", rec["partition"]).group(1))
    return rec, n, hashlib.sha256(raw).hexdigest()


def _certified_area(recs):
    """Certified share of the square from the records' (t1, t2) ranges (exact on the finest
    grid of the whole cells; a split piece counts its own area), each point once."""
    lo1, hi1 = math.tan(math.radians(22.5)), math.tan(math.radians(45.0))
    lo2, hi2 = math.tan(math.radians(22.5)), math.tan(math.radians(67.5))
    fine = 1024  # every cell and piece of the checkpoints is a union of 1/1024 cells
    grid = np.zeros((fine, fine), bool)
    for rec in recs:
        for b in rec["sub_boxes"]:
            if b["status"] != "certified":
                continue
            (a1, b1), (a2, b2) = b["t_ranges"]
            i0, i1 = (round((v - lo1) / (hi1 - lo1) * fine) for v in (a1, b1))
            j0, j1 = (round((v - lo2) / (hi2 - lo2) * fine) for v in (a2, b2))
            grid[i0:i1, j0:j1] = True
    return Fraction(int(grid.sum()), fine * fine)


SHIPPED_SOURCES = {
    "tracking": [f"arm_lpv_guarded_certificate_tracking_100_{x}.json" for x in "abc"],
    "effort": ["arm_lpv_guarded_certificate_effort_103.json"],
}


@pytest.mark.parametrize("channel", ["tracking", "effort"])
def test_shipped_evidence_matches_the_checkpoints(channel):
    """The shipped evidence folder is of the checkpoints' partition records: the same design
    (file and values), level and commits, its claimed keys are exactly their certified
    records, and those cover the whole square (counted on a raster of the records' own
    (t1, t2) ranges, not by the replay's key arithmetic)."""
    meta, _ = arm_certificate.load_evidence(arm_certificate.evidence_folders()[channel])
    recs = [_checkpoint(name)[0] for name in SHIPPED_SOURCES[channel]]
    assert {r["channel"] for r in recs} == {channel}
    assert {r["gamma"] for r in recs} == {meta["gamma"]}
    assert meta["source_commits"] == [c for r in recs for c in (r.get("commits") or [r["commit"]])]
    done = [b for r in recs for b in r["sub_boxes"] if b["status"] == "certified"]
    keys = sorted(json.dumps(b["box"] + ([b["path"]] if "path" in b else [])) for b in done)
    assert keys == sorted(json.dumps(k) for k in meta["claimed_certified"])
    assert _certified_area(recs) == 1
    with open(os.path.join(CHECKPOINTS, "arm_lpv_guarded.json"), "rb") as fh:
        design_file = fh.read()
    assert hashlib.sha256(design_file).hexdigest() == meta["source_design_file_sha256"]
    assert {r["design_sha256"] for r in recs} == {meta["source_design_file_sha256"]}
    values = json.loads(design_file)["values"]
    assert design_sha256(values) == meta["design_sha256"]
    assert design_sha256(load_shipped_design()["values"]) == meta["design_sha256"]


def _headline_and_md(coverage, level):
    ch = {"specification": "peak gain <= 1", "certified_level": level,
          "certified_coverage": coverage, "frequencies_rechecked": 40, "partition": "8 x 8",
          "not_proven_sampled_worst": 0.94, "not_proven_samples": 100,
          "verdict": "not proven"}  # fmt: skip
    s = {"design": "d", "guarantee": "frozen parameters", "channels": {"tracking": ch}}
    page = render_replay_html(s)
    head = re.search(r'<div class="part[^"]*">(.*?)</div>', page).group(1)
    return head, summary_text(s)


def test_headline_rounds_the_certified_share_down():
    # 99.996 % certified is not the whole square: the headline must not show 100.0 %
    head, md = _headline_and_md(0.99996, 0.95)
    assert "99.9 % of the (t1, t2) square (re-checked)" in head
    assert "100.0" not in head and "100.0" not in md
    assert "on 99.9 % of the area" in md
    assert "not proven elsewhere" in head and "not proven on the rest" in md
    # a share that is exactly the printed decimal is printed as it is
    head, md = _headline_and_md(0.29, 0.95)
    assert "29.0 % of the (t1, t2) square" in head and "on 29.0 % of the area" in md


def test_share_cell_rounds_down(tmp_path):
    ch = {"specification": "peak gain <= 1", "certified_level": 0.95,
          "certified_coverage": 0.99999996, "frequencies_rechecked": 40,
          "not_proven_sampled_worst": 0.94, "not_proven_samples": 100,
          "verdict": "not proven"}  # fmt: skip
    s = {"design": "d", "guarantee": "frozen parameters", "channels": {"tracking": ch}}
    (tmp_path / "p.html").write_text(render_replay_html(s))
    ((_, cells),) = _rows(_parse(tmp_path / "p.html").tables["rechecked"])
    text, attrs = cells["certified share of the square (%)"]
    assert text == "99.9999" and float(attrs["data-value"]) == 100 * 0.99999996
    _number(cells["certified share of the square (%)"], 100 * 0.99999996)


@pytest.mark.parametrize("level", [None, 0.95])
def test_headline_with_nothing_certified(level):
    head, md = _headline_and_md(0.0, level)
    assert "elsewhere" not in head and "the rest" not in md
    assert "nothing re-checked as certified" in head
    assert "not proven on the whole square" in head and "not proven on the whole square" in md
    assert "% of the" not in head and "nothing certified" in md
    assert "a lower bound, not a proof" in head


def _synthetic_replays(share):
    """Replays with ``share`` of an 8 x 8 tracking partition proven (``share * 8`` rows)."""
    rows = round(share * 8)
    return {
        "tracking": PartitionReplay(
            "tracking", 0.95, 8, {(i, j): "proven" if i < rows else "no evidence"
                                  for i in range(8) for j in range(8)},  # fmt: skip
            rows / 8, 0.93, {"t1": 0.5}, 412, 1584,
        ),
        "effort": PartitionReplay(
            "effort", np.nan, 4, {(i, j): "no evidence" for i in range(4) for j in range(4)},
            0.0, 13.08, {"t1": 0.7}, 0, 528,
        ),
    }  # fmt: skip


def test_interrupted_demo_leaves_the_previous_files(tmp_path, monkeypatch):
    replays = _synthetic_replays(0.25)
    monkeypatch.setattr(
        arm_certificate, "replay_partition", lambda values, meta, ev, **kw: replays[meta["channel"]]
    )
    arm_certificate.certified_demo(str(tmp_path))
    names = ["report.html", "report.md", "summary.json"]
    before = {n: (tmp_path / n).read_bytes() for n in names}
    assert sorted(os.listdir(tmp_path)) == names

    # a second run, with other figures, fails half-way through writing its last file
    replays.update(_synthetic_replays(0.5))
    real_open = open
    opened = []

    class _Full:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, text):
            self.fh.write(text[: len(text) // 2])
            raise OSError(28, "No space left on device")

    def failing_open(path, mode="r", **kw):
        fh = real_open(path, mode, **kw)
        if "w" in mode:
            opened.append(path)
            if len(opened) == 3:
                return _Full(fh)
        return fh

    monkeypatch.setattr(arm_certificate, "open", failing_open, raising=False)
    with pytest.raises(OSError, match="No space"):
        arm_certificate.certified_demo(str(tmp_path))
    assert len(opened) == 3  # the failure struck during the writes
    # the previous complete set, unchanged, and no temporary left behind
    assert sorted(os.listdir(tmp_path)) == names
    assert {n: (tmp_path / n).read_bytes() for n in names} == before

    # the next run that succeeds replaces all three, consistently
    monkeypatch.setattr(arm_certificate, "open", real_open, raising=False)
    arm_certificate.certified_demo(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == names
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["channels"]["tracking W_e S"]["certified_coverage"] == 0.5
    assert "on 50.0 % of the area" in (tmp_path / "report.md").read_text()
    assert "50.0 % of the (t1, t2) square" in (tmp_path / "report.html").read_text()
