"""Values written inside a wrapper, as documents whose positions are those of the file.

A mapping (``spec.values``, ``helm.valuesObject``) becomes a document of its own whose line
map is the file's, re-rooted at the mapping: a finding on ``vllm.maxModelLen`` points at
the wrapper's line. A YAML string (Argo CD ``helm.values``, a ConfigMap's ``values.yaml``)
is parsed and, when it is a literal block whose lines are the file's lines, every
position is moved onto the file; otherwise (a quoted or folded string) every value is
located at the key that holds the string.
"""

from __future__ import annotations

from typing import Any

from linter.findings import Finding, Severity
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, parse_yaml
from linter.positions import PathT, Span

VALUES_RULE = "helm-values"


def subdocument(document: Document, path: PathT) -> Document:
    """The mapping at ``path`` of ``document`` as a document with the file's positions."""
    size = len(path)
    line_map = {p[size:]: span for p, span in document.line_map.items() if p[:size] == path}
    line_map.setdefault((), document.span(path))
    data: Any = document.data
    for part in path:
        data = data[part]
    return Document(document.source, document.index, data, line_map)


def string_document(
    document: Document, text: str, path: PathT, value: str
) -> tuple[Document | None, list[Finding]]:
    """The values in the YAML string ``value`` found at ``path`` of ``document`` (whose
    file's text is ``text``); None and a finding when Helm could not read them."""
    at = document.span(path)
    shift = _block_shift(text, value, at.line)
    parsed = parse_yaml(document.source, value)
    problems = [p for p in parsed.problems if p.rule_id not in ADVISORY_PROBLEMS]
    if problems:
        problem = problems[0]
        line, column = _moved(Span(problem.line, problem.column), shift, at)
        message = f"the values string is not valid YAML: {problem.message}"
        finding = Finding(VALUES_RULE, Severity.ERROR, message, document.source, line, column)
        return None, [finding]
    if not parsed.documents:
        return Document(document.source, document.index, {}, {(): at}), []
    first = parsed.documents[0]
    line_map = {p: Span(*_moved(span, shift, at)) for p, span in first.line_map.items()}
    return Document(document.source, document.index, first.data, line_map), []


def _moved(span: Span, shift: tuple[int, int] | None, at: Span) -> tuple[int, int]:
    if shift is None:
        return at.line, at.column
    return span.line + shift[0], span.column + shift[1]


def _block_shift(text: str, value: str, key_line: int) -> tuple[int, int] | None:
    """(lines, columns) to add to a position in ``value`` to reach the file, when the
    string is a literal block written just below ``key_line``; None otherwise."""
    wanted = value.split("\n")
    if wanted and wanted[-1] == "":
        wanted.pop()
    if not wanted:
        return None
    lines = text.split("\n")
    for start in range(key_line, min(key_line + 2, len(lines))):
        first = lines[start]
        indent = len(first) - len(first.lstrip(" "))
        if _matches(lines[start : start + len(wanted)], wanted, indent):
            return start, indent
    return None


def _matches(have: list[str], wanted: list[str], indent: int) -> bool:
    if len(have) != len(wanted):
        return False
    for line, expected in zip(have, wanted, strict=True):
        if expected == "":
            if line.strip():
                return False
        elif line[:indent].strip() or line[indent:].rstrip("\r") != expected:
            return False
    return True
