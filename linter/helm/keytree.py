"""Sets of values paths as a tree: what a chart reads, or what its schema declares.

A path is a tuple of keys; ``ANY`` stands for every key of a map or every item of a list
(``range``, a dynamic ``index``, schema ``items`` or ``additionalProperties``). A node
marked ``whole`` covers everything beneath it (``toYaml .Values.x``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

ANY = "*"


class KeyTree:
    __slots__ = ("children", "whole")

    def __init__(self) -> None:
        self.children: dict[str, KeyTree] = {}
        self.whole = False

    def add(self, path: Iterable[str], *, whole: bool = False) -> None:
        node = self
        for key in path:
            if node.whole:
                return
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = KeyTree()
            node = child
        if whole:
            node.whole = True
            node.children.clear()

    def step(self, key: str | int) -> list[KeyTree]:
        """The nodes one key (a list index is any item) further down."""
        found = []
        if isinstance(key, str):
            exact = self.children.get(key)
            if exact is not None:
                found.append(exact)
        star = self.children.get(ANY)
        if star is not None:
            found.append(star)
        return found

    def names(self) -> list[str]:
        return [k for k in self.children if k != ANY]

    def paths(self, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
        """Every path in the tree, parents before children."""
        for key, child in self.children.items():
            path = (*prefix, key)
            yield path
            yield from child.paths(path)


def step_all(nodes: list[KeyTree], key: str | int) -> list[KeyTree]:
    return [child for node in nodes for child in node.step(key)]


def any_whole(nodes: list[KeyTree]) -> bool:
    return any(node.whole for node in nodes)
