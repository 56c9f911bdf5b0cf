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
    "canonical_basis",
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


# ----------------------------------------------------------------- the whole package
PACKAGE = LFT.parent

#: Layers of ARCHITECTURE.md, bottom to top; a module may import its own layer and
#: layers of a lower rank.  report, plotting and cli sit on top and may import each other.
LAYER_RANK = {
    "errors": 0,
    "_progress": 0,
    "_blas": 0,
    "lft": 1,
    "analysis": 2,
    "multibody": 3,
    "decoupling": 3,
    "synthesis": 3,
    "tuning": 4,  # may use synthesis for the full-order floor
    "examples": 5,
    "report": 6,
    "plotting": 6,
    "cli": 6,
    "__main__": 6,  # python -m robustmb: the command line
}

#: Import cycles that remain inside a layer (mutual recursion across two files);
#: the list may only shrink (it is empty: keep it so).
KNOWN_CYCLES = []

#: Files still above the 800-line limit; the list may only shrink.
KNOWN_LONG: set[str] = set()


def _modules():
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def package_imports(name, path, modules):
    """Modules of ``robustmb`` that module ``name`` imports (anywhere in the file)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            subs = {f"{target}.{a.name}" for a in node.names} & modules.keys()
            if node.module and target in modules:
                found.add(target)
            found |= subs
    found.discard(name)
    return found


def _layer(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


def test_no_import_goes_up_the_layers():
    modules = _modules()
    bad = []
    for name, path in modules.items():
        layer = _layer(name)
        if layer is None or path.name == "__init__.py" and name.count(".") == 1:
            continue  # the top-level package and each layer's __init__ gather names
        for target in package_imports(name, path, modules):
            other = _layer(target)
            if other is None or other == layer or LAYER_RANK[layer] == LAYER_RANK["report"]:
                continue
            if LAYER_RANK[other] >= LAYER_RANK[layer]:
                bad.append(f"{name} imports {target}")
    assert not bad, "imports against the layers of ARCHITECTURE.md: " + "; ".join(sorted(bad))


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while not comp or w != v:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
            if len(comp) > 1:
                out.append(comp)

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_inside_a_layer():
    modules = _modules()
    # a package's __init__ gathers its modules' names: importing it is not part of a cycle
    plain = {n: p for n, p in modules.items() if p.name != "__init__.py"}
    graph = {
        n: {t for t in package_imports(n, p, modules) if t in plain and _layer(t) == _layer(n)}
        for n, p in plain.items()
    }
    cycles = _cycles(graph)
    new = [sorted(c) for c in cycles if c not in KNOWN_CYCLES]
    assert not new, f"import cycles inside a layer: {new}"
    assert all(c in cycles for c in KNOWN_CYCLES), "a known cycle is gone: drop it from the list"


def test_cycle_finder_on_a_small_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert _cycles(graph) == [{"a", "b", "c"}]


def test_no_file_over_800_lines():
    long = {
        str(p.relative_to(PACKAGE.parent))
        for p in PACKAGE.rglob("*.py")
        if len(p.read_text().splitlines()) > 800
    }
    assert long <= KNOWN_LONG, f"files over 800 lines: {sorted(long - KNOWN_LONG)}"
    assert KNOWN_LONG <= long, f"now short enough, drop from KNOWN_LONG: {KNOWN_LONG - long}"
