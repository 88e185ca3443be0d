"""Which Services, Ingresses and Gateway HTTPRoutes reach a workload's pods.

A cross-document fact, computed after extraction: a Service selects the pods of a
workload when its ``spec.selector`` is a non-empty subset of the pod template's labels
(``pod.labels``) in the same namespace; an Ingress or HTTPRoute reaches them through a
backend Service that does. Objects are matched within one input file (one YAML stream:
a ``helm template`` or ``kustomize build`` output, or a manifest that keeps a server with
its Service), so that linting a folder of unrelated examples never links one file's
Service to another file's server, and a run split over worker processes finds the same.

Each entry of ``workload.exposure`` is ``kind`` (``Service``, ``Ingress``,
``HTTPRoute``), ``name``, ``service`` (the Service that selects the pods), ``type`` (the
Service's type, ``ClusterIP`` by default), ``target_ports`` (the container ports the
Service sends to: ``targetPort``, else ``port``, as text) and ``public``: a ``LoadBalancer`` or
``NodePort`` Service, an Ingress or an HTTPRoute, which take traffic from outside the
cluster (https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types).
Its origin is the line that exposes: the Service's ``type``, or the Ingress or route.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from linter.model.records.located import Located, value_of
from linter.model.records.paths import document_locate, lookup
from linter.model.records.records import Exposure
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, ParsedFile
from linter.positions import Origin, PathT

_PUBLIC_TYPES = ("LoadBalancer", "NodePort")
# Labels the StatefulSet controller gives each pod its own value of: a selector on one of
# them picks one pod of the set (rank 0 of a multi-node server, typically).
_PER_POD = {
    "StatefulSet": ("apps.kubernetes.io/pod-index", "statefulset.kubernetes.io/pod-name"),
}


def link_exposure(files: Sequence[ParsedFile], workloads: Sequence[Workload]) -> None:
    """Add ``exposure`` to every manifest workload that a Service of its file selects."""
    by_source: dict[str, list[Workload]] = {}
    for workload in workloads:
        record = workload.record
        pod = record.pod.value if record.pod is not None else None
        if record.source.value == "manifest" and pod is not None and pod.labels is not None:
            by_source.setdefault(workload.anchor.source, []).append(workload)
    for parsed in files:
        targets = by_source.get(parsed.source)
        if targets:
            _link_file(parsed.documents, targets)


def _link_file(documents: Sequence[Document], workloads: Sequence[Workload]) -> None:
    services = [d for d in documents if _is(d, "Service", "v1")]
    routes = [d for d in documents if _is(d, "Ingress") or _is(d, "HTTPRoute")]
    if not services:
        return
    for workload in workloads:
        record = workload.record
        namespace = _namespace_of(value_of(record.namespace))
        assert record.pod is not None and record.pod.value.labels is not None
        labels = {name: item.value for name, item in record.pod.value.labels.value.items()}
        per_pod = _PER_POD.get(str(record.kind.value), ())
        entries: list[tuple[dict[str, Any], Origin]] = []
        for service in services:
            if _namespace_of(lookup(service.data, ("metadata", "namespace"))) != namespace:
                continue
            if not _selects(lookup(service.data, ("spec", "selector")), labels, per_pod):
                continue
            entry = _service_entry(service)
            entries.append(entry)
            entries.extend(_route_entries(routes, entry[0], namespace))
        if entries:
            record.exposure = Located([Located(Exposure.of(entry), at) for entry, at in entries])


def _is(document: Document, kind: str, api: str | None = None) -> bool:
    data = document.data
    return (
        isinstance(data, Mapping)
        and data.get("kind") == kind
        and (api is None or data.get("apiVersion") == api)
    )


def _namespace_of(value: object) -> str:
    return value if isinstance(value, str) and value else "default"


def _selects(selector: object, labels: Mapping[str, str], per_pod: Sequence[str]) -> bool:
    # A Service without a selector selects no pods (its endpoints are managed by hand).
    if not isinstance(selector, Mapping) or not selector:
        return False
    return all(
        str(key) in per_pod or labels.get(str(key)) == str(value) for key, value in selector.items()
    )


def _service_entry(service: Document) -> tuple[dict[str, Any], Origin]:
    name = str(lookup(service.data, ("metadata", "name"), ""))
    kind = lookup(service.data, ("spec", "type"))
    kind = kind if isinstance(kind, str) and kind else "ClusterIP"
    path: PathT = ("spec", "type") if ("spec", "type") in service.line_map else ()
    entry = {
        "kind": "Service",
        "name": name,
        "service": name,
        "type": kind,
        "public": kind in _PUBLIC_TYPES,
        "target_ports": _target_ports(lookup(service.data, ("spec", "ports"))),
    }
    return entry, document_locate(service)(path)


def _target_ports(ports: object) -> list[str]:
    """The container ports a Service sends to: each port's ``targetPort``, else its
    ``port`` (numbers as text, names as written)."""
    out: list[str] = []
    for port in _list(ports):
        if isinstance(port, Mapping):
            target = port.get("targetPort", port.get("port"))
            if target is not None and str(target) not in out:
                out.append(str(target))
    return out


def _route_entries(
    routes: Sequence[Document], via: Mapping[str, Any], namespace: str
) -> Iterator[tuple[dict[str, Any], Origin]]:
    service = via["name"]
    for route in routes:
        if _namespace_of(lookup(route.data, ("metadata", "namespace"))) != namespace:
            continue
        path = next(
            (p for p in _backend_paths(route.data) if _backend(route.data, p) == service), None
        )
        if path is None:
            continue
        entry = {
            "kind": route.data["kind"],
            "name": str(lookup(route.data, ("metadata", "name"), "")),
            "service": str(service),
            "type": via["type"],
            "public": True,
            "target_ports": via["target_ports"],
        }
        yield entry, document_locate(route)(path)


def _backend_paths(data: Mapping[str, Any]) -> Iterator[PathT]:
    """Paths of the backend Service names of an Ingress (networking.k8s.io/v1 and the older
    ``serviceName`` form) or of an HTTPRoute's ``backendRefs`` (kind Service by default)."""
    if data.get("kind") == "Ingress":
        yield ("spec", "defaultBackend", "service", "name")
        yield ("spec", "backend", "serviceName")
        for r, rule in enumerate(_list(lookup(data, ("spec", "rules")))):
            for p, _ in enumerate(_list(lookup(rule, ("http", "paths")))):
                base = ("spec", "rules", r, "http", "paths", p, "backend")
                yield (*base, "service", "name")
                yield (*base, "serviceName")
        return
    for r, rule in enumerate(_list(lookup(data, ("spec", "rules")))):
        for b, ref in enumerate(_list(lookup(rule, ("backendRefs",)))):
            if isinstance(ref, Mapping) and ref.get("kind", "Service") == "Service":
                yield ("spec", "rules", r, "backendRefs", b, "name")


