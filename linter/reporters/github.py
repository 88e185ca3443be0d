"""GitHub Actions workflow commands: each finding becomes an annotation on the diff.

``::error file=F,line=L,col=C,title=RULE::MESSAGE``; warnings are ``::warning`` and
info findings ``::notice``. Suppressed findings are not annotated (they are accepted);
they are counted in the summary line that closes the output.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from linter.coverage.text import summary_lines
from linter.findings import Finding, Severity
from linter.reporters.escape import escape_text
from linter.reporters.meta import repo_path
from linter.reporters.text import format_summary

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message, as ``@actions/core`` does (``escapeData``), after
    showing every other control character as an escape (a raw ESC would reach the log:
    the runner decodes only these percent escapes)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return escape_text(text)


def escape_property(text: str) -> str:
    """Escape a property value (``escapeProperty``): data escapes plus ``:`` and ``,``."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return escape_text(text.replace(":", "%3A").replace(",", "%2C"))


def format_annotation(finding: Finding, root: Path) -> str:
    """One workflow command; the file is relative to ``root`` (the checkout) when inside it."""
    name = repo_path(finding.file, root) or finding.file
    properties = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", name),
            ("line", str(finding.line)),
            ("col", str(finding.column)),
            ("title", finding.rule_id),
        )
    )
    return f"::{COMMANDS[finding.severity]} {properties}::{escape_data(finding.message)}"


class GithubReporter:
    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.color = color
        self.quiet = quiet
        self.verbose = verbose

    def report(self, result: RunResult, stream: TextIO) -> None:
        root = Path.cwd()
        for note in result.notes:
            stream.write(f"note: {escape_text(note)}\n")
        for finding in result.findings:
            if not finding.suppressed:
                stream.write(format_annotation(finding, root) + "\n")
        for line in summary_lines(result.coverage, verbose=self.verbose):
            stream.write(escape_text(line) + "\n")
        stream.write(format_summary(result) + "\n")
