"""Line numbers for keys of a TOML table, so pyproject.toml errors can say where.

tomllib returns plain data without positions. A configuration error must still name
its line, so this scans the text for table headers and ``key =`` lines: enough for
the shapes people write in ``[tool.*]`` tables. A key it cannot place falls back to
the nearest enclosing table, then to the table header.
"""

from __future__ import annotations

import re

from linter.positions import PathT, Span

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_KEY_LINE = re.compile(rf"^(\s*)({_DOTTED})\s*=")
_TABLE = re.compile(rf"^(\s*)\[\s*({_DOTTED})\s*\]")
_ARRAY_TABLE = re.compile(rf"^(\s*)\[\[\s*({_DOTTED})\s*\]\]")
_PART = re.compile(_KEY)


def _split(dotted: str) -> PathT:
    parts: list[str | int] = []
    for match in _PART.finditer(dotted):
        text = match.group(0)
        parts.append(text[1:-1] if text[:1] in ('"', "'") else text)
    return tuple(parts)


def line_map(text: str, root: PathT) -> dict[PathT, Span]:
    """Path (relative to the ``root`` table) → span, for every key found under ``root``."""
    spans: dict[PathT, Span] = {}
    table: PathT = ()
    array_counts: dict[PathT, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _ARRAY_TABLE.match(line)
        if match:
            path = _split(match.group(2))
            array_counts[path] = array_counts.get(path, -1) + 1
            table = (*path, array_counts[path])
            _record(spans, root, table, Span(number, len(match.group(1)) + 1))
            continue
        match = _TABLE.match(line)
        if match:
            table = _split(match.group(2))
            _record(spans, root, table, Span(number, len(match.group(1)) + 1))
            continue
        match = _KEY_LINE.match(line)
        if match:
            _record(
                spans,
                root,
                (*table, *_split(match.group(2))),
                Span(number, len(match.group(1)) + 1),
            )
    return spans


def _record(spans: dict[PathT, Span], root: PathT, path: PathT, span: Span) -> None:
    if path[: len(root)] == root:
        spans.setdefault(path[len(root) :], span)
