"""Evaluate policies on documents and workloads; every rule failure becomes a finding.

Rules only say true (compliant) or false; the engine fills in the rule id, severity and
location. A rule that cannot be evaluated is reported for that subject, never skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from linter.errors import ExpressionError
from linter.findings import Finding, Fix
from linter.lightclass import frozen
from linter.model.records.workload import Workload
from linter.parsing.documents import Document
from linter.policy.expr import (
    EVALUATION_MEMORY,
    Bindings,
    EvaluationLimit,
    activation,
    memory_limit,
)
from linter.policy.model import Policy, Rule
from linter.positions import Origin, PathT, format_path, parse_path

if TYPE_CHECKING:
    from linter.policy import sandbox


@frozen
class Subject:
    """What one policy evaluation looks at: a document or a workload."""

    target: str
    variable: str
    data: Any
    locate: Callable[[PathT], Origin]
    label: str


def document_subject(document: Document) -> Subject:
    def locate(path: PathT) -> Origin:
        span = document.span(path)
        return Origin(document.source, span.line, span.column, document.index, format_path(path))

    return Subject("document", "doc", document.data, locate, document.source)


def workload_subject(workload: Workload) -> Subject:
    """The one conversion of a workload's record to what CEL sees (``celdata.cel_data``,
    which also narrows integers wider than CEL's 64 bits)."""
    view = workload.view()
    return Subject("workload", "workload", view.data, view.locate, workload.name)


# A policy may spend this much evaluation time in one run; then it is stopped and
# reported. Each evaluation is bounded by CEL's iteration budget and memory_limit();
# this bounds their sum over many subjects.
POLICY_SECONDS = 10.0


def evaluate(
    policies: Sequence[Policy],
    subjects: Iterable[Subject],
    *,
    policy_seconds: float = POLICY_SECONDS,
    memory: int = EVALUATION_MEMORY,
) -> list[Finding]:
    """Every policy on every subject: the findings, subject by subject."""
    each = evaluate_each(policies, subjects, policy_seconds=policy_seconds, memory=memory)
    return [finding for found in each for finding in found]


def evaluate_each(
    policies: Sequence[Policy],
    subjects: Iterable[Subject],
    *,
    policy_seconds: float = POLICY_SECONDS,
    memory: int = EVALUATION_MEMORY,
) -> list[list[Finding]]:
    """Every policy on every subject: the findings of each subject, in the subjects' order
    (a caller that gathered subjects from several sources takes each its own back)."""
    subjects = list(subjects)
    per_subject: list[list[Finding]] = [[] for _ in subjects]
    # Only policies from the repository are sandboxed; the module (with its imports) is
    # loaded only for them.
    sandboxed = any(not p.builtin for p in policies)
    if sandboxed:
        from linter.policy import sandbox
    if sandboxed and sandbox.needed(policies):
        # Policies from the repository: each evaluation has a deadline (sandbox.py).
        def run_from(
            first: int,
            first_policy: int,
            stopped: set[str],
            starting: Callable[[int, int], None],
            found: sandbox.Found,
        ) -> None:
            _evaluate(
                policies,
                subjects,
                policy_seconds,
                memory,
                (first, first_policy),
                stopped,
                starting,
                found,
            )

        def stop(subject: int, policy: int, reason: str) -> Finding:
            return _stop_finding(policies[policy].rules[0], subjects[subject], reason)

        for index, finding in sandbox.run(
            run_from, [p.name for p in policies], stop, policy_seconds
        ):
            per_subject[index].append(finding)
        return per_subject
    _evaluate(
        policies,
        subjects,
        policy_seconds,
        memory,
        (0, 0),
        set(),
        None,
        lambda index, items, _: per_subject[index].extend(items),
    )
    return per_subject


