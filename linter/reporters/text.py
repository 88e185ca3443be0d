"""Human-readable output: one line per finding, then a summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from linter.coverage.text import summary_lines
from linter.findings import Finding, Severity, summarize
from linter.reporters.escape import escape_text

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

_COLORS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
_DIM = "\033[2m"
_RESET = "\033[0m"


def format_finding(finding: Finding, *, color: bool = False) -> str:
    """``file:line:col: severity rule-id message`` (plus the suppression, if any)."""
    severity = finding.severity.label
    if color:
        severity = f"{_COLORS[finding.severity]}{severity}{_RESET}"
    # Every piece that comes from the inputs is escaped (reporters/escape.py).
    line = (
        f"{escape_text(finding.file)}:{finding.line}:{finding.column}: {severity} "
        f"{escape_text(finding.rule_id)} {escape_text(finding.message)}"
    )
    environments = finding.extra.get("environments")
    if environments:  # lint --chart --env: the environments this finding occurs in
        line += f" [{escape_text(', '.join(environments))}]"
    if finding.suppression is not None:
        until = f", until {finding.suppression.until}" if finding.suppression.until else ""
        reason = escape_text(f"{finding.suppression.reason}{until}")
        note = f" [suppressed ({escape_text(finding.suppression.source)}): {reason}]"
        line = f"{_DIM}{line}{note}{_RESET}" if color else line + note
    return line


def format_summary(result: RunResult) -> str:
    counts = summarize(result.findings)
    parts = [
        f"{counts['error']} error{'s' * (counts['error'] != 1)}",
        f"{counts['warning']} warning{'s' * (counts['warning'] != 1)}",
        f"{counts['info']} info",
    ]
    suppressed = f", {counts['suppressed']} suppressed" if counts["suppressed"] else ""
    files = f"{result.files_checked} file{'s' * (result.files_checked != 1)}"
    return f"{', '.join(parts)}{suppressed} in {files}"


class TextReporter:
    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.color = color
        self.quiet = quiet
        self.verbose = verbose

    def report(self, result: RunResult, stream: TextIO) -> None:
        if self.quiet:  # lint -q: the findings that count, nothing else
            for finding in result.findings:
                if not finding.suppressed:
                    stream.write(format_finding(finding, color=self.color) + "\n")
            return
        for note in result.notes:
            stream.write(f"note: {escape_text(note)}\n")
        for finding in result.findings:
            stream.write(format_finding(finding, color=self.color) + "\n")
        for line in summary_lines(result.coverage, verbose=self.verbose):
            stream.write(escape_text(line) + "\n")
        stream.write(format_summary(result) + "\n")
