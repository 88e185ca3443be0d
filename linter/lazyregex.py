"""Regular expressions compiled when a run first uses them.

A module's patterns are compiled when it is imported, whether the run needs them or
not: of the 66 a pre-commit run's modules define, 43 are never used on a values file
(Compose, Triton, a config file's limits, some secret shapes), and compiling them cost
3 ms of every run. ``lazy_compile`` stands for ``re.compile``: the pattern is compiled
on its first use, and its methods are then looked up as fast as a compiled pattern's.
"""

from __future__ import annotations

import re
from typing import Any, cast

# A pattern's methods and attributes, kept on the stand-in once it is compiled.
_KEPT = (
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
    "pattern",
    "flags",
    "groups",
    "groupindex",
)


class _LazyPattern:
    """Stands for a compiled pattern until it is first used."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        # Only for a name not yet on the instance: the first use compiles the pattern and
        # keeps its methods here, where later lookups find them. Python's own protocols
        # (copying, pickling) are answered by the class, never by a compiled pattern.
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for kept in _KEPT:
            setattr(self, kept, getattr(compiled, kept))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source[0]!r}, {self._source[1]!r})"

    def __reduce__(self) -> tuple[Any, tuple[str, int]]:
        return (lazy_compile, self._source)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used. Only for patterns used
    through their methods and attributes (not passed to the ``re`` module's functions,
    which want a compiled pattern)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
