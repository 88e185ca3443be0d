"""Kubernetes objects → workloads: every pod template, wherever the kind keeps it.

Public entry: ``workloads_from_manifest(document, settings)``. Kinds: Pod, Deployment,
StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Argo Rollout, LeaderWorkerSet (leader
and worker templates), KServe ServingRuntime / ClusterServingRuntime (``spec`` and
``workerSpec``), InferenceService (predictor), LLMInferenceService(Config) (template,
worker, prefill), RayService / RayCluster / RayJob (head and worker groups), llmaz
Service, KubeAI Model, RoleBasedGroup and kthena ModelServing (the pod of each role as
their controllers build it: ``role_groups.py``), KAITO Workspace / InferenceSet, OME
runtimes and InferenceService, NVIDIA Dynamo graph deployments (``operator_kinds.py``).
In other kinds, every pod template, or else every mapping shaped as a server container
(``shapes.py``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.frontends import custom
from linter.model.frontends.build import Meta, build_workloads, relative
from linter.model.frontends.operator_kinds import operator_workloads
from linter.model.frontends.platform_pods import lws_env, with_platform_defaults
from linter.model.frontends.role_groups import role_group_pods
from linter.model.frontends.shapes import shape_workloads
from linter.model.records.located import Located
from linter.model.records.paths import Locate, document_locate, lookup
from linter.model.records.workload import Workload
from linter.parsing.documents import Document
from linter.positions import PathT

if TYPE_CHECKING:
    from linter.model.frontends.role_pods import RolePod

# kind → [(pod spec path, role, replicas path)]
_TEMPLATES: dict[str, list[tuple[PathT, str, PathT | None]]] = {
    "Pod": [(("spec",), "", None)],
    "Deployment": [(("spec", "template", "spec"), "", ("spec", "replicas"))],
    "StatefulSet": [(("spec", "template", "spec"), "", ("spec", "replicas"))],
    "ReplicaSet": [(("spec", "template", "spec"), "", ("spec", "replicas"))],
    "DaemonSet": [(("spec", "template", "spec"), "", None)],
    "Job": [(("spec", "template", "spec"), "", ("spec", "parallelism"))],
    "CronJob": [(("spec", "jobTemplate", "spec", "template", "spec"), "", None)],
    "Rollout": [(("spec", "template", "spec"), "", ("spec", "replicas"))],
    "LeaderWorkerSet": [
        (
            ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
            "leader",
            ("spec", "replicas"),
        ),
        (
            ("spec", "leaderWorkerTemplate", "workerTemplate", "spec"),
            "worker",
            ("spec", "replicas"),
        ),
    ],
    "ServingRuntime": [(("spec",), "", None), (("spec", "workerSpec"), "worker", None)],
    "ClusterServingRuntime": [(("spec",), "", None), (("spec", "workerSpec"), "worker", None)],
    "LLMInferenceService": [
        (("spec", "template"), "", ("spec", "replicas")),
        (("spec", "worker"), "worker", ("spec", "replicas")),
        (("spec", "prefill", "template"), "prefill", ("spec", "prefill", "replicas")),
        (("spec", "prefill", "worker"), "prefill-worker", ("spec", "prefill", "replicas")),
    ],
}
_TEMPLATES["LLMInferenceServiceConfig"] = _TEMPLATES["LLMInferenceService"]


@functools.lru_cache(maxsize=2)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of a file's text, split once per file, not once per document (a stream
    of 10,000 documents would otherwise split its text 10,000 times)."""
    return tuple(text.split("\n"))


def literal_blocks(
    document: Document, text: str | None, prefix: PathT
) -> Callable[[PathT], tuple[int, int] | None] | None:
    """Where a literal block scalar (``- |``) at a path starts: its first content line and
    its indentation, so that a flag inside a shell script points at its own line."""
    if text is None:
        return None
    lines = _lines(text)

    def blocks(path: PathT) -> tuple[int, int] | None:
        span = document.line_map.get((*prefix, *path))
        if span is None or span.line > len(lines):
            return None
        if lines[span.line - 1][span.column - 1 : span.column] != "|":
            return None
        for line in lines[span.line :]:
            if line.strip():
                return span.line + 1, len(line) - len(line.lstrip(" "))
        return None

    return blocks


