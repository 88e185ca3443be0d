"""Where a finding's value is in the file: the YAML node at its line and column, found by
composing the text with ruamel.yaml (which keeps every node's start and end offsets).
Nothing is written through ruamel: its output would change bytes the fix does not touch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from linter.lightclass import frozen

PathPart = str | int


@frozen
class Place:
    """A node of a document: its path from the document's root, the collection holding it
    and, for a mapping's value, its key's node."""

    node: Any  # ruamel.yaml.nodes.Node
    doc: int
    path: tuple[PathPart, ...]
    parent: Any = None
    key: Any = None

    @property
    def start(self) -> int:
        return int(self.node.start_mark.index)

    @property
    def end(self) -> int:
        return int(self.node.end_mark.index)

    @property
    def position(self) -> tuple[int, int]:
        """1-based line and column, as findings give them."""
        mark = self.node.start_mark
        return int(mark.line) + 1, int(mark.column) + 1


class Unreadable(Exception):
    """The text does not parse as YAML here (a fix is refused, never guessed)."""


def places(text: str) -> list[Place]:
    """Every node of every document, parents before children; a node reached twice (an
    alias) only the first time."""
    try:
        roots = list(YAML(typ="rt").compose_all(text))
    except YAMLError as exc:
        raise Unreadable(_problem(exc)) from exc
    seen: set[int] = set()
    out: list[Place] = []
    for doc, root in enumerate(roots):
        if root is not None:
            out.extend(_walk(Place(root, doc, ()), seen))
    return out


def _walk(place: Place, seen: set[int]) -> Iterator[Place]:
    if id(place.node) in seen:
        return
    seen.add(id(place.node))
    yield place
    node = place.node
    if isinstance(node, MappingNode):
        for key, value in node.value:
            part = key.value if isinstance(key, ScalarNode) else str(key.start_mark.index)
            yield from _walk(Place(value, place.doc, (*place.path, part), node, key), seen)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield from _walk(Place(item, place.doc, (*place.path, index), node), seen)


def at(all_places: list[Place], line: int, column: int, kind: type[Node]) -> Place | None:
    """The outermost node of ``kind`` that starts at ``line``:``column``, or whose key
    does (findings point at a mapping value's key); for a scalar, else the one that
    holds that position (a flag inside a shell string)."""
    for place in all_places:
        if isinstance(place.node, kind) and (line, column) in _starts(place):
            return place
    if kind is ScalarNode:
        return _holding(all_places, line, column)
    return None


def pointed(all_places: list[Place], line: int, column: int) -> Place | None:
    """The outermost node of any kind at ``line``:``column`` (as ``at``)."""
    return next((p for p in all_places if (line, column) in _starts(p)), None)


def _starts(place: Place) -> tuple[tuple[int, int], ...]:
    if place.key is None:
        return (place.position,)
    mark = place.key.start_mark
    return (place.position, (int(mark.line) + 1, int(mark.column) + 1))


def _holding(all_places: list[Place], line: int, column: int) -> Place | None:
    for place in all_places:
        node = place.node
        if not isinstance(node, ScalarNode) or (place.key is None and place.parent is None):
            continue
        start, end = node.start_mark, node.end_mark
        after_start = (line - 1, column - 1) >= (start.line, start.column)
        before_end = (line - 1, column - 1) < (end.line, end.column)
        if after_start and before_end:
            return place
    return None


def value_of(node: Any) -> str:
    """A scalar's value as a loader reads it (the round-trip composer marks the folds of a
    folded scalar with BEL characters)."""
    return str(node.value).replace("\a", "")


def load(text: str) -> list[Any]:
    """Every document as plain data, to compare a file before and after its fixes."""
    try:
        return list(YAML(typ="safe", pure=True).load_all(text))
    except YAMLError as exc:
        raise Unreadable(_problem(exc)) from exc


def _problem(exc: YAMLError) -> str:
    """``line 95: found unhashable key``: what ruamel.yaml could not read, and where."""
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0] or "not YAML"
    mark = getattr(exc, "problem_mark", None)
    return f"line {mark.line + 1}: {problem}" if mark is not None else str(problem)
