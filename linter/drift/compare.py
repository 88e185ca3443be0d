"""Compare two normalised trees with deepdiff's tree view; classify every difference."""

from __future__ import annotations

import fnmatch
import importlib
import threading
from collections.abc import Sequence
from typing import Any

from linter.drift import defaults as server_defaults
from linter.drift.keys import canonical_key
from linter.drift.normalize import Normalized
from linter.lightclass import frozen
from linter.positions import PathT, format_path

CHANGED, MISSING_LIVE, UNEXPECTED_LIVE, TYPE_CHANGED = (
    "changed",
    "missing-live",
    "unexpected-live",
    "type-changed",
)
STATUSES = (CHANGED, MISSING_LIVE, UNEXPECTED_LIVE, TYPE_CHANGED)
# The same difference seen from the other side.
SWAPPED = {
    CHANGED: CHANGED,
    TYPE_CHANGED: TYPE_CHANGED,
    MISSING_LIVE: UNEXPECTED_LIVE,
    UNEXPECTED_LIVE: MISSING_LIVE,
}
_REPORTS = {
    "values_changed": CHANGED,
    "type_changes": TYPE_CHANGED,
    "dictionary_item_removed": MISSING_LIVE,
    "dictionary_item_added": UNEXPECTED_LIVE,
    "iterable_item_removed": MISSING_LIVE,
    "iterable_item_added": UNEXPECTED_LIVE,
}


@frozen
class Difference:
    """One difference: canonical path, status, and each side's original path and value."""

    path: PathT
    status: str
    desired: Any
    live: Any
    desired_path: PathT | None
    live_path: PathT | None


def compare(
    desired: Normalized,
    live: Normalized,
    server: server_defaults.ServerDefaults | None = None,
    ignore: Sequence[str] = (),
    prefix: PathT = (),
) -> list[Difference]:
    """Every difference between the two sides, sorted by path.

    ``ignore`` globs are matched against each path with and without ``prefix`` (where the
    compared subtree sits in the values, e.g. ``server.config``).
    """
    left, right = desired.tree, live.tree
    if server is not None:
        left, right = server_defaults.elide(left, right, server)
    # threshold_to_diff_deeper=0: never replace a map that shares few keys by one
    # whole-value change; every key is reported on its own.
    from deepdiff import DeepDiff  # imported while the pods are read (warm_up)

    diff = DeepDiff(left, right, view="tree", verbose_level=2, threshold_to_diff_deeper=0)
    found: list[Difference] = []
    for report, status in _REPORTS.items():
        for level in diff.get(report, ()):
            path = tuple(level.path(output_format="list"))
            found.append(_difference(path, status, desired, live))
    kept = [d for d in found if not _ignored(d, ignore, prefix)]
    return sorted(kept, key=lambda d: (format_path(d.path), d.status))


def _difference(path: PathT, status: str, desired: Normalized, live: Normalized) -> Difference:
    has_desired = status != UNEXPECTED_LIVE
    has_live = status != MISSING_LIVE
    return Difference(
        path,
        status,
        desired.raw.get(path) if has_desired else None,
        live.raw.get(path) if has_live else None,
        desired.original_path(path) if has_desired else None,
        live.original_path(path) if has_live else None,
    )


def _ignored(difference: Difference, patterns: Sequence[str], prefix: PathT) -> bool:
    if not patterns:
        return False
    candidates: set[str] = set()
    for path in (difference.path, difference.desired_path, difference.live_path):
        if path is None:
            continue
        for end in range(1, len(path) + 1):
            candidates.update((format_path(path[:end]), format_path((*prefix, *path[:end]))))
    canonical = [_canonical_pattern(p) for p in patterns]
    return any(
        fnmatch.fnmatchcase(text, pattern)
        for text in candidates
        for pattern in (*patterns, *canonical)
    )


def _canonical_pattern(pattern: str) -> str:
    return ".".join(
        canonical_key(part) if part not in ("*", "**") else part for part in pattern.split(".")
    )


def swap(differences: Sequence[Difference]) -> list[tuple[PathT, str]]:
    """The (path, status) pairs that comparing the other way round must give."""
    return sorted((d.path, SWAPPED[d.status]) for d in differences)


_IMPORTED = threading.Event()


def warm_up() -> None:
    """Import the diff library in a thread of its own. A cluster scan calls it once its
    client is set up, before the first request: the import (a tenth of a second) then
    runs while the requests wait on the network, neither before them nor after them."""
    threading.Thread(target=_import, daemon=True).start()


def _import() -> None:
    try:
        importlib.import_module("deepdiff")
    finally:
        _IMPORTED.set()  # a failed import fails again, and is reported, where it is used


def ready() -> bool:
    """``warm_up`` has imported the diff library: a comparison will not wait for it."""
    return _IMPORTED.is_set()
