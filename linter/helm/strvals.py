"""Helm's ``--set`` syntax, applied to a values tree with positions.

A port of helm/helm ``pkg/strvals/parser.go`` (``ParseInto`` with typed values): keys are
separated by ``.``, list items are addressed with ``[i]``, ``{a,b}`` is a list, a
backslash escapes the next character (``a\\.b`` is one key, ``x\\,y`` one value), several
assignments are separated by commas, and values are typed as Helm types them: ``true`` /
``false`` (any case) are booleans, ``null`` is null, ``0`` and decimal integers that do
not start with ``0`` are integers, everything else is a string (``1.5``, ``0755``).

Every value set here points at ``<--set>``: the line is the number of the ``--set``
argument (1-based), the column is where the assignment starts inside it.
"""

from __future__ import annotations

import re

from linter.helm.nodes import Node, where
from linter.positions import Origin

SET_SOURCE = "<--set>"
# Helm's limits (strvals.MaxIndex, strvals.MaxNestedNameLevel).
MAX_INDEX = 65536
MAX_NESTED_NAME_LEVEL = 30
_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = (-(2**63), 2**63 - 1)


class SetError(ValueError):
    """A ``--set`` argument Helm would reject, with the 1-based column of the problem."""

    def __init__(self, message: str, argument: str, column: int) -> None:
        super().__init__(message)
        self.argument = argument
        self.column = column

    def __str__(self) -> str:
        return f"--set {self.argument!r} (column {self.column}): {self.args[0]}"


class _EndOfInput(Exception):
    """Helm's io.EOF: the argument ended; not an error by itself."""


class _NotList(Exception):
    """Helm's ErrNotList: the value does not start with ``{``."""


def typed_value(text: str) -> object:
    """Helm's ``typedVal``: booleans, null and decimal integers; strings otherwise."""
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered == "null":
        return None
    if text == "0":
        return 0
    if text and text[0] != "0" and _INT.fullmatch(text):
        number = int(text)
        if _INT64[0] <= number <= _INT64[1]:
            return number
    return text


def apply_set(root: dict[str, Node], argument: str, number: int) -> None:
    """Apply one ``--set`` argument (``a.b=c,d[0]=e``) to ``root`` in place."""
    _Parser(root, argument, number).parse()


def check_set(argument: str) -> None:
    """Raise SetError when ``argument`` is not valid ``--set`` syntax (on empty values)."""
    apply_set({}, argument, 1)


