"""The robustmb command line."""

import subprocess
import sys

from robustmb.cli import main


def test_demo_writes_its_figure(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path), "--samples", "5"]) == 0
    out = capsys.readouterr().out
    assert "after simplify: occurrences {'m': 1, 'k': 1, 'c': 1}" in out
    png = tmp_path / "demo_bode.png"
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"


def test_help_and_bad_input():
    res = subprocess.run([sys.executable, "-m", "robustmb.cli", "--help"], capture_output=True,
                         text=True)
    assert res.returncode == 0 and "demo" in res.stdout
    res = subprocess.run([sys.executable, "-m", "robustmb.cli", "demo", "--samples", "0"],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "--samples" in res.stderr
    res = subprocess.run([sys.executable, "-m", "robustmb.cli", "nonsense"], capture_output=True,
                         text=True)
    assert res.returncode != 0 and "invalid choice" in res.stderr
