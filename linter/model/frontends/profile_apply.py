"""Run a chart-layout profile on values: one synthetic pod per entry, with origins.

Builders: ``container`` (the profile says how values become one server container: image,
command, args, env, resources, probes, pod fields, /dev/shm), ``pod-spec`` (the entry is
already a pod-spec-like mapping with ``containers``), ``kubeai-model`` and
``app-template`` (a bjw-s controller: ``model/app_template.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from linter.model.engine import registry
from linter.model.engine.args import convert
from linter.model.engine.setting_input import SettingInput, value_text
from linter.model.engine.settings import ModelSettings
from linter.model.facts import quantities as q
from linter.model.frontends.build import Hint, Meta, build_workloads, relative
from linter.model.frontends.profile_probes import probes_off
from linter.model.frontends.profiles import MISSING, Profile, get_path
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.frontends.value_flags import key_origins, mark_reaching
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT, format_path, parse_path

_C: PathT = ("containers", 0)
# A change to each pod assembled, before it is read (a Flux post-renderer,
# ``gitops/postrender.py``): (pod spec, locate, kind rendered) -> (pod spec, locate).
PodPatch = Callable[[dict[str, Any], Locate, str], tuple[dict[str, Any], Locate]]


class _Ctx:
    def __init__(
        self, data: Any, entry: Any, path: PathT, locate: Locate, release: str = ""
    ) -> None:
        self.data, self.entry, self.path, self.locate = data, entry, path, locate
        self.release = release

    def resolve(self, source: Mapping[str, Any] | None) -> tuple[Any, Origin | None]:
        if not source or ("when" in source and not self.holds(source["when"])):
            return MISSING, None
        if "key" in source:
            value = get_path(self.entry, source["key"])
            if value is not MISSING and value is not None:
                return value, self.locate((*self.path, *parse_path(source["key"])))
        if "root" in source:
            value = get_path(self.data, source["root"])
            if value is not MISSING and value is not None:
                return value, self.locate(parse_path(source["root"]))
        if "value" in source:
            return source["value"], self.locate(self.path)
        if "default" in source:
            return source["default"], self.locate(self.path)
        return MISSING, None

    def source_path(self, source: Mapping[str, Any]) -> PathT | None:
        """The values path a source read its value from (None for literals)."""
        if "key" in source and get_path(self.entry, source["key"]) not in (MISSING, None):
            return (*self.path, *parse_path(source["key"]))
        if "root" in source and get_path(self.data, source["root"]) not in (MISSING, None):
            return parse_path(source["root"])
        return None

    def holds(self, condition: Mapping[str, Any]) -> bool:
        if "chartVersions" in condition and not self.in_versions(condition["chartVersions"]):
            return False
        if "key" not in condition and "root" not in condition and "chartVersions" in condition:
            return True
        value, _ = self.resolve({k: condition[k] for k in ("key", "root") if k in condition})
        result = (
            value is not MISSING
            and value not in ("", [], {})
            and ("equals" not in condition or _same(value, condition["equals"]))
        )
        unless = condition.get("unless")
        return result and not (unless is not None and self.holds(unless))

    def in_versions(self, versions: str) -> bool:
        """Whether the release's chart version is in ``versions``; an unknown version is
        taken to be the newest (a values file alone does not say its chart's)."""
        from linter.model.frontends.chart_versions import contains, open_ended, parse

        if self.release and parse(self.release) is not None:
            return contains(versions, self.release)
        return open_ended(versions)


def _same(value: Any, expected: Any) -> bool:
    if isinstance(expected, bool) or isinstance(value, bool):
        return q.to_bool(value) is not None and q.to_bool(value) == q.to_bool(expected)
    return str(value) == str(expected)


def apply_profile(
    profile: Profile,
    data: Any,
    locate: Locate,
    label: str,
    settings: ModelSettings,
    patch: PodPatch | None = None,
) -> list[Workload]:
    out: list[Workload] = []
    for spec in profile.spec.get("workloads", []):
        for path, entry in _entries(spec, data):
            ctx = _Ctx(data, entry, path, locate, profile.release)
            if any(ctx.holds(rule) for rule in spec.get("skipWhen", [])):
                continue
            workloads = _build(profile, spec, ctx, label, settings, patch)
            off = probes_off(spec, data, entry, path, locate)
            for workload in workloads if off else ():
                workload.record.probes_off = Located(off)
            out.extend(workloads)
    return out


def _read(
    pod: Mapping[str, Any],
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
    patch: PodPatch | None,
) -> list[Workload]:
    if patch is None:
        return build_workloads(pod, locate, meta, settings)
    changed, where = patch(dict(pod), locate, meta.renders)
    return build_workloads(changed, where, meta, settings)


def _entries(spec: Mapping[str, Any], data: Any) -> Iterator[tuple[PathT, Any]]:
    if "sections" in spec:
        for section in spec["sections"]:
            value = get_path(data, section)
            if isinstance(value, Mapping):
                yield parse_path(section), value
        return
    base = parse_path(spec["forEach"])
    value = get_path(data, spec["forEach"])
    if isinstance(value, list):
        yield from (((*base, i), item) for i, item in enumerate(value) if isinstance(item, Mapping))
    elif isinstance(value, Mapping):
        yield from (((*base, k), item) for k, item in value.items() if isinstance(item, Mapping))


def _build(
    profile: Profile,
    spec: Mapping[str, Any],
    ctx: _Ctx,
    label: str,
    settings: ModelSettings,
    patch: PodPatch | None,
) -> list[Workload]:
    builder = spec.get("builder", "container")
    server = str(spec.get("server", ""))
    hints = _hints(spec, ctx, server)
    if builder == "pod-spec":
        meta = _meta(profile, spec, ctx, label, server, hints)
        return _read(ctx.entry, relative(ctx.locate, ctx.path), meta, settings, patch)
    if builder == "kubeai-model":
        from linter.model.frontends.custom import (
            kubeai_pod,  # the custom resources' module: KubeAI only
        )

        pod, server, extra = kubeai_pod(ctx.entry, ctx.path, ctx.locate)
        meta = _meta(profile, spec, ctx, label, server, (*hints, *extra))
        return _read(pod.spec, pod.locate, meta, settings, patch)
    if builder == "app-template":
        from linter.model.frontends import app_template

        merge = bool(spec.get("defaultPodOptionsStrategy"))
        pod = app_template.controller_pod(
            ctx.data, ctx.entry, ctx.path, ctx.locate, merge_options=merge
        )
        kind = app_template.KINDS.get(str(ctx.entry.get("type") or "deployment"), "Deployment")
        meta = dataclasses.replace(_meta(profile, spec, ctx, label, server, hints), renders=kind)
        workloads = _read(pod.spec, pod.locate, meta, settings, patch)
        # The chart prints a container's command and args as written.
        at = relative(ctx.locate, ctx.path)
        written = app_template.argument_keys(ctx.entry)
        mark_reaching(workloads, [o for path in written for o in key_origins(ctx.entry, at, path)])
        return workloads
    pod = SyntheticPod(ctx.locate(ctx.path))
    pod.set((*_C, "name"), server or "server", ctx.locate(ctx.path))
    _image(spec, ctx, pod)
    _command(spec, ctx, pod)
    keyed = _args(spec, ctx, pod, server)
    _env(spec, ctx, pod)
    _resources(spec, ctx, pod)
    _pod_fields(spec, ctx, pod)
    meta = _meta(profile, spec, ctx, label, server, hints)
    meta = dataclasses.replace(meta, server_known=bool(server), setting_inputs=keyed)
    workloads = _read(pod.spec, pod.locate, meta, settings, patch)
    # The profile says the chart passes its ``list`` keys into the args as written.
    lists = (parse_path(r["list"]) for r in spec.get("args", []) if "list" in r)
    at = relative(ctx.locate, ctx.path)
    mark_reaching(workloads, [o for path in lists for o in key_origins(ctx.entry, at, path)])
    return workloads


def _meta(
    profile: Profile,
    spec: Mapping[str, Any],
    ctx: _Ctx,
    label: str,
    server: str,
    hints: tuple[Hint, ...],
) -> Meta:
    name, _ = ctx.resolve(spec.get("name"))
    last = ctx.path[-1] if ctx.path else ""
    replicas, replicas_origin = ctx.resolve(spec.get("replicas"))
    multi = "multiNodeWhen" in spec and ctx.holds(spec["multiNodeWhen"])
    count = q.to_int(replicas) if replicas is not MISSING else None
    return Meta(
        f"{label}:{format_path(ctx.path)}",
        "HelmValues",
        str(name if name is not MISSING else last),
        ctx.locate(ctx.path),
        "helm-values",
        replicas=count,
        replicas_origin=replicas_origin if count is not None else None,
        server_hint=server,
        hints=hints,
        multi_node=multi,
        chart_profile=profile.name,
        renders=str(spec.get("renders", "")),
    )


def _hints(spec: Mapping[str, Any], ctx: _Ctx, server: str) -> tuple[Hint, ...]:
    hints = []
    for name, source in spec.get("hints", {}).items():
        value, origin = ctx.resolve(source)
        if value is MISSING or origin is None:
            continue
        setting = registry.by_name(server, name)
        converted = convert(setting.kind, value) if setting else value
        if converted is not None:
            hints.append(Hint(name, converted, origin))
    return tuple(hints)


def _image(spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod) -> None:
    rules = spec.get("image", {})
    image, origin = ctx.resolve(rules.get("image"))
    if image is MISSING:
        repo, repo_origin = ctx.resolve(rules.get("repository"))
        tag, tag_origin = ctx.resolve(rules.get("tag"))
        if repo is MISSING:
            return
        image = f"{repo}:{tag}" if tag is not MISSING and tag != "" else str(repo)
        origin = tag_origin if tag is not MISSING else repo_origin
    pod.set((*_C, "image"), str(image), origin)


def _command(spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod) -> None:
    for source in spec.get("command", []):
        value, origin = ctx.resolve(source)
        if value is not MISSING:
            pod.append((*_C, "command"), value_text(value), origin)


def _args(
    spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod, server: str
) -> tuple[SettingInput, ...]:
    """The profile's ``list`` rules into the container's args (the chart passes those
    lists as written); its ``flag`` rules as settings, in the profile's order."""
    target = (*_C, "args")
    keyed: list[SettingInput] = []
    for rule in spec.get("args", []):
        if "list" in rule:
            items = get_path(ctx.entry, rule["list"])
            if isinstance(items, list):
                for index, item in enumerate(items):
                    if item is not None and not isinstance(item, dict | list):
                        pod.append(
                            target,
                            value_text(item),
                            ctx.locate((*ctx.path, *parse_path(rule["list"]), index)),
                        )
            continue
        value, origin = ctx.resolve(rule)
        if (
            value is MISSING
            and rule.get("boolean")
            and "missing" in rule
            and ("requires" not in rule or get_path(ctx.entry, rule["requires"]) is not MISSING)
        ):
            value = rule["missing"]
            origin = ctx.locate((*ctx.path, *parse_path(rule.get("requires", ""))))
        if value is MISSING or origin is None:
            continue
        item = _keyed(server, rule, value, origin, ctx)
        if item is not None:
            keyed.append(item)
    return tuple(keyed)


def _keyed(
    server: str, rule: Mapping[str, Any], value: Any, origin: Origin, ctx: _Ctx
) -> SettingInput | None:
    """A ``flag`` rule's value as the setting its flag names: ``switch`` passes the bare
    flag when the value is true, ``boolean`` the flag or ``--no-<flag>``."""
    written = registry.normalize_flag(server, str(rule["flag"]))
    setting = registry.by_flag(server, written)
    flag = setting.flags[0] if setting is not None else written
    where = ctx.source_path(rule)
    key = format_path(where) if where is not None else str(rule["flag"])
    if rule.get("switch") or rule.get("boolean"):
        on = q.to_bool(value)
        if on is None and setting is not None:
            # Not read as on or off (a template, a list): reported as a value not read.
            return SettingInput(setting, value, origin, key, flag)
        if on is None or (rule.get("switch") and not on):
            return None
        if not on:
            flag = "--no-" + flag[2:]
        return SettingInput(setting, True if setting is None else value, origin, key, flag)
    return SettingInput(setting, value, origin, key, flag)


def _env(spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod) -> None:
    target = (*_C, "env")
    for rule in spec.get("env", []):
        if "list" in rule:
            base = (*ctx.path, *parse_path(rule["list"]))
            items = get_path(ctx.entry, rule["list"])
            if isinstance(items, list):
                for index, item in enumerate(items):
                    if isinstance(item, Mapping):
                        at = pod.append(target, dict(item), ctx.locate((*base, index)))
                        pod.copy_origins((*target, at), item, ctx.locate, (*base, index))
            elif isinstance(items, Mapping):
                for key, value in items.items():
                    at = pod.append(
                        target,
                        {"name": str(key), "value": value_text(value)},
                        ctx.locate((*base, key)),
                    )
                    pod.origins[(*target, at, "value")] = ctx.locate((*base, key))
            continue
        if "when" in rule and not ctx.holds(rule["when"]):
            continue
        when_key = rule["when"].get("key", "") if "when" in rule else ""
        origin = ctx.locate((*ctx.path, *parse_path(when_key)))
        entry: dict[str, Any] = {"name": rule["name"]}
        if rule.get("secret"):
            entry["valueFrom"] = {"secretKeyRef": {"name": "", "key": rule["name"].lower()}}
        elif "key" in rule:  # the value of a values key (lmcacheConfig.cpuOffloadingBufferSize)
            value, found_at = ctx.resolve(rule)
            if value is MISSING or value in (None, "") or found_at is None:
                continue
            entry["value"] = value_text(value)
            origin = found_at
        else:
            entry["value"] = str(rule.get("value", ""))
        at = pod.append(target, entry, origin)
        if "value" in entry:
            pod.origins[(*target, at, "value")] = origin


def _resources(spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod) -> None:
    rules = spec.get("resources")
    if not rules:
        return
    target = (*_C, "resources")
    override, _ = ctx.resolve(rules.get("override"))
    where = ctx.source_path(rules.get("override") or {})
    if isinstance(override, Mapping) and override and where is not None:
        pod.put_tree(target, dict(override), ctx.locate, where)
        return
    for section in ("requests", "limits"):
        for name, source in rules.get(section, {}).items():
            value, at = ctx.resolve(source)
            if value is not MISSING:
                pod.set((*target, section, name), value, at)
    gpu = rules.get("gpu")
    if gpu:
        count, at = ctx.resolve(gpu.get("count"))
        resource, _ = ctx.resolve(gpu.get("resource"))
        number = q.parse_quantity(count) if count is not MISSING else None
        if number is not None and number > 0 and resource is not MISSING:
            pod.set((*target, "requests", str(resource)), count, at)
            pod.set((*target, "limits", str(resource)), count, at)


def _pod_fields(spec: Mapping[str, Any], ctx: _Ctx, pod: SyntheticPod) -> None:
    for probe, source in spec.get("probes", {}).items():
        value, _ = ctx.resolve(source)
        where = ctx.source_path(source)
        if isinstance(value, Mapping) and value and where is not None:
            pod.put_tree((*_C, probe), dict(value), ctx.locate, where)
    mounts = spec.get("mounts", {}).get("list")
    _copy_list(ctx, pod, mounts, (*_C, "volumeMounts"))
    fields = dict(spec.get("pod", {}))
    _copy_list(ctx, pod, fields.pop("volumes", {}).get("list"), ("volumes",))
    terms = fields.pop("nodeSelectorTerms", None)
    value, origin = ctx.resolve(terms)
    if isinstance(value, list) and value:
        pod.set(
            (
                "affinity",
                "nodeAffinity",
                "requiredDuringSchedulingIgnoredDuringExecution",
                "nodeSelectorTerms",
            ),
            value,
            origin,
        )
    for name, source in fields.items():
        value, origin = ctx.resolve(source)
        if value is not MISSING and value not in ("", [], {}):
            pod.set((name,), value, origin)
    shm = spec.get("shm")
    if shm and ctx.holds(shm.get("when", {})):
        size, origin = ctx.resolve(shm.get("sizeLimit"))
        volume = {"name": "shm", "emptyDir": {"medium": "Memory"}}
        if size is not MISSING:
            volume["emptyDir"]["sizeLimit"] = size  # type: ignore[index]
        index = pod.append(("volumes",), volume, origin)
        pod.origins[("volumes", index, "emptyDir", "sizeLimit")] = origin or pod.fallback
        when = shm.get("when", {}).get("key", "")
        pod.append(
            (*_C, "volumeMounts"),
            {"name": "shm", "mountPath": "/dev/shm"},
            ctx.locate((*ctx.path, *parse_path(when))),
        )
    init, _ = ctx.resolve(spec.get("initContainer"))
    where = ctx.source_path(spec.get("initContainer") or {})
    if isinstance(init, Mapping) and init and where is not None:
        pod.put_tree(("initContainers", 0), dict(init), ctx.locate, where)


def _copy_list(ctx: _Ctx, pod: SyntheticPod, key: str | None, target: PathT) -> None:
    if not key:
        return
    items = get_path(ctx.entry, key)
    if isinstance(items, list):
        base = (*ctx.path, *parse_path(key))
        for index, item in enumerate(items):
            if isinstance(item, Mapping):
                at = pod.append(target, dict(item), ctx.locate((*base, index)))
                pod.copy_origins((*target, at), item, ctx.locate, (*base, index))
