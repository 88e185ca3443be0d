"""What the CI reporters need beyond the findings: rule metadata and repository paths.

SARIF, JUnit and GitHub annotations are read by other programs, which want rule titles,
help links and file paths relative to the repository root rather than as typed.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from linter.findings import Finding, Severity

if TYPE_CHECKING:
    from linter.runner import RunResult

TOOL_NAME = "servelint"
INFORMATION_URI = "https://github.com/servelint/servelint"
_CORE_HELP = f"{INFORMATION_URI}#findings-the-pipeline-itself-reports"
_SUPPRESSION_HELP = f"{INFORMATION_URI}#suppressions"
_CHART_HELP = f"{INFORMATION_URI}/blob/main/docs/ci.md"


@dataclasses.dataclass(frozen=True)
class RuleMeta:
    id: str
    severity: Severity
    title: str
    description: str = ""
    fix: str = ""
    help_uri: str | None = None


# Findings the pipeline reports without any policy (README, "Findings the pipeline
# itself reports"); they need metadata too, or SARIF viewers show a bare id.
CORE_RULES: dict[str, RuleMeta] = {
    "syntax": RuleMeta(
        "syntax", Severity.ERROR, "Input is not valid YAML or JSON",
        "The file could not be parsed, so no other rule could check it. The finding "
        "points at the line and column where the parser stopped.",
        "Fix the syntax at the reported position.", _CORE_HELP),
    "duplicate-key": RuleMeta(
        "duplicate-key", Severity.ERROR, "A mapping repeats a key",
        "Helm and Kubernetes keep the last value of a repeated key without a warning, so "
        "the first value is silently ignored.",
        "Keep one of the two keys.", _CORE_HELP),
    "input-limit": RuleMeta(
        "input-limit", Severity.ERROR, "Input exceeds a size, node-count or nesting limit",
        "Inputs are parsed with limits so that a hostile or broken file (for example an "
        "alias bomb) cannot exhaust memory.",
        "Split or simplify the file.", _CORE_HELP),
    "read-error": RuleMeta(
        "read-error", Severity.ERROR, "Input could not be read",
        "The file is unreadable, binary, or not UTF-8; it was not checked.",
        "Check the file's permissions and encoding.", _CORE_HELP),
    "suppression/missing-reason": RuleMeta(
        "suppression/missing-reason", Severity.WARNING, "A suppression gives no reason",
        "A suppression without a reason is not applied: the finding it names still counts.",
        'Say why the finding is acceptable: reason="..."', _SUPPRESSION_HELP),
    "suppression/expired": RuleMeta(
        "suppression/expired", Severity.WARNING, "A suppression is past its end date",
        "After its until date a suppression stops applying and its findings count again.",
        "Fix the findings, or renew the suppression with a new reason and date.",
        _SUPPRESSION_HELP),
    "suppression/unused": RuleMeta(
        "suppression/unused", Severity.WARNING, "A suppression matches no finding",
        "A stale suppression would silently hide a future finding of the same rule.",
        "Remove the suppression.", _SUPPRESSION_HELP),
    "suppression/invalid": RuleMeta(
        "suppression/invalid", Severity.WARNING, "A suppression cannot be read",
        "The suppression comment or annotation is malformed and is ignored.",
        'Write it as: servelint: ignore[rule-id] reason="..." until=YYYY-MM-DD',
        _SUPPRESSION_HELP),
    "helm-values": RuleMeta(
        "helm-values", Severity.ERROR, "Values cannot be merged as Helm merges them",
        "A values file or --set value cannot be read or merged, or replaces a map with a "
        "scalar (or the reverse), which Helm only warns about.",
        "Fix the value at the reported position.", _CHART_HELP),
    "helm-template": RuleMeta(
        "helm-template", Severity.ERROR, "The chart does not render",
        "helm template failed, so the rendered manifests could not be checked.",
        "Fix the template or value that helm names.", _CHART_HELP),
}


def rule_metadata(result: RunResult) -> dict[str, RuleMeta]:
    """Metadata for every known rule: the core findings plus every loaded policy rule."""
    known = dict(CORE_RULES)
    for policy in result.policies:
        for rule in policy.rules:
            known[rule.id] = RuleMeta(rule.id, rule.severity, rule.title, rule.description,
                                      rule.fix, rule.references[0] if rule.references else None)
    return known


def rules_for(findings: Iterable[Finding], known: Mapping[str, RuleMeta]) -> list[RuleMeta]:
    """The metadata of each rule that appears in ``findings``, sorted by id.

    A rule without metadata (a front end that reports its own rule ids) still gets an
    entry, with the severity of its first finding and its id as the title.
    """
    found: dict[str, RuleMeta] = {}
    for finding in findings:
        if finding.rule_id not in found:
            found[finding.rule_id] = known.get(
                finding.rule_id, RuleMeta(finding.rule_id, finding.severity, finding.rule_id))
    return [found[rule_id] for rule_id in sorted(found)]


def repo_path(name: str, root: Path) -> str | None:
    """``name`` as a POSIX path relative to ``root``, or None when it lies outside it.

    Findings name files as the user typed them; code scanning and annotations need
    paths relative to the checkout (the working directory in CI). ``root`` is absolute.
    """
    full = Path(os.path.normpath(root / name))
    try:
        relative = full.relative_to(root)
    except ValueError:
        return None
    return PurePosixPath(*relative.parts).as_posix() if relative.parts else "."
