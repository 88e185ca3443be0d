"""Expand command-line paths into inputs and read them, never aborting on one bad file."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from linter.errors import SourceError

STDIN = "-"
STDIN_NAME = "<stdin>"
LINTABLE_SUFFIXES = (".yaml", ".yml", ".json")
LINTABLE_NAMES = ("config.pbtxt",)
_SKIP_DIRS = {".git", "node_modules", "__pycache__"}


@dataclasses.dataclass(frozen=True)
class Input:
    """One input to read: its display name (as given) and where to read it from."""

    name: str
    path: Path | None  # None for standard input


@dataclasses.dataclass(frozen=True)
class ReadResult:
    input: Input
    text: str | None
    error: str | None = None


def is_lintable(path: Path) -> bool:
    return path.suffix.lower() in LINTABLE_SUFFIXES or path.name in LINTABLE_NAMES or (
        path.suffix == ".pbtxt"
    )


def expand(paths: Iterable[str]) -> list[Input]:
    """Files as given, directories recursively (hidden folders skipped), ``-`` for stdin.

    A path that does not exist is a tool failure: the user named it explicitly.
    """
    inputs: list[Input] = []
    seen: set[str] = set()
    for raw in paths:
        if raw == STDIN:
            inputs.append(Input(STDIN_NAME, None))
            continue
        path = Path(raw)
        if path.is_dir():
            candidates = list(_walk(path))
        elif path.exists() or path.is_symlink():
            candidates = [Input(raw, path)]
        else:
            raise SourceError(f"{raw}: no such file or directory")
        for candidate in candidates:
            if candidate.name not in seen:
                seen.add(candidate.name)
                inputs.append(candidate)
    return inputs


def _walk(root: Path) -> Iterator[Input]:
    # os.walk does not follow directory symlinks, so symlink loops cannot recurse forever.
    for dirpath, dirnames, filenames in os.walk(root, onerror=None):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for filename in sorted(filenames):
            path = Path(dirpath, filename)
            if is_lintable(path):
                yield Input(str(path), path)


def read(item: Input, max_bytes: int) -> ReadResult:
    """Read one input as text; any failure is returned, not raised."""
    try:
        if item.path is None:
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with item.path.open("rb") as handle:
                raw = handle.read(max_bytes + 1)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ReadResult(item, None, f"cannot read: {reason}")
    if len(raw) > max_bytes:
        return ReadResult(
            item, None, f"larger than the input limit of {max_bytes} bytes (limits.max_bytes)"
        )
    if b"\0" in raw:
        return ReadResult(item, None, "binary file (contains NUL bytes); not a configuration")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return ReadResult(item, None, f"not valid UTF-8 (byte offset {exc.start})")
    return ReadResult(item, text.replace("\r\n", "\n"))
