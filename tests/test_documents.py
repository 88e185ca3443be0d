from __future__ import annotations

import pytest

from linter.parsing.documents import Limits, parse_json, parse_yaml
from linter.positions import Span


def test_line_map_points_at_keys_and_items() -> None:
    text = "a:\n  b: 1\n  c:\n    - x\n    - y: 2\n"
    parsed = parse_yaml("f.yaml", text)
    assert parsed.problems == []
    (doc,) = parsed.documents
    assert doc.data == {"a": {"b": 1, "c": ["x", {"y": 2}]}}
    assert doc.line_map[("a",)] == Span(1, 1)
    assert doc.line_map[("a", "b")] == Span(2, 3)
    assert doc.line_map[("a", "c", 0)] == Span(4, 7)
    assert doc.line_map[("a", "c", 1, "y")] == Span(5, 7)
    assert doc.span(("a", "c", 1, "missing")) == Span(5, 7)


def test_scalars_are_plain_json_types() -> None:
    text = "i: 3\nf: 0.5\nb: true\nn: ~\ns: '3'\nd: 2026-12-31\nh: 0x1f\n"
    (doc,) = parse_yaml("f.yaml", text).documents
    assert doc.data == {
        "i": 3,
        "f": 0.5,
        "b": True,
        "n": None,
        "s": "3",
        "d": "2026-12-31",
        "h": 31,
    }


def test_multi_document_stream_keeps_indexes_and_skips_empty() -> None:
    text = "a: 1\n---\n---\nb: 2\n"
    parsed = parse_yaml("f.yaml", text)
    assert [(d.index, d.data) for d in parsed.documents] == [(0, {"a": 1}), (2, {"b": 2})]
    assert parsed.documents[1].line_map[("b",)] == Span(4, 1)


def test_duplicate_key_is_a_finding_and_last_value_wins() -> None:
    parsed = parse_yaml("v.yaml", "x:\n  a: 1\n  a: 2\n")
    assert parsed.documents[0].data == {"x": {"a": 2}}
    assert [(f.rule_id, f.line, f.column, f.path, f.message) for f in parsed.problems] == [
        (
            "duplicate-key",
            3,
            3,
            "x.a",
            "duplicate key 'a' (first at line 2); Helm and Kubernetes silently keep the last value",
        )
    ]


def test_syntax_error_carries_line_and_column() -> None:
    parsed = parse_yaml("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n")
    assert parsed.documents == []
    (problem,) = parsed.problems
    assert (problem.rule_id, problem.severity.label, problem.line, problem.column) == (
        "syntax",
        "error",
        3,
        2,
    )
    assert problem.message.startswith("invalid YAML: ")


def test_merge_keys_follow_yaml_semantics() -> None:
    text = "base: &b\n  x: 1\n  y: 2\nchild:\n  <<: *b\n  y: 3\n"
    (doc,) = parse_yaml("f.yaml", text).documents
    assert doc.data["child"] == {"x": 1, "y": 3}


def test_alias_bomb_hits_node_limit() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(
            f"{cur}: &{cur} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, "
            f"*{prev}, *{prev}, *{prev}, *{prev}]"
        )
    parsed = parse_yaml("bomb.yaml", "\n".join(lines) + "\n", Limits(max_nodes=10_000))
    assert parsed.documents == []
    (problem,) = parsed.problems
    assert problem.rule_id == "input-limit"
    assert problem.message.startswith("more than 10000 nodes")


def test_deep_nesting_hits_depth_limit() -> None:
    text = "[" * 300 + "]" * 300
    parsed = parse_yaml("deep.yaml", text, Limits(max_depth=50))
    (problem,) = parsed.problems
    assert (problem.rule_id, problem.message) == ("input-limit", "nesting deeper than 50 levels")


def test_json_positions_and_strict_errors() -> None:
    parsed = parse_json("c.json", '{\n  "max_model_len": 4096,\n  "x": [1]\n}\n')
    (doc,) = parsed.documents
    assert doc.fmt == "json"
    assert doc.line_map[("max_model_len",)] == Span(2, 3)
    bad = parse_json("c.json", '{\n  "a": 1,\n}\n')
    assert [(p.rule_id, p.line, p.column) for p in bad.problems] == [("syntax", 3, 1)]
    assert bad.problems[0].message == (
        "invalid JSON: Expecting property name enclosed in double quotes"
    )


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_json_non_numbers_are_rejected_with_position(token: str) -> None:
    parsed = parse_json("c.json", f'{{\n  "a": {token}\n}}\n')
    (problem,) = parsed.problems
    assert (problem.rule_id, problem.line) == ("syntax", 2)
    assert "is not a JSON number" in problem.message


TEMPLATE_CASES = {
    "block-scalar.yaml": (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: x\n      args:\n"
        "        - |\n          vllm serve \\\n            {{- if .Spec.X }} --tp 2{{- end }}\n",
        [],
    ),
    "secret.yaml": (
        "apiVersion: v1\nkind: Secret\nstringData:\n  hf_api_token: {{HF_TOKEN}}\n",
        [
            (
                4,
                17,
                "placeholder {{HF_TOKEN}} was not substituted: YAML reads it as a mapping, "
                "not text; substitute it before the file is applied, or quote it",
            )
        ],
    ),
    "values-prod.yaml": (
        "image:\n  tag: {{ .Values.tag }}\n",
        [
            (
                2,
                8,
                "Helm template syntax in a values file: values files are not templates; "
                "quote the text if it is meant literally (for tpl)",
            )
        ],
    ),
    "configmap.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        '  labels:\n    {{- include "x.labels" . | nindent 4 }}\ndata:\n  a.yaml: |\n'
        "    b: {{ .Values.b }}\n",
        [
            (
                4,
                9,
                "Helm template syntax in a chart template: lint the rendered output (helm "
                "template CHART | servelint lint -) or the chart's values files (1 more "
                "template line)",
            )
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(TEMPLATE_CASES))
def test_template_syntax_is_named_where_yaml_reads_it_as_data(name: str) -> None:
    text, expected = TEMPLATE_CASES[name]
    parsed = parse_yaml(name, text)
    assert [
        (p.line, p.column, p.message) for p in parsed.problems if p.rule_id == "syntax"
    ] == expected
