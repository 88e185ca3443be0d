"""Message templates: ``message`` with ``{{ CEL }}`` placeholders (policy/template.py)."""

from __future__ import annotations

import math
import re
import struct
from pathlib import Path
from random import Random

import pytest

from linter.errors import PolicyError
from linter.parsing.documents import parse_yaml
from linter.policy import load_policies
from linter.policy.engine import document_subject, evaluate
from linter.policy.expr import activation, compile_expression
from linter.policy.template import Placeholder, TemplateError, parse, text_of

DOC = """\
kind: Deployment
metadata:
  name: "m {{x}}"
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: a
          image: a:latest
        - name: b
          image: b:latest
"""


def _policy(tmp_path: Path, rule: str, extra: str = "") -> Path:
    folder = tmp_path / "policies"
    folder.mkdir(exist_ok=True)
    (folder / "p.yaml").write_text(
        "apiVersion: servelint/v1\nkind: Policy\nmetadata:\n  name: p\nspec:\n"
        f"  target: document\n{extra}  rules:\n    - id: r\n      severity: warning\n{rule}",
        encoding="utf-8",
    )
    return folder


def _messages(tmp_path: Path, rule: str, extra: str = "") -> list[tuple[int, int, str]]:
    policies = load_policies([str(_policy(tmp_path, rule, extra))], builtin=False)
    parsed = parse_yaml("d.yaml", DOC)
    findings = evaluate(policies, [document_subject(d) for d in parsed.documents])
    return [(f.line, f.column, f.message) for f in sorted(findings, key=lambda f: f.sort_key())]


def test_placeholders_with_variables_and_helpers(tmp_path: Path) -> None:
    extra = "  variables:\n    - name: want\n      expression: doc.spec.replicas + 1\n"
    rule = (
        "      expression: doc.spec.replicas >= variables.want\n"
        "      message: >-\n"
        "        {{ doc.metadata.name }} runs {{doc.spec.replicas}} replica, wants"
        " {{ variables.want }}; {{ human_bytes(gib(2)) }} each, {{ 0.5 }} of"
        " {{ [1, 2.0, true, null] }}\n"
        "      fieldPath: spec.replicas\n"
    )
    assert _messages(tmp_path, rule, extra) == [
        (5, 3, "m {{x}} runs 1 replica, wants 2; 2 GiB each, 0.5 of 1, 2, true, null")
    ]


def test_placeholders_see_item_and_index_in_for_each(tmp_path: Path) -> None:
    rule = (
        "      forEach: doc.spec.template.spec.containers\n"
        "      expression: \"!item.image.endsWith(':latest')\"\n"
        "      message: 'container {{index}} ({{ item.name }}) uses {{ item.image }}'\n"
        "      fieldPath: spec.template.spec.containers[{index}].image\n"
    )
    assert _messages(tmp_path, rule) == [
        (10, 11, "container 0 (a) uses a:latest"),
        (12, 11, "container 1 (b) uses b:latest"),
    ]


def test_literal_braces_and_values_are_not_expanded_again(tmp_path: Path) -> None:
    rule = (
        "      expression: 'false'\n"
        "      message: \"write {{ '{{' }} .Values.x }} as text; {{ '}}' }} and"
        ' {{ doc.metadata.name }} stay; a lone } or { is text"\n'
    )
    assert _messages(tmp_path, rule) == [
        (1, 1, "write {{ .Values.x }} as text; }} and m {{x}} stay; a lone } or { is text")
    ]


def test_a_missing_field_keeps_the_finding_and_says_what_is_missing(tmp_path: Path) -> None:
    rule = (
        "      expression: doc.spec.replicas > 1\n"
        "      message: 'replicas {{ doc.spec.replicas }}, strategy {{ doc.spec.strategy }}'\n"
        "      fieldPath: spec.replicas\n"
    )
    assert _messages(tmp_path, rule) == [
        (
            5,
            3,
            "replicas 1, strategy <error: no such key 'strategy' (guard it with has())>",
        )
    ]


