"""install_files leaves either the whole previous run or the whole new one.

A failure is injected at each rename in turn (``os.replace`` patched to raise at its
k-th call); the folder is then compared byte for byte with the previous run.  Signals
sent between two renames are held until the folder is consistent.
"""

import contextlib
import io
import json
import os
import signal

import pytest
from report_loops import second_order

import robustmb as rmb
from robustmb.cli import main
from robustmb.report import writer
from robustmb.report.writer import install_files, worst_case_report

OLD = {"report.html": "old page", "summary.json": '{"run": "old"}', "figures/mu.png": "old mu"}
NEW = {"report.html": "new page", "summary.json": '{"run": "new"}', "figures/mu.png": "new mu"}


def _fill(folder, files):
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)


def _snapshot(folder):
    files = (p for p in sorted(folder.rglob("*")) if p.is_file())
    return {str(p.relative_to(folder)): p.read_bytes().decode("latin-1") for p in files}


def _leftovers(root, out):
    return sorted(p.name for p in root.iterdir() if p.name.startswith(f".{out.name}.old"))


def _setup(tmp_path, user_file):
    out, new = tmp_path / "out", tmp_path / ".out.tmp-x"
    _fill(out, OLD)
    if user_file:
        (out / "notes.txt").write_text("mine")
    _fill(new, NEW)
    return out, new


def _count_replaces(tmp_path, user_file):
    """The number of renames a successful install makes (the steps to break)."""
    (tmp_path / "count").mkdir()
    out, new = _setup(tmp_path / "count", user_file)
    calls = []
    real = os.replace

    def counting(src, dst):
        calls.append((src, dst))
        real(src, dst)

    writer.os.replace = counting
    try:
        install_files(new, out, "c")
    finally:
        writer.os.replace = real
    return len(calls)


def _failing_replace(real, fails):
    """``os.replace`` that raises at its ``n``-th call (from 1) when ``fails(n)``."""
    calls = []

    def replace(src, dst):
        calls.append(src)
        if fails(len(calls)):
            raise OSError(f"injected failure at rename {len(calls) - 1}")
        real(src, dst)

    return replace


@pytest.mark.parametrize("user_file", [False, True], ids=["whole-swap", "entry-by-entry"])
def test_a_failure_at_every_rename_leaves_the_previous_run_whole(tmp_path, monkeypatch, user_file):
    steps = _count_replaces(tmp_path, user_file)
    # whole swap: out -> old, tmp -> out; entries: 3 old entries out, 3 new ones in
    assert steps == (6 if user_file else 2)
    real = os.replace
    for k in range(steps):
        root = tmp_path / f"k{k}"
        root.mkdir()
        out, new = _setup(root, user_file)
        failing = _failing_replace(real, lambda n, k=k: n == k + 1)
        monkeypatch.setattr(writer.os, "replace", failing)
        with pytest.raises(OSError, match=f"rename {k}"):
            install_files(new, out, f"r{k}")
        monkeypatch.setattr(writer.os, "replace", real)
        expected = dict(OLD) | ({"notes.txt": "mine"} if user_file else {})
        assert _snapshot(out) == expected, f"rename {k}"
        # the new run is still whole in its temporary folder, and no stray old folder
        assert _snapshot(new) == NEW
        assert _leftovers(root, out) == []


@pytest.mark.parametrize("user_file", [False, True], ids=["whole-swap", "entry-by-entry"])
def test_a_persistent_failure_loses_nothing_and_names_where_each_run_is(
    tmp_path, monkeypatch, user_file
):
    # From the k-th rename on every rename fails, the undo's too: no entry of either run
    # may be lost, and the error names the folders that hold them.
    steps = _count_replaces(tmp_path, user_file)
    real = os.replace
    for k in range(1, steps):
        root = tmp_path / f"p{k}"
        root.mkdir()
        out, new = _setup(root, user_file)
        failing_from = _failing_replace(real, lambda n, k=k: n > k)
        monkeypatch.setattr(writer.os, "replace", failing_from)
        with pytest.raises(rmb.errors.ReportInstallError, match="nothing was deleted") as err:
            install_files(new, out, f"p{k}")
        monkeypatch.setattr(writer.os, "replace", real)
        kept = {}
        for folder in [out, new, *(root / n for n in _leftovers(root, out))]:
            for rel, text in _snapshot(folder).items() if folder.exists() else []:
                kept.setdefault(rel, set()).add(text)
        for rel in OLD:
            assert {OLD[rel], NEW[rel]} <= kept[rel], f"rename {k}: {rel}"
        for name in _leftovers(root, out):
            assert name in str(err.value)