def workloads_from_manifest(
    document: Document,
    settings: ModelSettings = DEFAULT_SETTINGS,
    text: str | None = None,
    locate: Locate | None = None,
    companions: Sequence[Any] = (),
) -> list[Workload]:
    """Workloads of one Kubernetes object (an empty list for objects without pods).

    ``text`` (the file's text) lets flags inside ``- |`` shell scripts point at their own
    line instead of the script's first line. ``locate`` places a path of an object built
    from several files (a Kustomize build); by default the document's own positions.
    ``companions``: the other documents of its file (a KAITO workspace's ConfigMap).
    """
    data = document.data
    if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
        return []
    kind = data["kind"]
    locate = locate or document_locate(document)
    metadata = data.get("metadata") if isinstance(data.get("metadata"), Mapping) else {}
    name = str(metadata.get("name", "")) if isinstance(metadata, Mapping) else ""
    namespace = str(metadata.get("namespace", "")) if isinstance(metadata, Mapping) else ""
    base = Meta(
        f"{kind}/{namespace or 'default'}/{name}", kind, name, locate(()), namespace=namespace
    )
    group = role_group_pods(data, locate)
    if group is not None:
        pods, _unbuilt = group  # the unbuilt roles are reported by coverage
        return [
            w
            for pod in pods
            for w in _role_pod_workloads(pod, base, document, text, locate, settings)
        ]
    own = operator_workloads(data, locate, base, settings, companions)
    if own is not None:
        return own
    templates = _templates(kind, data)
    if templates is None:
        found = custom.custom_workloads(kind, data, locate, base, settings)
        if found:
            return found
        # An unknown kind is never skipped: every pod template inside it is read as a pod,
        # and without one, every mapping shaped as a server container (``shapes.py``).
        templates = _embedded_pod_specs(data)
        if not templates:
            return shape_workloads(data, base, locate, settings)
    grouped = {path for path, _, _ in templates if _in_pod_group(data, path)}
    out: list[Workload] = []
    multi = (
        kind == "LeaderWorkerSet"
        and (_size(data, ("spec", "leaderWorkerTemplate", "size")) or 1) > 1
    )
    for path, role, replicas_path in templates:
        spec = _get(data, path)
        if not isinstance(spec, Mapping) or not isinstance(spec.get("containers"), list):
            continue
        meta = _meta(
            base, data, role, replicas_path, locate, multi or role == "worker" or path in grouped
        )
        meta = dataclasses.replace(
            custom.with_hints(kind, data, locate, meta), blocks=literal_blocks(document, text, path)
        )
        injected = lws_env(data, role, locate) if kind == "LeaderWorkerSet" else None
        completed, located = with_platform_defaults(kind, spec, relative(locate, path), injected)
        found = build_workloads(completed, located, meta, settings)
        if kind == "RayService" and meta.server_hint:
            pip = custom.ray_runtime_pip(data.get("spec") or {}, locate)
            if pip is not None:
                for workload in found:
                    workload.record.extra["ray_runtime_pip"] = pip
        labels = pod_labels(data, path, role)
        written = _get(data, (*path[:-1], "metadata", "labels"))
        keys = {str(k): k for k in written} if isinstance(written, Mapping) else {}
        for workload in found:
            set_labels(
                workload,
                {
                    name: Located(
                        value,
                        locate((*path[:-1], "metadata", "labels", keys[name]))
                        if name in keys
                        else None,
                    )
                    for name, value in labels.items()
                },
            )
        out.extend(found)
    return out


def _role_pod_workloads(
    pod: RolePod,
    base: Meta,
    document: Document,
    text: str | None,
    locate: Locate,
    settings: ModelSettings,
) -> list[Workload]:
    """Workloads of one pod an operator builds for a role (``role_groups.py``)."""
    from linter.model.frontends.role_pods import located

    replicas_origin = locate(pod.replicas_path) if pod.replicas_path else None
    blocks = literal_blocks(document, text, ())
    meta = Meta(
        f"{base.id}/{pod.role}",
        base.kind,
        base.name,
        base.anchor,
        base.source,
        base.namespace,
        pod.replicas,
        replicas_origin,
        pod.role,
        multi_node=pod.multi_node,
        blocks=(lambda path: blocks(pod.source(path))) if blocks else None,
    )
    completed, completed_at = with_platform_defaults(
        base.kind, pod.spec, located(locate, pod.source), pod.injected, injected_wins=True
    )
    if pod.injected_unless_set:
        completed, completed_at = with_platform_defaults(
            base.kind, completed, completed_at, pod.injected_unless_set
        )
    found = build_workloads(completed, completed_at, meta, settings)
    for workload in found:
        set_labels(
            workload,
            {
                name: Located(
                    value, locate(pod.label_paths[name]) if name in pod.label_paths else None
                )
                for name, value in pod.labels.items()
            },
        )
    return found


def set_labels(workload: Workload, labels: dict[str, Located[str]]) -> None:
    """The labels of the workload's pods, for a Service's selector (``exposure.py``)."""
    pod = workload.record.pod
    if pod is not None:
        pod.value.labels = Located(labels)


