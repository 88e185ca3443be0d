"""State of the Kubernetes API stand-in: pods, ConfigMaps, RBAC denials, faults.

The objects are rendered as the API server renders them (``PodList``, ``Pod``,
``ConfigMap`` and ``Status`` JSON), so the real ``kubernetes`` client can deserialise them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from typing import Any

TOKEN = "standin-token"
USER = "system:serviceaccount:llm:servelint-drift"


@dataclasses.dataclass
class HttpReply:
    """What a container answers on one port and path, seen through the pod proxy."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


@dataclasses.dataclass
class Container:
    name: str
    image: str = "vllm/vllm-openai:v0.11.0"
    args: list[str] = dataclasses.field(default_factory=list)
    command: list[str] = dataclasses.field(default_factory=list)
    env: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    resources: dict[str, Any] = dataclasses.field(default_factory=dict)
    files: dict[str, bytes] = dataclasses.field(default_factory=dict)
    http: dict[tuple[int, str], HttpReply] = dataclasses.field(default_factory=dict)
    ready: bool = True
    # What `GET .../pods/{name}/log` serves: the current instance's log, and the log of the
    # instance before the last restart (None: the container never restarted).
    log: bytes = b""
    previous_log: bytes | None = None


@dataclasses.dataclass
class Pod:
    name: str
    namespace: str = "llm"
    labels: dict[str, str] = dataclasses.field(default_factory=dict)
    containers: list[Container] = dataclasses.field(default_factory=list)
    phase: str = "Running"
    owner: tuple[str, str] | None = None  # (kind, name), e.g. ("ReplicaSet", "vllm-5d9c7")
    annotations: dict[str, str] = dataclasses.field(default_factory=dict)
    # Seconds every proxy or exec request to this pod waits before answering (timeouts).
    delay: float = 0.0

    @property
    def ready(self) -> bool:
        return self.phase == "Running" and all(c.ready for c in self.containers)

    def container(self, name: str | None) -> Container | None:
        if name is None:
            return self.containers[0] if self.containers else None
        return next((c for c in self.containers if c.name == name), None)


@dataclasses.dataclass
class Fault:
    """Answer the next ``times`` requests whose path contains ``match`` with ``status``."""

    match: str
    status: int
    times: int = 1
    retry_after: str | None = None


@dataclasses.dataclass
class Cluster:
    """Everything the stand-in serves. Tests mutate it before (or between) requests."""

    pods: list[Pod] = dataclasses.field(default_factory=list)
    configmaps: dict[tuple[str, str], dict[str, str]] = dataclasses.field(default_factory=dict)
    token: str = TOKEN
    # RBAC: what the user is NOT allowed: (verb, resource), e.g. ("get", "pods/exec"), or
    # (verb, resource, name) for one object (a Role with resourceNames).
    denied: set[tuple[str, ...]] = dataclasses.field(default_factory=set)
    # Kubernetes >= 1.35 also checks "create" on pods/exec for WebSocket upgrades
    # (kubernetes/kubernetes#134577); before that a WebSocket GET needed only "get".
    websocket_create_check: bool = True
    latency: float = 0.0  # seconds added to every request
    faults: list[Fault] = dataclasses.field(default_factory=list)
    requests: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    # The query of every pod log request, as the server parsed it.
    log_queries: list[dict[str, list[str]]] = dataclasses.field(default_factory=list)
    inflight: int = 0
    max_inflight: int = 0  # the most requests served at the same time
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)

    def pod(self, namespace: str, name: str) -> Pod | None:
        return next((p for p in self.pods if p.namespace == namespace and p.name == name), None)

    def record(self, method: str, target: str) -> Fault | None:
        """Log a request; return the fault it must fail with, if any."""
        with self.lock:
            self.requests.append((method, target))
            for fault in self.faults:
                if fault.times > 0 and fault.match in target:
                    fault.times -= 1
                    return fault
        return None

    def enter(self) -> None:
        with self.lock:
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)

    def leave(self) -> None:
        with self.lock:
            self.inflight -= 1

    def count(self, fragment: str) -> int:
        with self.lock:
            return sum(1 for _, target in self.requests if fragment in target)


