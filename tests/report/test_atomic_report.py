"""Reports are written atomically: an interrupted run leaves the previous report intact."""

import contextlib
import io
import json
import os
import signal
import stat

import control
import pytest

import robustmb as rmb
from robustmb.cli import main
from robustmb.errors import ArgumentError
from robustmb.report import writer
from robustmb.report.writer import worst_case_report


def _loop():
    c = rmb.ureal("c", 1.0, range=(0.5, 1.5))
    s = control.tf("s")
    sys = rmb.uss(1 / (s * s + c * s + 1))
    sys.input_names, sys.output_names = ["r"], ["y"]
    return sys


def _write(out):
    return worst_case_report(_loop(), {}, out_dir=out, n_samples=2)


def _snapshot(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _leftovers(folder):
    return [p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.")]


def test_summary_and_page_carry_the_same_run_id(tmp_path):
    rep = _write(tmp_path / "rep")
    run = json.loads(rep.json_path.read_text())["run"]
    assert run["id"] == rep.run_id and len(run["id"]) == 12
    assert run["created"].endswith("Z")
    page = rep.html_path.read_text()
    assert run["id"] in page and run["created"] in page
    again = _write(tmp_path / "rep")
    assert again.run_id != rep.run_id
    assert json.loads(again.json_path.read_text())["run"]["id"] == again.run_id
    assert not _leftovers(tmp_path / "rep")


def test_interrupt_while_writing_keeps_the_previous_report(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    _write(out)
    before = _snapshot(out)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "render_html", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _write(out)
    assert _snapshot(out) == before
    assert not _leftovers(out)


def test_interrupt_during_the_final_renames_is_deferred(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    _write(out)
    real_replace = os.replace
    sent = []

    def replace_then_sigint(src, dst):
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between the two renames
        real_replace(src, dst)

    monkeypatch.setattr(writer.os, "replace", replace_then_sigint)
    # the swap completes, then the held Ctrl-C is raised: the folder holds the new run
    with pytest.raises(KeyboardInterrupt):
        _write(out)
    run = json.loads((out / "summary.json").read_text())["run"]
    assert run["id"] in (out / "report.html").read_text()
    assert not _leftovers(out)


def test_other_files_in_the_folder_are_kept(tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    rep = _write(out)
    assert (out / "notes.txt").read_text() == "mine"
    assert rep.json_path.exists() and (out / "figures").is_dir()
    _write(out)
    assert (out / "notes.txt").read_text() == "mine"
    assert not _leftovers(out)


def test_cli_exits_130_on_ctrl_c_without_traceback(tmp_path, monkeypatch):
    (tmp_path / "loops.py").write_text(
        "import control, robustmb as rmb\n"
        "def loop():\n"
        "    c = rmb.ureal('c', 1.0, range=(0.5, 1.5))\n"
        "    s = control.tf('s')\n"
        "    return rmb.uss(1 / (s * s + c * s + 1))\n"
    )

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "render_html", interrupted)
    out, err = io.StringIO(), io.StringIO()
    argv = ["report", f"{tmp_path / 'loops.py'}:loop", "--out", str(tmp_path / "r"), "--quiet"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv + ["--samples", "2"])
    assert code == 130
    lines = [ln for ln in err.getvalue().splitlines() if ln.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0] and "Traceback" not in err.getvalue()
    assert not (tmp_path / "r").exists() and not _leftovers(tmp_path / "r")


def test_symlinked_out_dir_replaces_the_linked_folder(tmp_path, monkeypatch):
    """The report goes to the folder the link points at; the link stays a link."""
    published = tmp_path / "shared" / "run1"
    first = _write(published)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    os.symlink("../shared/run1", "robustmb-report")
    second = worst_case_report(_loop(), {}, out_dir="robustmb-report", n_samples=2)
    link = tmp_path / "work" / "robustmb-report"
    assert link.is_symlink() and os.readlink(link) == "../shared/run1"
    run = json.loads((published / "summary.json").read_text())["run"]["id"]
    assert run == second.run_id != first.run_id
    assert not _leftovers(published) and not _leftovers(link)
    # a folder holding other files too: the entries are replaced inside the target
    (published / "notes.txt").write_text("mine")
    third = worst_case_report(_loop(), {}, out_dir="robustmb-report", n_samples=2)
    assert json.loads((published / "summary.json").read_text())["run"]["id"] == third.run_id
    assert (published / "notes.txt").read_text() == "mine" and link.is_symlink()
    assert not _leftovers(published) and not _leftovers(link)


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_new_report_folder_follows_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        out = tmp_path / f"report-{mask:o}"
        _write(out)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o777 & ~mask
    # the files were created by open(): the same mask
    assert stat.S_IMODE((out / "summary.json").stat().st_mode) == 0o666 & ~mask


def test_out_dir_that_is_a_file_is_refused_up_front(tmp_path, monkeypatch):
    target = tmp_path / "report.txt"
    target.write_text("not a folder")

    def analysis_must_not_run(*args, **kwargs):  # the check comes first
        raise AssertionError("the analysis ran")

    monkeypatch.setattr(writer, "worst_case_analysis", analysis_must_not_run)
    with pytest.raises(ArgumentError, match="out_dir .*report.txt' exists and is not a folder"):
        worst_case_report(_loop(), {}, out_dir=target, n_samples=2)
    assert target.read_text() == "not a folder" and not _leftovers(target)
    # install_files itself refuses it too (other callers), leaving nothing behind
    tmp = tmp_path / ".report.txt.tmp-x"
    tmp.mkdir()
    with pytest.raises(ArgumentError, match="exists and is not a folder"):
        writer.install_files(tmp, target, "abc")
    assert [p.name for p in tmp_path.iterdir() if ".old-" in p.name] == []