def _backend(data: Mapping[str, Any], path: PathT) -> object:
    return lookup(data, path)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


# Docker Compose publishes a container port on every interface of the host unless the
# mapping names a host address (https://docs.docker.com/reference/compose-file/services/#ports);
# with network_mode: host the container's ports are the host's own.
_LOOPBACK = ("127.", "localhost", "[::1]", "::1")


def compose_exposure(
    service: Mapping[str, Any], locate: Callable[[PathT], Origin], section: PathT
) -> list[tuple[dict[str, Any], Origin]]:
    """The ports a Compose service opens on every interface of its host."""
    out: list[tuple[dict[str, Any], Origin]] = []
    if service.get("network_mode") == "host":
        entry = {
            "kind": "ComposeHostNetwork",
            "name": str(section[-1]),
            "service": str(section[-1]),
            "type": "network_mode: host",
            "public": True,
            "target_ports": [],
        }
        out.append((entry, locate((*section, "network_mode"))))
    ports = service.get("ports")
    if isinstance(ports, list):
        for index, port in enumerate(ports):
            published = _published_everywhere(port)
            if published is None:
                continue
            entry = {
                "kind": "ComposePort",
                "name": published,
                "service": str(section[-1]),
                "type": "published port",
                "public": True,
                "target_ports": [],
            }
            out.append((entry, locate((*section, "ports", index))))
    return out


def _published_everywhere(port: object) -> str | None:
    """The mapping as written when it publishes on all interfaces; None otherwise."""
    if isinstance(port, Mapping):
        if port.get("published") in (None, "") or str(port.get("host_ip", "")).startswith(
            _LOOPBACK
        ):
            return None
        return f"{port.get('published')}:{port.get('target')}"
    if isinstance(port, int):
        return None  # a container port alone: published on a random host port, still public
    if not isinstance(port, str) or ":" not in port:
        return None
    text = port.strip()
    if text.startswith(_LOOPBACK):
        return None
    return text


def values_exposure(
    values: Mapping[str, Any], locate: Callable[[PathT], Origin]
) -> list[tuple[dict[str, Any], Origin]]:
    """What the values of a chart laid out as ``helm create`` lays it out expose: its
    ``service.type`` (a LoadBalancer or NodePort Service in front of the pods) and
    ``ingress.enabled`` (https://helm.sh/docs/helm/helm_create/, the chart's
    templates/service.yaml and templates/ingress.yaml)."""
    out: list[tuple[dict[str, Any], Origin]] = []
    service = values.get("service")
    if isinstance(service, Mapping) and service.get("type") in _PUBLIC_TYPES:
        entry = {
            "kind": "Service",
            "name": "service.type",
            "service": "values",
            "type": str(service["type"]),
            "public": True,
            "target_ports": [],
        }
        out.append((entry, locate(("service", "type"))))
    ingress = values.get("ingress")
    if isinstance(ingress, Mapping) and ingress.get("enabled") is True:
        entry = {
            "kind": "Ingress",
            "name": "ingress.enabled",
            "service": "values",
            "type": "true",
            "public": True,
            "target_ports": [],
        }
        out.append((entry, locate(("ingress", "enabled"))))
    return out
