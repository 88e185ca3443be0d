"""The packages of ``linter/`` import each other without a cycle (docs/architecture.md).

Every import counts: module level, inside functions and under ``TYPE_CHECKING``, so a
cycle cannot be hidden by moving an import into a function. A module at the root of
``linter/`` is a unit of its own, as is each package below it.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

LINTER = Path(__file__).resolve().parent.parent / "linter"
ROOT = "linter"

Graph = dict[str, dict[str, set[str]]]


def unit_of(path: Path, top: Path) -> str:
    """The package (or root module) a file belongs to; the root ``__init__`` is ``linter``."""
    parts = path.relative_to(top).parts
    if len(parts) == 1:
        name = parts[0].removesuffix(".py")
        return ROOT if name == "__init__" else name
    return parts[0]


def _module_package(path: Path, top: Path) -> list[str]:
    """The dotted package a file's relative imports start from."""
    return [ROOT, *path.relative_to(top).parent.parts]


def _imported(node: ast.AST, package: list[str]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(module, names) for each import statement: names matter for ``from linter import x``."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, ()
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = package[: len(package) - (node.level - 1)]
            module = ".".join([*base, *([node.module] if node.module else [])])
        else:
            module = node.module or ""
        yield module, tuple(alias.name for alias in node.names)


def target_units(module: str, names: tuple[str, ...], top: Path) -> set[str]:
    parts = module.split(".")
    if parts[0] != ROOT:
        return set()
    if len(parts) > 1:
        return {parts[1]}
    # from linter import x: x is a package or root module, else a name of linter/__init__.py
    units = set()
    for name in names:
        is_unit = (top / name).is_dir() or (top / f"{name}.py").is_file()
        units.add(name if is_unit else ROOT)
    return units


def package_graph(top: Path) -> Graph:
    """unit → imported unit → the files (relative to ``top``) whose imports make the edge."""
    graph: Graph = {}
    for path in sorted(top.rglob("*.py")):
        source = unit_of(path, top)
        graph.setdefault(source, {})
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = _module_package(path, top)
        for node in ast.walk(tree):
            for module, names in _imported(node, package):
                for target in target_units(module, names, top):
                    if target != source:
                        files = graph[source].setdefault(target, set())
                        files.add(str(path.relative_to(top)))
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle as [a, b, ..., a], or None; depth-first, in sorted order (stable output)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def describe(graph: Graph, cycle: list[str]) -> str:
    lines = ["package import cycle: " + " -> ".join(cycle)]
    for source, target in itertools.pairwise(cycle):
        lines.append(f"  {source} -> {target}: {', '.join(sorted(graph[source][target]))}")
    return "\n".join(lines)


def test_linter_packages_have_no_import_cycle() -> None:
    graph = package_graph(LINTER)
    cycle = find_cycle(graph)
    assert cycle is None, describe(graph, cycle)


def test_the_graph_sees_the_real_imports() -> None:
    graph = package_graph(LINTER)
    # The command line (the group and its commands) sits on top; the pipeline's stages
    # below it. The group imports its commands' modules by name, when asked for one.
    assert {"run", "helm", "drift", "reporters", "policy"} <= set(graph["commands"])
    assert "commands" in graph["cli"]
    assert "cli" not in graph["commands"]
    assert graph["__main__"] == {"console": {"__main__.py"}}
    assert graph["console"] == {"cli": {"console.py"}}
    assert "policy" in graph["run"]
    assert "run" not in graph["policy"]


def test_the_stages_below_the_run_never_call_back_into_it() -> None:
    """The lint run (``run/pipeline.py``) calls the providers; the providers (``evaluate/``,
    ``helm/``) never import the run, and the subject protocol knows no Helm."""
    graph = package_graph(LINTER)
    assert "run" not in graph["helm"], graph["helm"].get("run")
    assert not {"run", "helm"} & set(graph["evaluate"]), graph["evaluate"]
    assert {"evaluate", "helm"} <= set(graph["run"])
    assert "evaluate" in graph["helm"]


def _write(top: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def cyclic(tmp_path: Path) -> Path:
    """Three packages whose cycle goes through a function-level and a TYPE_CHECKING import."""
    top = tmp_path / "linter"
    _write(
        top,
        {
            "__init__.py": '__version__ = "1"\n',
            "cli.py": "from linter import __version__, low\n",
            "low/__init__.py": "",
            "low/a.py": "def f():\n    from linter.high.b import g\n    return g\n",
            "mid/__init__.py": "",
            "mid/c.py": "from ..low import a\n",
            "high/__init__.py": "",
            "high/b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from linter.mid.c import a\n"
                "def g():\n    return 1\n"
            ),
        },
    )
    return top


def test_a_cycle_through_hidden_imports_is_found_and_named(cyclic: Path) -> None:
    graph = package_graph(cyclic)
    assert graph["cli"] == {"linter": {"cli.py"}, "low": {"cli.py"}}
    cycle = find_cycle(graph)
    assert cycle == ["low", "high", "mid", "low"]
    assert describe(graph, cycle) == (
        "package import cycle: low -> high -> mid -> low\n"
        "  low -> high: low/a.py\n"
        "  high -> mid: high/b.py\n"
        "  mid -> low: mid/c.py"
    )


def test_a_graph_without_cycle_passes(cyclic: Path) -> None:
    (cyclic / "low" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    graph = package_graph(cyclic)
    assert find_cycle(graph) is None
    assert graph["low"] == {}