def _evaluate(
    policies: Sequence[Policy],
    subjects: Sequence[Subject],
    policy_seconds: float,
    memory: int,
    begin: tuple[int, int],
    stopped_before: set[str],
    starting: Callable[[int, int], None] | None,
    found: sandbox.Found,
) -> None:
    """Every policy on every subject from ``begin`` (subject, policy) on; what each
    evaluation finds goes to ``found``, with the subject's index and the name of a policy
    it stopped."""
    spent: dict[str, float] = {}
    stopped = set(stopped_before)
    with memory_limit(memory):
        for index in range(begin[0], len(subjects)):
            subject = subjects[index]
            bound = None
            for number in range(begin[1] if index == begin[0] else 0, len(policies)):
                policy = policies[number]
                if policy.target != subject.target or policy.name in stopped:
                    continue
                if bound is None:
                    bound = activation({subject.variable: subject.data})
                if starting is not None:
                    starting(index, number)
                start = time.perf_counter()
                try:
                    items = _evaluate_policy(policy, subject, bound)
                except (_PolicyLimit, EvaluationLimit) as exc:
                    rule = exc.rule if isinstance(exc, _PolicyLimit) else policy.rules[0]
                    stopped.add(policy.name)
                    found(index, [_stop_finding(rule, subject, str(exc))], policy.name)
                    continue
                spent[policy.name] = spent.get(policy.name, 0.0) + time.perf_counter() - start
                if spent[policy.name] > policy_seconds:
                    reason = (
                        f"evaluation took more than {policy_seconds:g} s in this run "
                        "(the per-policy time budget)"
                    )
                    stopped.add(policy.name)
                    found(
                        index,
                        [*items, _stop_finding(policy.rules[0], subject, reason)],
                        policy.name,
                    )
                    continue
                found(index, items, None)


class _PolicyLimit(Exception):
    def __init__(self, rule: Rule, message: str) -> None:
        super().__init__(message)
        self.rule = rule


def _stop_finding(rule: Rule, subject: Subject, reason: str) -> Finding:
    origin = subject.locate(())
    policy = rule.id.split("/", 1)[0]
    return Finding(
        rule.id,
        rule.severity,
        f"policy '{policy}' stopped: {reason}; it is not evaluated on this or any "
        f"later input of the run (defined in {rule.source}:{rule.line})",
        origin.source,
        origin.line,
        origin.column,
        "",
        origin.doc_index,
    )


class _Scope:
    """One policy on one subject: its variables, each evaluated at most once.

    Variables are evaluated when a rule first needs them, in declaration order, each
    seeing the ones before it. A variable that fails is reported in every rule that
    reads it, with the variable's name and CEL's error. Every expression runs on the
    subject's one activation; ``variables`` reach it as ``Bindings`` (expr.py).
    """

    def __init__(self, policy: Policy, subject: Subject, bound: Any) -> None:
        self._exprs = {v.name: v.expr for v in policy.variables}
        self.bound = bound
        self._values: dict[str, Any] = {}
        self._errors: dict[str, str] = {}
        self.subject = {subject.variable: subject.data}

    def bindings(self, needs: tuple[str, ...]) -> Bindings | None:
        """``needs`` bound under ``variables``; None for a rule that needs none (it sees no
        ``variables`` at all, as before variables were bound this way)."""
        if not needs:
            return None
        for name in needs:
            self._evaluate(name)
        failed = next((n for n in needs if n in self._errors), None)
        if failed is not None:
            raise ExpressionError(f"variable '{failed}': {self._errors[failed]}")
        return Bindings({n: self._values[n] for n in needs}, subject=self.subject)

    def _evaluate(self, name: str) -> None:
        if name in self._values or name in self._errors:
            return
        try:
            self._values[name] = self._exprs[name].evaluate(
                self.bound, Bindings(dict(self._values), subject=self.subject)
            )
        except ExpressionError as exc:
            self._errors[name] = str(exc)


def _evaluate_policy(policy: Policy, subject: Subject, bound: Any) -> list[Finding]:
    # The fused program first once it is loaded (it tests the match conditions itself);
    # until then the match conditions first, each on its own, so that a policy that
    # matches no subject of the run never has its fused program (tens of kilobytes) read
    # from the cache. Either order gives the same outcome.
    fused = policy.fused
    asked = fused is not None and fused.loaded
    if asked and fused is not None and fused.passes(bound):
        return []
    for condition in policy.match_conditions:
        try:
            matched = condition.expr.evaluate(bound)
        except ExpressionError as exc:
            rule = policy.rules[0]
            return [_error_finding(rule, subject, f"matchCondition '{condition.name}': {exc}")]
        if matched is not True:
            return []
    if fused is not None and not asked and fused.passes(bound):
        return []
    scope = _Scope(policy, subject, bound)
    findings: list[Finding] = []
    for rule in policy.rules:
        findings.extend(_evaluate_rule(rule, subject, scope))
    return findings


def _evaluate_rule(rule: Rule, subject: Subject, scope: _Scope) -> list[Finding]:
    try:
        return _evaluate_rule_items(rule, subject, scope)
    except EvaluationLimit as exc:
        raise _PolicyLimit(rule, str(exc)) from exc


