"""The import structure of ``src/eunomia``: no circle between modules, layers pointing one way.

Read with the standard ``ast`` module from the source files (nothing is imported). Every
import counts, at module level or inside a function: an import moved into a function to
dodge a circle is still a circle here. The layers, top down, are those of
docs/architecture.md: a module may import from its own layer and the layers below it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "eunomia"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "__main__", "api"),
    ("viewer", "labelling"),
    ("run",),
    ("kinds",),
    ("targets", "llm_feedback", "judge", "scoring", "scenarios", "tasks", "exports", "report",
     "compare", "executors", "matrix", "example_server", "model_server", "importers",
     "mutation"),
    ("models", "athena", "pricing", "store", "scheduler", "metering"),
    ("apollon", "stats", "files", "errors", "bounds", "defaults", "yamlfile", "jsonbody",
     "templates", "lazy", "serving", "limits", "cut", "__init__"),
)
"""Top-level packages and modules of ``eunomia``, from the command line down."""


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _target(name: str) -> str | None:
    """The project module an imported name resolves to (a module, else its package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # a submodule by its name (``from pkg import mod``), else the module itself
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                found = _target(name)
                if found is not None and found != module:
                    yield found


GRAPH = {m: sorted(set(_imports(m, p))) for m, p in MODULES.items()}


def _cycles(graph: dict[str, list[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else "__init__"
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module}: {top} is in no layer of tests/test_layers.py")


def test_the_graph_is_read() -> None:
    assert len(MODULES) > 100
    assert "eunomia.store._store" in GRAPH["eunomia.store"]
    assert "eunomia.kinds" in GRAPH["eunomia.run._engine"]


def test_no_import_circle_between_modules() -> None:
    assert _cycles(GRAPH) == []


def test_a_circle_is_found() -> None:
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_layers(module: str) -> None:
    mine = _layer(module)
    upward = [m for m in GRAPH[module] if _layer(m) < mine]
    assert upward == [], f"{module} (layer {mine}) imports from a layer above it"
