"""Find policy test files and turn each into a checked, ready-to-run PolicyTestFile.

A folder is searched for ``*_test.yaml`` / ``*_test.yml``; a discovered file that is
not a servelint document (another tool's test) is left alone, but one that says
``apiVersion: servelint/v1`` must be a valid ``PolicyTest``. A file named on the
command line must be one. Everything wrong is reported with file and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from linter.errors import LinterError
from linter.parsing import bounded
from linter.parsing.documents import Document, parse_yaml
from linter.policy import load_policies
from linter.policy.model import Policy
from linter.policytest.model import Case, Expectation, PolicyTestFile
from linter.positions import PathT
from linter.run.config import model_settings

TEST_SUFFIXES = ("_test.yaml", "_test.yml")
API_VERSION = "servelint/v1"
_SKIP_DIRS = {"node_modules", "__pycache__"}


class InvalidTest(LinterError):
    """A policy test file that cannot be run as written."""


def discover(paths: Sequence[str]) -> list[tuple[Path, bool]]:
    """``(file, named)`` pairs: files as given (named), folders searched recursively."""
    found: list[tuple[Path, bool]] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend((p, False) for p in _walk(path))
        elif path.exists():
            found.append((path, True))
        else:
            raise InvalidTest(f"{raw}: no such file or directory")
    return found


def _walk(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        yield from (Path(folder, f) for f in sorted(files) if f.endswith(TEST_SUFFIXES))


PolicyCache = dict[tuple[str, ...], tuple[Policy, ...]]


def load(path: Path, named: bool, cache: PolicyCache) -> PolicyTestFile | None:
    """The test in ``path``; None for a discovered file that is not servelint's."""
    try:
        text = bounded.read_text(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidTest(f"{path}: cannot read: {exc}") from exc
    parsed = parse_yaml(str(path), text)
    if parsed.problems:
        problem = parsed.problems[0]
        raise InvalidTest(f"{path}:{problem.line}:{problem.column}: {problem.message}")
    if len(parsed.documents) != 1:
        raise InvalidTest(f"{path}:1:1: a policy test file holds exactly one YAML document")
    document = parsed.documents[0]
    data = document.data
    if not named and not (isinstance(data, dict) and data.get("apiVersion") == API_VERSION):
        return None
    from linter.parsing.schemacheck import schema_errors

    errors = schema_errors(document, "policytest.schema.json")
    if errors:
        raise InvalidTest("\n".join(f"{path}:{error}" for error in errors))
    return _build(path, document, cache)


def _build(path: Path, document: Document, cache: PolicyCache) -> PolicyTestFile:
    spec: dict[str, Any] = document.data["spec"]
    folder = path.parent
    policies = _policies(path, document, spec["policies"], cache)
    rules = {rule.id for policy in policies for rule in policy.rules}
    cases = tuple(_case(path, document, i, raw, rules) for i, raw in enumerate(spec["cases"]))
    settings = model_settings(spec.get("model", {}), folder.resolve())
    return PolicyTestFile(
        str(path), document.data["metadata"]["name"], folder, policies, settings, cases
    )


def _policies(
    path: Path, document: Document, names: list[str], cache: PolicyCache
) -> tuple[Policy, ...]:
    resolved = []
    for index, name in enumerate(names):
        target = path.parent / name
        if not target.exists():
            raise InvalidTest(
                f"{_where(path, document, ('spec', 'policies', index))}: "
                f"policy file or folder {name} not found"
            )
        resolved.append(os.path.normpath(target))
    key = tuple(resolved)
    if key not in cache:
        try:
            cache[key] = tuple(load_policies(key, builtin=False))
        except LinterError as exc:
            where = _where(path, document, ("spec", "policies"))
            raise InvalidTest(f"{where}: {exc.format_message()}") from exc
    return cache[key]


def _case(path: Path, document: Document, index: int, raw: dict[str, Any], rules: set[str]) -> Case:
    base: PathT = ("spec", "cases", index)
    inputs = tuple(raw["inputs"])
    for i, name in enumerate(inputs):
        if not (path.parent / name).is_file():
            raise InvalidTest(
                f"{_where(path, document, (*base, 'inputs', i))}: input file {name} not found"
            )
    expectations = []
    for i, item in enumerate(raw["expect"]):
        where = _where(path, document, (*base, "expect", i))
        if item["rule"] not in rules:
            raise InvalidTest(
                f"{where}: rule '{item['rule']}' is not defined by the "
                f"policies of this test ({', '.join(sorted(rules)) or 'none'})"
            )
        file = item.get("file")
        if file is not None and file not in inputs:
            raise InvalidTest(f"{where}: file {file} is not one of the case's inputs")
        if file is None and item["result"] == "fail" and len(inputs) > 1:
            raise InvalidTest(f"{where}: the case has several inputs; say which file fails")
        expectations.append(
            Expectation(item["rule"], item["result"], file, item.get("line"), item.get("message"))
        )
    return Case(raw["name"], inputs, tuple(expectations))


def _where(path: Path, document: Document, at: PathT) -> str:
    span = document.span(at)
    return f"{path}:{span.line}:{span.column}"
