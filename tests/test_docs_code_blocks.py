"""The README's and the guides' Python blocks run as written (one namespace per page).

The fast pages run in the default suite; the pages whose blocks tune or sweep for minutes
(tuning, scaling out) and the getting-started guide (tests/report/test_docs.py) do not.
"""

import re
from pathlib import Path

import matplotlib
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def _run_page(path, tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_page"}
    for k, code in enumerate(_python_blocks(path)):
        exec(compile(code, f"{path.name} block {k}", "exec"), namespace)
    return namespace


def test_readme_blocks_run(tmp_path, monkeypatch):
    ns = _run_page(ROOT / "README.md", tmp_path, monkeypatch)
    assert ns["plant"].blocks == {"m": 1, "k": 1, "c": 1}  # as its comment says
    # the synthesis block: a static output feedback of [w; u] -> [z; y] ...
    assert ns["K"].shape == (1, 1) and ns["res"].gamma == pytest.approx(5**0.5 - 2, rel=1e-6)


def test_matlab_page_blocks_run(tmp_path, monkeypatch):
    ns = _run_page(ROOT / "docs" / "matlab.md", tmp_path, monkeypatch)
    assert len(ns["samples"]) == 20 and ns["G0"].nstates == 1


@pytest.mark.slow
def test_multibody_guide_blocks_run(tmp_path, monkeypatch):
    ns = _run_page(ROOT / "docs" / "multibody_nonlinear.md", tmp_path, monkeypatch)
    assert ns["ul"].ss.blocks == {"m1": 1, "J1": 1, "m3": 2}
    assert abs(ns["res"].constraint).max() < 1e-8  # the four-bar stays closed
