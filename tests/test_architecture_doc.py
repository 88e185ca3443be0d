"""docs/architecture.md names real files, and the functions it names are in those files, so
a newcomer who greps for them finds them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "architecture.md"
# `path/to/file.py` or `folder/`: relative to linter/ for the code, else to the repository.
PATH = re.compile(r"`((?:[\w.-]+/)+(?:[\w.-]+\.(?:py|yaml|json|md))?)`")
# `module.py` (`name`) or `module.py` `name`, `other`
NAMED = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.py)`\s*\(?((?:\s*,?\s*`[\w.]+`)+)")


def resolve(path: str) -> Path | None:
    for base in (REPO / "linter", REPO):
        if (base / path).exists():
            return base / path
    return None


def defined_names(path: Path) -> set[str]:
    """Functions, classes, methods and assigned names of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_every_path_in_the_map_exists() -> None:
    paths = set(PATH.findall(DOC.read_text(encoding="utf-8")))
    assert {"sources/chartlayout.py", "evaluate/inputs.py", "policies/vllm-kv.yaml"} <= paths
    assert sorted(p for p in paths if resolve(p) is None) == []


def test_every_function_named_with_its_module_is_defined_there() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = []
    checked = 0
    for module, listed in NAMED.findall(text):
        path = resolve(module)
        assert path is not None, module
        names = defined_names(path)
        for name in re.findall(r"`([\w.]+)`", listed):
            if name.endswith(".py"):
                continue  # a module beside it in the same package, not a name
            checked += 1
            if name.split(".")[0] not in names:
                missing.append(f"{module}: {name}")
    assert missing == []
    assert checked >= 40  # the value's route alone names that many


def test_the_route_of_max_model_len_is_the_real_one() -> None:
    """The rule and the line the map follows are the ones the example gives."""
    text = DOC.read_text(encoding="utf-8")
    values = (REPO / "examples" / "charts" / "vllm" / "values-prod.yaml").read_text()
    assert values.splitlines()[41] == "      maxModelLen: 131072"
    assert "values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit" in text
    policy = (REPO / "policies" / "vllm-kv.yaml").read_text()
    rule = policy[policy.index("- id: one-sequence-does-not-fit") :]
    assert "fieldPath: engine.max_model_len" in rule[: rule.index("\n    - id:")]
