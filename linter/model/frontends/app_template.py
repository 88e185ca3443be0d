"""The bjw-s ``app-template`` chart (bjw-s-labs/helm-charts, library ``common``): each
``controllers.<name>`` renders one pod whose containers are the map
``containers.<name>``, with ``persistence`` items as volumes and mounts and
``defaultPodOptions`` under the controller's own ``pod`` options. The pod is assembled
as the library's templates assemble it (``templates/lib/container/fields/*.tpl``,
``templates/lib/pod/_getOption.tpl``, ``templates/lib/pod/fields/_volumes.tpl``), every
piece keeping the values line that wrote it, and read like any pod spec: a container
running a server is a workload; the others are left out as in a manifest.

Versions differ: from 4.0.0 ``defaultPodOptionsStrategy: merge`` merges a controller's
map options (``nodeSelector``, ``securityContext``) into the defaults, where 3.x replaces
them, and a pod-level ``resources`` is rendered (profiles ``app-template`` and
``app-template-3``, selected by the release's chart version).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate
from linter.positions import PathT

# The pod options ``_getOption.tpl`` reads (``templates/lib/pod/_spec.tpl``) that a rule
# may read; the others (labels, dnsConfig, ...) change nothing servelint judges.
POD_OPTIONS = (
    "affinity",
    "hostIPC",
    "hostNetwork",
    "hostPID",
    "nodeSelector",
    "priorityClassName",
    "runtimeClassName",
    "schedulerName",
    "securityContext",
    "shareProcessNamespace",
    "terminationGracePeriodSeconds",
    "tolerations",
    "topologySpreadConstraints",
)
# Controller types and the kind each renders (``templates/render/_controllers.tpl``).
KINDS = {
    "deployment": "Deployment",
    "statefulset": "StatefulSet",
    "daemonset": "DaemonSet",
    "cronjob": "CronJob",
    "job": "Job",
}
_PROBES = ("liveness", "readiness", "startup")
# Container fields the chart prints as written (``container/_spec.tpl``).
_AS_WRITTEN = ("resources", "securityContext", "ports", "envFrom", "workingDir")
# Probe defaults of a non-custom probe (``_probes.tpl``).
_PROBE_DEFAULTS = {
    "initialDelaySeconds": 0,
    "failureThreshold": 3,
    "timeoutSeconds": 1,
    "periodSeconds": 10,
}


def controller_pod(
    data: Mapping[str, Any],
    controller: Mapping[str, Any],
    path: PathT,
    locate: Locate,
    *,
    merge_options: bool,
) -> SyntheticPod:
    """The pod ``controllers.<name>`` at ``path`` renders. ``merge_options``: the chart
    honours ``defaultPodOptionsStrategy: merge`` and pod-level ``resources`` (4.x)."""
    pod = SyntheticPod(locate(path))
    name = path[-1]
    _pod_options(data, controller, path, locate, pod, merge_options=merge_options)
    containers = controller.get("containers")
    if isinstance(containers, Mapping):
        defaults = controller.get("defaultContainerOptions")
        merge = controller.get("defaultContainerOptionsStrategy") == "merge"
        for key in sorted(containers, key=str):
            container = containers[key]
            if not isinstance(container, Mapping) or container.get("enabled") is False:
                continue
            here = (*path, "containers", key)
            index = len(pod.spec.get("containers", []))
            target: PathT = ("containers", index)
            pod.set((*target, "name"), str(key), locate(here))
            fields = _with_defaults(container, defaults, merge)
            for field, (value, source) in fields.items():
                at = here if source == "own" else (*path, "defaultContainerOptions")
                _container_field(pod, target, field, value, (*at, field), locate)
            _mounts(data, str(name), str(key), pod, target, locate)
    _volumes(data, str(name), pod, locate)
    return pod


def argument_keys(controller: Mapping[str, Any]) -> list[PathT]:
    """The keys of ``controller`` the chart passes into a container's command and args as
    written (``_command.tpl``, ``_args.tpl``)."""
    out: list[PathT] = []
    containers = controller.get("containers")
    for key in containers if isinstance(containers, Mapping) else ():
        out.extend(("containers", key, field) for field in ("command", "args"))
    out.extend(("defaultContainerOptions", field) for field in ("command", "args"))
    return out


def _with_defaults(
    container: Mapping[str, Any], defaults: Any, merge: bool
) -> dict[str, tuple[Any, str]]:
    """Each field of the container and where it was written (``own`` or the controller's
    ``defaultContainerOptions``), as ``container/_valuesToObject.tpl`` combines them."""
    out: dict[str, tuple[Any, str]] = {k: (v, "own") for k, v in container.items()}
    if not isinstance(defaults, Mapping):
        return out
    for key, value in defaults.items():
        own = container.get(key)
        if merge and isinstance(own, Mapping) and isinstance(value, Mapping):
            continue  # merged key by key: the container's own keys win; kept as written
        if own in (None, "", [], {}) or (merge and key not in container):
            out[str(key)] = (value, "default")
    return out


def _container_field(
    pod: SyntheticPod, target: PathT, field: str, value: Any, source: PathT, locate: Locate
) -> None:
    if field == "image" and isinstance(value, Mapping):
        repository, tag = value.get("repository"), value.get("tag")
        # ``_image.tpl`` prints repository:tag only when both are set.
        if repository and tag not in (None, ""):
            pod.set((*target, "image"), f"{repository}:{tag}", locate((*source, "tag")))
    elif field in ("command", "args"):
        if isinstance(value, str):
            pod.set((*target, field), [value], locate(source))
            pod.origins[(*target, field, 0)] = locate(source)
        elif isinstance(value, list):
            pod.put_tree((*target, field), list(value), locate, source)
    elif field == "env":
        _env(pod, target, value, source, locate)
    elif field == "probes" and isinstance(value, Mapping):
        _probes(pod, target, value, source, locate)
    elif field in _AS_WRITTEN and value not in (None, "", [], {}):
        pod.put_tree((*target, field), value, locate, source)


def _env(pod: SyntheticPod, target: PathT, value: Any, source: PathT, locate: Locate) -> None:
    """``_env.tpl``: a list as written, or a map of NAME: value (or a map holding
    ``value`` / ``valueFrom``, or the ``valueFrom`` itself)."""
    if isinstance(value, list):
        pod.put_tree((*target, "env"), list(value), locate, source)
        return
    if not isinstance(value, Mapping):
        return
    for key, item in value.items():
        where = (*source, key)
        if isinstance(item, Mapping):
            body = {k: v for k, v in item.items() if k != "dependsOn"}
            if "value" in body or "valueFrom" in body:
                entry = {"name": str(key), **body}
            else:
                entry = {"name": str(key), "valueFrom": body}
            at = pod.append((*target, "env"), entry, locate(where))
            pod.copy_origins((*target, "env", at), body, locate, where)
            if "valueFrom" in entry and "valueFrom" not in body:
                pod.copy_origins((*target, "env", at, "valueFrom"), body, locate, where)
        else:
            text = str(item).lower() if isinstance(item, bool) else "" if item is None else item
            at = pod.append((*target, "env"), {"name": str(key), "value": text}, locate(where))
            pod.origins[(*target, "env", at, "value")] = locate(where)


def _probes(
    pod: SyntheticPod, target: PathT, probes: Mapping[str, Any], source: PathT, locate: Locate
) -> None:
    """``_probes.tpl``: an enabled probe, its ``spec`` as written when ``custom``, else a
    TCP (or HTTP, GRPC) probe on its ``port`` with the chart's timings."""
    for name in _PROBES:
        probe = probes.get(name)
        if not isinstance(probe, Mapping) or probe.get("enabled") is not True:
            continue
        where = (*source, name)
        written = probe.get("spec")
        spec: Mapping[str, Any] = written if isinstance(written, Mapping) else {}
        field = (*target, f"{name}Probe")
        if probe.get("custom"):
            if spec:
                pod.put_tree(field, dict(spec), locate, (*where, "spec"))
            continue
        kind = str(probe.get("type") or "TCP").upper()
        handler = {"HTTP": "httpGet", "HTTPS": "httpGet", "GRPC": "grpc"}.get(kind, "tcpSocket")
        made: dict[str, Any] = {k: spec.get(k, v) for k, v in _PROBE_DEFAULTS.items()}
        action: dict[str, Any] = {}
        if probe.get("port") is not None:
            action["port"] = probe["port"]
        if handler == "httpGet":
            action.update(path=probe.get("path"), scheme=kind)
        made[handler] = action
        pod.set(field, made, locate(where))
        for key in _PROBE_DEFAULTS:
            at = (*where, "spec", key) if key in spec else where
            pod.origins[(*field, key)] = locate(at)


