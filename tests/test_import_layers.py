"""The LFT core's modules import each other in one direction, bottom to top.

Every import statement is read from the source with :mod:`ast` -- module-level
ones and those inside functions alike, since an import deferred into a function
to dodge a cycle is still a cycle.  The order below is the reading order of the
core: data model first, operations above it, the operators attached last.
"""

import ast
from pathlib import Path

import pytest

LFT = Path(__file__).resolve().parents[1] / "robustmb" / "lft"

#: Bottom to top: a module may import only modules listed before it.
LFT_ORDER = [
    # tools with no knowledge of uncertain objects
    "arguments",
    "realization",
    "complex_statespace",
    # data model
    "elements",
    "model",
    "delta",
    # operations
    "structural",
    "simplify",
    "data",
    "sumblk",
    "algebra",
    "rational",
    "arithmetic",
    "substitution",
    "connect",
    # operators and operation methods, attached to the data model last
    "operators",
]


def lft_imports(path):
    """``[(line, module)]``: the modules of ``robustmb`` that ``path`` imports, anywhere in it."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith("robustmb")]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if (node.module or "").startswith("robustmb"):
                    out.append((node.lineno, node.module))
                continue
            base = ["robustmb", "lft"][: 3 - node.level]
            if node.module:
                out.append((node.lineno, ".".join(base + node.module.split("."))))
            else:  # from . import a, b: submodules
                out += [(node.lineno, ".".join(base + [a.name])) for a in node.names]
    return out


def test_every_module_is_placed():
    files = {p.stem for p in LFT.glob("*.py")} - {"__init__"}
    assert files == set(LFT_ORDER), (
        f"modules missing from LFT_ORDER: {sorted(files - set(LFT_ORDER))}; "
        f"listed but absent: {sorted(set(LFT_ORDER) - files)}"
    )


@pytest.mark.parametrize("name", LFT_ORDER)
def test_imports_go_down(name):
    below = set(LFT_ORDER[: LFT_ORDER.index(name)])
    bad = []
    for line, module in lft_imports(LFT / f"{name}.py"):
        if module == "robustmb.errors":
            continue  # the shared exception classes
        parts = module.split(".")
        if parts[:2] != ["robustmb", "lft"]:
            bad.append(f"line {line}: {module} (outside the LFT core)")
        elif len(parts) < 3 or parts[2] not in below:
            bad.append(f"line {line}: {module} (not below {name} in LFT_ORDER)")
    assert not bad, f"robustmb/lft/{name}.py imports upwards or sideways: " + "; ".join(bad)


def test_checker_sees_deferred_and_relative_imports(tmp_path):
    src = tmp_path / "m.py"
    src.write_text(
        "from . import realization as rz, model\n"
        "from ..errors import ArgumentError\n"
        "def f():\n"
        "    from .algebra import add\n"
        "    import robustmb.analysis\n"
    )
    assert lft_imports(src) == [
        (1, "robustmb.lft.realization"),
        (1, "robustmb.lft.model"),
        (2, "robustmb.errors"),
        (4, "robustmb.lft.algebra"),
        (5, "robustmb.analysis"),
    ]