def test_a_message_without_placeholders_is_plain_text(tmp_path: Path) -> None:
    rule = "      expression: 'false'\n      message: 'a } and { are text'\n"
    assert _messages(tmp_path, rule) == [(1, 1, "a } and { are text")]


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (
            "'needs {{ doc.spec.replicas'",
            "p.yaml:11:7: spec.rules[0].message: invalid message template (at character 7): "
            "'{{' is not closed by '}}' (a literal '{{' is {{ '{{' }})",
        ),
        (
            "'needs {{ }}'",
            "p.yaml:11:7: spec.rules[0].message: invalid message template (at character 7): "
            "empty placeholder '{{}}'",
        ),
        (
            "'needs {{ doc.spec.replicas + }}'",
            "p.yaml:11:7: spec.rules[0].message: invalid CEL in placeholder "
            "{{ doc.spec.replicas + }} (expression line 1, column 22): Syntax error: mismatched input",
        ),
        (
            "'needs {{ variables.nope }}'",
            "p.yaml:11:7: spec.rules[0].message: uses variables.nope, which the policy "
            "does not declare",
        ),
    ],
)
def test_bad_templates_are_policy_errors(tmp_path: Path, message: str, error: str) -> None:
    rule = f"      expression: 'false'\n      message: {message}\n"
    with pytest.raises(PolicyError) as raised:
        load_policies([str(_policy(tmp_path, rule))], builtin=False)
    text = re.sub(r"^.*?p\.yaml", "p.yaml", str(raised.value))
    assert text.startswith(error)


def test_parse_skips_string_literals_and_escapes() -> None:
    assert parse("a {{ 'x}}y' + \"\\\"}}\" }} b {{'''}}'''}}") == (
        "a ",
        Placeholder(' \'x}}y\' + "\\"}}" ', 4),
        " b ",
        Placeholder("'''}}'''", 28),
    )
    with pytest.raises(TemplateError) as raised:
        parse("ok {{ 'never closed }}")
    assert raised.value.offset == 3


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "null"),
        (True, "true"),
        (3, "3"),
        (2.0, "2"),
        (0.25, "0.25"),
        (123456789.5, "1.234567895e+08"),
        (float("nan"), "nan"),
        ("s", "s"),
        ([1, "a"], "1, a"),
        ({"k": 1}, "{k: 1}"),
        (b"raw", "raw"),
    ],
)
def test_values_as_text(value: object, text: str) -> None:
    assert text_of(value) == text


def test_doubles_print_as_cel_string_prints_them() -> None:
    """Placeholders and ``string()`` agree, so ``{{ x }}`` can replace ``string(x)``."""
    random = Random(12)
    values = [2.0, 0.9, 1e20, 1 / 3, 123456789.5, 1e-7, -0.0, 1e15, 0.1 + 0.2, 1e-4, 9.99e-5]
    values += [999999.5, 1000000.0, -2.5, 5e-324, 1.7976931348623157e308, 1e300 * 10, -1e309]
    values += [struct.unpack("d", struct.pack("Q", random.getrandbits(64)))[0] for _ in range(500)]
    values += [random.uniform(-1e7, 1e7) for _ in range(500)]
    values = [v for v in values if not math.isnan(v)]
    string = compile_expression("string(doc)")
    assert [text_of(v) for v in values] == [string.evaluate(activation({"doc": v})) for v in values]


def test_every_builtin_template_compiles_and_validates() -> None:
    """Built-in policies compile lazily; loaded as a user's they are schema-checked and
    every placeholder is compiled, so a typo in a message fails here, not in a finding."""
    folder = Path(__file__).resolve().parent.parent / "policies"
    policies = load_policies([str(folder)], builtin=False)
    templates = [r.message_template for p in policies for r in p.rules if r.message_template]
    assert len(policies) == len(list(folder.glob("*.yaml")))
    # Most messages are templates; the rest compute text a template would not read better as.
    assert len(templates) >= 90
    assert all(e.compiled for t in templates for e in t.expressions)