class _Parser:
    def __init__(self, root: dict[str, Node], text: str, number: int) -> None:
        self.root = root
        self.text = text
        self.number = number
        self.pos = 0
        self.start = 0  # where the current assignment starts

    def parse(self) -> None:
        while True:
            self.start = self.pos
            try:
                self.key(self.root, 0)
            except _EndOfInput:
                return

    # --- reading -------------------------------------------------------------------
    def runes_until(self, stop: str) -> tuple[str, str | None]:
        """Characters up to one of ``stop`` (consumed); None as the stop at the end."""
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            self.pos += 1
            if char in stop:
                return "".join(out), char
            if char == "\\":
                if self.pos >= len(text):
                    return "".join(out), None
                char = text[self.pos]
                self.pos += 1
            out.append(char)
        return "".join(out), None

    def error(self, message: str) -> SetError:
        return SetError(message, self.text, self.start + 1)

    def origin(self) -> Origin:
        return Origin(SET_SOURCE, self.number, self.start + 1, 0, self.assignment_path())

    def assignment_path(self) -> str:
        """The key path of the current assignment, as written (up to its ``=``)."""
        text, i = self.text, self.start
        while i < len(text) and text[i] not in "=,":
            i += 2 if text[i] == "\\" else 1
        return text[self.start : min(i, len(text))]

    # --- grammar (Helm's parser.key / listItem / valList) --------------------------
    def key(self, data: dict[str, Node], level: int) -> None:
        key, last = self.runes_until("=[,.")
        if last is None:
            if not key:
                raise _EndOfInput
            raise self.error(f"key {key!r} has no value")
        if last == "[":
            index = self.key_index()
            existing = data.get(key)
            items: list[Node] = []
            if existing is not None:
                if not existing.is_list:
                    raise self.error(self.not_a(key, existing, "a list"))
                items = existing.value
            try:
                items = self.list_item(items, index, level)
            finally:
                self.set(data, key, Node(items, existing.origin if existing else self.origin()))
            return
        if last == "=":
            self.set(data, key, self.value_node())
            return
        if last == ",":
            self.set(data, key, Node("", self.origin()))
            raise self.error(f"key {key!r} has no value (cannot end with ,)")
        # last == ".": a nested map
        level += 1
        if level > MAX_NESTED_NAME_LEVEL:
            raise self.error(
                "value name nested level is greater than maximum supported "
                f"nested level of {MAX_NESTED_NAME_LEVEL}"
            )
        existing = data.get(key)
        if existing is not None and not existing.is_map:
            raise self.error(self.not_a(key, existing, "a map"))
        inner: dict[str, Node] = existing.value if existing is not None else {}
        origin = existing.origin if existing is not None else self.origin()
        try:
            self.key(inner, level)
        except _EndOfInput:
            if inner:
                self.set(data, key, Node(inner, origin))
            raise
        if not inner:
            raise self.error(f"key map {key!r} has no value")
        self.set(data, key, Node(inner, origin))

    def value_node(self) -> Node:
        """The value after ``=``: a ``{list}``, a typed scalar, or "" at the very end."""
        try:
            items = self.value_list()
        except _NotList:
            raw, _ = self.runes_until(",")
            return Node(typed_value(raw), self.origin())
        except _EndOfInput:
            return Node("", self.origin())
        origin = self.origin()
        return Node([Node(item, origin) for item in items], origin)

    def value_list(self) -> list[object]:
        if self.pos >= len(self.text):
            raise _EndOfInput
        if self.text[self.pos] != "{":
            raise _NotList
        self.pos += 1
        items: list[object] = []
        while True:
            raw, last = self.runes_until(",}")
            if last is None:
                raise self.error("list must terminate with '}'")
            items.append(typed_value(raw))
            if last == "}":
                if self.pos < len(self.text) and self.text[self.pos] == ",":
                    self.pos += 1
                return items

    def key_index(self) -> int:
        raw, last = self.runes_until("]")
        if last is None:
            raise self.error("error parsing index: missing ']'")
        try:
            return _atoi(raw)
        except ValueError:
            raise self.error(f"error parsing index: {raw!r} is not an integer") from None

    def list_item(self, items: list[Node], index: int, level: int) -> list[Node]:
        if index < 0:
            raise self.error(f"negative {index} index not allowed")
        rest, last = self.runes_until("[.=")
        if rest:
            raise self.error(f"unexpected data at end of array index: {rest!r}")
        if last is None:
            raise _EndOfInput
        if last == "=":
            return self.set_index(items, index, self.value_node())
        if last == "[":
            inner_index = self.key_index()
            current: list[Node] = []
            if index < len(items) and items[index].value is not None:
                if not items[index].is_list:
                    raise self.error(self.not_a(f"[{index}]", items[index], "a list"))
                current = items[index].value
            nested = self.list_item(current, inner_index, level)
            origin = items[index].origin if index < len(items) else self.origin()
            return self.set_index(items, index, Node(nested, origin))
        # last == ".": a map inside the list
        inner: dict[str, Node] = {}
        origin = self.origin()
        if index < len(items):
            if items[index].is_map:
                inner, origin = items[index].value, items[index].origin
            else:  # Helm replaces a non-map item ("indices out of order")
                items[index] = Node(inner, origin)
        self.key(inner, level)
        return self.set_index(items, index, Node(inner, origin))

    def set_index(self, items: list[Node], index: int, node: Node) -> list[Node]:
        if index > MAX_INDEX:
            raise self.error(
                f"index of {index} is greater than maximum supported index of {MAX_INDEX}"
            )
        while len(items) <= index:
            items.append(Node(None, node.origin))
        items[index] = node
        return items

    def set(self, data: dict[str, Node], key: str, node: Node) -> None:
        if key:  # Helm ignores an empty key
            data[key] = node

    def not_a(self, key: str, existing: Node, wanted: str) -> str:
        return f"{key!r} is {existing.kind()} (set at {where(existing.origin)}), not {wanted}"


def _atoi(text: str) -> int:
    if not _INT.fullmatch(text):
        raise ValueError(text)
    return int(text)
