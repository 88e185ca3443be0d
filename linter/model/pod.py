"""Pod facts for a workload: containers, resources, QoS, volumes, /dev/shm, env, hooks.

Input is a pod spec (plain data) and ``locate(path)`` giving the origin of a path inside
it; output goes to ``pod`` in the workload, one entry per container.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from linter.model import quantities as q
from linter.model import resources as res
from linter.model.facts import Facts, Locate
from linter.model.probes import pre_stop_facts, probe_facts
from linter.positions import PathT

# A redirection or tee into a cgroup memory file. The path may be built by the shell:
# ``pod$(echo $POD_UID | tr - _).slice``, ``${POD_CGROUP}``, or backquotes, whose spaces
# and pipes belong to the path. The alternatives start differently, so a long line that
# writes nothing is scanned once, without backtracking between them.
_CGROUP_WRITE = re.compile(
    r"(?:>>?|\btee(?:\s+-a)?)\s*[\"']?"
    r"(?:\$\([^()]*\)|\$\{[^}]*\}|`[^`]*`|\$(?![({])|[^\s;|&\"'$`])*"
    r"(memory\.(?:high|max|min|low))\b"
)
_SHM_PATH = "/dev/shm"
# Key of a volume that an operator adds to the pods it creates (platform_pods.py).
ADDED_BY = "servelint.io/added-by"


class ContainerView(NamedTuple):
    """A container of the pod: where it sits and its raw spec."""

    position: int
    init: bool
    path: PathT  # path of the container in the pod spec
    spec: Mapping[str, Any]
    model_path: PathT  # path of its facts in the workload (``pod.containers[i]``)


def pod_facts(spec: Mapping[str, Any], locate: Locate, facts: Facts) -> list[ContainerView]:
    volumes = _volumes(spec, locate, facts)
    views: list[ContainerView] = []
    for key, init, target in (
        ("initContainers", True, "init_containers"),
        ("containers", False, "containers"),
    ):
        items = spec.get(key)
        if not isinstance(items, list):
            continue
        facts.put(("pod", target), [], locate((key,)))
        for index, container in enumerate(items):
            if not isinstance(container, Mapping):
                continue
            mpath: PathT = ("pod", target, len(facts.data["pod"][target]))
            facts.data["pod"][target].append({})
            _container(container, (key, index), locate, facts, mpath, volumes, init)
            views.append(ContainerView(index, init, (key, index), container, mpath))
    _pod_level(spec, locate, facts, views, volumes)
    return views


def _pod_level(
    spec: Mapping[str, Any],
    locate: Locate,
    facts: Facts,
    views: list[ContainerView],
    volumes: dict[str, dict[str, Any]],
) -> None:
    containers = [v.spec.get("resources") for v in views]
    pod_resources = spec.get("resources")
    facts.put(("pod", "qos_class"), res.qos_class(containers, pod_resources), locate(()))
    if isinstance(pod_resources, Mapping) and pod_resources:
        facts.put(("pod", "resources"), res.normalise(pod_resources), locate(("resources",)))
    for key, name in (
        ("hostIPC", "host_ipc"),
        ("hostNetwork", "host_network"),
        ("hostPID", "host_pid"),
    ):
        value = spec.get(key)
        if isinstance(value, bool):
            facts.put(("pod", name), value, locate((key,)))
    grace = q.to_int(spec.get("terminationGracePeriodSeconds"))
    if grace is not None:
        facts.put(
            ("pod", "termination_grace_period_seconds"),
            grace,
            locate(("terminationGracePeriodSeconds",)),
        )
    for key, name in (
        ("runtimeClassName", "runtime_class_name"),
        ("serviceAccountName", "service_account_name"),
    ):
        if isinstance(spec.get(key), str):
            facts.put(("pod", name), spec[key], locate((key,)))
    selector = spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        facts.put(
            ("pod", "node_selector"),
            {str(k): str(v) for k, v in selector.items()},
            locate(("nodeSelector",)),
        )
        for key in selector:
            facts.origins[("pod", "node_selector", str(key))] = locate(("nodeSelector", key))
    facts.put(
        ("pod", "privileged"), any(c.get("privileged") is True for c in _all(facts)), locate(())
    )
    facts.put(
        ("pod", "writes_cgroup_memory"),
        any(c.get("writes_cgroup_memory") is True for c in _all(facts)),
        locate(()),
    )
    _shm(spec, locate, facts, volumes)


def _all(facts: Facts) -> list[dict[str, Any]]:
    pod = facts.data.get("pod", {})
    return [*pod.get("init_containers", []), *pod.get("containers", [])]


def _volumes(spec: Mapping[str, Any], locate: Locate, facts: Facts) -> dict[str, dict[str, Any]]:
    items = spec.get("volumes")
    out: list[dict[str, Any]] = []
    by_name: dict[str, dict[str, Any]] = {}
    if isinstance(items, list):
        for index, volume in enumerate(items):
            if not isinstance(volume, Mapping):
                continue
            record = _volume(volume)
            facts.origins[("pod", "volumes", len(out))] = locate(("volumes", index))
            for field, where in _volume_keys(record):
                facts.origins[("pod", "volumes", len(out), field)] = locate(
                    ("volumes", index, *where)
                )
            # ``image`` with a map is an image volume (ImageVolumeSource), with text a
            # container's image.
            misplaced = [
                str(k)
                for k, v in volume.items()
                if k in CONTAINER_FIELDS and not (k == "image" and isinstance(v, Mapping))
            ]
            if misplaced:
                record["misplaced"] = misplaced
                facts.origins[("pod", "volumes", len(out), "misplaced")] = locate(
                    ("volumes", index, misplaced[0])
                )
                for number, name in enumerate(misplaced):
                    facts.origins[("pod", "volumes", len(out), "misplaced", number)] = locate(
                        ("volumes", index, name)
                    )
            out.append(record)
            by_name[record["name"]] = record
    facts.put(("pod", "volumes"), out, locate(("volumes",)))
    return by_name


# Fields of a container that never belong to a volume: written in a volume entry, they are
# an indentation slip (probes one level too deep, under the last volume).
CONTAINER_FIELDS = frozenset(
    {
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "resources",
        "env",
        "envFrom",
        "args",
        "command",
        "image",
        "ports",
        "volumeMounts",
        "securityContext",
        "lifecycle",
    }
)


def _volume(volume: Mapping[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {"name": str(volume.get("name", ""))}
    if isinstance(volume.get(ADDED_BY), str):
        record["added_by"] = volume[ADDED_BY]
    for kind in (
        "emptyDir",
        "hostPath",
        "persistentVolumeClaim",
        "configMap",
        "secret",
        "ephemeral",
        "nfs",
        "csi",
        "projected",
        "downwardAPI",
    ):
        if kind in volume:
            record["type"] = kind
            body = volume.get(kind)
            if kind == "emptyDir" and isinstance(body, Mapping):
                if isinstance(body.get("medium"), str):
                    record["medium"] = body["medium"]
                size = q.memory_bytes(body.get("sizeLimit"))
                if size is not None:
                    record["size_limit_bytes"] = size
            elif kind == "hostPath" and isinstance(body, Mapping):
                record["path"] = str(body.get("path", ""))
            elif kind == "persistentVolumeClaim" and isinstance(body, Mapping):
                record["claim_name"] = str(body.get("claimName", ""))
            break
    else:
        record["type"] = "other"
    return record


def _volume_keys(record: Mapping[str, Any]) -> list[tuple[str, PathT]]:
    """Each field of a volume record and the key of the volume it was read from."""
    kind = str(record.get("type", ""))
    keys: dict[str, PathT] = {
        "name": ("name",),
        "added_by": (ADDED_BY,),
        "type": (kind,),
        "medium": (kind, "medium"),
        "size_limit_bytes": (kind, "sizeLimit"),
        "path": (kind, "path"),
        "claim_name": (kind, "claimName"),
    }
    return [(field, keys[field]) for field in record if field in keys and kind != "other"] + (
        [("name", ("name",))] if kind == "other" else []
    )


def _container(
    container: Mapping[str, Any],
    cpath: PathT,
    locate: Locate,
    facts: Facts,
    target: PathT,
    volumes: dict[str, dict[str, Any]],
    init: bool,
) -> None:
    facts.origins[target] = locate(cpath)
    put = _putter(facts, target, cpath, locate)
    put("name", str(container.get("name", "")), ("name",))
    if isinstance(container.get("image"), str):
        put("image", container["image"], ("image",))
    put("is_init", init, ())
    put("is_server", False, ())
    if init and container.get("restartPolicy") == "Always":
        put("sidecar", True, ("restartPolicy",))
    for key in ("command", "args"):
        if isinstance(container.get(key), list):
            put(key, [_text(part) for part in container[key]], (key,))
    put("resources", res.normalise(container.get("resources")), ("resources",))
    _resource_origins(container.get("resources"), cpath, locate, facts, target)
    _env(container, cpath, locate, facts, target)
    probe_facts(container, cpath, locate, facts, (*target, "probes"))
    facts.put((*target, "probes"), facts.get((*target, "probes"), {}))
    pre_stop_facts(container, cpath, locate, facts, target)
    security = container.get("securityContext")
    privileged = isinstance(security, Mapping) and security.get("privileged") is True
    put("privileged", privileged, ("securityContext", "privileged") if privileged else ())
    if isinstance(security, Mapping) and isinstance(security.get("capabilities"), Mapping):
        added = security["capabilities"].get("add")
        if isinstance(added, list):
            put(
                "capabilities_add",
                [str(c) for c in added],
                ("securityContext", "capabilities", "add"),
            )
    _mounts(container, cpath, locate, facts, target, volumes)
    words = [container.get(key) for key in ("command", "args")]
    text = " ".join(_text(p) for part in words if isinstance(part, list) for p in part)
    files = sorted(set(_CGROUP_WRITE.findall(text)))
    put("writes_cgroup_memory", bool(files), ("command",) if files else ())
    if files:
        put("cgroup_memory_files", files, ("command",))


def _putter(facts: Facts, target: PathT, cpath: PathT, locate: Locate) -> Any:
    def put(name: str, value: Any, sub: PathT) -> None:
        facts.put((*target, name), value, locate((*cpath, *sub)))

    return put


def _text(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)


def _resource_origins(
    resources: object, cpath: PathT, locate: Locate, facts: Facts, target: PathT
) -> None:
    if not isinstance(resources, Mapping):
        return
    for section in ("requests", "limits"):
        values = resources.get(section)
        if isinstance(values, Mapping):
            for name in values:
                facts.origins[(*target, "resources", section, str(name))] = locate(
                    (*cpath, "resources", section, name)
                )


def _env(
    container: Mapping[str, Any], cpath: PathT, locate: Locate, facts: Facts, target: PathT
) -> None:
    env: dict[str, str] = {}
    secrets: list[str] = []
    refs: dict[str, dict[str, str]] = {}
    items = container.get("env")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
                continue
            name = item["name"]
            origin = locate((*cpath, "env", index, "value" if "value" in item else "name"))
            source = item.get("valueFrom")
            if isinstance(source, Mapping):
                kind = next((str(k) for k in source), "")
                ref = source.get(kind) if kind else None
                refs[name] = {
                    "type": kind,
                    "name": str(ref.get("name", "")) if isinstance(ref, Mapping) else "",
                }
                if kind == "secretKeyRef":
                    secrets.append(name)
                facts.origins[(*target, "env_refs", name)] = origin
                source_path = (*cpath, "env", index, "valueFrom", kind)
                facts.origins[(*target, "env_refs", name, "type")] = locate(source_path)
                if isinstance(ref, Mapping) and "name" in ref:
                    facts.origins[(*target, "env_refs", name, "name")] = locate(
                        (*source_path, "name")
                    )
                continue
            env[name] = _text(item.get("value"))
            facts.origins[(*target, "env", name)] = origin
    facts.put((*target, "env"), env, locate((*cpath, "env")))
    facts.put((*target, "env_from_secret"), secrets, locate((*cpath, "env")))
    facts.put((*target, "env_refs"), refs, locate((*cpath, "env")))
    sources: list[dict[str, str]] = []
    env_from = container.get("envFrom")
    if isinstance(env_from, list):
        for item in env_from:
            if isinstance(item, Mapping):
                for kind in ("configMapRef", "secretRef"):
                    ref = item.get(kind)
                    if isinstance(ref, Mapping):
                        sources.append({"type": kind, "name": str(ref.get("name", ""))})
    facts.put((*target, "env_from"), sources, locate((*cpath, "envFrom")))


def _mounts(
    container: Mapping[str, Any],
    cpath: PathT,
    locate: Locate,
    facts: Facts,
    target: PathT,
    volumes: dict[str, dict[str, Any]],
) -> None:
    mounts: list[dict[str, Any]] = []
    cgroup = False
    items = container.get("volumeMounts")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                continue
            record: dict[str, Any] = {
                "name": str(item.get("name", "")),
                "mount_path": str(item.get("mountPath", "")),
            }
            if item.get("readOnly") is True:
                record["read_only"] = True
            where = (*target, "mounts", len(mounts))
            facts.origins[where] = locate((*cpath, "volumeMounts", index))
            for field, key in (
                ("name", "name"),
                ("mount_path", "mountPath"),
                ("read_only", "readOnly"),
            ):
                if key in item:
                    facts.origins[(*where, field)] = locate((*cpath, "volumeMounts", index, key))
            mounts.append(record)
            volume = volumes.get(record["name"], {})
            if (
                volume.get("type") == "hostPath"
                and str(volume.get("path", "")).rstrip("/") in ("/sys/fs/cgroup", "/sys/fs", "/sys")
            ) or str(volume.get("path", "")).startswith("/sys/fs/cgroup/"):
                cgroup = True
    facts.put((*target, "mounts"), mounts, locate((*cpath, "volumeMounts")))
    facts.put((*target, "mounts_host_cgroup"), cgroup, locate((*cpath, "volumeMounts")))


def _shm(
    spec: Mapping[str, Any], locate: Locate, facts: Facts, volumes: dict[str, dict[str, Any]]
) -> None:
    shm: dict[str, Any] = {"mounted": False, "host_ipc": spec.get("hostIPC") is True}
    origin = locate(())
    for container in _all(facts):
        for mount in container.get("mounts", []):
            if mount["mount_path"].rstrip("/") != _SHM_PATH:
                continue
            volume = volumes.get(mount["name"], {})
            shm["volume"] = mount["name"]
            shm["medium"] = volume.get("medium", "")
            if volume.get("type") == "emptyDir" and volume.get("medium") == "Memory":
                shm["mounted"] = True
                if "size_limit_bytes" in volume:
                    shm["size_limit_bytes"] = volume["size_limit_bytes"]
            for index, record in enumerate(facts.data["pod"]["volumes"]):
                if record is volume:
                    origin = facts.origins.get(("pod", "volumes", index), origin)
                    size_origin = facts.origins.get(("pod", "volumes", index, "size_limit_bytes"))
                    if size_origin is not None:
                        facts.origins[("pod", "shm", "size_limit_bytes")] = size_origin
            break
    facts.put(("pod", "shm"), shm, origin)
