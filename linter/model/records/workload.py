"""A serving-model workload: its record, and the view CEL sees as ``workload``."""

from __future__ import annotations

import functools

from linter.lightclass import mutable
from linter.model.records.celdata import cel_data, origins_along, origins_of
from linter.model.records.records import ServingModel
from linter.positions import Origin, PathT, nearest


class WorkloadView:
    """A workload as policies see it: plain JSON-ready ``data`` (``celdata.cel_data``)
    and where each path was written."""

    def __init__(self, record: ServingModel, anchor: Origin) -> None:
        self.record = record
        self.anchor = anchor
        self.data = cel_data(record)

    def locate(self, path: PathT) -> Origin:
        """Origin of ``path`` or its closest ancestor; the workload's own position otherwise."""
        return nearest(origins_along(self.record, path), path, self.anchor, shortest=1)

    @functools.cached_property
    def origins(self) -> dict[PathT, Origin]:
        """Every path that has an origin of its own, and that origin (``servelint show``)."""
        return origins_of(self.record)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WorkloadView) and (self.data, self.origins, self.anchor) == (
            other.data,
            other.origins,
            other.anchor,
        )

    __hash__ = None  # type: ignore[assignment]


@mutable
class Workload:
    """One inference workload: ``record`` holds its settings, each with its origin."""

    name: str
    record: ServingModel
    anchor: Origin

    def view(self) -> WorkloadView:
        """What CEL sees: converted from the record on each call (the engine calls it once)."""
        return WorkloadView(self.record, self.anchor)

    def origins(self) -> dict[PathT, Origin]:
        """Every path that has an origin of its own (made on each call)."""
        return origins_of(self.record)

    def locate(self, path: PathT) -> Origin:
        """Origin of ``path`` or its closest ancestor; the workload's own position otherwise."""
        return nearest(origins_along(self.record, path), path, self.anchor, shortest=1)
