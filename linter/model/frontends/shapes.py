"""Containers found by their shape in kinds servelint does not model (issue #28).

An operator's resource may keep its server container under a field of its own (a
``runner`` or ``mainContainer`` beside its ``volumes``), not inside a pod template. A
mapping with a string ``image`` and any of ``command``, ``args``, ``env``, ``resources`` is
read as a container; the ``volumes``, ``nodeSelector``, ``affinity`` and ``tolerations`` of
the mapping that holds it, or of the nearest mapping above it that has them, as its pod.

What the kind's operator adds to that pod (probes, a ``/dev/shm`` volume, resources,
environment, flags) is not known, so each workload carries ``found_by_shape`` (where the
container was found): rules that judge the whole pod hold back on it, and coverage names
them (``coverage/gaps.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Meta, build_workloads
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT, format_path

FACT = "found_by_shape"
_CONTAINER_KEYS = ("command", "args", "env", "resources")
_POD_KEYS = ("volumes", "nodeSelector", "affinity", "tolerations")
# As deep as the pod templates read in unknown kinds (``manifests._MAX_POD_SPEC_DEPTH``).
_MAX_DEPTH = 12
# Kinds that mention server images or containers without running them: their readers are
# elsewhere (gitops, kustomize: a Flux HelmRelease is read as a release of its chart, which
# says itself when its values gave no workload) or they deploy nothing. Coverage's "not
# understood" leaves them alone too (coverage/unrecognised.py).
NOT_DEPLOYMENTS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Kustomization",
        "Component",
        "Application",
        "ApplicationSet",
        "HelmRelease",
        "ImagePolicy",
        "ImageRepository",
        "ImageUpdateAutomation",
        "CustomResourceDefinition",
    }
)


class ShapePod(NamedTuple):
    """A container found by shape, and where each pod key beside or above it is."""

    container: PathT
    pod_keys: dict[str, PathT]
    replicas: PathT | None


def is_container(node: object) -> bool:
    """A mapping with a string ``image`` and any of ``command``, ``args``, ``env``,
    ``resources``."""
    return (
        isinstance(node, Mapping)
        and isinstance(node.get("image"), str)
        and any(key in node for key in _CONTAINER_KEYS)
    )


def shape_pods(data: Mapping[str, Any]) -> list[ShapePod]:
    """Every container found by shape under ``spec`` of an object of unknown kind."""
    if data.get("kind") in NOT_DEPLOYMENTS:
        return []
    out: list[ShapePod] = []

    def walk(node: object, path: PathT, above: dict[str, PathT], replicas: PathT | None) -> None:
        if len(path) > _MAX_DEPTH:
            return
        if isinstance(node, Mapping):
            # The pod keys of this mapping win over those above it.
            here = {key: (*path, key) for key in _POD_KEYS if key in node}
            seen = {**above, **here}
            count = node.get("replicas")
            if isinstance(count, int) and not isinstance(count, bool):
                replicas = (*path, "replicas")
            for key, value in node.items():
                if is_container(value):
                    out.append(ShapePod((*path, key), seen, replicas))
                elif key not in _POD_KEYS:
                    walk(value, (*path, key), seen, replicas)
        elif isinstance(node, list):
            for index, item in enumerate(node):
                if is_container(item):
                    out.append(ShapePod((*path, index), above, replicas))
                else:
                    walk(item, (*path, index), above, replicas)

    walk(data.get("spec"), ("spec",), {}, None)
    return out


def shape_workloads(
    data: Mapping[str, Any], base: Meta, locate: Locate, settings: ModelSettings
) -> list[Workload]:
    """The server workloads of the containers found by shape in ``data``; a container
    that runs no known server is left to coverage."""
    out: list[Workload] = []
    for found in shape_pods(data):
        spec = _pod_spec(data, found)
        role = _role(found.container)
        count = _get(data, found.replicas) if found.replicas else None
        meta = Meta(
            f"{base.id}/{role}",
            base.kind,
            base.name,
            base.anchor,
            base.source,
            base.namespace,
            count if isinstance(count, int) else None,
            locate(found.replicas) if found.replicas else None,
            role,
        )
        at = locate(found.container)
        for workload in build_workloads(spec, _locate(locate, found), meta, settings):
            if workload.record.engine is None or workload.record.engine.value.name is None:
                continue  # no server: not a deployment this reading vouches for
            workload.record.extra[FACT] = Located(format_path(found.container), at)
            out.append(workload)
    return out


def _pod_spec(data: Mapping[str, Any], found: ShapePod) -> dict[str, Any]:
    container = dict(_get(data, found.container))
    container.setdefault("name", str(found.container[-1]))
    spec: dict[str, Any] = {"containers": [container]}
    for key, path in found.pod_keys.items():
        spec[key] = _get(data, path)
    return spec


def _locate(locate: Locate, found: ShapePod) -> Locate:
    """Paths of the assembled pod spec, located where each part is written."""

    def located(path: PathT) -> Origin:
        if path[:2] == ("containers", 0):
            return locate((*found.container, *path[2:]))
        if path and isinstance(path[0], str) and path[0] in found.pod_keys:
            return locate((*found.pod_keys[path[0]], *path[1:]))
        return locate(found.container)

    return located


def _role(path: PathT) -> str:
    """``spec.services.Worker.mainContainer`` → ``services/Worker/mainContainer``."""
    return "/".join(str(part) for part in path[1:]) or "spec"


def _get(data: object, path: PathT) -> Any:
    node: Any = data
    for key in path:
        node = node[key]
    return node
