"""Positions inside documents: 1-based spans, the path → span line map, where a setting
was written (``Origin``), and the one lookup of a path's position (``nearest``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple, TypeVar

PathT = tuple[str | int, ...]
T = TypeVar("T")


class Span(NamedTuple):
    """A 1-based line and column."""

    line: int
    column: int


LineMap = Mapping[PathT, Span]


class Origin(NamedTuple):
    """Where a setting was written: file, 1-based line and column, and the key or flag used."""

    source: str
    line: int
    column: int
    doc_index: int = 0
    key: str = ""


def nearest(table: Mapping[PathT, T], path: PathT, default: T, *, shortest: int = 0) -> T:
    """The entry of ``path`` in ``table``, or of its closest ancestor of at least
    ``shortest`` parts; ``default`` when there is none. The one lookup of positions: a
    document's line map, a workload's origins."""
    for end in range(len(path), shortest - 1, -1):
        found = table.get(path[:end])
        if found is not None:
            return found
    return default


def format_path(path: PathT) -> str:
    """Render a path tuple as a dotted path: ``spec.containers[0].image``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out:
            out.append(f".{part}" if _plain_key(part) else f"[{part!r}]")
        else:
            out.append(part if _plain_key(part) else f"[{part!r}]")
    return "".join(out)


# Chart profiles parse the same few dotted keys for every workload of every file.
@functools.lru_cache(maxsize=4096)
def parse_path(text: str) -> PathT:
    """Parse a dotted path (``a.b[0].c``, ``a['x.y']``) back into a path tuple."""
    parts: list[str | int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ".":
            i += 1
        elif ch == "[":
            end = _closing_bracket(text, i)
            inner = text[i + 1 : end]
            if inner[:1] in ("'", '"'):
                parts.append(inner[1:-1])
            elif inner.lstrip("-").isdigit():
                parts.append(int(inner))
            else:
                parts.append(inner)
            i = end + 1
        else:
            j = i
            while j < n and text[j] not in ".[":
                j += 1
            parts.append(text[i:j])
            i = j
    return tuple(parts)


def _closing_bracket(text: str, start: int) -> int:
    quote = text[start + 1] if start + 1 < len(text) else ""
    if quote in ("'", '"'):
        end = text.find(quote + "]", start + 2)
        return len(text) - 1 if end < 0 else end + 1
    end = text.find("]", start)
    return len(text) - 1 if end < 0 else end


def _plain_key(key: str) -> bool:
    """Letters, digits, ``_``, ``-`` and ``/`` only (each workload's origins format a few
    hundred keys: one pass in C, not a Python loop over the characters)."""
    rest = key.translate(_KEY_PUNCTUATION)
    return bool(key) and (not rest or rest.isalnum())


_KEY_PUNCTUATION = str.maketrans("", "", "_-/")