def status(
    code: int, reason: str, message: str, details: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A ``metav1.Status`` failure object as the API server writes it."""
    out: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        out["details"] = details
    out["code"] = code
    return out


def forbidden(verb: str, resource: str, namespace: str, name: str | None) -> dict[str, Any]:
    kind = resource.split("/")[0]
    subject = f'{kind} "{name}"' if name else kind
    message = (
        f'{subject} is forbidden: User "{USER}" cannot {verb} resource "{resource}" '
        f'in API group "" in the namespace "{namespace}"'
    )
    details: dict[str, Any] = {"kind": kind}
    if name:
        details["name"] = name
    return status(403, "Forbidden", message, details)


def not_found(kind: str, name: str) -> dict[str, Any]:
    return status(404, "NotFound", f'{kind} "{name}" not found', {"name": name, "kind": kind})


def _uid(*parts: str) -> str:
    digest = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def pod_json(pod: Pod) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": pod.name,
        "namespace": pod.namespace,
        "uid": _uid(pod.namespace, pod.name),
        "resourceVersion": "1042",
        "creationTimestamp": "2025-06-01T08:00:00Z",
        "labels": dict(pod.labels),
        "annotations": dict(pod.annotations),
    }
    if pod.owner is not None:
        kind, name = pod.owner
        metadata["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": kind,
                "name": name,
                "uid": _uid(kind, name),
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    running = pod.phase == "Running"
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": metadata,
        "spec": {
            "containers": [_container_spec(c) for c in pod.containers],
            "restartPolicy": "Always",
            "nodeName": "gpu-node-1" if running else None,
        },
        "status": {
            "phase": pod.phase,
            "conditions": [
                {"type": "Ready", "status": "True" if pod.ready else "False"},
                {"type": "ContainersReady", "status": "True" if pod.ready else "False"},
            ],
            "containerStatuses": [_container_status(c, running) for c in pod.containers],
        },
    }


def _container_spec(container: Container) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": container.name, "image": container.image}
    if container.command:
        spec["command"] = list(container.command)
    if container.args:
        spec["args"] = list(container.args)
    if container.env:
        spec["env"] = [dict(e) for e in container.env]
    spec["resources"] = dict(container.resources)
    return spec


def _container_status(container: Container, running: bool) -> dict[str, Any]:
    state: dict[str, Any] = (
        {"running": {"startedAt": "2025-06-01T08:01:00Z"}}
        if running
        else {"waiting": {"reason": "ContainerCreating"}}
    )
    return {
        "name": container.name,
        "image": container.image,
        "imageID": "",
        "ready": running and container.ready,
        "restartCount": 0,
        "started": running,
        "state": state,
    }


def configmap_json(namespace: str, name: str, data: dict[str, str]) -> dict[str, Any]:
    return {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": _uid("cm", namespace, name),
            "resourceVersion": "77",
        },
        "data": dict(data),
    }


def matches_selector(labels: dict[str, str], selector: str) -> bool:
    """Kubernetes label selector syntax: ``a=b``, ``a==b``, ``a!=b``, ``a``, ``!a``,
    ``a in (x,y)``, ``a notin (x)``; requirements joined by commas."""
    return all(_requirement(labels, req.strip()) for req in _split_requirements(selector) if req)


def _split_requirements(selector: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in selector:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def _requirement(labels: dict[str, str], req: str) -> bool:
    for op in (" notin ", " in "):
        if op in req:
            key, values = req.split(op, 1)
            choices = {v.strip() for v in values.strip().strip("()").split(",")}
            present = labels.get(key.strip()) in choices
            return not present if op == " notin " else present
    if "!=" in req:
        key, value = req.split("!=", 1)
        return labels.get(key.strip()) != value.strip()
    if "=" in req:
        key, value = req.replace("==", "=").split("=", 1)
        return labels.get(key.strip()) == value.strip()
    if req.startswith("!"):
        return req[1:].strip() not in labels
    return req in labels
