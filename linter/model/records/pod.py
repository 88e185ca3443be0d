"""The ``Pod`` record of a workload: containers, resources, QoS, env, hooks; volumes and
/dev/shm from ``pod_volumes.py``.

Input is a pod spec (plain data) and ``locate(path)`` giving the origin of a path inside
it; each value of the records carries the origin of what it was read from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from linter.lazyregex import lazy_compile
from linter.model.facts import quantities as q
from linter.model.records import resources as res
from linter.model.records.located import Located, value_of
from linter.model.records.paths import Locate
from linter.model.records.pod_records import (
    Container,
    EnvRef,
    EnvSource,
    Mount,
    Pod,
    Resources,
    Volume,
)
from linter.model.records.pod_volumes import pod_volumes, shm_of
from linter.model.records.probes import add_pre_stop, probes_of
from linter.positions import Origin, PathT

# A redirection or tee into a cgroup memory file. The path may be built by the shell:
# ``pod$(echo $POD_UID | tr - _).slice``, ``${POD_CGROUP}``, or backquotes, whose spaces
# and pipes belong to the path. The alternatives start differently, so a long line that
# writes nothing is scanned once, without backtracking between them.
_CGROUP_WRITE = lazy_compile(
    r"(?:>>?|\btee(?:\s+-a)?)\s*[\"']?"
    r"(?:\$\([^()]*\)|\$\{[^}]*\}|`[^`]*`|\$(?![({])|[^\s;|&\"'$`])*"
    r"(memory\.(?:high|max|min|low))\b"
)


class ContainerView(NamedTuple):
    """A container of the pod: where it sits, its raw spec and its record."""

    position: int
    init: bool
    path: PathT  # path of the container in the pod spec
    spec: Mapping[str, Any]
    record: Located[Container]


def pod_record(spec: Mapping[str, Any], locate: Locate) -> tuple[Pod, list[ContainerView]]:
    """The pod's record and a view of each of its containers."""
    volumes = pod_volumes(spec, locate)
    pod = Pod(volumes=volumes)
    by_name = {v.value.name.value: v.value for v in volumes.value}
    views: list[ContainerView] = []
    for key, init, target in (
        ("initContainers", True, "init_containers"),
        ("containers", False, "containers"),
    ):
        items = spec.get(key)
        if not isinstance(items, list):
            continue
        group: list[Located[Container]] = []
        setattr(pod, target, Located(group, locate((key,))))
        for index, container in enumerate(items):
            if not isinstance(container, Mapping):
                continue
            record = _container(container, (key, index), locate, by_name, init)
            group.append(record)
            views.append(ContainerView(index, init, (key, index), container, record))
    _pod_level(spec, locate, pod, views, by_name)
    return pod, views


def _pod_level(
    spec: Mapping[str, Any],
    locate: Locate,
    pod: Pod,
    views: list[ContainerView],
    volumes: Mapping[str, Volume],
) -> None:
    containers = [v.spec.get("resources") for v in views]
    pod_resources = spec.get("resources")
    pod.qos_class = Located(res.qos_class(containers, pod_resources), locate(()))
    if isinstance(pod_resources, Mapping) and pod_resources:
        pod.resources = located_resources(pod_resources, locate, ("resources",))
    for key, name in (
        ("hostIPC", "host_ipc"),
        ("hostNetwork", "host_network"),
        ("hostPID", "host_pid"),
    ):
        value = spec.get(key)
        if isinstance(value, bool):
            setattr(pod, name, Located(value, locate((key,))))
    grace = q.to_int(spec.get("terminationGracePeriodSeconds"))
    if grace is not None:
        pod.termination_grace_period_seconds = Located(
            grace, locate(("terminationGracePeriodSeconds",))
        )
    for key, name in (
        ("runtimeClassName", "runtime_class_name"),
        ("serviceAccountName", "service_account_name"),
    ):
        if isinstance(spec.get(key), str):
            setattr(pod, name, Located(spec[key], locate((key,))))
    selector = spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        pod.node_selector = Located(
            {str(k): Located(str(v), locate(("nodeSelector", k))) for k, v in selector.items()},
            locate(("nodeSelector",)),
        )
    claims = spec.get("resourceClaims")
    if isinstance(claims, list) and claims:
        pod.resource_claims = Located(True, locate(("resourceClaims",)))
    for view in views:
        resources = view.spec.get("resources")
        if (
            pod.resource_claims is None
            and isinstance(resources, Mapping)
            and resources.get("claims")
        ):
            pod.resource_claims = Located(True, locate((*view.path, "resources", "claims")))
    # Derived from the containers: at the first container that makes it true.
    every = pod.all_containers()
    pod.privileged = _any_of([c.privileged for c in every], locate(()))
    pod.writes_cgroup_memory = _any_of([c.writes_cgroup_memory for c in every], locate(()))
    pod.shm = shm_of(pod, spec.get("hostIPC") is True, volumes, locate(()))


def _any_of(facts: list[Located[bool]], otherwise: Origin) -> Located[bool]:
    """True at the first fact that is true; false at ``otherwise``."""
    return next((fact for fact in facts if fact.value is True), Located(False, otherwise))


