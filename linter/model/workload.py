"""A serving-model workload: what CEL sees as ``workload``, and where each value came from."""

from __future__ import annotations

import dataclasses
from typing import Any

from linter.positions import Origin, PathT, nearest


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
        return nearest(self.origins, path, self.anchor, shortest=1)
