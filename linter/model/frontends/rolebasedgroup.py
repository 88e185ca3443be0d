"""RoleBasedGroup (sgl-project/rbg, ``workloads.x-k8s.io`` v1alpha1 and v1alpha2): the pods
its controller builds for each role.

- A role's pod template is its inline ``template``, or the ``roleTemplates`` entry its
  ``templateRef`` names with the ``patch`` (v1alpha1: the role's ``templatePatch``)
  applied as a strategic merge patch
  (https://github.com/sgl-project/rbg/blob/993491fba9bfdf377d3cd18c8833da20ce0ec87b/api/workloads/v1alpha2/helper.go#L391-L444,
  ``GetResolvedTemplate`` and ``applyStrategicMergePatch``).
- ``standalonePattern`` (v1alpha1: neither ``leaderWorkerSet`` nor ``components``): one pod
  per replica, role ``<name>``.
- ``leaderWorkerPattern`` (v1alpha1: ``leaderWorkerSet``): groups of ``size`` pods, the
  leader from the template patched by ``leaderTemplatePatch`` (``patchLeaderTemplate``),
  the workers by ``workerTemplatePatch`` (``patchWorkerTemplate``), roles
  ``<name>/leader`` and ``<name>/worker``
  (https://github.com/sgl-project/rbg/blob/993491fba9bfdf377d3cd18c8833da20ce0ec87b/pkg/reconciler/roleinstanceset_reconciler.go#L338-L400).
- ``customComponentsPattern`` (v1alpha1: ``components``): one pod template per component,
  role ``<name>/<component>``.

What the controller adds to the pods (``pkg/discovery/injector.go`` and
``env_builder.go`` at the same commit): ``RBG_GROUP_NAME`` and ``RBG_ROLE_NAME`` in every
container; in a leader-worker group run as RoleInstanceSet (the default),
``RBG_LWP_GROUP_SIZE`` (the ``size``, from the component-size label),
``RBG_LWP_WORKER_INDEX`` (0 on the leader) and ``RBG_LWP_LEADER_ADDRESS`` (per group: left
unread); run as a LeaderWorkerSet (v1alpha1 ``workload.kind: LeaderWorkerSet``), the
LeaderWorkerSet's own ``LWS_GROUP_SIZE`` and ``LWS_WORKER_INDEX`` instead. A variable the
container defines itself is replaced by the controller's (``mergeEnvVars``); the
LeaderWorkerSet's own variables keep the container's definition, as that controller does. Besides
these it adds labels, a ConfigMap volume at ``/etc/rbg`` and, for ``engineRuntimes``,
containers of a cluster-scoped profile: no probes, no resources, no ``/dev/shm``.
"""

from __future__ import annotations

import dataclasses
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
from linter.model.frontends.strategic_merge import merge, written
from linter.model.records.paths import Locate, lookup
from linter.positions import PathT

KIND = "RoleBasedGroup"
_GROUP = "workloads.x-k8s.io/"
_LABEL_PREFIX = "rbg.workloads.x-k8s.io/"
_WORKLOAD_TYPE = _LABEL_PREFIX + "role-workload-type"
_WHO = "RoleBasedGroup"
# A merged template's path whose first part is this came from the template being patched.
_BASE = "\0base"


def is_rolebasedgroup(kind: str, api: str) -> bool:
    return kind == KIND and api.startswith(_GROUP)


def role_pods(data: Mapping[str, Any], locate: Locate) -> tuple[list[RolePod], list[UnbuiltRole]]:
    """The pods of every role of a RoleBasedGroup, and the roles whose pod cannot be built."""
    spec = data.get("spec")
    roles = spec.get("roles") if isinstance(spec, Mapping) else None
    built = [
        pod
        for index, role in enumerate(roles if isinstance(roles, list) else [])
        if isinstance(role, Mapping)
        for pod in _role(data, role, ("spec", "roles", index), locate)
    ]
    return (
        [p for p in built if isinstance(p, RolePod)],
        [p for p in built if isinstance(p, UnbuiltRole)],
    )


