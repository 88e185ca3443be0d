"""The policy model, built once from validated policy files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, overload

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
    # Those of ``needs`` that its check reads (``expression`` and ``forEach``): the rest
    # serve the message, the field path and the fix, evaluated only for a finding. None:
    # all of ``needs``.
    check_needs: tuple[str, ...] | None = None


class StoredRules(Sequence[Rule]):
    """A policy's rules as the policy cache holds them: their ids at once, the rules
    themselves built when first read. The rules are nine tenths of the cache's JSON, and
    a run whose subjects all pass a policy's fused check (policy/fused.py) reads none of
    them: a pre-commit hook on a values file builds no rule at all."""

    __slots__ = ("_ids", "_read", "_rules")

    def __init__(self, ids: tuple[str, ...], read: Callable[[], tuple[Rule, ...]]) -> None:
        self._ids = ids
        self._read: Callable[[], tuple[Rule, ...]] | None = read
        self._rules: tuple[Rule, ...] | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    def _all(self) -> tuple[Rule, ...]:
        if self._rules is None:
            assert self._read is not None
            self._rules, self._read = self._read(), None
        return self._rules

    @overload
    def __getitem__(self, index: int) -> Rule: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Rule]: ...
    def __getitem__(self, index: int | slice) -> Rule | Sequence[Rule]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return self._all() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return repr(self._all())


@frozen
class Policy:
    name: str
    description: str
    target: str  # document | workload
    match_conditions: tuple[NamedExpr, ...]
    rules: Sequence[Rule]  # a tuple, or StoredRules from the policy cache
    source: str
    builtin: bool
    variables: tuple[NamedExpr, ...] = ()
    # The whole policy as one expression, asked first (policy/fused.py); None: rule by rule.
    fused: FusedCheck | None = dataclasses.field(default=None, compare=False)

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The ids of the rules, without building rules the cache has not built yet."""
        rules = self.rules
        return rules.ids if isinstance(rules, StoredRules) else tuple(r.id for r in rules)
