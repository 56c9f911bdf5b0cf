"""Generate the Markdown API reference in ``docs/api/`` from the docstrings.

Usage::

    python docs/build_api.py            # writes docs/api/*.md
    python docs/build_api.py --out DIR  # somewhere else

One page per public module (its ``__all__``, or its public names defined in
it), with each function's or class's signature and its NumPy-style docstring
turned into Markdown: section titles become headings, parameter lists become
bullet lists and ``Examples`` become code blocks.  Only the standard library
is used (``inspect``).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path

#: Modules documented, in page order: (module, one-line description).
MODULES = [
    ("robustmb", "Top-level names: uncertain elements, objects and interconnection"),
    ("robustmb.lft", "The LFT core: uncertain elements and models"),
    ("robustmb.analysis", "Norms, frequency response, mu, robust stability, worst case"),
    ("robustmb.tuning", "Structured controller tuning: tunable blocks, goals, hinfstruct, systune"),
    ("robustmb.report", "Worst-case reports (HTML, JSON, figures)"),
    ("robustmb.multibody", "Exact LFT models of mechanisms"),
    ("robustmb.decoupling", "Decoupling control and coupling metrics"),
    ("robustmb.examples", "Canonical models"),
    ("robustmb.errors", "Exceptions"),
    ("robustmb.cli", "The robustmb command line"),
]

SECTION_RE = re.compile(r"^(\s*)([A-Z][A-Za-z ]+)\n\1(-{3,})\s*$", re.MULTILINE)
LIST_SECTIONS = {
    "Parameters",
    "Returns",
    "Yields",
    "Raises",
    "Attributes",
    "Other Parameters",
    "Warns",
}
CODE_SECTIONS = {"Examples"}


def public_names(module) -> list[str]:
    """Names a module documents: ``__all__``, or its own public callables and classes."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    out = []
    for name, obj in vars(module).items():
        if name.startswith("_"):
            continue
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(
            obj, "__module__", None
        ) == module.__name__:
            out.append(name)
    return out


def split_sections(doc: str) -> list[tuple[str, str]]:
    """``[(title, body)]`` of a NumPy docstring; the first title is ``""`` (summary)."""
    doc = inspect.cleandoc(doc or "")
    parts, pos, title = [], 0, ""
    for m in SECTION_RE.finditer(doc):
        parts.append((title, doc[pos : m.start()].strip("\n")))
        title, pos = m.group(2).strip(), m.end()
    parts.append((title, doc[pos:].strip("\n")))
    return [(t, b) for t, b in parts if t or b.strip()]


def list_section_md(body: str) -> str:
    """``name : type`` entries with indented descriptions as a bullet list."""
    items, current = [], None
    for line in body.splitlines():
        if line and not line.startswith(" "):
            name, _, typ = line.partition(" : ")
            current = [f"`{name.strip()}`" + (f" ({typ.strip()})" if typ else ""), []]
            items.append(current)
        elif current is not None and line.strip():
            current[1].append(line.strip())
    out = []
    for head, desc in items:
        out.append(f"- {head}" + (f": {' '.join(desc)}" if desc else ""))
    return "\n".join(out)


def docstring_md(doc: str, level: int) -> str:
    """Markdown of a NumPy-style docstring with section headings at ``level``."""
    out = []
    for title, body in split_sections(doc):
        if title:
            out.append(f"{'#' * level} {title}\n")
        if title in LIST_SECTIONS:
            out.append(list_section_md(body))
        elif title in CODE_SECTIONS:
            out.append(examples_md(body))
        else:
            out.append(body)
        out.append("")
    return "\n".join(out).strip() + "\n"


def examples_md(body: str) -> str:
    """Doctest blocks as ``pycon`` code, prose between them as text."""
    out, code = [], []
    for line in body.splitlines() + [""]:
        is_code = line.startswith(">>>") or line.startswith("...") or (code and line.strip())
        if is_code:
            code.append(line)
            continue
        if code:
            out.append("```pycon\n" + "\n".join(code) + "\n```")
            code = []
        if line.strip():
            out.append(line)
    return "\n".join(out)


def signature(obj, name: str) -> str:
    """``name(arguments)`` without type annotations (the docstrings describe the types)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return f"{name}(...)" if callable(obj) else name
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    sig = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return f"{name}{sig}"


def member_md(module_name: str, name: str, obj) -> str:
    """Markdown section of one public function or class (with its public methods)."""
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "object"
    lines = [f"## `{name}`\n", f"```python\n{kind} {module_name}.{signature(obj, name)}\n```\n"]
    doc = inspect.getdoc(obj)
    if doc and not (inspect.isclass(obj) and doc == inspect.getdoc(object)):
        lines.append(docstring_md(doc, 4))
    if inspect.isclass(obj):
        for mname, member in sorted(vars(obj).items()):
            if mname.startswith("_"):
                continue
            fn = member.fget if isinstance(member, property) else member
            if isinstance(fn, classmethod | staticmethod):
                fn = fn.__func__
            if not callable(fn) or not fn.__doc__:
                continue
            label = mname if isinstance(member, property) else signature(fn, mname)
            lines.append(f"### `{name}.{label}`\n")
            lines.append(docstring_md(fn.__doc__, 5))
    return "\n".join(lines)


def summary_line(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ")


def home_page(obj, name, modules) -> str | None:
    """The module page (other than the top level) that documents ``obj`` as ``name``."""
    for module_name, _ in modules:
        if module_name == "robustmb":
            continue
        module = importlib.import_module(module_name)
        if name in public_names(module) and getattr(module, name, None) is obj:
            return module_name
    return None


def module_page(module_name: str, description: str, modules=MODULES) -> str:
    module = importlib.import_module(module_name)
    lines = [f"# `{module_name}`\n", f"*{description}.*\n"]
    if module.__doc__:
        lines.append(docstring_md(module.__doc__, 3))
    names = public_names(module)
    if module_name == "robustmb":
        # The top level re-exports names documented on their own module's page.
        lines.append("| name | summary |\n|---|---|")
        rest = []
        for name in names:
            obj = getattr(module, name, None)
            home = home_page(obj, name, modules)
            if home is None:
                rest.append(name)
                continue
            summary = summary_line(obj).replace("|", "\\|")
            lines.append(f"| [`rmb.{name}`]({home}.md#{name.lower()}) | {summary} |")
        lines.append("")
        names = rest
    if names:
        lines.append("Contents: " + ", ".join(f"[`{n}`](#{n.lower()})" for n in names) + "\n")
    for name in names:
        obj = getattr(module, name, None)
        if obj is None:
            continue
        lines.append(member_md(module_name, name, obj))
    return "\n".join(lines).rstrip() + "\n"


def build(out_dir: Path, modules=MODULES) -> list[Path]:
    """Write one page per module and an index; returns the written paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    index = [
        "# API reference\n",
        "Generated from the docstrings by `python docs/build_api.py`; do not edit by hand.\n",
    ]
    for module_name, description in modules:
        page = module_page(module_name, description, modules)
        path = out_dir / f"{module_name}.md"
        path.write_text(page, encoding="utf-8")
        written.append(path)
        index.append(f"- [`{module_name}`]({path.name}): {description}")
    (out_dir / "index.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    written.append(out_dir / "index.md")
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "api",
        help="output folder (default: docs/api)",
    )
    args = parser.parse_args(argv)
    for path in build(args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
