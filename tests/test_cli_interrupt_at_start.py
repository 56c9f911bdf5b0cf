"""Ctrl-C while the ``robustmb`` command imports the package: one line and status 130.

The subprocess is held inside the package's import (an import hook waits when
``robustmb.analysis`` starts loading, after NumPy) and receives SIGINT there.
"""

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import robustmb
from robustmb import _cli_start
from robustmb.cli import main

ROOT = Path(robustmb.__file__).resolve().parents[1]

HOOK = textwrap.dedent(
    """
    import sys, time

    class Hold:
        def find_spec(self, name, path=None, target=None):
            if name == "robustmb.analysis":
                sys.stderr.write("HELD\\n")
                sys.stderr.flush()
                time.sleep(60)
            return None

    sys.meta_path.insert(0, Hold())
    """
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupted_during_import(tmp_path, command):
    (tmp_path / "sitecustomize.py").write_text(HOOK)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        # a test run started in the background (nohup, `&` in a script) ignores SIGINT, and
        # the child would inherit that: give it the default disposition a terminal has
        preexec_fn=_default_sigint,
    )
    try:
        assert proc.stderr.readline().strip() == "HELD"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, out, err


@pytest.mark.parametrize(
    "entry",
    [["-m", "robustmb", "demo", "--quick"], ["-m", "robustmb.cli", "report", "m:f"], "script"],
)
def test_ctrl_c_while_the_command_imports_the_package(tmp_path, entry):
    if entry == "script":  # what pip's console script does
        script = tmp_path / "robustmb"
        script.write_text("import sys\nfrom robustmb.cli import main\nsys.exit(main())\n")
        entry = [str(script), "demo"]
    code, out, err = _interrupted_during_import(tmp_path, [sys.executable, *entry])
    assert code == 130
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines == [_cli_start.MESSAGE], err
    assert out == "" and not any(tmp_path.glob("robustmb_report*"))


def test_a_script_importing_robustmb_keeps_its_keyboard_interrupt(tmp_path):
    (tmp_path / "user.py").write_text("import robustmb\n")
    code, _, err = _interrupted_during_import(tmp_path, [sys.executable, "user.py"])
    assert code == -signal.SIGINT and "KeyboardInterrupt" in err


def test_the_command_line_is_read_exactly():
    py = "/usr/bin/python3"
    assert _cli_start.is_command(["/opt/venv/bin/robustmb", "demo"], [py, "x"])
    assert _cli_start.is_command(["-m"], [py, "-u", "-X", "dev", "-mrobustmb.cli", "demo"])
    assert not _cli_start.is_command(["robustmb_tools.py"], [py, "robustmb_tools.py"])
    assert not _cli_start.is_command(["-c"], [py, "-c", "import robustmb", "-m", "robustmb"])
    assert not _cli_start.is_command(["-m"], [py, "-m", "robustmb_extra"])
    assert not _cli_start.is_command([], [])


def test_main_restores_the_default_handler(monkeypatch):
    import robustmb.cli as cli

    seen = []
    monkeypatch.setattr(cli, "_main", lambda argv: seen.append(signal.getsignal(signal.SIGINT)))
    previous = signal.signal(signal.SIGINT, _cli_start._interrupted)
    try:
        main([])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.default_int_handler]
