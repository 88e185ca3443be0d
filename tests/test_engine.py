"""Policy evaluation: variables, forEach, field paths, and evaluation errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from linter.errors import PolicyError
from linter.parsing.documents import parse_yaml
from linter.policy import load_policies
from linter.policy.engine import document_subject, evaluate
from linter.positions import format_path, parse_path

DOC = """\
kind: Deployment
metadata:
  name: m
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: a
          image: a:1
        - name: b
          image: b:latest
"""


def _policy(tmp_path: Path, rules: str, extra: str = "") -> Path:
    folder = tmp_path / "policies"
    folder.mkdir(exist_ok=True)
    (folder / "p.yaml").write_text(
        "apiVersion: servelint/v1\nkind: Policy\nmetadata:\n  name: p\nspec:\n"
        f"  target: document\n{extra}  rules:\n{rules}"
    )
    return folder


def _run(tmp_path: Path, rules: str, extra: str = "") -> list[tuple[str, str, int, int, str, str]]:
    policies = load_policies([str(_policy(tmp_path, rules, extra))], builtin=False)
    parsed = parse_yaml("d.yaml", DOC)
    findings = evaluate(policies, [document_subject(d) for d in parsed.documents])
    return [
        (f.rule_id, f.severity.label, f.line, f.column, f.path, f.message)
        for f in sorted(findings, key=lambda f: f.sort_key())
    ]


def test_variables_see_earlier_variables(tmp_path: Path) -> None:
    extra = (
        "  variables:\n    - name: a\n      expression: doc.spec.replicas + 1\n"
        "    - name: b\n      expression: variables.a * 10\n"
    )
    rules = (
        "    - id: r\n      severity: warning\n      expression: variables.b > 20\n"
        "      messageExpression: \"'b is ' + string(variables.b)\"\n"
        "      fieldPath: spec.replicas\n"
    )
    assert _run(tmp_path, rules, extra) == [("p/r", "warning", 5, 3, "spec.replicas", "b is 20")]


def test_for_each_binds_item_and_index(tmp_path: Path) -> None:
    rules = (
        "    - id: pinned\n      severity: error\n"
        "      forEach: doc.spec.template.spec.containers\n"
        "      expression: \"!item.image.endsWith(':latest')\"\n"
        "      messageExpression: \"item.name + ' at ' + string(index)\"\n"
        "      fieldPath: spec.template.spec.containers[{index}].image\n"
    )
    assert _run(tmp_path, rules) == [
        ("p/pinned", "error", 12, 11, "spec.template.spec.containers[1].image", "b at 1")
    ]


def test_field_path_expression(tmp_path: Path) -> None:
    rules = (
        "    - id: r\n      severity: info\n      expression: 'false'\n      message: m\n"
        "      fieldPathExpression: \"'metadata.name'\"\n"
    )
    assert _run(tmp_path, rules) == [("p/r", "info", 3, 3, "metadata.name", "m")]


def test_match_conditions_gate_the_policy(tmp_path: Path) -> None:
    extra = "  matchConditions:\n    - name: svc\n      expression: doc.kind == 'Service'\n"
    rules = "    - id: r\n      severity: error\n      expression: 'false'\n      message: m\n"
    assert _run(tmp_path, rules, extra) == []


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            "      expression: doc.spec.missing > 1\n      message: m\n",
            "cannot evaluate rule: no such key 'missing' (guard it with has())",
        ),
        (
            "      expression: doc.metadata.name\n      message: m\n",
            "cannot evaluate rule: expression returned str, not bool",
        ),
        (
            "      expression: 'false'\n      messageExpression: '1'\n",
            "cannot evaluate rule: messageExpression must return a string",
        ),
        (
            '      expression: "doc.metadata.name > 1"\n      message: m\n',
            "cannot evaluate rule: No matching overloads found : _>_(string, int64)",
        ),
    ],
    ids=["missing-key", "not-bool", "message-not-string", "type-mismatch"],
)
def test_evaluation_errors_are_findings_of_the_rule(
    tmp_path: Path, rule: str, message: str
) -> None:
    rules = "    - id: r\n      severity: warning\n" + rule
    assert _run(tmp_path, rules) == [("p/r", "warning", 1, 1, "", message)]


def test_match_condition_error_is_reported(tmp_path: Path) -> None:
    extra = "  matchConditions:\n    - name: c\n      expression: doc.nope == 1\n"
    rules = "    - id: r\n      severity: error\n      expression: 'true'\n      message: m\n"
    assert _run(tmp_path, rules, extra) == [
        (
            "p/r",
            "error",
            1,
            1,
            "",
            "cannot evaluate rule: matchCondition 'c': no such key 'nope' (guard it with has())",
        )
    ]


def test_runaway_comprehension_is_stopped_and_reported(tmp_path: Path) -> None:
    nested = "[0,1,2,3,4,5,6,7,8,9]"
    expression = (
        f"{nested}.all(a, {nested}.all(b, {nested}.all(c, {nested}.all(d, "
        f"{nested}.all(e, {nested}.all(f, a + b + c + d + e + f >= 0))))))"
    )
    rules = (
        f"    - id: r\n      severity: error\n      expression: '{expression}'\n      message: m\n"
    )
    assert _run(tmp_path, rules) == [
        ("p/r", "error", 1, 1, "", "cannot evaluate rule: Iteration budget exceeded")
    ]


def test_duplicate_policy_names_are_rejected(tmp_path: Path) -> None:
    folder = _policy(
        tmp_path, "    - id: r\n      severity: error\n      expression: 'true'\n      message: m\n"
    )
    (folder / "q.yaml").write_text((folder / "p.yaml").read_text())
    with pytest.raises(PolicyError, match=r"policy 'p' is already defined in .*p\.yaml"):
        load_policies([str(folder)], builtin=False)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("spec.containers[0].image", ("spec", "containers", 0, "image")),
        ("a['x.y'].b", ("a", "x.y", "b")),
        (
            "metadata.annotations['servelint.io/ignore']",
            ("metadata", "annotations", "servelint.io/ignore"),
        ),
        ("", ()),
    ],
)
def test_paths_round_trip(text: str, path: tuple[str | int, ...]) -> None:
    assert parse_path(text) == path
    assert format_path(path) == text


def test_lint_path_imports_no_heavy_modules(tmp_path: Path) -> None:
    (tmp_path / "v.yaml").write_text("a: 1\n")
    code = (
        "import sys\nfrom linter.cli import main\n"
        f"rc = main(['lint', {str(tmp_path / 'v.yaml')!r}])\n"
        "heavy = sorted(m for m in ('kubernetes', 'deepdiff', 'ruamel', 'jsonschema')"
        " if m in sys.modules)\n"
        "print(rc, heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "0 []"


def test_other_tools_policies_in_a_policy_dir_are_ignored(tmp_path: Path) -> None:
    folder = _policy(
        tmp_path, "    - id: r\n      severity: error\n      expression: 'true'\n      message: m\n"
    )
    (folder / "kyverno.yaml").write_text(
        "apiVersion: kyverno.io/v1\nkind: Policy\nmetadata:\n  name: k\nspec: {rules: []}\n"
    )
    assert [p.name for p in load_policies([str(folder)], builtin=False)] == ["p"]


def test_wrong_servelint_api_version_is_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "pol"
    folder.mkdir()
    (folder / "p.yaml").write_text(
        "apiVersion: servelint/v2\nkind: Policy\nmetadata:\n  name: p\nspec:\n"
        "  target: document\n  rules: [{id: r, severity: error, expression: 'true', message: m}]\n"
    )
    with pytest.raises(PolicyError, match=r"p\.yaml:1:1: apiVersion: 'servelint/v1' was expected"):
        load_policies([str(folder)], builtin=False)


def test_many_evaluations_over_nulls_do_not_exhaust_none(tmp_path: Path) -> None:
    # cel-expr-python drops a reference to None each time a null result is converted back
    # to Python; without the pin in linter.policy.expr this aborts the interpreter.
    # 20,000 is several times None's natural reference count at start-up.
    code = (
        "from linter.policy.expr import compile_expression, activation\n"
        "e = compile_expression('doc.a')\n"
        "for i in range(20_000):\n"
        "    e.evaluate(activation({'doc': {'a': None}}))\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert (done.returncode, done.stdout) == (0, "ok\n")


def test_failing_variable_is_reported_in_the_rules_that_read_it(tmp_path: Path) -> None:
    extra = (
        "  variables:\n    - name: bad\n      expression: doc.spec.nope\n"
        "    - name: good\n      expression: doc.spec.replicas\n"
    )
    rules = (
        "    - id: uses-bad\n      severity: warning\n      expression: variables.bad > 1\n"
        "      message: m\n"
        "    - id: uses-good\n      severity: warning\n      expression: variables.good > 1\n"
        "      message: few\n      fieldPath: spec.replicas\n"
    )
    assert _run(tmp_path, rules, extra) == [
        (
            "p/uses-bad",
            "warning",
            1,
            1,
            "",
            "cannot evaluate rule: variable 'bad': no such key 'nope' (guard it with has())",
        ),
        ("p/uses-good", "warning", 5, 3, "spec.replicas", "few"),
    ]


@pytest.mark.parametrize(
    ("variables", "rule", "message"),
    [
        (
            "    - name: a\n      expression: variables.b\n    - name: b\n      expression: '1'\n",
            "variables.a == 1",
            "spec.variables[0].expression: variable 'a' uses variables.b, which is not declared "
            "before it",
        ),
        (
            "    - name: a\n      expression: '1'\n",
            "variables.zz == 1",
            "spec.rules[0].expression: uses variables.zz, which the policy does not declare",
        ),
    ],
    ids=["forward-reference", "undeclared"],
)
def test_variable_references_are_checked_at_load(
    tmp_path: Path, variables: str, rule: str, message: str
) -> None:
    folder = _policy(
        tmp_path,
        f"    - id: r\n      severity: error\n      expression: {rule}\n      message: m\n",
        "  variables:\n" + variables,
    )
    with pytest.raises(PolicyError, match=re.escape(message)):
        load_policies([str(folder)], builtin=False)


def test_a_huge_static_message_is_cut_as_a_message_expression_is(tmp_path: Path) -> None:
    # Issue 31: a 1 MB static message was printed whole; every rule's message passes the
    # same cut (policy/engine.py MAX_MESSAGE).
    huge = "m" * 1_000_000
    rules = (
        f"    - id: r\n      severity: error\n      expression: 'false'\n      message: {huge}\n"
    )
    [(rule, severity, line, column, path, message)] = _run(tmp_path, rules)
    assert (rule, severity, line, column, path) == ("p/r", "error", 1, 1, "")
    assert message == "m" * 4096 + " … (message cut at 4096 of 1000000 characters)"
