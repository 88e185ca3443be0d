"""Accumulates a workload's plain data together with the origin of every value."""

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


class Facts:
    """Nested plain data (what CEL sees) plus model path → origin."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.origins: dict[PathT, Origin] = {}

    def put(self, path: PathT, value: Any, origin: Origin | None = None) -> None:
        node: Any = self.data
        for key in path[:-1]:
            node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
        node[path[-1]] = value
        if origin is not None:
            self.origins[path] = origin

    def get(self, path: PathT, default: Any = None) -> Any:
        return lookup(self.data, path, default)

    def has(self, path: PathT) -> bool:
        sentinel = object()
        return self.get(path, sentinel) is not sentinel

    def alias(self, source: PathT, target: PathT) -> None:
        """Make every origin under ``source`` also known under ``target``."""
        size = len(source)
        for path, origin in list(self.origins.items()):
            if path[:size] == source:
                self.origins[(*target, *path[size:])] = origin
