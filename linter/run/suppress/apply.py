"""Match findings against suppression directives, and report the directives themselves.

No suppression may fail silently: one without a reason is not applied and is reported,
one past its date stops applying and is reported, and one that covers no finding is
reported. Suppressed findings stay in the result, carrying the suppression.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Sequence
from fnmatch import fnmatchcase

from linter.findings import Finding, Suppression
from linter.run.suppress.model import (
    EXPIRED,
    LOCAL_SOURCES,
    META_RULES,
    MISSING_REASON,
    SOURCES,
    UNUSED,
    Directive,
    meta_finding,
)


def apply(
    findings: Sequence[Finding],
    directives: Sequence[Directive],
    today: datetime.date,
    known_rules: Collection[str] | None = None,
) -> list[Finding]:
    """``findings`` with suppressions attached, plus findings about the directives."""
    live, reports = _screen(directives, today)
    live.sort(key=lambda d: SOURCES.index(d.source))
    # Inline and annotation directives only cover their own file: index them by it, so a
    # run with many findings does not test every directive against every finding.
    by_file: dict[str, list[int]] = {}
    anywhere: list[int] = []
    for i, directive in enumerate(live):
        if directive.source in LOCAL_SOURCES:
            by_file.setdefault(directive.file, []).append(i)
        else:
            anywhere.append(i)
    used: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        if finding.suppressed or finding.rule_id in META_RULES:
            out.append(finding)  # a directive cannot hide the report about a directive
            continue
        candidates = [*by_file.get(finding.file, ()), *anywhere]  # still in precedence order
        matching = [
            i
            for i in candidates
            if fnmatchcase(finding.rule_id, live[i].rule) and live[i].covers(finding)
        ]
        used.update(matching)
        if matching:
            first = live[matching[0]]
            finding = finding.with_suppression(
                Suppression(
                    first.reason, first.until.isoformat() if first.until else None, first.source
                )
            )
        out.append(finding)
    for i, directive in enumerate(live):
        if i not in used and directive.in_play:
            reports.append(meta_finding(UNUSED, directive, _unused(directive, known_rules)))
    return out + reports


def _screen(
    directives: Sequence[Directive], today: datetime.date
) -> tuple[list[Directive], list[Finding]]:
    live: list[Directive] = []
    reports: list[Finding] = []
    for directive in directives:
        if not directive.reason:
            reports.append(
                meta_finding(
                    MISSING_REASON,
                    directive,
                    f"suppression of '{directive.rule}' has no reason, so it is not applied; "
                    "say why the finding is acceptable",
                )
            )
        elif directive.until is not None and today > directive.until:
            reports.append(
                meta_finding(
                    EXPIRED,
                    directive,
                    f"suppression of '{directive.rule}' expired on {directive.until.isoformat()} "
                    f"({directive.reason}); its findings count again",
                )
            )
        else:
            live.append(directive)
    return live, reports


def _unused(directive: Directive, known_rules: Collection[str] | None) -> str:
    if known_rules is not None and not any(fnmatchcase(r, directive.rule) for r in known_rules):
        return (
            f"suppression of '{directive.rule}' names no rule that ran; "
            "check the rule id (servelint rules)"
        )
    return f"suppression of '{directive.rule}' matches no finding; remove it"
