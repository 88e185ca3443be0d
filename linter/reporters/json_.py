"""Machine-readable output: ``{"version": 1, "findings": [...], "summary": {...}}``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TextIO

from linter.findings import summarize

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

JSON_VERSION = 1


def as_dict(result: RunResult) -> dict[str, Any]:
    summary: dict[str, Any] = dict(summarize(result.findings))
    summary["files"] = result.files_checked
    return {
        "version": JSON_VERSION,
        "findings": [finding.to_json() for finding in result.findings],
        "summary": summary,
        "notes": list(result.notes),
        "coverage": result.coverage.to_json(),
    }


class JsonReporter:
    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.color = color
        self.quiet = quiet

    def report(self, result: RunResult, stream: TextIO) -> None:
        json.dump(as_dict(result), stream, indent=2, sort_keys=False)
        stream.write("\n")
