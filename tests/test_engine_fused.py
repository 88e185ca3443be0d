"""The fused check (linter/policy/fused.py) and bound variables (linter/policy/expr.py) never
change a result: the engine finds exactly what rule-by-rule evaluation finds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from linter.evaluate.parsers import parse
from linter.model.frontends.extract import extract_workloads
from linter.policy import Policy, load_policies
from linter.policy.engine import Subject, document_subject, evaluate, workload_subject

FIXTURES = Path(__file__).parent / "fixtures"


def _unfused(policies: list[Policy]) -> list[Policy]:
    return [dataclasses.replace(p, fused=None) for p in policies]


def _findings(policies: list[Policy], subjects: list[Subject]) -> list[tuple[object, ...]]:
    return sorted(
        (f.rule_id, f.severity, f.message, f.file, f.line, f.column, f.path)
        for f in evaluate(policies, subjects)
    )


def _subjects(paths: list[Path]) -> list[Subject]:
    parsed = [parse(str(p), p.read_text(encoding="utf-8")) for p in paths]
    return [
        *(document_subject(d) for f in parsed for d in f.documents),
        *(workload_subject(w) for w in extract_workloads(parsed)),
    ]


def test_builtin_policies_fused_and_rule_by_rule_agree() -> None:
    paths = [
        p
        for p in sorted(FIXTURES.rglob("*.yaml"))
        if "templates" not in p.parts
        and "policies" not in p.parts
        and not p.name.endswith("_test.yaml")
    ]
    subjects = _subjects(paths[:300])
    policies = load_policies()
    assert all(p.fused is not None for p in policies)
    fused = _findings(policies, subjects)
    assert fused and fused == _findings(_unfused(policies), subjects)


POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {{name: team}}
spec:
  target: document
  matchConditions:
    - {{name: objects, expression: "has(doc.kind)"}}
  variables:
{variables}
  rules:
{rules}
"""


def _policy(tmp_path: Path, variables: str, rules: str) -> list[Policy]:
    (tmp_path / "team.yaml").write_text(
        POLICY.format(variables=variables, rules=rules), encoding="utf-8"
    )
    return load_policies([str(tmp_path)], builtin=False)


DOC = "kind: Deployment\nspec:\n  containers: [{name: a, limits: 1}, {name: b}]\n"


@pytest.mark.parametrize(
    ("variables", "rules"),
    [
        # A variable no rule reads fails: nothing to report, as before.
        (
            '    - {name: broken, expression: "doc.missing.field"}\n'
            '    - {name: kind, expression: "doc.kind"}',
            "    - {id: r, severity: error, expression: \"variables.kind == 'Deployment'\", "
            "message: m}",
        ),
        # A variable a rule reads fails: the rule reports it.
        (
            '    - {name: broken, expression: "doc.missing.field"}',
            '    - {id: r, severity: error, expression: "variables.broken == 1", message: m}',
        ),
        # A variable only a message reads fails: nothing to report for a rule that holds.
        (
            '    - {name: broken, expression: "doc.missing.field"}\n'
            '    - {name: kind, expression: "doc.kind"}',
            "    - {id: r, severity: error, expression: \"variables.kind == 'Deployment'\", "
            'messageExpression: "string(variables.broken)"}',
        ),
        # ... and the variable's error for a rule that does not.
        (
            '    - {name: broken, expression: "doc.missing.field"}\n'
            '    - {name: kind, expression: "doc.kind"}',
            "    - {id: r, severity: error, expression: \"variables.kind != 'Deployment'\", "
            'messageExpression: "string(variables.broken)"}',
        ),
        # forEach with item and index, and variables that read variables.
        (
            '    - {name: containers, expression: "doc.spec.containers"}\n'
            '    - {name: names, expression: "variables.containers.map(c, c.name)"}',
            '    - {id: r, severity: warning, forEach: "variables.containers", '
            "expression: \"has(item.limits) || variables.names[index] == 'a'\", "
            "messageExpression: \"'no limits on ' + variables.names[index]\", "
            'fieldPath: "spec.containers[{index}]"}',
        ),
        # variables used as a whole cannot be fused; evaluated rule by rule.
        (
            '    - {name: kind, expression: "doc.kind"}',
            '    - {id: r, severity: info, expression: "size(variables) == 2", message: m}',
        ),
        # A rule that returns no bool.
        (
            '    - {name: kind, expression: "doc.kind"}',
            '    - {id: r, severity: error, expression: "variables.kind", message: m}',
        ),
    ],
    ids=[
        "unused-variable-fails",
        "used-variable-fails",
        "message-variable-fails-rule-holds",
        "message-variable-fails-rule-fails",
        "for-each-index",
        "whole-variables",
        "not-bool",
    ],
)
def test_user_policies_fused_and_rule_by_rule_agree(
    tmp_path: Path, variables: str, rules: str
) -> None:
    policies = _policy(tmp_path, variables, rules)
    subjects = [document_subject(d) for d in parse("deploy.yaml", DOC).documents]
    assert _findings(policies, subjects) == _findings(_unfused(policies), subjects)


