"""A pod that an operator builds for one role of a multi-role object, as the operator builds it.

The front ends for RoleBasedGroup (``rolebasedgroup.py``) and kthena ModelServing
(``kthena.py``) produce these; ``manifests.py`` turns each into workloads like any pod
template. A role whose pod cannot be built is an ``UnbuiltRole``: coverage reports it as
not understood (``linter/coverage/unrecognised.py``), never skipped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from linter.lightclass import frozen
from linter.model.records.paths import Locate, lookup
from linter.positions import Origin, PathT

# Environment variables an operator sets in every container: name → (value, origin).
Injected = dict[str, tuple[str, Origin]]


@frozen
class RolePod:
    """One pod template of a role: ``spec`` is the pod spec as the operator creates it,
    ``source`` maps a path of it to the document path where that value was written."""

    role: str
    spec: Mapping[str, Any]
    source: Callable[[PathT], PathT]
    replicas: int | None
    replicas_path: PathT | None
    multi_node: bool
    labels: dict[str, str]
    label_paths: dict[str, PathT]
    # Set by the operator, replacing a variable of the same name the container sets.
    injected: Injected
    # Set by a controller beneath it (a LeaderWorkerSet), which keeps the container's own.
    injected_unless_set: Injected = dataclasses.field(default_factory=dict)


@frozen
class UnbuiltRole:
    """A role whose pod the operator cannot build from what is written, and why."""

    path: PathT
    role: str
    reason: str


def template_labels(
    template: object, where: Mapping[PathT, PathT]
) -> tuple[dict[str, str], dict[str, PathT]]:
    """The labels a pod template writes, and the document path each was written at
    (``where``: the template's paths to the document's)."""
    written = lookup(template, ("metadata", "labels"))
    labels = (
        {str(k): str(v) for k, v in written.items() if v is not None}
        if isinstance(written, Mapping)
        else {}
    )
    paths = {
        key: where[("metadata", "labels", key)]
        for key in labels
        if ("metadata", "labels", key) in where
    }
    return labels, paths


def nearest_source(where: Mapping[PathT, PathT], prefix: PathT) -> Callable[[PathT], PathT]:
    """Document path of a pod-spec path: its own entry in ``where`` (keyed by template
    path, the pod spec under ``prefix``), else its closest recorded ancestor's."""

    def source(path: PathT) -> PathT:
        full = (*prefix, *path)
        for end in range(len(full), -1, -1):
            found = where.get(full[:end])
            if found is not None:
                return found
        return ()

    return source


def located(locate: Locate, source: Callable[[PathT], PathT]) -> Locate:
    return lambda path: locate(source(path))


def int_at(data: object, path: PathT) -> int | None:
    node = lookup(data, path)
    return node if isinstance(node, int) and not isinstance(node, bool) else None


def added_by(origin: Origin, who: str) -> Origin:
    return origin._replace(key=f"added by {who}")