def _container(
    container: Mapping[str, Any],
    cpath: PathT,
    locate: Locate,
    volumes: Mapping[str, Volume],
    init: bool,
) -> Located[Container]:
    def at(*sub: str | int) -> Origin:
        return locate((*cpath, *sub))

    def text_list(key: str) -> Located[list[str]] | None:
        items = container.get(key)
        return Located([_text(p) for p in items], at(key)) if isinstance(items, list) else None

    security = container.get("securityContext")
    privileged = isinstance(security, Mapping) and security.get("privileged") is True
    words = [container.get(key) for key in ("command", "args")]
    text = " ".join(_text(p) for part in words if isinstance(part, list) for p in part)
    files = sorted(set(_CGROUP_WRITE.findall(text)))
    env, secrets, refs, env_from = _env(container, cpath, locate)
    mounts, cgroup = _mounts(container, cpath, locate, volumes)
    record = Container(
        name=Located(str(container.get("name", "")), at("name")),
        image=Located(container["image"], at("image"))
        if isinstance(container.get("image"), str)
        else None,
        is_init=Located(init, at()),
        is_server=Located(False, at()),
        sidecar=Located(True, at("restartPolicy"))
        if init and container.get("restartPolicy") == "Always"
        else None,
        command=text_list("command"),
        args=text_list("args"),
        resources=located_resources(container.get("resources"), locate, (*cpath, "resources")),
        env=env,
        env_from_secret=secrets,
        env_refs=refs,
        env_from=env_from,
        probes=probes_of(container, cpath, locate),
        privileged=Located(privileged, at("securityContext", "privileged") if privileged else at()),
        mounts=mounts,
        mounts_host_cgroup=cgroup,
        writes_cgroup_memory=Located(bool(files), at("command") if files else at()),
        cgroup_memory_files=Located(files, at("command")) if files else None,
    )
    add_pre_stop(container, cpath, locate, record)
    if isinstance(security, Mapping) and isinstance(security.get("capabilities"), Mapping):
        added = security["capabilities"].get("add")
        if isinstance(added, list):
            record.capabilities_add = Located(
                [str(c) for c in added], at("securityContext", "capabilities", "add")
            )
    return Located(record, at())


def located_resources(raw: object, locate: Locate, at: PathT) -> Located[Resources]:
    """Resources in numbers (``resources.normalise``), each at its own quantity."""
    plain = res.normalise(raw)
    record = Resources()
    for section in ("requests", "limits"):
        if section in plain:
            values = {
                name: Located(value, locate((*at, section, name)))
                for name, value in plain[section].items()
            }
            setattr(record, section, Located(values))
    if "invalid" in plain:
        record.invalid = Located(plain["invalid"])
    return Located(record, locate(at))


def _text(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)


def _env(
    container: Mapping[str, Any], cpath: PathT, locate: Locate
) -> tuple[
    Located[dict[str, Located[str]]],
    Located[list[str]],
    Located[dict[str, Located[EnvRef]]],
    Located[list[Located[EnvSource]]],
]:
    env: dict[str, Located[str]] = {}
    secrets: list[str] = []
    refs: dict[str, Located[EnvRef]] = {}
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
                source_path = (*cpath, "env", index, "valueFrom", kind)
                named = isinstance(ref, Mapping) and "name" in ref
                refs[name] = Located(
                    EnvRef(
                        type=Located(kind, locate(source_path)),
                        name=Located(
                            str(ref.get("name", "")) if isinstance(ref, Mapping) else "",
                            locate((*source_path, "name")) if named else None,
                        ),
                    ),
                    origin,
                )
                if kind == "secretKeyRef":
                    secrets.append(name)
                continue
            env[name] = Located(_text(item.get("value")), origin)
    sources: list[Located[EnvSource]] = []
    env_from = container.get("envFrom")
    if isinstance(env_from, list):
        for index, item in enumerate(env_from):
            if isinstance(item, Mapping):
                for kind in ("configMapRef", "secretRef"):
                    ref = item.get(kind)
                    if isinstance(ref, Mapping):
                        at_ref = (*cpath, "envFrom", index, kind)
                        name_at = locate((*at_ref, "name")) if "name" in ref else None
                        source = EnvSource(
                            type=Located(kind, locate(at_ref)),
                            name=Located(str(ref.get("name", "")), name_at),
                        )
                        sources.append(Located(source, locate((*cpath, "envFrom", index))))
    at = locate((*cpath, "env"))
    return (
        Located(env, at),
        Located(secrets, at),
        Located(refs, at),
        Located(sources, locate((*cpath, "envFrom"))),
    )


def _mounts(
    container: Mapping[str, Any],
    cpath: PathT,
    locate: Locate,
    volumes: Mapping[str, Volume],
) -> tuple[Located[list[Located[Mount]]], Located[bool]]:
    mounts: list[Located[Mount]] = []
    cgroup: Origin | None = None
    items = container.get("volumeMounts")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                continue
            base = (*cpath, "volumeMounts", index)

            def key_at(
                key: str, base: PathT = base, item: Mapping[str, Any] = item
            ) -> Origin | None:
                return locate((*base, key)) if key in item else None

            record = Mount(
                name=Located(str(item.get("name", "")), key_at("name")),
                mount_path=Located(str(item.get("mountPath", "")), key_at("mountPath")),
                read_only=Located(True, key_at("readOnly"))
                if item.get("readOnly") is True
                else None,
            )
            mounts.append(Located(record, locate(base)))
            volume = volumes.get(record.name.value)
            kind = value_of(volume.type) if volume is not None else None
            path = (value_of(volume.path) or "") if volume is not None else ""
            if (
                kind == "hostPath" and path.rstrip("/") in ("/sys/fs/cgroup", "/sys/fs", "/sys")
            ) or path.startswith("/sys/fs/cgroup/"):
                cgroup = cgroup or locate(base)
    at = locate((*cpath, "volumeMounts"))
    return Located(mounts, at), Located(cgroup is not None, cgroup or at)
