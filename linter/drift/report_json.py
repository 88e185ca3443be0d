"""Drift as JSON: the lint findings schema (``{"version": 1, "findings": [...]}``) plus a
per-target list, so that a pipeline can tell drift from a pod it could not read."""

from __future__ import annotations

import json
from typing import Any, TextIO

from linter.drift.result import COMPARED, NOT_READY, DriftResult, TargetResult, count_by_outcome
from linter.findings import summarize

JSON_VERSION = 1


def as_dict(result: DriftResult) -> dict[str, Any]:
    findings = result.findings
    counts = count_by_outcome(result.targets)
    summary: dict[str, Any] = dict(summarize(findings))
    summary.update(
        {
            "targets": len(result.targets),
            "compared": counts[COMPARED],
            "in_sync": sum(1 for t in result.targets if t.outcome == COMPARED and not t.drift),
            "differences": sum(len(t.drift) for t in result.targets),
            "errors": counts["error"],
            "not_ready": counts[NOT_READY],
        }
    )
    out: dict[str, Any] = {
        "version": JSON_VERSION,
        "findings": [finding.to_json() for finding in findings],
        "summary": summary,
        "targets": [_target(t) for t in sorted(result.targets, key=lambda t: t.target.source)],
        "notes": list(result.notes),
    }
    if result.error:
        out["error"] = {"reason": result.error_reason, "message": result.error}
    return out


def _target(target: TargetResult) -> dict[str, Any]:
    item = target.target
    out: dict[str, Any] = {"source": item.source, "outcome": target.outcome}
    for key in ("namespace", "workload", "pod", "container"):
        if getattr(item, key):
            out[key] = getattr(item, key)
    if target.outcome == COMPARED:
        out["differences"] = len(target.drift)
        out["server_defaults"] = target.server or None
        if target.read:
            out["read"] = target.read
        if target.workload:
            out["compared_with"] = target.workload
        if target.unreported:
            out["not_reported"] = list(target.unreported)
    else:
        out["reason"] = target.reason
        out["message"] = target.message
    return out


class DriftJsonReporter:
    def __init__(self, *, color: bool = False) -> None:
        self.color = color

    def report(self, result: DriftResult, stream: TextIO) -> None:
        json.dump(as_dict(result), stream, indent=2)
        stream.write("\n")
