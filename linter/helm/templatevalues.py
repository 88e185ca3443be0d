"""The values a template handles, as a static reading sees them.

A value is a set of possibilities (``frozenset`` of atoms): a place in the chart's values,
the root context, a ``dict``/``list`` a template built, a literal string, a chart file's
content, or a string computed from literals. The empty set is data that holds no values
(a number, ``.Release.Name``).
"""

from __future__ import annotations

from linter.lightclass import frozen

Path = tuple[str, ...]


@frozen
class Vals:
    """A place in the values; ``base`` is where the chart that reads it keeps its own."""

    path: Path
    base: Path


@frozen
class Root:
    """The top-level context of a chart (``.Values``, ``.Release``, ``.Files``...)."""

    base: Path


@frozen
class DictOf:
    items: tuple[tuple[str, Value], ...]


@frozen
class ListOf:
    items: tuple[Value, ...]


@frozen
class Text:
    text: str


@frozen
class FileText:
    """Content of a chart file (``.Files.Get``): a template only if ``tpl`` renders it."""

    base: Path
    names: tuple[str, ...] | None = None  # None: which file is not known


@frozen
class Made:
    """A string computed from literals (``printf``, ``cat``) and other values."""

    texts: tuple[str, ...]


Atom = Vals | Root | DictOf | ListOf | Text | FileText | Made
Value = frozenset[Atom]
EMPTY: Value = frozenset()


def has_root(value: Value) -> bool:
    """A root context, or a dict standing for one (``dict "Values" .Values ...``)."""
    for atom in value:
        if isinstance(atom, Root) or (isinstance(atom, Vals) and atom.path == atom.base):
            return True
        if isinstance(atom, DictOf) and any(has_root(item) for _, item in atom.items):
            return True
    return False


def texts_of(atom: Atom) -> tuple[str, ...]:
    if isinstance(atom, Text):
        return (atom.text,)
    if isinstance(atom, Made):
        return atom.texts
    return ()


def literal(value: Value) -> str | None:
    """The string a value is when it is exactly one literal."""
    if len(value) == 1:
        (atom,) = value
        if isinstance(atom, Text):
            return atom.text
    return None