def pod_labels(data: Mapping[str, Any], spec_path: PathT, role: str) -> dict[str, str]:
    """The labels the pods of a template get: the template's own, plus those the
    LeaderWorkerSet controller adds (its name on every pod, worker index 0 on the leader),
    so that a Service's selector can be matched (``exposure.py``)."""
    written = _get(data, (*spec_path[:-1], "metadata", "labels"))
    labels = (
        {str(k): str(v) for k, v in written.items() if v is not None}
        if isinstance(written, Mapping)
        else {}
    )
    if data.get("kind") == "LeaderWorkerSet":
        name = _get(data, ("metadata", "name"))
        labels.setdefault("leaderworkerset.sigs.k8s.io/name", str(name))
        if role == "leader":
            labels.setdefault("leaderworkerset.sigs.k8s.io/worker-index", "0")
    return labels


# Deep enough for a Ray cluster inside a fleet template inside a CRD (aibrix
# RayClusterFleet: spec.template.spec.workerGroupSpecs[0].template.spec).
_MAX_POD_SPEC_DEPTH = 12
# Path segments that mark a Ray cluster's groups: their pods form one multi-node server.
_RAY_GROUPS = ("headGroupSpec", "workerGroupSpecs")


def _embedded_pod_specs(data: Mapping[str, Any]) -> list[tuple[PathT, str, PathT | None]]:
    """Every pod spec (a ``containers`` list of images) inside an object of unknown kind,
    with a role named after where it sits and the ``replicas`` beside its template."""
    out: list[tuple[PathT, str, PathT | None]] = []

    def walk(node: object, path: PathT) -> None:
        if len(path) > _MAX_POD_SPEC_DEPTH:
            return
        if isinstance(node, Mapping):
            containers = node.get("containers")
            if isinstance(containers, list) and any(
                isinstance(c, Mapping) and isinstance(c.get("image"), str) for c in containers
            ):
                out.append((path, _role(path), _replicas_beside(data, path)))
                return
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, (*path, index))

    walk(data.get("spec"), ("spec",))
    return out


# Keys beside a template that make its pods one group spread over several nodes (aibrix
# StormService roles' podGroupSize, LeaderWorkerSet-like size, Ray worker groups).
_GROUP_KEYS = frozenset({"podGroupSize", "size", "groupSize", "nnodes", "numNodes", "workers"})


def _in_pod_group(data: Mapping[str, Any], path: PathT) -> bool:
    """Whether the pods of the template at ``path`` may form one multi-node server: then the
    GPUs of one pod are not all the server has, and per-pod GPU checks must not judge it."""
    if any(part in _RAY_GROUPS for part in path):
        return True
    for end in range(len(path) - 1, 0, -1):
        if path[end] == "template":
            holder = _get(data, path[:end])
            return isinstance(holder, Mapping) and not _GROUP_KEYS.isdisjoint(holder)
    return False


def _role(path: PathT) -> str:
    """``spec.roles[1].template.spec`` → ``roles/1``: where the pod sits, without the
    template wrapping that every pod spec has."""
    kept = [str(p) for p in path[1:] if p not in ("template", "spec", "podTemplate")]
    return "/".join(kept)


def _replicas_beside(data: Mapping[str, Any], path: PathT) -> PathT | None:
    """``replicas`` of the object that holds the template (``…/template/spec`` → ``…/replicas``)."""
    for end in range(len(path) - 1, 0, -1):
        if path[end] == "template":
            candidate = (*path[:end], "replicas")
            return candidate if _size(data, candidate) is not None else None
    return None


def _templates(kind: str, data: Mapping[str, Any]) -> list[tuple[PathT, str, PathT | None]] | None:
    if kind in _TEMPLATES:
        return _TEMPLATES[kind]
    api = str(data.get("apiVersion", ""))
    if kind in ("RayService", "RayCluster", "RayJob"):
        return custom.ray_templates(kind, data)
    if kind == "Service" and api.startswith("inference.llmaz.io"):
        base = ("spec", "workloadTemplate")
        return [
            ((*base, "leaderTemplate", "spec"), "leader", ("spec", "replicas")),
            ((*base, "workerTemplate", "spec"), "worker", ("spec", "replicas")),
        ]
    return None


def _meta(
    base: Meta,
    data: Mapping[str, Any],
    role: str,
    replicas_path: PathT | None,
    locate: Locate,
    multi: bool,
) -> Meta:
    replicas = _size(data, replicas_path) if replicas_path else None
    ident = f"{base.id}/{role}" if role else base.id
    return Meta(
        ident,
        base.kind,
        base.name,
        base.anchor,
        base.source,
        base.namespace,
        replicas,
        locate(replicas_path) if replicas is not None and replicas_path else None,
        role,
        multi_node=multi,
    )


def _get(data: object, path: PathT) -> object:
    return lookup(data, path)


def _size(data: object, path: PathT | None) -> int | None:
    value = _get(data, path) if path else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
