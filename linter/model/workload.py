"""A serving-model workload: what CEL sees as ``workload``, and where each value came from."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, NamedTuple

from linter.positions import PathT


class Origin(NamedTuple):
    """Where a setting was written: file, 1-based line and column, and the key or flag used."""

    source: str
    line: int
    column: int
    doc_index: int = 0
    key: str = ""


@dataclasses.dataclass
class Workload:
    """One inference workload.

    ``data`` holds plain JSON-compatible values only (it is handed to CEL); ``origins``
    maps model paths such as ``('engine', 'max_model_len')`` to where the value was set.
    """

    name: str
    data: dict[str, Any]
    anchor: Origin
    origins: dict[PathT, Origin] = dataclasses.field(default_factory=dict)

    def locate(self, path: PathT) -> Origin:
        """Origin of ``path`` or its closest ancestor; the workload's own position otherwise."""
        return nearest_origin(self.origins, path, self.anchor)


def nearest_origin(
    origins: Mapping[PathT, Origin], path: PathT, default: Origin, *, shortest: int = 1
) -> Origin:
    """The origin of ``path`` or of its closest ancestor of at least ``shortest`` parts."""
    for end in range(len(path), shortest - 1, -1):
        origin = origins.get(path[:end])
        if origin is not None:
            return origin
    return default
