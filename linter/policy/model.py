"""The policy model, built once from validated policy files."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from linter.findings import Severity
from linter.lightclass import frozen
from linter.policy.expr import CompiledExpr
from linter.policy.template import MessageTemplate

if TYPE_CHECKING:
    from linter.policy.fused import FusedCheck


@frozen
class NamedExpr:
    name: str
    expr: CompiledExpr


@frozen
class Rule:
    """One rule; ``expression`` is true when the subject complies."""

    id: str  # full id: <policy>/<rule>
    severity: Severity
    expression: CompiledExpr
    message: str | None
    message_expression: CompiledExpr | None
    field_path: str | None
    field_path_expression: CompiledExpr | None
    for_each: CompiledExpr | None
    title: str
    description: str
    fix: str
    references: tuple[str, ...]
    source: str  # policy file
    line: int
    # The policy variables this rule reads (directly or through other variables), in
    # declaration order, so that they are evaluated before it.
    needs: tuple[str, ...] = ()
    # ``message`` with {{ CEL }} placeholders (policy/template.py); None for plain text.
    message_template: MessageTemplate | None = None
    # ``autofix``: the map of the finding's fix (findings.Fix) or null, and what it does
    # in a sentence (``servelint explain``); None for a rule without one.
    autofix: CompiledExpr | None = None
    autofix_description: str = ""


@frozen
class Policy:
    name: str
    description: str
    target: str  # document | workload
    match_conditions: tuple[NamedExpr, ...]
    rules: tuple[Rule, ...]
    source: str
    builtin: bool
    variables: tuple[NamedExpr, ...] = ()
    # The whole policy as one expression, asked first (policy/fused.py); None: rule by rule.
    fused: FusedCheck | None = dataclasses.field(default=None, compare=False)