def _pod_options(
    data: Mapping[str, Any],
    controller: Mapping[str, Any],
    path: PathT,
    locate: Locate,
    pod: SyntheticPod,
    *,
    merge_options: bool,
) -> None:
    """``_getOption.tpl``: the controller's ``pod`` option, else ``defaultPodOptions``;
    maps merged (the controller's keys win) under ``defaultPodOptionsStrategy: merge``."""
    defaults = data.get("defaultPodOptions")
    defaults = defaults if isinstance(defaults, Mapping) else {}
    own = controller.get("pod")
    own = own if isinstance(own, Mapping) else {}
    merging = merge_options and data.get("defaultPodOptionsStrategy") == "merge"
    names = (*POD_OPTIONS, "resources") if merge_options else POD_OPTIONS
    for option in names:
        default, mine = defaults.get(option), own.get(option)
        default_at, own_at = ("defaultPodOptions", option), (*path, "pod", option)
        if isinstance(mine, bool):
            pod.set((option,), mine, locate(own_at))
        elif isinstance(mine, Mapping) and merging and isinstance(default, Mapping):
            pod.put_tree((option,), dict(default), locate, default_at)
            for key, value in mine.items():
                pod.put_tree((option, key), value, locate, (*own_at, key))
        elif mine not in (None, "", [], {}):
            pod.put_tree((option,), mine, locate, own_at)
        elif default not in (None, "", [], {}):
            pod.put_tree((option,), default, locate, default_at)


