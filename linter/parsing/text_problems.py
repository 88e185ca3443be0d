"""Specific explanations for two common causes of broken YAML, and text helpers.

Helm template syntax left in a values file and unresolved git conflict markers both make
the parser fail somewhere unhelpful; when present they are the real problem, so their
findings replace the parser's generic error.
"""

from __future__ import annotations

import itertools
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from linter.findings import Finding, syntax_finding
from linter.lazyregex import lazy_compile

if TYPE_CHECKING:
    from linter.parsing.documents import ParsedFile

_MAX_TEXT_FINDINGS = 20  # per file and kind: enough to act on, bounded on hostile input


def line_text(text: str, number: int) -> str:
    """Line ``number`` (1-based) of ``text``, found without splitting the whole text."""
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def tab_in_indentation(text: str, line: int) -> int:
    """1-based column of a tab in the indentation of ``line`` (or the line before), or 0."""
    for number in (line, line - 1):
        if number < 1:
            continue
        content = line_text(text, number)
        indent = content[: len(content) - len(content.lstrip(" \t"))]
        if "\t" in indent:
            return indent.index("\t") + 1
    return 0


# Helm template actions where YAML would read them as data: a whole line (``{{- if }}``)
# or an unquoted value (``tag: {{ .Values.tag }}``). A quoted "{{ ... }}" is plain text
# that charts often pass through ``tpl``, and is left alone.
_TEMPLATE = lazy_compile(r"^[ \t]*(?:-[ \t]+)*(?:[^\s#'\"{][^#\n]*?:[ \t]+)?(\{\{)", re.M)
_CONFLICT = lazy_compile(r"^(?:<{7}|>{7}|\|{7})(?:[ \t].*)?$|^={7}$", re.M)


def explain_text_problems(parsed: ParsedFile) -> None:
    """Name two common causes of broken YAML: Helm templates and git conflict markers.

    Either one is the real problem whenever it is present, so the generic parser error
    that it causes is replaced by the specific finding.
    """
    text = parsed.text
    found: list[Finding] = []
    if "{{" in text:
        found.extend(_template_findings(parsed.source, text))
    if "<<<<<<<" in text or ">>>>>>>" in text:
        found.extend(_conflict_findings(parsed.source, text))
    if found:
        parsed.problems[:] = [p for p in parsed.problems if p.rule_id != "syntax"] + found


_PLACEHOLDER = lazy_compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
_MANIFEST = lazy_compile(r"^(?:apiVersion|kind):", re.M)
# A block scalar's header: "key: |", "- >-", "key: |2 # comment".
_BLOCK_HEADER = lazy_compile(r"(?:^|[\s:-])[|>][-+]?[1-9]?[-+]?[ \t]*(?:#.*)?$")
_CHART_TEMPLATE = (
    "Helm template syntax in a chart template: lint the rendered output "
    "(helm template CHART | servelint lint -) or the chart's values files"
)
_VALUES_TEMPLATE = (
    "Helm template syntax in a values file: values files are not templates; "
    "quote the text if it is meant literally (for tpl)"
)
_UNSUBSTITUTED = (
    "placeholder {} was not substituted: YAML reads it as a mapping, not text; "
    "substitute it before the file is applied, or quote it"
)


def _template_findings(source: str, text: str) -> list[Finding]:
    """Template actions where YAML reads them as data; text inside block scalars (shell
    scripts and config files that a controller renders later) is left alone."""
    lines = text.split("\n")
    matches: list[tuple[int, int, str]] = []
    for match in _TEMPLATE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if _inside_block_scalar(lines, line - 1):
            continue
        column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1) + 1
        matches.append((line, column, text[match.start(1) : text.find("}}", match.start(1)) + 2]))
    if not matches:
        return []
    in_chart = "templates" in PurePath(source).parts[:-1]
    actions = [m for m in matches if not _PLACEHOLDER.fullmatch(m[2])]
    if in_chart or (actions and _MANIFEST.search(text)):
        # A manifest with template actions is a chart template: one finding says so.
        line, column, _ = (actions or matches)[0]
        more = len(matches) - 1
        message = _CHART_TEMPLATE + (
            f" ({more} more template line{'s' * (more != 1)})" if more else ""
        )
        return [syntax_finding(source, message, line, column)]
    return [
        syntax_finding(
            source,
            _UNSUBSTITUTED.format(snippet) if _PLACEHOLDER.fullmatch(snippet) else _VALUES_TEMPLATE,
            line,
            column,
        )
        for line, column, snippet in matches[:_MAX_TEXT_FINDINGS]
    ]


def _inside_block_scalar(lines: list[str], index: int) -> bool:
    """Whether line ``index`` (0-based) is content of a ``|`` or ``>`` block scalar: some
    less-indented line above it, before the indentation returns to the top, is a block
    header."""
    indent = len(lines[index]) - len(lines[index].lstrip(" "))
    for previous in range(index - 1, -1, -1):
        text = lines[previous]
        stripped = text.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(text) - len(stripped)
        if depth < indent:
            if _BLOCK_HEADER.search(text.rstrip()):
                return True
            if depth == 0:
                return False
            indent = depth
    return False


def _conflict_findings(source: str, text: str) -> list[Finding]:
    markers = [
        (text.count("\n", 0, m.start()) + 1, m.group(0)[:7])
        for m in itertools.islice(_CONFLICT.finditer(text), 3 * _MAX_TEXT_FINDINGS)
    ]
    if not any(marker[0] in "<>" for _, marker in markers):
        return []  # a lone "=======" is a Markdown underline in a block scalar, not a conflict
    findings: list[Finding] = []
    group: list[tuple[int, str]] = []
    for line, marker in markers:
        if marker.startswith("<") and group:
            findings.append(_conflict(source, group))
            group = []
        group.append((line, marker))
        if marker.startswith(">"):
            findings.append(_conflict(source, group))
            group = []
    if group:
        findings.append(_conflict(source, group))
    return findings


def _conflict(source: str, group: list[tuple[int, str]]) -> Finding:
    where = ", ".join(f"'{marker}' at line {line}" for line, marker in group)
    return syntax_finding(
        source,
        f"unresolved git merge conflict: {where}; resolve the conflict and remove the markers",
        group[0][0],
        1,
    )
