"""Properties of the lint path over generated trees and texts (Hypothesis).

lint never raises and exits 0 or 1 on anything readable; every finding points inside its
file; a dumped tree parses back to the same data.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linter.findings import Severity, exit_code
from linter.parsing.documents import parse_json, parse_yaml
from linter.policy import load_policies
from linter.policy.model import Policy
from linter.run.pipeline import providers_for, run
from linter.sources.files import Input

SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
# Floats that every JSON and YAML writer spells with a decimal point.
_float = st.floats(min_value=-1e6, max_value=1e6).filter(lambda f: "e" not in repr(f))
_scalar = st.one_of(st.none(), st.booleans(), st.integers(-(10**9), 10**9), _float, _text)
trees = st.recursive(
    _scalar,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_text, children, max_size=4)
    ),
    max_leaves=25,
)
# YAML-ish text: indentation, punctuation of both block and flow style, anchors, tags.
yamlish = st.text(alphabet=st.sampled_from(list("ab01 :-\n\t[]{},&*!|>'\"#%@`<=~.?")), max_size=80)


@functools.cache
def _policies() -> tuple[Policy, ...]:
    return tuple(load_policies())


def _lint_text(folder: Path, name: str, text: str) -> tuple[int, list[Any]]:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    result = run(_policies(), providers_for(_policies(), [Input(str(path), path)]))
    assert result.read_failures == 0
    return exit_code(result.findings, Severity.ERROR), result.findings


def _assert_inside(findings: list[Any], text: str) -> None:
    # After a final newline the cursor stands on one more (empty) line: "end of stream"
    # errors point there, as editors do.
    lines = text.count("\n") + 1
    for finding in findings:
        assert 1 <= finding.line <= lines, (finding, lines)
        assert finding.column >= 1


@SETTINGS
@given(tree=trees)
def test_dumped_yaml_parses_back_to_the_same_data(tree: Any) -> None:
    parsed = parse_yaml("t.yaml", yaml.safe_dump(tree, allow_unicode=True))
    assert [p for p in parsed.problems if p.rule_id != "duplicate-key"] == []
    assert [d.data for d in parsed.documents] == ([] if tree is None else [tree])


@SETTINGS
@given(tree=trees)
def test_dumped_json_parses_back_to_the_same_data(tree: Any) -> None:
    parsed = parse_json("t.json", json.dumps(tree, indent=1))
    assert [d.data for d in parsed.documents] == ([] if tree is None else [tree])


@SETTINGS
@given(tree=trees, fmt=st.sampled_from(["yaml", "json"]))
def test_lint_of_any_tree_exits_0_or_1_with_findings_inside_the_file(
    tmp_path: Path, tree: Any, fmt: str
) -> None:
    text = yaml.safe_dump(tree) if fmt == "yaml" else json.dumps(tree, indent=2)
    code, findings = _lint_text(tmp_path, f"t.{fmt}", text)
    assert code in (0, 1)
    _assert_inside(findings, text)


@SETTINGS
@given(text=yamlish)
def test_lint_of_any_text_never_raises_and_points_inside_the_file(
    tmp_path: Path, text: str
) -> None:
    code, findings = _lint_text(tmp_path, "t.yaml", text)
    assert code in (0, 1)
    _assert_inside(findings, text)