def _role(
    data: Mapping[str, Any], role: Mapping[str, Any], at: PathT, locate: Locate
) -> list[RolePod | UnbuiltRole]:
    name = str(role.get("name", at[-1]))
    v1alpha1 = str(data.get("apiVersion", "")).endswith("/v1alpha1")
    lwp_key = "leaderWorkerSet" if v1alpha1 else "leaderWorkerPattern"
    components_at: PathT = (
        (*at, "components")
        if v1alpha1
        else (
            *at,
            "customComponentsPattern",
            "components",
        )
    )
    if isinstance(role.get(lwp_key), Mapping):
        return _leader_worker(data, role, at, (*at, lwp_key), v1alpha1, locate)
    components = lookup(data, components_at)
    if isinstance(components, list) and components:
        return _components(data, role, at, components_at, components, locate)
    source_at = at if v1alpha1 else (*at, "standalonePattern")
    template = _resolve(data, role, at, source_at, v1alpha1)
    if isinstance(template, UnbuiltRole):
        return [template]
    value, where = template
    return [_pod(data, role, at, name, name, value, where, {}, False, locate)]


def _leader_worker(
    data: Mapping[str, Any],
    role: Mapping[str, Any],
    at: PathT,
    lwp_at: PathT,
    v1alpha1: bool,
    locate: Locate,
) -> list[RolePod | UnbuiltRole]:
    name = str(role.get("name", at[-1]))
    source_at = at if v1alpha1 else lwp_at
    template = _resolve(data, role, at, source_at, v1alpha1)
    if isinstance(template, UnbuiltRole):
        return [template]
    size = int_at(data, (*lwp_at, "size"))
    size = 1 if size is None else size
    size_origin = locate((*lwp_at, "size")) if "size" in lookup(data, lwp_at) else locate(lwp_at)
    pods: list[RolePod | UnbuiltRole] = []
    patches = (
        ("leader", "patchLeaderTemplate" if v1alpha1 else "leaderTemplatePatch"),
        ("worker", "patchWorkerTemplate" if v1alpha1 else "workerTemplatePatch"),
    )
    for part, key in patches:
        if part == "worker" and size <= 1:
            continue  # a group of one is its leader
        value, where = template
        patch = lookup(data, (*lwp_at, key))
        if isinstance(patch, Mapping):
            value, where = _patched(value, where, patch, (*lwp_at, key))
        elif patch is not None:
            pods.append(UnbuiltRole((*lwp_at, key), f"{name}/{part}", f"{key} is not a map"))
            continue
        env: Injected = {}
        lws: Injected = {}
        kind = _workload_kind(data, role, at, v1alpha1)
        if kind == "RoleInstanceSet":
            env["RBG_LWP_GROUP_SIZE"] = (str(size), added_by(size_origin, _WHO))
            if part == "leader":
                env["RBG_LWP_WORKER_INDEX"] = ("0", added_by(size_origin, _WHO))
        elif kind == "LeaderWorkerSet":
            lws["LWS_GROUP_SIZE"] = (str(size), added_by(size_origin, "LeaderWorkerSet"))
            if part == "leader":
                lws["LWS_WORKER_INDEX"] = ("0", added_by(size_origin, "LeaderWorkerSet"))
        pod = _pod(data, role, at, name, f"{name}/{part}", value, where, env, size > 1, locate)
        pods.append(
            dataclasses.replace(pod, injected_unless_set=lws)
            if lws and isinstance(pod, RolePod)
            else pod
        )
    return pods


def _components(
    data: Mapping[str, Any],
    role: Mapping[str, Any],
    at: PathT,
    components_at: PathT,
    components: list[Any],
    locate: Locate,
) -> list[RolePod | UnbuiltRole]:
    name = str(role.get("name", at[-1]))
    total = sum(int_at(c, ("size",)) or 1 for c in components)
    pods: list[RolePod | UnbuiltRole] = []
    for index, component in enumerate(components):
        if not isinstance(component, Mapping) or not isinstance(component.get("template"), Mapping):
            reason = "a component without a pod template"
            pods.append(UnbuiltRole((*components_at, index), name, reason))
            continue
        where: dict[PathT, PathT] = {}
        value = written(component["template"], (*components_at, index, "template"), (), where)
        part = str(component.get("name", index))
        pods.append(
            _pod(data, role, at, name, f"{name}/{part}", value, where, {}, total > 1, locate)
        )
    return pods