@pytest.mark.parametrize("user_file", [False, True], ids=["whole-swap", "entry-by-entry"])
def test_sigterm_between_renames_is_delivered_after_the_install(tmp_path, user_file):
    out, new = _setup(tmp_path, user_file)
    seen = []
    previous = signal.signal(signal.SIGTERM, lambda sig, frame: seen.append(_snapshot(out)))
    real = os.replace
    sent = []

    def replace_then_sigterm(src, dst):
        real(src, dst)
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGTERM)

    writer.os.replace = replace_then_sigterm
    try:
        install_files(new, out, "t")
    finally:
        writer.os.replace = real
        signal.signal(signal.SIGTERM, previous)
    # delivered once, when the folder already held the whole new run
    expected = dict(NEW) | ({"notes.txt": "mine"} if user_file else {})
    assert seen == [expected]
    assert _snapshot(out) == expected and _leftovers(tmp_path, out) == []


def test_ctrl_c_with_a_failed_rename_leaves_the_old_run_and_raises_the_failure(
    tmp_path, monkeypatch
):
    out, new = _setup(tmp_path, True)
    real = os.replace
    calls = []

    def sigint_then_fail(src, dst):
        calls.append(src)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        if len(calls) == 4:
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(writer.os, "replace", sigint_then_fail)
    with pytest.raises(OSError, match="disk full"):
        install_files(new, out, "i")
    monkeypatch.setattr(writer.os, "replace", real)
    assert _snapshot(out) == dict(OLD) | {"notes.txt": "mine"}


def test_ctrl_c_during_the_renames_is_raised_after_the_report_is_installed(tmp_path, monkeypatch):
    out = tmp_path / "rep"
    worst_case_report(second_order(0.5, 1.5), {}, out_dir=out, n_samples=2)
    real = os.replace
    sent = []

    def replace_then_sigint(src, dst):
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        real(src, dst)

    monkeypatch.setattr(writer.os, "replace", replace_then_sigint)
    first = json.loads((out / "summary.json").read_text())["run"]["id"]
    with pytest.raises(KeyboardInterrupt):
        worst_case_report(second_order(0.5, 1.5), {}, out_dir=out, n_samples=2)
    assert sent
    run = json.loads((out / "summary.json").read_text())["run"]
    assert run["id"] != first and run["id"] in (out / "report.html").read_text()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".rep.")]


def _cli(tmp_path, out):
    (tmp_path / "loops.py").write_text(
        "import control, robustmb as rmb\n"
        "def loop():\n"
        "    c = rmb.ureal('c', 1.0, range=(0.5, 1.5))\n"
        "    s = control.tf('s')\n"
        "    return rmb.uss(1 / (s * s + c * s + 1))\n"
    )
    argv = ["report", f"{tmp_path / 'loops.py'}:loop", "--out", str(out), "--quiet"]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv + ["--samples", "2"])
    return code, [ln for ln in err.getvalue().splitlines() if ln.strip()]


def test_cli_ctrl_c_after_the_report_is_written_says_so(tmp_path, monkeypatch):
    import robustmb.cli as cli

    out = tmp_path / "r"
    assert _cli(tmp_path, out)[0] == 0
    first = json.loads((out / "summary.json").read_text())["run"]["id"]

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "print_summary", interrupted)  # after the files are in place
    code, lines = _cli(tmp_path, out)
    assert code == 130
    assert lines == [f"robustmb report: interrupted after the report was written to {out}"]
    assert json.loads((out / "summary.json").read_text())["run"]["id"] != first


def test_cli_ctrl_c_before_the_report_says_none_was_written(tmp_path, monkeypatch):
    out = tmp_path / "r"
    assert _cli(tmp_path, out)[0] == 0
    before = _snapshot(out)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer, "render_html", interrupted)
    code, lines = _cli(tmp_path, out)
    assert code == 130 and len(lines) == 1
    assert lines[0].startswith("robustmb report: interrupted; no report written")
    assert _snapshot(out) == before