def test_the_expected_findings(tmp_path: Path) -> None:
    used = _policy(
        tmp_path,
        '    - {name: broken, expression: "doc.missing.field"}',
        '    - {id: r, severity: error, expression: "variables.broken == 1", message: m}',
    )
    subjects = [document_subject(d) for d in parse("deploy.yaml", DOC).documents]
    [finding] = evaluate(used, subjects)
    assert finding.message == (
        "cannot evaluate rule: variable 'broken': no such key 'missing' (guard it with has())"
    )
    each = _policy(
        tmp_path,
        '    - {name: containers, expression: "doc.spec.containers"}',
        '    - {id: r, severity: warning, forEach: "variables.containers", '
        'expression: "has(item.limits)", messageExpression: "item.name + \' \' + '
        'string(index)", fieldPath: "spec.containers[{index}]"}',
    )
    assert [(f.message, f.line) for f in evaluate(each, subjects)] == [("b 1", 3)]


def test_an_expression_nested_to_the_limit_still_sees_its_variables(tmp_path: Path) -> None:
    deep = "variables.kind == 'Deployment'"
    for _ in range(28):  # CEL's parser stops at 32 levels; the bindings add three
        deep = f"({deep} || false)"
    policies = _policy(
        tmp_path,
        '    - {name: kind, expression: "doc.kind"}',
        f'    - {{id: r, severity: error, expression: "!({deep})", message: m}}',
    )
    subjects = [document_subject(d) for d in parse("deploy.yaml", DOC).documents]
    assert [f.rule_id for f in evaluate(policies, subjects)] == ["team/r"]
    assert _findings(policies, subjects) == _findings(_unfused(policies), subjects)


def test_a_disabled_rule_leaves_the_fused_check(tmp_path: Path) -> None:
    from linter.policy.expr import activation
    from linter.run.config import Config
    from linter.run.governance import select_policies

    policies = _policy(
        tmp_path,
        '    - {name: kind, expression: "doc.kind"}',
        '    - {id: never, severity: error, expression: "false", message: m}\n'
        "    - {id: kind, severity: error, expression: \"variables.kind != ''\", "
        "message: m}",
    )
    [kept] = select_policies(policies, Config(disable=("team/never",)))
    assert [r.id for r in kept.rules] == ["team/kind"]
    assert kept.fused is not None and "false" not in kept.fused.expr.text
    subjects = [document_subject(d) for d in parse("deploy.yaml", DOC).documents]
    assert kept.fused.passes(activation({"doc": subjects[0].data}))
    assert evaluate([kept], subjects) == []
    assert select_policies(policies, Config()) == policies


def test_a_message_variable_is_evaluated_for_a_finding_only(tmp_path: Path) -> None:
    subjects = [document_subject(d) for d in parse("deploy.yaml", DOC).documents]
    variables = (
        '    - {name: broken, expression: "doc.missing.field"}\n'
        '    - {name: kind, expression: "doc.kind"}'
    )
    holds = "    - {{id: r, severity: error, expression: \"variables.kind {} 'Deployment'\", "
    message = 'messageExpression: "string(variables.broken)"}'
    passing = _policy(tmp_path, variables, holds.format("==") + message)
    assert evaluate(passing, subjects) == []
    failing = _policy(tmp_path, variables, holds.format("!=") + message)
    assert [(f.rule_id, f.message) for f in evaluate(failing, subjects)] == [
        (
            "team/r",
            "cannot evaluate rule: variable 'broken': no such key 'missing' (guard it with has())",
        )
    ]