def _resolve(
    data: Mapping[str, Any],
    role: Mapping[str, Any],
    at: PathT,
    source_at: PathT,
    v1alpha1: bool,
) -> tuple[object, dict[PathT, PathT]] | UnbuiltRole:
    """The role's template (inline, or referenced and patched) and where each part was
    written; or why there is none."""
    name = str(role.get("name", at[-1]))
    inline = lookup(data, (*source_at, "template"))
    if isinstance(inline, Mapping):
        where: dict[PathT, PathT] = {}
        return written(inline, (*source_at, "template"), (), where), where
    ref = lookup(data, (*source_at, "templateRef"))
    if not isinstance(ref, Mapping):
        reason = "neither a template nor a templateRef"
        return UnbuiltRole(at, name, reason)
    wanted = ref.get("name")
    templates = lookup(data, ("spec", "roleTemplates"))
    found = next(
        (
            i
            for i, t in enumerate(templates if isinstance(templates, list) else [])
            if isinstance(t, Mapping) and t.get("name") == wanted
        ),
        None,
    )
    if found is None or not isinstance(
        lookup(data, ("spec", "roleTemplates", found, "template")), Mapping
    ):
        reason = f"templateRef {wanted} names no entry of spec.roleTemplates"
        return UnbuiltRole((*source_at, "templateRef", "name"), name, reason)
    base_at: PathT = ("spec", "roleTemplates", found, "template")
    base = lookup(data, base_at)
    patch_at: PathT = (*at, "templatePatch") if v1alpha1 else (*source_at, "templateRef", "patch")
    patch = lookup(data, patch_at)
    if patch is None:
        where = {}
        return written(base, base_at, (), where), where
    if not isinstance(patch, Mapping):
        reason = f"the patch of templateRef {wanted} is not a map"
        return UnbuiltRole(patch_at, name, reason)
    return merge(base, base_at, patch, patch_at)


def _patched(
    value: object, where: dict[PathT, PathT], patch: Mapping[str, Any], patch_at: PathT
) -> tuple[object, dict[PathT, PathT]]:
    """``value`` (already merged, written where ``where`` says) patched once more."""
    merged, again = merge(value, (_BASE,), patch, patch_at)
    out: dict[PathT, PathT] = {}
    for path, doc in again.items():
        if doc[:1] == (_BASE,):
            rest = doc[1:]
            out[path] = where.get(rest, nearest_source(where, ())(rest))
        else:
            out[path] = doc
    return merged, out


def _pod(
    data: Mapping[str, Any],
    role: Mapping[str, Any],
    at: PathT,
    name: str,
    label: str,
    template: object,
    where: dict[PathT, PathT],
    env: Injected,
    multi: bool,
    locate: Locate,
) -> RolePod | UnbuiltRole:
    spec = lookup(template, ("spec",))
    if not isinstance(spec, Mapping) or not isinstance(spec.get("containers"), list):
        reason = "a pod template without a list of containers"
        return UnbuiltRole(where.get((), at), label, reason)
    group = str(lookup(data, ("metadata", "name"), ""))
    labels, label_paths = template_labels(template, where)
    # The controller's labels (GetCommonLabelsFromRole in api/workloads/v1alpha2/helper.go).
    labels[_LABEL_PREFIX + "group-name"] = group
    labels[_LABEL_PREFIX + "role-name"] = name
    injected: Injected = {
        "RBG_GROUP_NAME": (group, added_by(locate(("metadata", "name")), _WHO)),
        "RBG_ROLE_NAME": (name, added_by(locate((*at, "name")), _WHO)),
        **env,
    }
    replicas = int_at(role, ("replicas",))
    return RolePod(
        label,
        spec,
        nearest_source(where, ("spec",)),
        replicas,
        (*at, "replicas") if replicas is not None else None,
        multi,
        labels,
        label_paths,
        injected,
    )


def _workload_kind(
    data: Mapping[str, Any], role: Mapping[str, Any], at: PathT, v1alpha1: bool
) -> str:
    """The workload that runs a leader-worker role: RoleInstanceSet unless the role says
    otherwise (v1alpha2's role-workload-type annotation, v1alpha1's ``workload``, whose
    default for a role with ``leaderWorkerSet`` the conversion leaves as StatefulSet)."""
    if v1alpha1:
        workload = role.get("workload")
        kind = workload.get("kind") if isinstance(workload, Mapping) else None
        kind = str(kind) if kind else "StatefulSet"
        return "RoleInstanceSet" if kind == "InstanceSet" else kind
    annotations = role.get("annotations")
    typed = annotations.get(_WORKLOAD_TYPE) if isinstance(annotations, Mapping) else None
    return str(typed).rsplit("/", 1)[-1] if typed else "RoleInstanceSet"
