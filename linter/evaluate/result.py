"""What evaluating inputs returns, and what a workload context adds to it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from linter.coverage.model import NO_COVERAGE, Coverage
from linter.findings import Finding
from linter.model.settings import ModelSettings
from linter.parsing.documents import Limits, ParsedFile
from linter.policy.model import Policy
from linter.secrets import redact


@dataclasses.dataclass
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


@dataclasses.dataclass(frozen=True)
class ContextRun:
    """What a workload context adds to a run (``helm/context.py``: a chart's values)."""

    # Inputs whose workloads come from the context instead of from the file alone.
    claimed: frozenset[str] = frozenset()
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    # Files read only for the context: their suppression comments and secrets count,
    # but they are not inputs of the run.
    files: tuple[ParsedFile, ...] = ()
    coverage: Coverage = NO_COVERAGE


class WorkloadContext(Protocol):
    def lint(
        self,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> ContextRun: ...


def redacted(run: RunResult) -> RunResult:
    """The last pass before reporters: findings, notes and coverage scrubbed of the run's
    secrets."""
    values: frozenset[str] = getattr(run, "secrets", frozenset()) | redact.environment_values()
    return dataclasses.replace(
        run,
        findings=redact.findings(run.findings, values),
        notes=[redact.scrub(note, values) for note in run.notes],
        coverage=run.coverage.map_text(lambda text: redact.scrub(text, values)),
    )
