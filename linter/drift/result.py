"""What a drift run produced: one result per live target, and the run as a whole."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from linter.findings import Finding, Severity, exit_code, sort_findings
from linter.lightclass import frozen, mutable

COMPARED, ERROR, NOT_READY = "compared", "error", "not-ready"
EXIT_OK, EXIT_DRIFT, EXIT_NOTHING_COMPARED = 0, 1, 3
DRIFT_RULE_PREFIX = "drift/"
DISAGREEMENT_RULE = "drift/process-disagreement"
FETCH_ERROR_RULE, NOT_READY_RULE = "drift/fetch-error", "drift/not-ready"
UNCHECKED_RULE = "unchecked"  # lint's --fail-on-unchecked rule (coverage/gate.py)


@frozen
class Target:
    """One live thing compared with the values: a file, or a pod's source."""

    source: str  # 'live.json', 'kube://llm/vllm-0/vllm exec:/etc/vllm/config.json'
    namespace: str = ""
    workload: str = ""
    pod: str = ""
    container: str = ""
    spec: str = ""  # the --source text ('exec:/etc/vllm/config.json'), or the live file


@frozen
class TargetResult:
    target: Target
    outcome: str  # compared | error | not-ready
    findings: tuple[Finding, ...] = ()
    reason: str = ""  # error or not-ready reason: forbidden, timeout, file-missing, ...
    message: str = ""
    server: str = ""  # the server whose defaults were applied
    read: str = ""  # what a log or info answer was read as: "vLLM 0.11.0: non-default args"
    # The committed workload compared with: "vllm-a (Deployment, deploy/vllm.yaml:3)";
    # ``shown_workload`` is the same when the committed files hold several to choose from.
    workload: str = ""
    shown_workload: str = ""
    # Committed settings the live source does not report: not compared (coverage).
    unreported: tuple[str, ...] = ()

    @property
    def drift(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if _is_drift(f))

    @property
    def unchecked(self) -> tuple[Finding, ...]:
        """The findings of ``--fail-on-unchecked``: settings the source does not report."""
        return tuple(f for f in self.findings if f.rule_id == UNCHECKED_RULE)


@mutable
class DriftResult:
    targets: list[TargetResult]
    scanned_at: float  # Unix time the scan started
    duration: float = 0.0
    error: str = ""  # the scan could not start (cluster unreachable, no pods, ...)
    error_reason: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return sort_findings(f for t in self.targets for f in t.findings)

    @property
    def compared(self) -> int:
        return sum(1 for t in self.targets if t.outcome == COMPARED)

    @property
    def files_checked(self) -> int:  # what the shared JSON summary calls its inputs
        return len(self.targets)

    def exit_code(self, exit_zero: bool = False) -> int:
        """0 in sync, 1 drift found, 3 nothing could be compared at all."""
        if self.compared == 0:
            return EXIT_NOTHING_COMPARED
        if exit_zero:
            return EXIT_OK
        drift = [f for f in self.findings if _is_drift(f) or f.rule_id == UNCHECKED_RULE]
        return EXIT_DRIFT if exit_code(drift, Severity.ERROR) else EXIT_OK


def _is_drift(finding: Finding) -> bool:
    return finding.rule_id.startswith(DRIFT_RULE_PREFIX) and finding.rule_id not in (
        FETCH_ERROR_RULE,
        NOT_READY_RULE,
    )


def count_by_outcome(targets: Sequence[TargetResult]) -> dict[str, int]:
    counts = {COMPARED: 0, ERROR: 0, NOT_READY: 0}
    for target in targets:
        counts[target.outcome] += 1
    return counts


def redacted(run: DriftResult) -> DriftResult:
    """A drift run as every format shows it: its findings, messages and notes scrubbed of
    the runner's environment and of every secret shape (values masked by name are
    masked already, where drift builds them)."""
    from linter.secrets.masking import masker

    masked = masker()
    targets = [
        dataclasses.replace(
            target,
            findings=tuple(masked.findings(target.findings)),
            message=masked.text(target.message),
            read=masked.text(target.read),
        )
        for target in run.targets
    ]
    return dataclasses.replace(
        run,
        targets=targets,
        error=masked.text(run.error),
        notes=[masked.text(note) for note in run.notes],
    )
