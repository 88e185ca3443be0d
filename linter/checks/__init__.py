"""Built-in checks written in Python, for what a CEL rule cannot say cleanly.

A check reads one document and returns findings, like a ``target: document`` policy;
it runs with the built-in policies (not with ``--no-builtin``). One entry per check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from linter.checks import literal_secrets
from linter.documents import Document, ParsedFile
from linter.findings import Finding

Check = Callable[[Document], list[Finding]]

CHECKS: dict[str, Check] = {
    literal_secrets.RULE_ID: literal_secrets.check,
}


def run(parsed: Iterable[ParsedFile]) -> list[Finding]:
    return [finding for parsed_file in parsed for document in parsed_file.documents
            for check in CHECKS.values() for finding in check(document)]
