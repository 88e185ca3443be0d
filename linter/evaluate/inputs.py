"""Reading inputs into documents: what lint, drift and the GitOps providers start from.

Kept apart from the lint run (``stages.py``, ``providers.py``) so that reading a file
imports no policies, CEL or coverage: ``servelint drift`` reads its committed files here.
"""

from __future__ import annotations

from collections.abc import Sequence

from linter.evaluate.parsers import parse
from linter.findings import Finding, Severity
from linter.parsing.documents import DEFAULT_LIMITS, Limits, ParsedFile
from linter.sources import files as file_sources


def read_inputs(
    inputs: Sequence[file_sources.Input], limits: Limits = DEFAULT_LIMITS
) -> tuple[list[ParsedFile], list[Finding]]:
    """Read and parse every input; a file that cannot be read is a ``read-error`` finding."""
    parsed: list[ParsedFile] = []
    failures: list[Finding] = []
    for item in inputs:
        result = file_sources.read(item, limits.max_bytes)
        if result.text is None:
            finding = Finding(
                result.rule,
                Severity.ERROR,
                result.error or "cannot read",
                item.name,
                result.line,
                result.column,
            )
            if result.rule == "input-limit":
                # A limit is a finding about the input (exit 1), not a tool failure.
                parsed.append(ParsedFile(item.name, "", [], [finding]))
            else:
                failures.append(finding)
            continue
        parsed.append(parse(item.name, result.text, limits))
    return parsed, failures
