"""Match findings against suppression directives, and report the directives themselves.

No suppression may fail silently: one without a reason is not applied and is reported,
one past its date stops applying and is reported, and one that covers no finding is
reported. Suppressed findings stay in the result, carrying the suppression.

A committed secret is the exception to "any reason will do": the value stays in the
repository's history, so the only acceptable reason is that the credential was rotated
(or revoked). A suppression of ``secrets/literal-secret`` whose reason does not say so is
not applied, and is reported like a missing reason.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Collection, Sequence
from fnmatch import fnmatchcase

from linter.findings import Finding, Suppression
from linter.lazyregex import lazy_compile
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
from linter.secrets.literal import RULE_ID as SECRET_RULE

ROTATED = lazy_compile(r"\b(rotated|revoked)\b", re.IGNORECASE)


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
    refused: set[int] = set()
    out: list[Finding] = []
    for finding in findings:
        if finding.suppressed or finding.rule_id in META_RULES:
            out.append(finding)  # a directive cannot hide the report about a directive
            continue
        local = [i for file, _, _ in finding.positions() for i in by_file.get(file, ())]
        candidates = [*local, *anywhere]  # still in precedence order
        matching = [
            i
            for i in candidates
            if fnmatchcase(finding.rule_id, live[i].rule) and live[i].covers(finding)
        ]
        if finding.rule_id == SECRET_RULE:
            refused.update(i for i in matching if not ROTATED.search(live[i].reason))
            matching = [i for i in matching if ROTATED.search(live[i].reason)]
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
        if i in refused and i not in used:
            reports.append(meta_finding(MISSING_REASON, directive, _not_rotated(directive)))
        elif i not in used and directive.in_play:
            reports.append(meta_finding(UNUSED, directive, _unused(directive, known_rules)))
    return out + reports


def _not_rotated(directive: Directive) -> str:
    return (
        f"suppression of '{directive.rule}' does not say the secret was rotated, so it is "
        f"not applied to the committed secret ({directive.reason}); the value stays in the "
        'repository\'s history: rotate it, then say so (reason="rotated on YYYY-MM-DD")'
    )


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
