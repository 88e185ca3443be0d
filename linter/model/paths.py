"""Reading plain data by path, and the type of a function that locates a path."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from linter.positions import Origin, PathT

Locate = Callable[[PathT], Origin]


def lookup(data: object, path: PathT, default: Any = None) -> Any:
    """The value at ``path`` in plain data, or ``default`` when there is none."""
    node: Any = data
    for key in path:
        if isinstance(node, list):
            if not isinstance(key, int) or not -len(node) <= key < len(node):
                return default
        elif not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return node
