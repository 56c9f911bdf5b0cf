"""The getting-started guide runs as written."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.slow
def test_getting_started_code_runs(tmp_path, monkeypatch, capsys):
    from robustmb.cli import main

    monkeypatch.chdir(tmp_path)
    blocks = _python_blocks((DOCS / "getting_started.md").read_text())
    namespace = {}
    for code in blocks:
        if code.startswith("# my_loops.py"):
            (tmp_path / "my_loops.py").write_text(code)
            continue
        exec(compile(code, "getting_started.md", "exec"), namespace)
    assert (tmp_path / "msd-report" / "report.html").exists()
    assert (
        main(
            [
                "report",
                "my_loops:build_loop",
                "--channel",
                "tracking=e:r",
                "--out",
                "my-report",
                "--quiet",
                "--samples",
                "10",
            ]
        )
        == 0
    )
    assert (tmp_path / "my-report" / "summary.json").exists()
