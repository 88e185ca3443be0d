"""Inline suppression comments in YAML (and other ``#``-comment formats).

    # servelint: ignore[rule-id, other-rule] reason="why" until=YYYY-MM-DD

A comment after a value covers its own line. A comment alone on its line covers the
next line that holds something other than blank space or comments, so several such
comments can be stacked above one line. This runs in a pre-commit hook, so only files
that contain the marker are scanned at all, and only their marked lines are parsed.
"""

from __future__ import annotations

import re

from linter.evaluate.parsers import format_for
from linter.findings import Finding
from linter.parsing.documents import ParsedFile
from linter.run.suppress.model import Directive, invalid_finding, parse_date

MARKER = "servelint:"
_COMMENT = re.compile(r"(?:^|\s)#\s*servelint:\s*(?P<body>.*?)\s*$")
_VERB = re.compile(r"^(?P<verb>[A-Za-z][A-Za-z-]*)(?P<ids>\[[^\]]*\])?")
_OPTION = re.compile(
    r"""\s+(?P<key>[A-Za-z_]+)=(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"']+))"""
)
_OPTIONS = ("reason", "until")


def scan(parsed: ParsedFile) -> tuple[list[Directive], list[Finding]]:
    """Directives and malformed-comment findings of one file."""
    if MARKER not in parsed.text or format_for(parsed.source, parsed.text) == "json":
        return [], []
    lines = parsed.text.split("\n")
    directives: list[Directive] = []
    problems: list[Finding] = []
    for index, line in enumerate(lines):
        if MARKER not in line:
            continue
        match = _COMMENT.search(line)
        if match is None:
            continue
        column = line.index("#", match.start()) + 1
        standalone = not line[: match.start()].strip()
        target = _next_content_line(lines, index + 1) if standalone else index + 1
        try:
            directives.extend(_parse(match.group("body"), parsed.source, index + 1, column, target))
        except ValueError as exc:
            problems.append(
                invalid_finding(
                    parsed.source, index + 1, column, f"cannot read suppression comment: {exc}"
                )
            )
    return directives, problems


def _next_content_line(lines: list[str], start: int) -> int | None:
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if stripped and not stripped.startswith("#"):
            return index + 1
    return None


def _parse(body: str, file: str, line: int, column: int, target: int | None) -> list[Directive]:
    match = _VERB.match(body)
    if match is None or match.group("verb") != "ignore":
        raise ValueError(f"expected 'ignore[rule-id] reason=\"...\"', found {body!r}")
    if not match.group("ids"):
        raise ValueError("name the rules: ignore[rule-id] or ignore[rule-a, rule-b]")
    rules = [rule.strip() for rule in match.group("ids")[1:-1].split(",") if rule.strip()]
    if not rules:
        raise ValueError("ignore[] names no rule")
    options = _options(body[match.end() :])
    until = parse_date(options["until"]) if "until" in options else None

    def covers(finding: Finding) -> bool:
        return any(f == file and at == target for f, at, _ in finding.positions())

    return [
        Directive(
            rule, options.get("reason", "").strip(), until, "inline", file, line, column, covers
        )
        for rule in rules
    ]


def _options(text: str) -> dict[str, str]:
    options: dict[str, str] = {}
    position = 0
    while position < len(text):
        match = _OPTION.match(text, position)
        if match is None:
            if text[position:].strip():
                raise ValueError(
                    f'cannot read {text[position:].strip()!r}; write reason="..." until=YYYY-MM-DD'
                )
            break
        key = match.group("key")
        if key not in _OPTIONS:
            raise ValueError(f"unknown option '{key}' (known: {', '.join(_OPTIONS)})")
        options[key] = next(v for v in match.group("dq", "sq", "bare") if v is not None)
        position = match.end()
    return options
