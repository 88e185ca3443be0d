"""Path globs for the configuration file (include, exclude, suppressions by path).

The semantics follow .gitignore, which platform teams already know:
- ``*`` and ``?`` never cross a ``/``; ``**`` crosses any number of folders;
- a pattern without a ``/`` matches a file or folder name at any depth;
- a pattern that matches a folder matches everything below it.
Paths are relative to the folder of the configuration file, written with ``/``.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath


@functools.cache
def _compile(pattern: str) -> re.Pattern[str]:
    pattern = pattern.removeprefix("./")
    if pattern.startswith("/"):
        pattern = pattern[1:]
    elif "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    pattern = pattern.rstrip("/") or "**"
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2 :]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def matches(pattern: str, relative_path: str) -> bool:
    """True when ``relative_path`` (``a/b/c.yaml``) or one of its folders matches."""
    regex = _compile(pattern)
    path = PurePosixPath(relative_path)
    candidates = [str(path), *(str(parent) for parent in path.parents if str(parent) != ".")]
    return any(regex.fullmatch(candidate) for candidate in candidates)


def matches_any(patterns: Iterable[str], relative_path: str) -> bool:
    return any(matches(pattern, relative_path) for pattern in patterns)


def relative_to(root: Path, name: str) -> str:
    """``name`` (as given on the command line) relative to ``root``, with ``/``.

    A path outside ``root`` keeps its spelling, so that absolute patterns still work.
    """
    # String arithmetic: this runs once per file and finding, and pathlib costs ~20x more.
    absolute = os.path.abspath(name)
    base = os.path.join(os.path.abspath(root), "")
    if absolute.startswith(base):
        return absolute[len(base) :].replace(os.sep, "/")
    return name.replace(os.sep, "/")
