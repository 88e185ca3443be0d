"""Reading plain data by path, and locating a path in its document."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from linter.positions import Origin, PathT, format_path

if TYPE_CHECKING:
    from linter.parsing.documents import Document

Locate = Callable[[PathT], Origin]


def document_locate(document: Document) -> Locate:
    """Where a path of ``document`` is, in its file."""

    def locate(path: PathT) -> Origin:
        span = document.span(path)
        return Origin(document.source, span.line, span.column, document.index, _path_text(path))

    return locate


@functools.lru_cache(maxsize=8192)
def _path_text(path: PathT) -> str:
    # Documents of one chart or manifest set repeat the same paths: format each once.
    return format_path(path)


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
