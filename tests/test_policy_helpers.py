"""The CEL helper library (policy/helpers.py): units, rounding, and bad input reported as
an evaluation finding of the rule, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.errors import ExpressionError
from linter.parsing.documents import parse_yaml
from linter.policy import cache, load_policies
from linter.policy.engine import document_subject, evaluate
from linter.policy.expr import activation, compile_expression
from linter.policy.helpers import SIGNATURES


def _value(text: str, data: object = None) -> object:
    return compile_expression(text).evaluate(activation({"doc": data}))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kib(1)", 1024),
        ("mib(2)", 2 * 2**20),
        ("gib(1)", 1073741824),
        ("tib(1)", 2**40),
        ("gib(1.5)", 1610612736),
        ("gib(0.1)", 107374182),  # 107374182.4 rounds to the nearest byte
        ("gib(1u)", 1073741824),
        ("gib(-2)", -2147483648),
        ("in_gib(1610612736)", 1.5),
        ("in_mib(gib(1))", 1024.0),
        ("in_kib(1536.0)", 1.5),
        ("in_gib(1u)", 1 / 2**30),
        ("quantity_bytes('16Gi')", 17179869184),
        ("quantity_bytes('500M')", 500_000_000),
        ("quantity_bytes('1.5Ki')", 1536),
        ("quantity_bytes('100m')", 1),  # rounded up, as Kubernetes does
        ("quantity_bytes(2048)", 2048),
        ("quantity_bytes(1e3)", 1000),
        ("human_bytes(gib(16))", "16 GiB"),
        ("human_bytes(17070817280)", "15.9 GiB"),
        ("human_bytes(131072)", "128 KiB"),
        ("human_bytes(1536)", "1.5 KiB"),
        ("human_bytes(mib(300))", "300 MiB"),
        ("human_bytes(tib(2))", "2 TiB"),
        ("human_bytes(1023)", "1023 B"),
        ("human_bytes(0)", "0 B"),
        ("human_bytes(-gib(3))", "-3 GiB"),
        ("human_bytes(1610612736.0)", "1.5 GiB"),
        ("human_bytes(2.5)", "2.5 B"),
        ("seconds('30s')", 30.0),
        ("seconds('1m30s')", 90.0),
        ("seconds('500ms')", 0.5),
        ("seconds('2h')", 7200.0),
        ("seconds(duration('90s'))", 90.0),
        ("human_seconds(90)", "1m30s"),
        ("human_seconds(7200.0)", "2h"),
        ("human_seconds(3661)", "1h1m1s"),
        ("human_seconds(0)", "0s"),
        ("human_seconds(0.5)", "500ms"),
        ("human_seconds(1.5)", "1.5s"),
        ("human_seconds(-30)", "-30s"),
        ("fixed(0.9, 2)", "0.90"),
        ("fixed(2.675, 1)", "2.7"),
        ("fixed(12, 0)", "12"),
        ("fixed(1.0 / 3.0, 6)", "0.333333"),
        ("gib(2) > 2000000000", True),
        ("quantity_bytes('1Gi') == gib(1)", True),
    ],
)
def test_helper_values(text: str, expected: object) -> None:
    value = _value(text)
    assert type(value) is type(expected)
    assert value == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("quantity_bytes('16GB')", "quantity_bytes(): '16GB' is not a Kubernetes quantity"),
        ("quantity_bytes('')", "quantity_bytes(): '' is not a Kubernetes quantity"),
        (
            "quantity_bytes('1e999999')",
            "quantity_bytes(): '1e999999' is outside the 64-bit integer range",
        ),
        (
            "quantity_bytes('1e99999999')",
            "quantity_bytes(): '1e99999999' is not a Kubernetes quantity",
        ),
        (
            "quantity_bytes('9Ei')",
            "quantity_bytes(): '9Ei' is outside the 64-bit integer range",
        ),
        ("seconds('30')", "seconds(): '30' has no unit (write 30s or 30ms)"),
        (
            "seconds('soon')",
            "seconds(): 'soon' is not a duration such as 30s, 1m30s or 500ms",
        ),
        ("seconds(' ')", "seconds(): ' ' is not a duration"),
        ("fixed(1.0, 7)", "fixed(): digits must be 0 to 6, not 7"),
        ("fixed(1.0, -1)", "fixed(): digits must be 0 to 6, not -1"),
        ("human_bytes(1.0 / 0.0)", "human_bytes(): inf is not a finite number"),
        ("gib(0.0 / 0.0)", "gib(): nan is not a finite number"),
        (
            "gib(9000000000)",
            "gib(): 9663676416000000000 is outside the 64-bit integer range",
        ),
        # wrong types are found when the policy loads (a user policy) or at evaluation
        ("gib('1')", "found no matching overload for 'gib' applied to '(string)'"),
        ("human_bytes(doc)", "No matching overloads found : human_bytes(null_type)"),
    ],
)
def test_bad_arguments_are_expression_errors(text: str, error: str) -> None:
    with pytest.raises(ExpressionError) as raised:
        _value(text)
    assert str(raised.value) == error


POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: team-shm}
spec:
  target: document
  matchConditions:
    - name: deployments
      expression: "doc.kind == 'Deployment'"
  variables:
    - name: shm
      expression: >-
        doc.spec.template.spec.volumes.filter(v, v.name == 'dshm')[0].emptyDir.sizeLimit
  rules:
    - id: shm-at-least-8gi
      severity: warning
      expression: quantity_bytes(variables.shm) >= gib(8)
      message: >-
        /dev/shm is {{ human_bytes(quantity_bytes(variables.shm)) }}
        ({{ variables.shm }}), below the team's {{ human_bytes(gib(8)) }}
      fieldPath: spec.template.spec.volumes[0].emptyDir.sizeLimit
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: vllm}}
spec:
  template:
    spec:
      volumes:
        - name: dshm
          emptyDir: {{medium: Memory, sizeLimit: {size}}}
"""


