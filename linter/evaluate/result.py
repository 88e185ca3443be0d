"""What a lint run returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from linter.coverage.model import NO_COVERAGE, Coverage, combine
from linter.findings import Finding, sort_findings
from linter.lightclass import mutable
from linter.policy.model import Policy
from linter.secrets import redact

if TYPE_CHECKING:
    from linter.evaluate.subjects import Contribution


@mutable
class RunResult:
    findings: list[Finding]
    files_checked: int
    read_failures: int = 0
    notes: list[str] = dataclasses.field(default_factory=list)
    # The policies that were evaluated: reporters take rule metadata from them (SARIF).
    policies: tuple[Policy, ...] = ()
    # Literal secret values found in the inputs; scrubbed from every report (``redacted`` below).
    secrets: frozenset[str] = frozenset()
    # What the run recognised and what it could not check (coverage/).
    coverage: Coverage = NO_COVERAGE


def merged(policies: Sequence[Policy], contributions: Sequence[Contribution]) -> RunResult:
    """One result of what the providers concluded (``subjects.py``). Secrets are scrubbed
    here, with every secret value the run found, before anything else sees the findings;
    the reporters' entry point scrubs once more (``redacted`` below, with the runner's
    environment)."""
    secrets = frozenset(value for c in contributions for value in c.secrets)
    findings = [finding for c in contributions for finding in c.findings]
    coverage = combine([c.coverage for c in contributions])
    return RunResult(
        sort_findings(redact.findings(findings, secrets)),
        # The files of the run, each once: a file that two providers read (a values file
        # given as input and with --chart; a template rendered for two environments)
        # counts once, so the summary line, the coverage line and JSON agree.
        len(coverage.files),
        sum(c.read_failures for c in contributions),
        [note for c in contributions for note in c.notes],
        tuple(policies),
        secrets,
        coverage,
    )


def redacted(run: RunResult) -> RunResult:
    """The last pass before reporters: findings, notes and coverage scrubbed of the run's
    secrets."""
    from linter.secrets.masking import masker

    masked = masker(getattr(run, "secrets", frozenset()))
    return dataclasses.replace(
        run,
        findings=masked.findings(run.findings),
        notes=[masked.text(note) for note in run.notes],
        coverage=run.coverage.map_text(masked.text),
    )
