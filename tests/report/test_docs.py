"""The documentation: the API reference generator and the getting-started guide."""

import importlib.util
import re
from pathlib import Path

import pytest

import robustmb

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _load_builder():
    spec = importlib.util.spec_from_file_location("build_api", DOCS / "build_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_reference_covers_every_public_name(tmp_path):
    builder = _load_builder()
    written = builder.build(tmp_path)
    names = {p.name for p in written}
    assert "index.md" in names and "robustmb.report.md" in names
    page = (tmp_path / "robustmb.report.md").read_text()
    for name in robustmb.report.__all__:
        assert f"## `{name}`" in page
    assert "worst_case_report(system, channels=None, *, out_dir='robustmb-report'" in page
    assert "#### Parameters" in page and "```pycon\n>>> " in page
    assert "- `channels` (dict, optional):" in page
    top = (tmp_path / "robustmb.md").read_text()
    assert "| [`rmb.uss`](robustmb.lft.md#uss) |" in top
    index = (tmp_path / "index.md").read_text()
    for module_name, _ in builder.MODULES:
        assert f"[`{module_name}`]({module_name}.md)" in index


def test_docstring_sections_become_markdown():
    builder = _load_builder()
    doc = """Do a thing.

    Parameters
    ----------
    x : float
        The input,
        on two lines.
    y : int, optional

    Returns
    -------
    float

    Examples
    --------
    A comment.

    >>> 1 + 1
    2
    """
    md = builder.docstring_md(doc, 4)
    assert md.startswith("Do a thing.\n")
    assert "#### Parameters\n\n- `x` (float): The input, on two lines.\n- `y` (int, optional)" in md
    assert "#### Returns\n\n- `float`" in md
    assert "A comment.\n```pycon\n>>> 1 + 1\n2\n```" in md


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
