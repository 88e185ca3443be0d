"""A serving-model workload: its record, and the view CEL sees as ``workload``."""

from __future__ import annotations

import dataclasses
from typing import Any

from linter.model.records import ServingModel, cel_view
from linter.positions import Origin, PathT, nearest


@dataclasses.dataclass(frozen=True)
class WorkloadView:
    """A workload as policies see it: plain JSON-ready ``data`` and, for every path that
    has one, its ``Origin`` (``records.cel_view``)."""

    data: dict[str, Any]
    origins: dict[PathT, Origin]
    anchor: Origin

    def locate(self, path: PathT) -> Origin:
        """Origin of ``path`` or its closest ancestor; the workload's own position otherwise."""
        return nearest(self.origins, path, self.anchor, shortest=1)


@dataclasses.dataclass
class Workload:
    """One inference workload: ``record`` holds its settings, each with its origin."""

    name: str
    record: ServingModel
    anchor: Origin

    def view(self) -> WorkloadView:
        """What CEL sees: converted from the record on each call (the engine calls it once)."""
        data, origins = cel_view(self.record)
        return WorkloadView(data, origins, self.anchor)