def _persistence(data: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    items = data.get("persistence")
    if not isinstance(items, Mapping):
        return []
    return [
        (str(k), v)
        for k, v in sorted(items.items(), key=lambda kv: str(kv[0]))
        if isinstance(v, Mapping) and v.get("enabled", True) is not False
    ]


def _volumes(data: Mapping[str, Any], controller: str, pod: SyntheticPod, locate: Locate) -> None:
    """``pod/fields/_volumes.tpl``: the enabled items mounted globally, in this
    controller, or nowhere in particular (then in every controller)."""
    for name, item in _persistence(data):
        advanced = item.get("advancedMounts")
        here = isinstance(advanced, Mapping) and bool(advanced.get(controller))
        if not (
            item.get("globalMounts") or here or (not item.get("globalMounts") and not advanced)
        ):
            continue
        where: PathT = ("persistence", name)
        kind = item.get("type") or "persistentVolumeClaim"
        volume: dict[str, Any] = {"name": name}
        if kind == "emptyDir":
            volume["emptyDir"] = {
                k: item[k] for k in ("medium", "sizeLimit") if item.get(k) not in (None, "")
            }
        elif kind == "hostPath":
            volume["hostPath"] = {"path": item.get("hostPath")}
        elif kind == "persistentVolumeClaim":
            claim = item.get("existingClaim") or name
            volume["persistentVolumeClaim"] = {"claimName": claim}
        elif kind in ("configMap", "secret", "nfs"):
            volume[kind] = {k: v for k, v in item.items() if k in ("name", "server", "path")}
        else:
            volume[str(kind)] = {}
        at = pod.append(("volumes",), volume, locate(where))
        for key in ("medium", "sizeLimit"):
            if key in item:
                pod.origins[("volumes", at, "emptyDir", key)] = locate((*where, key))


def _mounts(
    data: Mapping[str, Any],
    controller: str,
    container: str,
    pod: SyntheticPod,
    target: PathT,
    locate: Locate,
) -> None:
    """``container/fields/_volumeMounts.tpl``: ``globalMounts`` and this container's
    ``advancedMounts``; an item with neither is mounted at ``/<name>`` (its host path)."""
    for name, item in _persistence(data):
        where: PathT = ("persistence", name)
        default = item.get("hostPath") if item.get("type") == "hostPath" else f"/{name}"
        mounts: list[tuple[Any, PathT]] = []
        for index, mount in enumerate(item.get("globalMounts") or []):
            mounts.append((mount, (*where, "globalMounts", index)))
        advanced = item.get("advancedMounts")
        if isinstance(advanced, Mapping):
            mine = advanced.get(controller)
            listed = mine.get(container) if isinstance(mine, Mapping) else None
            for index, mount in enumerate(listed or []):
                mounts.append((mount, (*where, "advancedMounts", controller, container, index)))
        if not item.get("globalMounts") and not advanced:
            mounts.append(({}, where))
        for mount, at in mounts:
            if not isinstance(mount, Mapping):
                continue
            made: dict[str, Any] = {"name": name, "mountPath": mount.get("path") or default}
            for key in ("subPath", "subPathExpr", "readOnly", "mountPropagation"):
                if mount.get(key):
                    made[key] = mount[key]
            index = pod.append((*target, "volumeMounts"), made, locate(at))
            pod.origins[(*target, "volumeMounts", index, "mountPath")] = locate(
                (*at, "path") if mount.get("path") else at
            )
