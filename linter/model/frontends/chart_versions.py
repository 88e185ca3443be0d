"""Chart version ranges of chart profiles (``metadata.chartVersions``), in the form Helm's
constraints take (https://helm.sh/docs/chart_best_practices/dependencies/#versions):
comparators separated by spaces (all must hold: ``>=3.0.0 <4.0.0``), alternatives by
``||``. A version is ``MAJOR[.MINOR[.PATCH]]``, with an optional ``v`` and a pre-release
or build suffix, which is ignored.
"""

from __future__ import annotations

import re

from linter.lazyregex import lazy_compile

_VERSION = lazy_compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$")
_COMPARATOR = re.compile(r"^(>=|<=|>|<|=)?\s*(.+)$")

Version = tuple[int, int, int]


def parse(text: str) -> Version | None:
    """``(major, minor, patch)`` of ``text``; None when it is not a version."""
    found = _VERSION.match(text.strip())
    if found is None:
        return None
    major, minor, patch = (int(part) if part else 0 for part in found.groups())
    return major, minor, patch


def valid_range(text: str) -> bool:
    return all(
        _comparator(term) is not None for alternative in _alternatives(text) for term in alternative
    )


def contains(text: str, version: str) -> bool:
    """Whether the range ``text`` holds ``version`` (an empty range holds every one)."""
    if not text.strip():
        return True
    wanted = parse(version)
    if wanted is None:
        return False
    for alternative in _alternatives(text):
        terms = [_comparator(term) for term in alternative]
        if all(t is not None and _holds(t[0], wanted, t[1]) for t in terms):
            return True
    return False


def open_ended(text: str) -> bool:
    """Whether the range holds every release from some version on (the newest chart)."""
    if not text.strip():
        return True
    return any(
        all((c := _comparator(term)) is not None and c[0] in (">", ">=") for term in alternative)
        for alternative in _alternatives(text)
    )


def _alternatives(text: str) -> list[list[str]]:
    return [part.replace(", ", " ").split() for part in text.split("||")]


def _comparator(term: str) -> tuple[str, Version] | None:
    found = _COMPARATOR.match(term)
    if found is None:
        return None
    version = parse(found.group(2))
    return None if version is None else (found.group(1) or "=", version)


def _holds(operator: str, version: Version, bound: Version) -> bool:
    if operator == ">=":
        return version >= bound
    if operator == ">":
        return version > bound
    if operator == "<=":
        return version <= bound
    if operator == "<":
        return version < bound
    return version == bound
