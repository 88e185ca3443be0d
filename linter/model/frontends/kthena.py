"""kthena ``ModelServing`` (volcano-sh/kthena, ``workload.serving.volcano.sh/v1alpha1``): the
pods its controller builds for each role of the serving group ``spec.template``.

Each role has one entry pod per replica, from ``entryTemplate``, and ``workerReplicas``
worker pods from ``workerTemplate``; the pod spec is the template's as written, and every
container gets ``GROUP_SIZE`` (``workerReplicas + 1``), ``WORKER_INDEX`` (0 on the entry
pod) and ``ENTRY_ADDRESS`` (per group: left unread), replacing a variable of the same name
the container sets itself
(https://github.com/volcano-sh/kthena/blob/3cc057284c34469fcb0ed22a12dac84b1d120719/pkg/model-serving-controller/utils/utils.go#L95-L211,
``GenerateEntryPod``, ``GenerateWorkerPod``, ``createCommonEnvVars``, ``addEnvVars``).
Nothing else is added to the containers: no probes, no resources, no ``/dev/shm`` (the
built-in plugins add labels, annotations, a runtime class or environment variables the
user configures).

Roles: ``<role>`` when the role has no workers, else ``<role>/entry`` and ``<role>/worker``
(a multi-node server). ``replicas`` is the role's ``replicas`` times the ModelServing's.
``ModelBooster`` is not read: its controller renders the pods from templates of its own
(``pkg/model-booster-controller/convert``), so it stays "not understood".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.frontends.role_pods import (
    Injected,
    RolePod,
    UnbuiltRole,
    added_by,
    int_at,
    nearest_source,
    template_labels,
)
from linter.model.frontends.strategic_merge import written
from linter.model.records.paths import Locate, lookup
from linter.positions import PathT

KIND = "ModelServing"
_GROUP = "workload.serving.volcano.sh/"
_WHO = "kthena ModelServing"
_LABELS = "modelserving.volcano.sh/"


def is_model_serving(kind: str, api: str) -> bool:
    return kind == KIND and api.startswith(_GROUP)


def role_pods(data: Mapping[str, Any], locate: Locate) -> tuple[list[RolePod], list[UnbuiltRole]]:
    """The entry and worker pods of every role, and the roles whose pods cannot be built."""
    roles = lookup(data, ("spec", "template", "roles"))
    pods: list[RolePod] = []
    unbuilt: list[UnbuiltRole] = []
    for index, role in enumerate(roles if isinstance(roles, list) else []):
        if not isinstance(role, Mapping):
            continue
        at: PathT = ("spec", "template", "roles", index)
        name = str(role.get("name", index))
        entry_spec = lookup(role, ("entryTemplate", "spec"))
        if not isinstance(entry_spec, Mapping):
            unbuilt.append(UnbuiltRole(at, name, "no entryTemplate.spec"))
            continue
        if not isinstance(entry_spec.get("containers"), list):
            reason = "an entryTemplate without a list of containers"
            unbuilt.append(UnbuiltRole((*at, "entryTemplate"), name, reason))
            continue
        workers = int_at(role, ("workerReplicas",)) or 0
        worker_spec = lookup(role, ("workerTemplate", "spec"))
        has_worker = isinstance(worker_spec, Mapping) and isinstance(
            worker_spec.get("containers"), list
        )
        if workers > 0 and not has_worker:
            # The controller logs an error and creates no worker pod.
            if isinstance(worker_spec, Mapping):
                where, reason = (
                    (*at, "workerTemplate"),
                    "a workerTemplate without a list of containers",
                )
            else:
                where, reason = (
                    (*at, "workerReplicas"),
                    f"workerReplicas {workers} and no workerTemplate",
                )
            unbuilt.append(UnbuiltRole(where, f"{name}/worker", reason))
        size_at: PathT = (*at, "workerReplicas") if "workerReplicas" in role else at
        size_origin = added_by(locate(size_at), _WHO)
        parts = [("entry", "entryTemplate")]
        if workers > 0 and has_worker:
            parts.append(("worker", "workerTemplate"))
        for part, key in parts:
            env: Injected = {"GROUP_SIZE": (str(workers + 1), size_origin)}
            if part == "entry":
                env["WORKER_INDEX"] = ("0", size_origin)
            pods.append(
                _pod(data, role, at, name, part if workers > 0 else "", key, env, workers > 0)
            )
    return pods, unbuilt


def _pod(
    data: Mapping[str, Any],
    role: Mapping[str, Any],
    at: PathT,
    name: str,
    part: str,
    key: str,
    env: Injected,
    multi: bool,
) -> RolePod:
    where: dict[PathT, PathT] = {}
    template = written(role[key], (*at, key), (), where)
    assert isinstance(template, Mapping)
    labels, label_paths = template_labels(template, where)
    # The controller's labels (createBasePod, GenerateEntryPod in utils.go).
    labels[_LABELS + "name"] = str(lookup(data, ("metadata", "name"), ""))
    labels[_LABELS + "role"] = name
    if part == "entry" or not part:
        labels[_LABELS + "entry"] = "true"
    role_replicas = int_at(role, ("replicas",))
    group_replicas = int_at(data, ("spec", "replicas"))
    replicas: int | None = None
    replicas_path: PathT | None = None
    if role_replicas is not None or group_replicas is not None:
        replicas = (role_replicas or 1) * (group_replicas or 1)
        replicas_path = (*at, "replicas") if role_replicas is not None else ("spec", "replicas")
    return RolePod(
        f"{name}/{part}" if part else name,
        template["spec"],
        nearest_source(where, ("spec",)),
        replicas,
        replicas_path,
        multi,
        labels,
        label_paths,
        env,
    )
