"""Drift in the Prometheus text exposition format (version 0.0.4), for scheduled scans.

Only counts are exported, never values, so nothing secret can reach a metric. The main
metric is ``servelint_drift_items``: an alert on ``servelint_drift_items > 0`` for an hour
across clusters is the intended use (docs/drift.md).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TextIO

from linter.drift.result import COMPARED, NOT_READY, DriftResult, TargetResult, count_by_outcome

_TARGET_LABELS = ("namespace", "workload", "pod", "container", "source")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    inner = ",".join(f'{key}="{_escape(value)}"' for key, value in pairs)
    return "{" + inner + "}" if inner else ""


def _target_labels(target: TargetResult) -> list[tuple[str, str]]:
    item = target.target
    values = (item.namespace, item.workload, item.pod, item.container, item.spec or item.source)
    return list(zip(_TARGET_LABELS, values, strict=True))


def _metric(
    name: str, kind: str, help_text: str, samples: Iterable[tuple[list[tuple[str, str]], float]]
) -> list[str]:
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
    lines += [f"{name}{_labels(labels)} {_number(value)}" for labels, value in samples]
    return lines


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def exposition(result: DriftResult) -> str:
    targets = sorted(result.targets, key=lambda t: t.target.source)
    compared = [t for t in targets if t.outcome == COMPARED]
    lines: list[str] = []
    lines += _metric(
        "servelint_drift_items",
        "gauge",
        "Differences between the committed values and the live configuration.",
        [(_target_labels(t), len(t.drift)) for t in compared],
    )
    by_status = [
        ([*_target_labels(t), ("status", status)], count)
        for t in compared
        for status, count in sorted(
            Counter(f.rule_id.removeprefix("drift/") for f in t.drift).items()
        )
    ]
    lines += _metric(
        "servelint_drift_items_by_status",
        "gauge",
        "Differences by status (changed, missing-live, unexpected-live, type-changed, "
        "process-disagreement).",
        by_status,
    )
    lines += _metric(
        "servelint_drift_fetch_errors",
        "gauge",
        "Targets whose live configuration could not be read or parsed (1 per target).",
        [
            ([*_target_labels(t), ("reason", t.reason)], 1)
            for t in targets
            if t.outcome not in (COMPARED, NOT_READY)
        ],
    )
    lines += _metric(
        "servelint_drift_pods_not_ready",
        "gauge",
        "Pods not compared because they are not Running and Ready (1 per pod).",
        [(_target_labels(t), 1) for t in targets if t.outcome == NOT_READY],
    )
    counts = count_by_outcome(targets)
    lines += _metric(
        "servelint_drift_targets",
        "gauge",
        "Targets seen by the scan, by outcome.",
        [([("outcome", outcome)], count) for outcome, count in counts.items()],
    )
    scan_error = [([("reason", result.error_reason or "unknown")], 1)] if result.error else []
    lines += _metric(
        "servelint_drift_scan_error",
        "gauge",
        "1 when the scan could not start (API unreachable, no pods, ...).",
        scan_error,
    )
    lines += _metric(
        "servelint_drift_scan_success",
        "gauge",
        "1 when at least one target was compared.",
        [([], 1 if compared else 0)],
    )
    lines += _metric(
        "servelint_drift_last_scan_timestamp_seconds",
        "gauge",
        "Unix time at which the scan started.",
        [([], result.scanned_at)],
    )
    lines += _metric(
        "servelint_drift_scan_duration_seconds",
        "gauge",
        "How long the scan took.",
        [([], round(result.duration, 3))],
    )
    return "\n".join(lines) + "\n"


class DriftPrometheusReporter:
    def __init__(self, *, color: bool = False) -> None:
        self.color = color

    def report(self, result: DriftResult, stream: TextIO) -> None:
        stream.write(exposition(result))
