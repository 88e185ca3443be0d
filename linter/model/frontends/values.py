"""Helm values (and other non-Kubernetes YAML) → workloads, whatever the chart's layout.

Public entry: ``workloads_from_values(data, locate, label, settings)`` for values that are
already merged (the Helm front end passes ``locate`` with the provenance of every path).
A packaged or user chart profile that matches wins; otherwise the heuristics of
``values_sections.py`` find the server's section: the mapping whose ``image`` is a known
server image, or whose ``command``/``args`` start a server, or that holds serving keys
(``maxModelLen``, ``max_model_len``, ``max-model-len``, ``MAX_TOTAL_TOKENS``) in any case
style. Those keys become the server's settings (``SettingInput``), each at the line of
its key; the section's ``command``/``args`` are the container's command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.engine import command as cmd
from linter.model.engine.setting_input import SettingInput
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.facts import gpus
from linter.model.frontends.build import (
    Meta,
    add_tree_grpc,
    build_workloads,
    grpc_of_tree,
)
from linter.model.frontends.nim import nim_chart_additions
from linter.model.frontends.profile_apply import PodPatch, apply_profile
from linter.model.frontends.profiles import Profile, matching_profile
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.frontends.value_flags import mark_compose_command, note_unjudged
from linter.model.frontends.values_pod import env_facts, gpu_products, is_probe, volume_facts, words
from linter.model.frontends.values_sections import (
    ARG_KEYS,
    CMD_KEYS,
    image_text,
    is_nim_chart,
    named_as_compose,
    named_as_values,
    node_at,
    server_sections,
    setting_for,
    setting_keys,
)
from linter.model.records.exposure import compose_exposure, values_exposure
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.records import Engine, Exposure, Grpc, ServingModel
from linter.model.records.workload import Workload
from linter.positions import PathT, format_path

_COMPOSE_KEYS = (
    "environment",
    "deploy",
    "ipc",
    "shm_size",
    "runtime",
    "restart",
    "depends_on",
    "container_name",
)
_POD_KEYS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "hostIPC",
    "terminationGracePeriodSeconds",
    "runtimeClassName",
)
_C: PathT = ("containers", 0)


def workloads_from_values(
    data: Any,
    locate: Locate,
    label: str,
    settings: ModelSettings = DEFAULT_SETTINGS,
    engine_args_of: str = "",
    profile: Profile | None = None,
    patch: PodPatch | None = None,
) -> list[Workload]:
    """Workloads of a values tree; ``locate(path)`` gives the origin of any path in it.

    ``engine_args_of``: the tree is known to be that server's engine arguments (every key
    is read as a setting, see ``triton_vllm_engine_args``). ``profile``: the chart is known
    (a GitOps wrapper named it), so its profile applies whatever the values hold;
    ``patch`` changes each pod the profile assembles (a Flux post-renderer)."""
    if not isinstance(data, Mapping):
        return []
    profile = profile or matching_profile(data, settings.profile_dirs)
    out: list[Workload] = []
    if engine_args_of:
        out = _section_workloads(
            data, data, (), engine_args_of, locate, label, settings, TRITON_VLLM_KIND
        )
    elif profile is not None:
        out = apply_profile(profile, data, locate, label, settings, patch)
    else:
        for section, server in server_sections(data):
            node = node_at(data, section)
            if isinstance(node, Mapping):
                out.extend(_section_workloads(data, node, section, server, locate, label, settings))
    if out:
        note_unjudged(out, data, locate, _unproven)
    facts = grpc_of_tree(data, locate)
    for workload in out:
        add_tree_grpc(workload, facts)
    if not out and not engine_args_of and _has_keepalive(facts):
        out.append(_grpc_settings_workload(facts, locate, label))
    return out


def _unproven(path: PathT) -> bool:
    # Without the chart's templates no values key is shown to reach the server's args.
    return False


GRPC_SETTINGS_KIND = "GrpcSettings"


def _has_keepalive(facts: Grpc) -> bool:
    return bool(facts.server or facts.client)


def _grpc_settings_workload(facts: Grpc, locate: Locate, label: str) -> Workload:
    """Values that configure gRPC keepalive but run no inference server of their own (a
    gateway's or client's chart): the keepalive rules still compare both sides."""
    anchor = locate(())
    record = ServingModel(
        id=Located(label, anchor),
        kind=Located(GRPC_SETTINGS_KIND, anchor),
        name=Located(label.rsplit("/", 1)[-1], anchor),
        source=Located("helm-values", anchor),
        # No server: the rules that judge one do not apply.
        engine=Located(Engine(), anchor),
        grpc=Located(facts),
    )
    return Workload(label, record, anchor)


TRITON_VLLM_KIND = "TritonVLLMModel"


def triton_vllm_engine_args(data: Any, name: str) -> bool:
    """``<model>/<version>/model.json`` of a Triton model served by the vLLM backend: a JSON
    map handed to vLLM's ``AsyncEngineArgs`` as keyword arguments
    (https://github.com/triton-inference-server/vllm_backend/blob/v24.08/src/model.py#L144-L160,
    the tutorial layout ``model_repository/vllm_model/1/model.json``)."""
    parts = name.replace("\\", "/").rsplit("/", 2)
    return (
        len(parts) == 3
        and parts[2] == "model.json"
        and parts[1].isdigit()
        and isinstance(data, Mapping)
        and isinstance(data.get("model"), str)
    )


def _section_workloads(
    data: Mapping[str, Any],
    node: Mapping[str, Any],
    section: PathT,
    server: str,
    locate: Locate,
    label: str,
    settings: ModelSettings,
    kind: str = "",
) -> list[Workload]:
    pod = SyntheticPod(locate(section))
    at = lambda *rest: locate((*section, *rest))  # noqa: E731
    pod.set((*_C, "name"), server or "server", at())
    # A Docker Compose service (services.<name> with Compose's own keys, or any service of
    # a file Compose finds by its name): a container, not a Kubernetes pod.
    source = label.removeprefix("file:").split("#", 1)[0]
    compose = (
        len(section) == 2
        and section[0] == "services"
        and (any(key in node for key in _COMPOSE_KEYS) or named_as_compose(source))
    )
    image = image_text(node)
    if image and compose:
        # As Compose reads it: the project's .env, else the defaults (${TAG:-latest}).
        from linter.model.frontends.compose import project_env  # only for Compose files

        image = cmd.expand_shell_vars(image, project_env(source))
    if image:
        raw = node.get("image")
        where: PathT = ("image",)
        if isinstance(raw, Mapping):
            where = ("image", "tag") if raw.get("tag") else ("image", "imageName")
            if "imageName" not in raw and not raw.get("tag"):
                where = ("image",)
        pod.set((*_C, "image"), image, at(*where))
    keyed = _command_and_args(node, section, server, at, pod, compose)
    env_facts(node, at, pod)
    for key in ("resources", "livenessProbe", "readinessProbe", "startupProbe"):
        value = node.get(key)
        if isinstance(value, Mapping) and value and (key == "resources" or is_probe(value)):
            pod.put_tree((*_C, key), dict(value), locate, (*section, key))
    volume_facts(node, section, locate, pod)
    if server == "nim" and is_nim_chart(node):
        nim_chart_additions(node, at, pod)
    for key in _POD_KEYS:
        if node.get(key) not in (None, "", {}, []):
            pod.put_tree((key,), node[key], locate, (*section, key))
    if node.get("ipc") == "host" and "hostIPC" not in node:
        pod.set(("hostIPC",), True, at("ipc"))  # Compose: the host's IPC namespace and /dev/shm
    gpu_products(node, at, pod)
    _image_gpus(node, at, pod)
    if compose:
        _compose_gpus(node, at, pod)
        _compose_healthcheck(node, at, pod)
    replicas = next((k for k in ("replicaCount", "replicas") if isinstance(node.get(k), int)), "")
    kind = kind or (
        "ServerConfig"
        if not image
        and not node.get("resources")
        and not section
        and not named_as_values(label.removeprefix("file:").split("#", 1)[0])
        else "HelmValues"
    )
    ident = f"{label}:{format_path(section)}" if section else label
    meta = Meta(
        ident,
        kind,
        str(section[-1]) if section else label,
        at(),
        "helm-values" if kind == "HelmValues" else "server-config",
        replicas=node.get(replicas) if replicas else None,
        replicas_origin=at(replicas) if replicas else None,
        server_hint=server,
        server_known=bool(server),
        setting_inputs=keyed,
        compose=compose,
    )
    workloads = build_workloads(pod.spec, pod.locate, meta, settings)
    # A chart's root values: its own Service and Ingress, as `helm create` lays them out.
    exposed = values_exposure(node, locate) if kind == "HelmValues" and not section else []
    for workload in workloads if exposed else ():
        workload.record.exposure = Located(
            [Located(Exposure.of(entry), origin) for entry, origin in exposed]
        )
    if compose:
        mark_compose_command(workloads)
        published = compose_exposure(node, locate, section)
        for workload in workloads if published else ():
            workload.record.exposure = Located(
                [Located(Exposure.of(entry), origin) for entry, origin in published]
            )
    return workloads


def _image_gpus(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    """Triton's charts take the GPU count from ``image.numGpus`` into ``nvidia.com/gpu``
    limits and the image from ``image.imageName`` (https://github.com/triton-inference-server/server/blob/v2.71.0/deploy/aws/templates/deployment.yaml#L52-L57;
    deploy/fleetcommand, deploy/k8s-onprem and deploy/gke-marketplace-app alike)."""
    image = node.get("image")
    count = image.get("numGpus") if isinstance(image, Mapping) else None
    if not isinstance(count, int) or isinstance(count, bool):
        return
    limits = pod.spec.get("containers", [{}])[0].get("resources", {}).get("limits", {})
    if any(gpus.is_gpu_resource(str(name)) for name in limits):
        return
    pod.set((*_C, "resources", "limits", "nvidia.com/gpu"), count, at("image", "numGpus"))


def _compose_healthcheck(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    """A Compose service's ``healthcheck.test`` as the exec probe it amounts to (its
    status gates ``depends_on: {condition: service_healthy}`` as readiness gates a
    Service): ``[CMD, …]`` runs the command, ``[CMD-SHELL, …]`` and a string run a shell
    (https://docs.docker.com/reference/compose-file/services/#healthcheck)."""
    health = node.get("healthcheck")
    test = health.get("test") if isinstance(health, Mapping) else None
    if isinstance(test, str) and test.strip():
        command = ["/bin/sh", "-c", test]
    elif isinstance(test, list) and len(test) >= 2 and test[0] in ("CMD", "CMD-SHELL"):
        words = [str(word) for word in test[1:]]
        command = words if test[0] == "CMD" else ["/bin/sh", "-c", " ".join(words)]
    else:
        return  # none, NONE (disabled) or a form Compose refuses
    probe = {"exec": {"command": command}}
    pod.set((*_C, "readinessProbe"), probe, at("healthcheck", "test"))


def _compose_gpus(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    """A Compose service's GPUs: ``deploy.resources.reservations.devices`` entries with the
    ``gpu`` capability, as ``count`` or ``device_ids``
    (https://docs.docker.com/compose/how-tos/gpu-support/); ``count: all`` is every GPU
    of the host, a number the file does not tell."""
    devices = node_at(node, ("deploy", "resources", "reservations", "devices"))
    if not isinstance(devices, list):
        return
    total, where = 0, None
    for index, device in enumerate(devices):
        if not isinstance(device, Mapping) or "gpu" not in (device.get("capabilities") or ()):
            continue
        count, ids = device.get("count"), device.get("device_ids")
        path = ("deploy", "resources", "reservations", "devices", index)
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            total, where = total + count, (*path, "count")
        elif isinstance(ids, list) and ids:
            total, where = total + len(ids), (*path, "device_ids")
        else:
            return  # `all`, or no number: the host's GPUs, unknown here
    if total and where is not None:
        pod.set((*_C, "resources", "limits", "nvidia.com/gpu"), total, at(*where))


def _command_and_args(
    node: Mapping[str, Any],
    section: PathT,
    server: str,
    at: Any,
    pod: SyntheticPod,
    compose: bool = False,
) -> tuple[SettingInput, ...]:
    """The section's command line into the container; its serving keys as settings.

    In a Compose service ``entrypoint`` replaces the image's entrypoint and ``command``
    its arguments (https://docs.docker.com/reference/compose-file/services/#entrypoint),
    as a pod's ``command`` and ``args`` do."""
    image = node.get("image")
    entrypoint = node.get("entrypoint") if compose else None
    sources: list[tuple[str, tuple[Any, ...], Any]] = [
        ("command", (key,), node.get(key)) for key in CMD_KEYS
    ]
    if entrypoint not in (None, "", []):
        sources = [
            ("command", ("entrypoint",), entrypoint),
            *(("args", (key,), node.get(key)) for key in CMD_KEYS),
        ]
    if isinstance(image, Mapping):
        sources.append(("command", ("image", "command"), image.get("command")))
    keys = setting_keys(node, server)
    keyed = tuple(
        item for path, value in keys if (item := _keyed(server, section, path, value, at))
    )
    sources.extend(("args", (key,), node.get(key)) for key in ARG_KEYS)
    # Argument lists kept beside the serving keys (`vllm.extraArgs`, `vllmConfig.extraArgs`).
    holders = dict.fromkeys(path[:-1] for path, _ in keys if len(path) > 1)
    sources.extend(
        ("args", (*holder, key), node_at(node, (*holder, key)))
        for holder in holders
        for key in ARG_KEYS
    )
    for target, path, value in sources:
        if target == "command" and words(value)[:1] and words(value)[0].startswith("-"):
            target = "args"  # compose-style `command: --flag value` feeds the entrypoint
        if isinstance(value, list):
            for index, item in enumerate(value):
                if not isinstance(item, dict | list) and item is not None:
                    pod.append((*_C, target), str(item), at(*path, index))
        elif isinstance(value, str) and value.strip():
            for word in words(value):
                pod.append((*_C, target), word, at(*path))
    return keyed


def _keyed(server: str, section: PathT, path: PathT, value: Any, at: Any) -> SettingInput | None:
    """A serving key as a setting, passed as the setting's flag (charts of this layout
    render ``key: value`` as ``--flag value``, and a boolean as ``--flag``/``--no-flag``).
    A setting with no flag (NIM's variables) reaches the server only through the
    section's environment, which ``env_facts`` reads."""
    setting = setting_for(server, path)
    if setting is None or not setting.flags:
        return None
    flag = setting.flags[0]
    if setting.kind == "bool" and str(value).lower() in ("false", "0"):
        flag = "--no-" + flag[2:]
    return SettingInput(setting, value, at(*path), format_path((*section, *path)), flag)
