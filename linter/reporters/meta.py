"""What the CI reporters need beyond the findings: rule metadata and repository paths.

SARIF, JUnit and GitHub annotations are read by other programs, which want rule titles,
help links and file paths relative to the repository root rather than as typed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from linter.findings import Finding
from linter.run.rulemeta import (
    GATE_RULES,
    INFORMATION_URI,
    PIPELINE_RULES,
    RuleMeta,
    policy_rule_meta,
)

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

TOOL_NAME = "servelint"
# Kept under its old name for callers: the registry itself lives in linter.run.rulemeta.
CORE_RULES = PIPELINE_RULES
__all__ = ["CORE_RULES", "INFORMATION_URI", "TOOL_NAME", "RuleMeta", "rule_metadata", "rules_for"]


def rule_metadata(result: RunResult) -> dict[str, RuleMeta]:
    """Metadata for every known rule: the core findings plus every loaded policy rule."""
    known = {**PIPELINE_RULES, **GATE_RULES}
    for policy in result.policies:
        for rule in policy.rules:
            known[rule.id] = policy_rule_meta(rule)
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
                finding.rule_id, RuleMeta(finding.rule_id, finding.severity, finding.rule_id)
            )
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
