"""Which parser reads which input. One entry per format; chosen by file name or content."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from linter.parsing.documents import DEFAULT_LIMITS, Limits, ParsedFile, parse_json, parse_yaml

Parser = Callable[[str, str], ParsedFile]


def parse_pbtxt(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """Triton's text format, its modules imported only for a run that reads one."""
    from linter.triton.pbtxt import parse_pbtxt as parse_text

    return parse_text(source, text, limits)


_LIMITED: dict[str, Callable[[str, str, Limits], ParsedFile]] = {
    "yaml": parse_yaml,
    "json": parse_json,
    "pbtxt": parse_pbtxt,
}

PARSERS: dict[str, Parser] = {
    "yaml": parse_yaml,
    "json": parse_json,
    "pbtxt": parse_pbtxt,
}


def format_for(name: str, text: str) -> str:
    """The format of an input: by suffix, else by a look at the content (for stdin)."""
    suffix = PurePath(name).suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".pbtxt" and "pbtxt" in PARSERS:
        return "pbtxt"
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "json"
    from linter.triton.detect import looks_like_pbtxt

    if looks_like_pbtxt(text):  # a Triton config.pbtxt piped to stdin
        return "pbtxt"
    return "yaml"


def parse(name: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    fmt = format_for(name, text)
    if limits != DEFAULT_LIMITS and fmt in _LIMITED:
        # Configured input limits (README, "Limits") reach the parsers that enforce them.
        return _LIMITED[fmt](name, text, limits)
    return PARSERS[fmt](name, text)
