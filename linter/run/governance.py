"""What a team decides about findings, applied after evaluation (README, "Configuration").

Order: rules switched off are dropped; suppressions (inline, annotation, config) are
attached; the baseline marks known findings; severity overrides apply last, so they
also reach the findings about suppressions. Rules switched off are also removed from
the policies before evaluation, which is where the time goes.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from linter.findings import Finding, Severity, sort_findings
from linter.lightclass import frozen
from linter.parsing.documents import ParsedFile
from linter.policy.fused import fuse
from linter.policy.model import Policy
from linter.run import suppress
from linter.run.config import EMPTY, Config
from linter.run.rulemeta import PIPELINE_RULES, RuleMeta, all_rules

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult
    from linter.run import baseline as baselines

# Input that was not checked at all can never be switched off.
ALWAYS_ON = ("syntax", "read-error", "input-limit")
CORE_RULES = (*ALWAYS_ON, "duplicate-key")


@frozen
class Governance:
    config: Config = EMPTY
    today: datetime.date = dataclasses.field(default_factory=datetime.date.today)
    baseline: baselines.Baseline | None = None
    known_rules: Collection[str] | None = None

    def apply(
        self, result: RunResult, parsed: Sequence[ParsedFile], context: Sequence[ParsedFile] = ()
    ) -> RunResult:
        """``context``: files read only to lint others (a chart's values.yaml); their
        suppression comments cover findings in them, but the comments themselves are
        judged (unused, expired) only where the file is linted."""
        linted = [p.source for p in parsed]
        findings = [f for f in result.findings if not is_disabled(self.config, f.rule_id)]
        directives, problems = suppress.collect([*parsed, *context], self.config, linted)
        findings = suppress.apply([*findings, *problems], directives, self.today, self.known_rules)
        only_context = {p.source for p in context} - set(linted)
        findings = [
            f for f in findings if not (f.rule_id in suppress.META_RULES and f.file in only_context)
        ]
        notes: list[str] = []
        if self.baseline is not None:
            from linter.run.baseline import apply as apply_baseline  # only with a baseline

            findings, notes = apply_baseline(findings, self.baseline, linted)
        findings = [
            _override(self.config, f) for f in findings if not is_disabled(self.config, f.rule_id)
        ]
        return dataclasses.replace(
            result, findings=sort_findings(findings), notes=[*result.notes, *notes]
        )


def is_disabled(config: Config, rule_id: str) -> bool:
    if rule_id in ALWAYS_ON:
        return False
    if any(names_rule(entry, rule_id) for entry in config.enable):
        return False
    return any(names_rule(entry, rule_id) for entry in config.disable)


def names_rule(entry: str, rule_id: str) -> bool:
    """``entry`` is the rule id, a pattern (``vllm/*``) or the id of the rule's policy."""
    return fnmatchcase(rule_id, entry) or rule_id.startswith(entry + "/")


class UnknownRuleError(ValueError):
    """A rule named on the command line that no loaded policy defines (a usage error)."""


def with_command_line(
    config: Config, disable: Sequence[str], enable: Sequence[str], known: Collection[str]
) -> Config:
    """``config`` with ``--disable`` added to its ``disable`` list and ``--enable`` set.

    A name that matches no loaded rule is an error here, not a note as in the file: a
    flag typed for one run should not silently do nothing."""
    for flag, entries in (("--disable", disable), ("--enable", enable)):
        for entry in entries:
            if flag == "--disable" and entry in ALWAYS_ON:
                raise UnknownRuleError(
                    f"--disable {entry}: cannot be switched off: unchecked input is always reported"
                )
            if not any(names_rule(entry, rule) for rule in known):
                raise UnknownRuleError(
                    f"{flag} {entry}: names no rule or policy of the loaded policies "
                    "(see 'servelint rules')"
                )
    if not disable and not enable:
        return config
    return dataclasses.replace(
        config, disable=(*config.disable, *disable), enable=(*config.enable, *enable)
    )


def _override(config: Config, finding: Finding) -> Finding:
    severity = configured_severity(config, finding.rule_id)
    if severity is None or severity == finding.severity:
        return finding
    return dataclasses.replace(finding, severity=severity)


def configured_severity(config: Config, rule_id: str) -> Severity | None:
    """The severity ``severity:`` gives the rule (its id first, then patterns), if any."""
    severity = config.severity.get(rule_id)
    if severity is None:
        severity = next(
            (level for pattern, level in config.severity.items() if fnmatchcase(rule_id, pattern)),
            None,
        )
    return severity


def select_policies(policies: Sequence[Policy], config: Config) -> list[Policy]:
    """``policies`` without the rules the configuration switches off."""
    selected: list[Policy] = []
    for policy in policies:
        # By id first: a policy the configuration leaves whole keeps its rules unread
        # (policy/model.py StoredRules).
        if not any(is_disabled(config, i) for i in policy.rule_ids):
            selected.append(policy)
            continue
        rules = tuple(r for r in policy.rules if not is_disabled(config, r.id))
        if rules:
            # The fused check must ask only the rules left (a disabled rule that always
            # fails would otherwise send every subject the slow way).
            kept = dataclasses.replace(policy, rules=rules)
            selected.append(dataclasses.replace(kept, fused=fuse(kept)))
    return selected


def known_rules(policies: Sequence[Policy]) -> set[str]:
    return {
        *CORE_RULES,
        *PIPELINE_RULES,
        *suppress.META_RULES,
        *(i for p in policies for i in p.rule_ids),
    }


def config_notes(config: Config, known: Collection[str]) -> list[str]:
    """Entries of ``disable`` and ``severity`` that name no rule: probably a typo."""
    notes: list[str] = []
    for index, entry in enumerate(config.disable):
        if entry in ALWAYS_ON:
            notes.append(
                f"{config.source}:{config.line_of('disable', index)}: '{entry}' "
                "cannot be switched off: unchecked input is always reported"
            )
        elif not any(names_rule(entry, r) for r in known):
            notes.append(
                f"{config.source}:{config.line_of('disable', index)}: disable: "
                f"'{entry}' names no rule of the loaded policies"
            )
    notes.extend(
        f"{config.source}:{config.line_of('severity', pattern)}: severity: "
        f"'{pattern}' names no rule of the loaded policies"
        for pattern in config.severity
        if not any(fnmatchcase(r, pattern) for r in known)
    )
    return notes


@frozen
class ConfiguredRule:
    """A rule as a configuration sees it: the severity it reports at, and whether it runs."""

    meta: RuleMeta
    severity: Severity
    enabled: bool


def configured_rules(policies: Sequence[Policy], config: Config) -> list[ConfiguredRule]:
    """Every rule of ``policies`` (pipeline rules first) under ``config``'s ``disable`` and
    ``severity``, as ``lint`` would apply them."""
    return [
        ConfiguredRule(
            meta,
            configured_severity(config, meta.id) or meta.severity,
            not is_disabled(config, meta.id),
        )
        for meta in all_rules(policies)
    ]
