"""Values trees whose every node remembers where it was written.

Helm merges values in place (``mergeMaps``, ``strvals.ParseInto``, ``coalesce``); the
ports of those algorithms work on these mutable nodes so that each value keeps the
file, line and column it came from through every merge step. Nodes never leave
``linter.helm``: ``unwrap`` turns a tree back into plain data plus an origin map.
"""

from __future__ import annotations

from typing import Any

from linter.parsing.documents import Document
from linter.positions import Origin, PathT, format_path


class Node:
    """A value (``dict[str, Node]``, ``list[Node]`` or a scalar) and its origin."""

    __slots__ = ("origin", "value")

    def __init__(self, value: Any, origin: Origin) -> None:
        self.value = value
        self.origin = origin

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    def kind(self) -> str:
        """The value's type in the words a Helm user knows."""
        if self.value is None:
            return "null"
        if self.is_map:
            return "a map"
        if self.is_list:
            return "a list"
        if isinstance(self.value, bool):
            return "a boolean"
        if isinstance(self.value, (int, float)):
            return "a number"
        return "a string"


def wrap_document(document: Document) -> Node:
    """A node tree for one parsed values document, origins from its line map."""

    def build(value: Any, path: PathT) -> Node:
        span = document.span(path)
        origin = Origin(document.source, span.line, span.column, document.index, format_path(path))
        if isinstance(value, dict):
            return Node({k: build(v, (*path, k)) for k, v in value.items()}, origin)
        if isinstance(value, list):
            return Node([build(v, (*path, i)) for i, v in enumerate(value)], origin)
        return Node(value, origin)

    return build(document.data, ())


def unwrap(node: Node) -> tuple[Any, dict[PathT, Origin]]:
    """Plain JSON-compatible data and the origin of every path in it."""
    origins: dict[PathT, Origin] = {}

    def build(current: Node, path: PathT) -> Any:
        origins[path] = current.origin
        if isinstance(current.value, dict):
            return {k: build(v, (*path, k)) for k, v in current.value.items()}
        if isinstance(current.value, list):
            return [build(v, (*path, i)) for i, v in enumerate(current.value)]
        return current.value

    return build(node, ()), origins


def where(origin: Origin) -> str:
    """``file:line:column`` of an origin, for messages."""
    return f"{origin.source}:{origin.line}:{origin.column}"