def _evaluate_rule_items(rule: Rule, subject: Subject, scope: _Scope) -> list[Finding]:
    # The check's variables first; those of the message, field path and fix only for a
    # finding (as the fused check, which holds only the check's, decides: fused.py).
    check_needs = rule.needs if rule.check_needs is None else rule.check_needs
    try:
        bindings = scope.bindings(check_needs)
    except ExpressionError as exc:
        return [_error_finding(rule, subject, str(exc))]
    if rule.for_each is None:
        return _check(rule, subject, scope, bindings, None)
    try:
        items = rule.for_each.evaluate(scope.bound, bindings)
    except ExpressionError as exc:
        return [_error_finding(rule, subject, f"forEach: {exc}")]
    if not isinstance(items, list):
        return [_error_finding(rule, subject, "forEach must return a list")]
    findings: list[Finding] = []
    for index, item in enumerate(items):
        per_item = Bindings(bindings.variables if bindings else {}, item, index, scope.subject)
        findings.extend(_check(rule, subject, scope, per_item, index))
    return findings


def _check(
    rule: Rule, subject: Subject, scope: _Scope, bindings: Bindings | None, index: int | None
) -> list[Finding]:
    bound = scope.bound
    try:
        compliant = rule.expression.evaluate(bound, bindings)
        if not isinstance(compliant, bool):
            raise ExpressionError(f"expression returned {type(compliant).__name__}, not bool")
        if compliant:
            return []
        if rule.check_needs is not None and rule.check_needs != rule.needs:
            every = scope.bindings(rule.needs)
            assert every is not None  # needs holds check_needs, which is not empty here
            bindings = (
                every
                if bindings is None or bindings.index is None
                else Bindings(every.variables, bindings.item, bindings.index, scope.subject)
            )
        message = _message(rule, bound, bindings)
        path = _field_path(rule, bound, bindings, index)
    except ExpressionError as exc:
        return [_error_finding(rule, subject, str(exc))]
    origin = subject.locate(path)
    return [
        Finding(
            rule.id,
            rule.severity,
            message,
            origin.source,
            origin.line,
            origin.column,
            origin.key or format_path(path),
            origin.doc_index,
            fix=_fix(rule, bound, bindings),
        )
    ]


def _fix(rule: Rule, bound: Any, bindings: Bindings | None) -> Fix | None:
    """The rule's fix for this finding; None without one, or when its expression fails (a
    fix that cannot be computed is not offered, and the finding stands as it is)."""
    if rule.autofix is None:
        return None
    try:
        return Fix.from_data(rule.autofix.evaluate(bound, bindings))
    except ExpressionError:
        return None


# A finding's message is one line of a report; a message that is huge (a static
# ``message``, a template or a ``messageExpression`` that builds a huge string) is cut
# here, the one place every rule's message passes, so that no report grows with it.
MAX_MESSAGE = 4096


def _message(rule: Rule, bound: Any, bindings: Bindings | None) -> str:
    message = _full_message(rule, bound, bindings)
    if len(message) > MAX_MESSAGE:
        return (
            f"{message[:MAX_MESSAGE]} … (message cut at {MAX_MESSAGE} of {len(message)} characters)"
        )
    return message


def _full_message(rule: Rule, bound: Any, bindings: Bindings | None) -> str:
    if rule.message_template is not None:
        return rule.message_template.render(bound, bindings)
    if rule.message_expression is None:
        return rule.message or rule.id
    message = rule.message_expression.evaluate(bound, bindings)
    if not isinstance(message, str):
        raise ExpressionError("messageExpression must return a string")
    return message


def _field_path(rule: Rule, bound: Any, bindings: Bindings | None, index: int | None) -> PathT:
    if rule.field_path_expression is not None:
        text = rule.field_path_expression.evaluate(bound, bindings)
        if not isinstance(text, str):
            raise ExpressionError("fieldPathExpression must return a string")
        return parse_path(text)
    if rule.field_path:
        text = rule.field_path.replace("{index}", str(index if index is not None else 0))
        return parse_path(text)
    return ()


# An evaluation error says what went wrong, not what the subject holds: the runtime's
# message is cut to this length, so that it can never carry a whole workload.
MAX_ERROR_DETAIL = 300


def _error_finding(rule: Rule, subject: Subject, detail: str) -> Finding:
    origin = subject.locate(())
    if len(detail) > MAX_ERROR_DETAIL:
        detail = detail[:MAX_ERROR_DETAIL] + " …"
    return Finding(
        rule.id,
        rule.severity,
        f"cannot evaluate rule: {detail}",
        origin.source,
        origin.line,
        origin.column,
        "",
        origin.doc_index,
    )
