"""One CEL expression that tells whether a policy passes on a subject.

Evaluating a policy rule by rule costs an evaluation per condition, variable and rule,
and every variable's value is turned into Python and back into CEL each time a rule
reads it. Most subjects comply with most policies, so the engine first asks one fused
expression: the match conditions, then the variables bound as CEL locals (grouped by
dependency level, so that nesting stays under CEL's recursion limit), then the list of
every rule's result. Only when that answer is not "skip" or all true (a rule fails, an
expression errors, a forEach is not a list, or the fused form cannot be built or
compiled) does the engine evaluate the policy the ordinary way, which alone produces
findings, messages and error texts. The fused form therefore never changes a result: it
only lets a compliant subject through faster.
"""

from __future__ import annotations

import re

from linter.errors import ExpressionError
from linter.lazyregex import lazy_compile
from linter.policy.expr import CompiledExpr, EvaluationLimit, variable_references
from linter.policy.model import Policy

SKIP = "skip"  # the fused answer when a match condition is not true
_STRING = lazy_compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
_REFERENCE = lazy_compile(r"\bvariables\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")
_WORD = lazy_compile(r"\bvariables\b")
_INDEX = lazy_compile(r"\bindex\b")
_MAX_INDEXED = 64


class FusedCheck:
    """A policy's fused expression, given up for good when it does not compile."""

    __slots__ = ("expr", "usable")

    def __init__(self, text: str) -> None:
        self.expr = CompiledExpr(text)
        self.usable = True

    @classmethod
    def stored(cls, expr: CompiledExpr, usable: bool) -> FusedCheck:
        """A fused check read from the policy cache (its text is not read until needed)."""
        check = cls.__new__(cls)
        check.expr = expr
        check.usable = usable
        return check

    def prepare(self) -> None:
        """Compile now (before the policy cache stores it); give up if it cannot be."""
        try:
            self.expr.prepare()
        finally:
            self.usable = self.expr.compiled

    @property
    def loaded(self) -> bool:
        """Whether the program is ready to run without reading it from the cache first."""
        return self.expr.loaded

    def passes(self, bound: object) -> bool:
        """True when the policy does not apply to the subject or every rule complies."""
        if not self.usable:
            return False
        try:
            result = self.expr.evaluate(bound)
        except (ExpressionError, EvaluationLimit):
            # Includes a compile failure (nesting beyond CEL's limit): evaluated the
            # ordinary way, which reports whatever is wrong exactly as before.
            if not self.expr.compiled:
                self.usable = False
            return False
        if result == SKIP:
            return True
        return isinstance(result, list) and all(
            r is True or (isinstance(r, list) and all(x is True for x in r)) for r in result
        )


def fuse(policy: Policy) -> FusedCheck | None:
    """The fused check of ``policy``, or None when its expressions cannot be fused:
    ``variables`` used as a whole or inside a string, or ``index`` in a forEach rule."""
    levels = _levels(policy)
    if levels is None:
        return None
    # Only the variables the checks read: those of messages, field paths and fixes are
    # evaluated for a finding alone, by the ordinary way (engine.py).
    checked = _checked_variables(policy)
    names = {name: f"servelint_l{level}" for name, level in levels.items()}
    parts: list[str] = []
    for rule in policy.rules:
        expression = _rename(rule.expression.text, names)
        if expression is None:
            return None
        if rule.for_each is None:
            parts.append(f"(\n{expression}\n)")
            continue
        items = _rename(rule.for_each.text, names)
        if items is None:
            return None
        parts.append(
            f"cel.bind(servelint_items, dyn(\n{items}\n), "
            f"type(servelint_items) == list ? {_each(expression)} : "
            "dyn('not-a-list'))"
        )
    body = f"dyn([{', '.join(parts)}])"
    for level in sorted(set(levels.values()), reverse=True):
        entries = []
        for variable in policy.variables:
            if levels[variable.name] == level and (checked is None or variable.name in checked):
                text = _rename(variable.expr.text, names)
                if text is None:
                    return None
                entries.append(f"'{variable.name}': (\n{text}\n)")
        if entries:
            body = f"cel.bind(servelint_l{level}, {{{', '.join(entries)}}}, {body})"
    for index, condition in reversed(list(enumerate(policy.match_conditions))):
        local = f"servelint_c{index}"
        body = (
            f"cel.bind({local}, (\n{condition.expr.text}\n), {local} != true ? "
            f"dyn('{SKIP}') : dyn({body}))"
        )
    return FusedCheck(body)


def _checked_variables(policy: Policy) -> frozenset[str] | None:
    """The variables the rules' checks read; None when a rule does not say."""
    checked: set[str] = set()
    for rule in policy.rules:
        if rule.check_needs is None:
            return None
        checked.update(rule.check_needs)
    return frozenset(checked)


def _each(expression: str) -> str:
    """The rule on every item; CEL's ``map`` has no index, so a rule that reads ``index``
    walks a literal range of positions (lists longer than that take the ordinary way)."""
    if _INDEX.search(expression) is None:
        return f"dyn(servelint_items.map(item, (\n{expression}\n)))"
    positions = ", ".join(str(n) for n in range(_MAX_INDEXED))
    return (
        f"(size(servelint_items) > {_MAX_INDEXED} ? dyn('too-long') : "
        f"dyn([{positions}].filter(index, index < size(servelint_items)).map(index, "
        f"cel.bind(item, servelint_items[index], (\n{expression}\n)))))"
    )


def _levels(policy: Policy) -> dict[str, int] | None:
    """Each variable's dependency level: 1 for those that read no other variable."""
    levels: dict[str, int] = {}
    for variable in policy.variables:
        if not variable.name.isidentifier():
            return None
        used = variable_references(variable.expr.text)
        if used is None or not used <= set(levels):
            return None
        levels[variable.name] = 1 + max((levels[n] for n in used), default=0)
    return levels


def _rename(text: str, names: dict[str, str]) -> str | None:
    """``text`` with every ``variables.NAME`` read from its level's local, or None when a
    reference could not be renamed safely."""
    outside_strings = _STRING.sub("''", text)
    references = len(_REFERENCE.findall(text))
    if (
        len(_WORD.findall(text)) != references
        or len(_WORD.findall(outside_strings)) != references
        or '"""' in text
        or "'''" in text
    ):
        return None
    missing = False

    def local(match: re.Match[str]) -> str:
        nonlocal missing
        name = match.group(1) or match.group(2)
        if name not in names:
            missing = True
            return match.group(0)
        return f"{names[name]}.{name}" if match.group(1) else f"{names[name]}['{name}']"

    renamed = _REFERENCE.sub(local, text)
    return None if missing else renamed
