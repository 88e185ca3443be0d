"""Suppressions written on a Kubernetes object, in its own ``metadata.annotations``:

    metadata:
      annotations:
        servelint.io/ignore: |
          vllm/enforce-eager=profiling INC-2231 until=2026-12-31
          k8s/no-latest-tag=pinned by digest in the overlay

Entries are separated by newlines or ``;``; each is ``rule-id=reason``, optionally
ending in `` until=YYYY-MM-DD``. An entry covers the findings located in that object
(same file and YAML document), whichever policy or serving-model rule produced them.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from linter.findings import Finding
from linter.parsing.documents import Document, ParsedFile
from linter.run.suppress.model import Directive, invalid_finding, parse_date

ANNOTATION = "servelint.io/ignore"
_UNTIL = re.compile(r"\s+until=(\S+)\s*$")
_SEPARATORS = re.compile(r"[;\n]")


def scan(parsed: ParsedFile) -> tuple[list[Directive], list[Finding]]:
    if ANNOTATION not in parsed.text:
        return [], []
    directives: list[Directive] = []
    problems: list[Finding] = []
    for document in parsed.documents:
        value = _annotation(document.data)
        if value is None:
            continue
        span = document.span(("metadata", "annotations", ANNOTATION))
        if not isinstance(value, str):
            problems.append(
                invalid_finding(
                    document.source,
                    span.line,
                    span.column,
                    f"{ANNOTATION} must be a string of 'rule-id=reason' entries",
                )
            )
            continue
        for entry in _SEPARATORS.split(value):
            if not entry.strip():
                continue
            try:
                directives.append(_directive(entry.strip(), document, span.line, span.column))
            except ValueError as exc:
                problems.append(
                    invalid_finding(document.source, span.line, span.column, f"{ANNOTATION}: {exc}")
                )
    return directives, problems


def _annotation(data: Any) -> Any:
    if not isinstance(data, dict):
        return None
    metadata = data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations.get(ANNOTATION) if isinstance(annotations, dict) else None


def _directive(entry: str, document: Document, line: int, column: int) -> Directive:
    rule, _, reason = entry.partition("=")
    until: datetime.date | None = None
    match = _UNTIL.search(" " + reason)
    if match is not None:
        until = parse_date(match.group(1))
        reason = (" " + reason)[: match.start()]
    if not rule.strip() or any(ch.isspace() for ch in rule.strip()):
        raise ValueError(f"cannot read {entry!r}; write 'rule-id=reason'")
    source, index = document.source, document.index

    def covers(finding: Finding) -> bool:
        return any(f == source and doc == index for f, _, doc in finding.positions())

    return Directive(
        rule.strip(), reason.strip(), until, "annotation", source, line, column, covers
    )
