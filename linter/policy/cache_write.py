"""A policy cache entry written: every expression compiled and serialised, the policies
as plain JSON values that name each serialised form by offset, length and digest, and
each expression's text once (``cache.py`` has the entry's layout and key)."""

from __future__ import annotations

import json
from typing import Any

from linter.policy.cache_read import form_digest
from linter.policy.expr import CompiledExpr
from linter.policy.model import Policy, Rule


def compile_all(policy: Policy) -> None:
    expressions = [c.expr for c in policy.match_conditions]
    expressions += [v.expr for v in policy.variables]
    for rule in policy.rules:
        expressions += [
            e
            for e in (
                rule.expression,
                rule.message_expression,
                rule.field_path_expression,
                rule.for_each,
                rule.autofix,
            )
            if e is not None
        ]
        if rule.message_template is not None:
            expressions += rule.message_template.expressions
    for expression in expressions:
        expression.prepare()
    if policy.fused is not None:
        policy.fused.prepare()


class Written(bytearray):
    """The serialised forms of an entry being written, and the texts of its expressions
    (each once), which the JSON names by number."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._numbers: dict[str, int] = {}
        # Each policy's rules as JSON text, one after the other (``rules_at``).
        self.rules = bytearray()

    def rules_at(self, text: str) -> list[int]:
        """Where ``text`` (a policy's rules as JSON) is kept: ``[start, length]``."""
        data = text.encode("utf-8", "surrogatepass")
        self.rules += data
        return [len(self.rules) - len(data), len(data)]

    def text_number(self, text: str) -> int:
        number = self._numbers.get(text)
        if number is None:
            number = self._numbers[text] = len(self.texts)
            self.texts.append(text)
        return number


def _form_data(form: bytes | None, blob: Written) -> str | list[int | str] | None:
    # b"" means "the plain form" and b"=" "the form with variables" (CompiledExpr).
    if form is None or form in (b"", b"="):
        return None if form is None else form.decode()
    blob += form
    return [len(blob) - len(form), len(form), form_digest(form)]


def _expr_data(expr: CompiledExpr, blob: Written) -> dict[str, Any]:
    text, forms = expr.__getstate__()
    return {"text": blob.text_number(text), "forms": [_form_data(f, blob) for f in forms]}


def _optional_expr_data(expr: CompiledExpr | None, blob: Written) -> dict[str, Any] | None:
    return None if expr is None else _expr_data(expr, blob)


def policy_data(policy: Policy, blob: Written) -> dict[str, Any]:
    return {
        "name": policy.name,
        "description": policy.description,
        "target": policy.target,
        "source": policy.source,
        "builtin": policy.builtin,
        "match_conditions": [[c.name, _expr_data(c.expr, blob)] for c in policy.match_conditions],
        "variables": [[v.name, _expr_data(v.expr, blob)] for v in policy.variables],
        # The rules as JSON text of their own, kept after the texts: parsed only when a
        # run first reads them (model.StoredRules); their ids here, which every run reads.
        "rule_ids": [r.id for r in policy.rules],
        "rules": blob.rules_at(
            json.dumps(
                [_rule_data(r, blob) for r in policy.rules],
                ensure_ascii=False,
                separators=(",", ":"),
            )
        ),
        "fused": None
        if policy.fused is None
        else {"expr": _expr_data(policy.fused.expr, blob), "usable": policy.fused.usable},
    }


def _rule_data(rule: Rule, blob: Written) -> dict[str, Any]:
    return {
        "id": rule.id,
        "severity": rule.severity.name,
        "expression": _expr_data(rule.expression, blob),
        "message": rule.message,
        "message_expression": _optional_expr_data(rule.message_expression, blob),
        "field_path": rule.field_path,
        "field_path_expression": _optional_expr_data(rule.field_path_expression, blob),
        "for_each": _optional_expr_data(rule.for_each, blob),
        "title": rule.title,
        "description": rule.description,
        "fix": rule.fix,
        "references": list(rule.references),
        "source": rule.source,
        "line": rule.line,
        "needs": list(rule.needs),
        "check_needs": None if rule.check_needs is None else list(rule.check_needs),
        "message_template": None
        if rule.message_template is None
        else [
            part if isinstance(part, str) else _expr_data(part, blob)
            for part in rule.message_template.parts
        ],
        "autofix": _optional_expr_data(rule.autofix, blob),
        "autofix_description": rule.autofix_description,
    }
