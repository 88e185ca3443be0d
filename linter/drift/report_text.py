"""Drift as text: one readable table per target (field | values.yaml | live | status)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from linter.drift.items import render
from linter.drift.result import COMPARED, NOT_READY, DriftResult, TargetResult, count_by_outcome
from linter.findings import Finding
from linter.reporters.escape import escape_text
from linter.secrets.redact import message as redacted

_HEADER = ("field", "values.yaml", "live", "status", "edit at")
_STATUS_COLORS = {
    "changed": "\033[33m",
    "type-changed": "\033[35m",
    "missing-live": "\033[31m",
    "unexpected-live": "\033[36m",
}
_RESET = "\033[0m"
_CELL = 48


def table(findings: Sequence[Finding], *, color: bool = False) -> list[str]:
    """The rows of one target's table, aligned; every cell is already masked."""
    rows = [_HEADER] + [
        (
            escape_text(f.path),
            escape_text(render(f.extra.get("desired"), _CELL)),
            escape_text(render(f.extra.get("live"), _CELL)),
            str(f.extra.get("status") or f.rule_id.removeprefix("drift/")),
            escape_text(f"{f.file}:{f.line}"),
        )
        for f in findings
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines = []
    for number, row in enumerate(rows):
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row)]
        if color and number:
            cells[3] = f"{_STATUS_COLORS.get(row[3], '')}{cells[3]}{_RESET}"
        lines.append("  " + "  ".join(cells).rstrip())
    return lines


def describe(target: TargetResult) -> str:
    """The heading line of one target."""
    name = target.target.source
    if target.outcome == NOT_READY:
        return f"{name}: not ready: {target.message}"
    if target.outcome != COMPARED:
        return f"{name}: error ({target.reason}): {target.message}"
    count = len(target.drift)
    notes = [f"compared with {target.shown_workload}"] if target.shown_workload else []
    if target.server:
        notes.append(f"{target.server} defaults applied")
    if target.read:
        notes.append(f"read: {target.read}")
    defaults = f" ({'; '.join(notes)})" if notes else ""
    if not count:
        return f"{name}: in sync{defaults}"
    return f"{name}: {count} difference{'s' * (count != 1)}{defaults}"


def summary(result: DriftResult) -> str:
    counts = count_by_outcome(result.targets)
    drifted = sum(1 for t in result.targets if t.outcome == COMPARED and t.drift)
    differences = sum(len(t.drift) for t in result.targets)
    total = len(result.targets)
    parts = [
        f"{differences} difference{'s' * (differences != 1)} in {drifted} of {total} "
        f"target{'s' * (total != 1)}",
        f"{counts[COMPARED] - drifted} in sync",
    ]
    if counts["error"]:
        parts.append(f"{counts['error']} error{'s' * (counts['error'] != 1)}")
    if counts[NOT_READY]:
        parts.append(f"{counts[NOT_READY]} not ready")
    return ", ".join(parts)


class DriftTextReporter:
    def __init__(self, *, color: bool = False) -> None:
        self.color = color

    def report(self, result: DriftResult, stream: TextIO) -> None:
        # Pod names, messages and notes come from the cluster: escaped and redacted.
        if result.error:
            error = escape_text(redacted(f"error ({result.error_reason}): {result.error}"))
            stream.write(error + "\n")
        for note in result.notes:
            stream.write(f"note: {escape_text(redacted(note))}\n")
        for target in sorted(result.targets, key=lambda t: t.target.source):
            stream.write(escape_text(redacted(describe(target))) + "\n")
            if target.unreported:
                names = ", ".join(target.unreported)
                stream.write(f"  not reported by this source (not compared): {names}\n")
            if target.drift or target.unchecked:
                rows = sorted((*target.drift, *target.unchecked), key=Finding.sort_key)
                stream.write("\n".join(table(rows, color=self.color)) + "\n")
        stream.write(summary(result) + "\n")