def _findings(tmp_path: Path, size: str) -> list[tuple[str, str, int, int, str]]:
    folder = tmp_path / "policies"
    folder.mkdir(exist_ok=True)
    (folder / "team.yaml").write_text(POLICY, encoding="utf-8")
    policies = load_policies([str(folder)], builtin=False)
    parsed = parse_yaml("deploy.yaml", DEPLOYMENT.format(size=size))
    return [
        (f.rule_id, f.severity.label, f.line, f.column, f.message)
        for f in evaluate(policies, [document_subject(d) for d in parsed.documents])
    ]


@pytest.mark.parametrize("caching", [False, True])
def test_a_user_policy_with_helpers_and_a_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caching: bool
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("SERVELINT_NO_CACHE", "" if caching else "1")
    expected = [
        (
            "team-shm/shm-at-least-8gi",
            "warning",
            9,
            38,
            "/dev/shm is 1.5 GiB (1536Mi), below the team's 8 GiB",
        )
    ]
    assert _findings(tmp_path, "1536Mi") == expected
    assert _findings(tmp_path, "8Gi") == []
    if caching:  # read back from the cache: the helpers resolve in deserialised expressions
        assert sorted((tmp_path / "cache" / "servelint").glob("policies-*.entry"))
        assert _findings(tmp_path, "1536Mi") == expected


def test_a_bad_quantity_is_a_finding_of_the_rule(tmp_path: Path) -> None:
    findings = _findings(tmp_path, "lots")
    assert findings == [
        (
            "team-shm/shm-at-least-8gi",
            "warning",
            1,
            1,
            "cannot evaluate rule: quantity_bytes(): 'lots' is not a Kubernetes quantity",
        )
    ]


def test_the_policy_cache_keys_on_the_helper_declarations(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SERVELINT_NO_CACHE", raising=False)
    files = [("team.yaml", POLICY, False)]
    cache._code_key.cache_clear()
    before = cache._entry(files)
    monkeypatch.setitem(SIGNATURES, "pib", ((("INT",), "INT", lambda n: n * 2**50),))
    cache._code_key.cache_clear()
    after = cache._entry(files)
    monkeypatch.undo()
    cache._code_key.cache_clear()
    assert before is not None and after is not None
    assert before != after


@pytest.mark.parametrize(
    ("expression", "error"),
    [
        (
            "seconds(doc.metadata.name) > 0.0",
            "seconds(): 'vllm' is not a duration such as 30s, 1m30s or 500ms",
        ),
        ("fixed(1.0, size(doc.metadata.name) * 2) != ''", "fixed(): digits must be 0 to 6, not 8"),
        (
            "human_bytes(double(doc.spec.replicas) / 0.0) != ''",
            "human_bytes(): inf is not a finite number",
        ),
        (
            "gib(doc.spec.replicas * 9000000000) > 0",
            "gib(): 28991029248000000000 is outside the 64-bit integer range",
        ),
        (
            "in_gib(doc.spec.replicas) > 0.0 && quantity_bytes('x') > 0",
            "quantity_bytes(): 'x' is not a Kubernetes quantity",
        ),
    ],
)
def test_every_helper_error_is_a_finding_not_a_traceback(
    tmp_path: Path, expression: str, error: str
) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "p.yaml").write_text(
        "apiVersion: servelint/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n"
        "  target: document\n  rules:\n    - id: r\n      severity: error\n"
        f'      expression: "{expression}"\n      message: x\n',
        encoding="utf-8",
    )
    policies = load_policies([str(folder)], builtin=False)
    parsed = parse_yaml("d.yaml", "metadata: {name: vllm}\nspec: {replicas: 3}\n")
    findings = evaluate(policies, [document_subject(d) for d in parsed.documents])
    assert [(f.rule_id, f.severity.label, f.line, f.column) for f in findings] == [
        ("p/r", "error", 1, 1)
    ]
    assert findings[0].message == f"cannot evaluate rule: {error}"
