"""Helm values (and other non-Kubernetes YAML) → workloads, whatever the chart's layout.

Public entry: ``workloads_from_values(data, locate, label, settings)`` for values that are
already merged (the Helm front end passes ``locate`` with the provenance of every path).
A packaged or user chart profile that matches wins; otherwise the heuristics find the
server's section: the mapping whose ``image`` is a known server image, or whose
``command``/``args`` start a server, or that holds serving keys (``maxModelLen``,
``max_model_len``, ``max-model-len``, ``MAX_TOTAL_TOKENS``) in any case style. Those keys
become the server's settings (``SettingInput``), each at the line of its key; the
section's ``command``/``args`` are the container's command line.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Mapping
from typing import Any

from linter.model import command as cmd
from linter.model import gpus, registry
from linter.model.build import (
    Meta,
    add_tree_grpc,
    build_workloads,
    grpc_of_tree,
    server_of_call,
)
from linter.model.exposure import compose_exposure
from linter.model.images import parse_image
from linter.model.located import Located
from linter.model.nim import nim_chart_additions
from linter.model.paths import Locate
from linter.model.profile_apply import apply_profile
from linter.model.profiles import matching_profile
from linter.model.records import Engine, Exposure, Grpc, ServingModel
from linter.model.server import MODEL_SETTING
from linter.model.setting_input import SettingInput
from linter.model.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.synthetic import SyntheticPod
from linter.model.values_pod import env_facts, gpu_products, is_probe, volume_facts, words
from linter.model.workload import Workload
from linter.positions import PathT, format_path
from linter.sources.chartlayout import is_chart

# Subtrees that configure something other than the server container.
_SKIP = frozenset(
    {
        "ingress",
        "service",
        "services_",
        "autoscaling",
        "hpa",
        "keda",
        "servicemonitor",
        "podmonitor",
        "monitoring",
        "prometheus",
        "grafana",
        "serviceaccount",
        "rbac",
        "networkpolicy",
        "poddisruptionbudget",
        "pdb",
        "routerspec",
        "router",
        "cacheserverspec",
        "gateway",
        "global",
        "secrets",
        "persistence",
        "metrics",
        "extrainit",
        "imagepullsecrets",
        "podsecuritycontext",
        "securitycontext",
        "containersecuritycontext",
        "labels",
        "annotations",
        "podannotations",
        "podlabels",
        "deploymentannotations",
        "tolerations",
        "affinity",
        "nodeselector",
        "resources",
        "livenessprobe",
        "readinessprobe",
        "startupprobe",
        "env",
        "extraenv",
        "environment",
        "args",
        "extraargs",
        "command",
        "image",
        "volumes",
        "volumemounts",
        "extravolumes",
        "extravolumemounts",
        "initcontainers",
    }
)
# Files beside Chart.yaml that are the chart's metadata, not values (Helm 2's dependencies).
_CHART_METADATA = frozenset({"chart.yaml", "chart.yml", "requirements.yaml", "requirements.yml"})
# Registry settings too generic to be read from an arbitrary values key (drift does not
# compare them either: the values side cannot show them).
GENERIC_SETTINGS = frozenset(
    {
        "host",
        "hostname",
        "port",
        "config",
        "seed",
        "api_key",
        "revision",
        "tokenizer",
        "usage_stats",
        "payload_limit",
        "json_output",
    }
)
_ARG_KEYS = ("args", "extraArgs", "customArgs", "serverArgs", "extra_args")
_CMD_KEYS = ("command", "customCommand")
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
) -> list[Workload]:
    """Workloads of a values tree; ``locate(path)`` gives the origin of any path in it.

    ``engine_args_of``: the tree is known to be that server's engine arguments (every key
    is read as a setting, see ``triton_vllm_engine_args``)."""
    if not isinstance(data, Mapping):
        return []
    profile = matching_profile(data, settings.profile_dirs)
    out: list[Workload] = []
    if engine_args_of:
        out = _section_workloads(
            data, data, (), engine_args_of, locate, label, settings, TRITON_VLLM_KIND
        )
    elif profile is not None:
        out = apply_profile(profile, data, locate, label, settings)
    else:
        for section, server in _sections(data):
            node = _get(data, section)
            if isinstance(node, Mapping):
                out.extend(_section_workloads(data, node, section, server, locate, label, settings))
    facts = grpc_of_tree(data, locate)
    for workload in out:
        add_tree_grpc(workload, facts)
    if not out and not engine_args_of and _has_keepalive(facts):
        out.append(_grpc_settings_workload(facts, locate, label))
    return out


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


def looks_like_values(data: Any, name: str, settings: ModelSettings = DEFAULT_SETTINGS) -> bool:
    """A YAML mapping that is not a Kubernetes object and has something to serve."""
    if not isinstance(data, Mapping) or ("apiVersion" in data and "kind" in data):
        return False
    return (
        _named_as_values(name)
        or matching_profile(data, settings.profile_dirs) is not None
        or bool(_sections(data))
    )


def _named_as_compose(name: str) -> bool:
    """compose.yaml, docker-compose.yml, compose.prod.yaml, docker-compose.gpu.yml: the
    names Compose reads (https://docs.docker.com/compose/intro/compose-application-model/)."""
    base = os.path.basename(name).lower()
    return base.startswith(("compose.", "compose-", "docker-compose")) and base.endswith(
        (".yaml", ".yml")
    )


def _named_as_values(name: str) -> bool:
    """A file named like Helm values (``values-prod.yaml``), or a YAML mapping beside a
    chart's ``Chart.yaml`` (``gpu-l4.yaml``): Helm's layout keeps only values files there
    besides the chart's own metadata (``helm/layout.py`` looks at the same folder)."""
    base = name.rsplit("/", 1)[-1].lower()
    if "values" in base:
        return True
    if not base.endswith((".yaml", ".yml")) or base in _CHART_METADATA:
        return False
    return is_chart(os.path.dirname(name))


def _get(data: Any, path: PathT) -> Any:
    node = data
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _sections(data: Mapping[str, Any]) -> list[tuple[PathT, str]]:
    """Mappings (depth ≤ 2) that configure a server: by image or command, else by keys."""
    found: list[tuple[PathT, str]] = []
    candidates: list[PathT] = [()]
    for key, value in data.items():
        if isinstance(value, Mapping) and str(key).lower() not in _SKIP:
            candidates.append((key,))
            candidates.extend(
                (key, k)
                for k, v in value.items()
                if isinstance(v, Mapping) and str(k).lower() not in _SKIP
            )
    for path in candidates:
        node = _get(data, path)
        server = _server_of(node)
        if (server or _gpu_container(node)) and not any(
            path[: len(p)] == p and p for p, _ in found
        ):
            found.append((path, server))
    if found:
        return found
    found_keys = {s: _setting_keys(data, s) for s in ("vllm", "sglang", "tgi")}
    best = max(found_keys, key=lambda s: len(found_keys[s]))
    if len(found_keys[best]) < 2:
        return []
    if all(len(path) == 1 for path, _ in found_keys[best]):
        # A flat file is a server's configuration only if it is mostly that server's keys
        # (a TensorRT-LLM LLM-API file also has `model` and `tensor_parallel_size`).
        known = sum(1 for key in data if registry.by_key(best, str(key)))
        if known * 4 < len(data) * 3:
            return []
    return [((), best)]


def _gpu_container(node: Any) -> bool:
    """An image and GPU resources: an accelerator workload even if its server is unknown."""
    if not isinstance(node, Mapping) or not _image_text(node):
        return False
    resources = node.get("resources")
    sections = (
        [resources.get(s) for s in ("limits", "requests")] if isinstance(resources, Mapping) else []
    )
    return any(
        isinstance(s, Mapping) and any(gpus.is_gpu_resource(str(k)) for k in s) for s in sections
    )


# Keys of the nim-llm chart's ``model`` section that no other chart uses: the NGC API key
# and the NIM cache (https://github.com/NVIDIA/nim-deploy/blob/be34031ce621188ab9321949ca4da49b5dc78529/helm/nim-llm/values.yaml).
_NIM_CHART_MODEL_KEYS = ("ngcAPISecret", "ngcAPIKey", "nimCache")


def _is_nim_chart(node: Mapping[str, Any]) -> bool:
    model = node.get("model")
    return isinstance(model, Mapping) and any(k in model for k in _NIM_CHART_MODEL_KEYS)


def _server_of(node: Any) -> str:
    if not isinstance(node, Mapping):
        return ""
    image = _image_text(node)
    server = parse_image(image).server if image else ""
    if not server and _is_nim_chart(node):
        server = "nim"  # the image is often a template (``${model_id}``) in these files
    tokens = [str(t) for key in (*_CMD_KEYS, *_ARG_KEYS) for t in words(node.get(key))]
    if isinstance(node.get("image"), Mapping):
        tokens += [str(t) for t in words(node["image"].get("command"))]
    if tokens:
        from linter.model.args import Token
        from linter.positions import Origin

        origin = Origin("", 1, 1)
        call = cmd.invocation([Token(t, origin) for t in tokens], [], server, {})
        server = server_of_call(call, server)
    return server


def _image_text(node: Mapping[str, Any]) -> str:
    image = node.get("image")
    if isinstance(image, str):
        return image
    if isinstance(image, Mapping) and isinstance(image.get("imageName"), str):
        return image["imageName"]  # Triton's charts: the whole reference, tag included
    if isinstance(image, Mapping) and isinstance(image.get("repository"), str):
        repo = image["repository"]
        if isinstance(image.get("registry"), str) and image["registry"]:
            repo = f"{image['registry'].rstrip('/')}/{repo}"
        tag = image.get("tag")
        return f"{repo}:{tag}" if tag not in (None, "") else repo
    return ""


# Keys of a ``model:`` map that name the model (``model: {name: meta-llama/Llama-3.1-8B}``).
_MODEL_MAP_KEYS = ("name", "id", "repository", "path")


def _model_map_entry(value: Any) -> tuple[str, str] | None:
    """``model: {name: X}`` (or ``id``, ``repository``, ``path``): the key and model id."""
    if not isinstance(value, Mapping):
        return None
    for key in _MODEL_MAP_KEYS:
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            return key, text
    return None


# Chart keys for vLLM's parallelism in the short form charts use (GoogleCloudPlatform's
# gpu-recipes: model.tp_size, model.pp_size): a chart renders them as the flags. Read here
# only, not in live configs, where tp_size is SGLang's own name.
_CHART_ALIASES = {
    "vllm": {
        "tp_size": "tensor_parallel_size",
        "tensor_parallelism": "tensor_parallel_size",
        "pp_size": "pipeline_parallel_size",
        "pipeline_parallelism": "pipeline_parallel_size",
        "dp_size": "data_parallel_size",
    }
}


def _setting_for(server: str, path: PathT) -> registry.Setting | None:
    """The server setting a values key at ``path`` names; ``model.name`` names the model."""
    key = str(path[-1])
    if len(path) > 1 and str(path[-2]).lower() == "model" and key in _MODEL_MAP_KEYS:
        return registry.by_name(server, MODEL_SETTING.get(server, ""))
    alias = _CHART_ALIASES.get(server, {}).get(registry.snake_key(key))
    if alias is not None:
        return registry.by_name(server, alias)
    return registry.by_key(server, key) or (
        registry.by_env(server, key) if server in ("tgi", "nim") else None
    )


def _setting_keys(node: Any, server: str, path: PathT = ()) -> list[tuple[PathT, Any]]:
    """(path, value) of keys naming the server's settings, shallowest first."""
    found: list[tuple[PathT, Any]] = []
    seen: set[str] = set()
    queue: deque[tuple[PathT, Any]] = deque([(path, node)])
    while queue:
        base, current = queue.popleft()
        if not isinstance(current, Mapping):
            continue
        for key, value in current.items():
            lowered = str(key).lower()
            holder = base
            named = _model_map_entry(value) if lowered == "model" else None
            if named is not None:
                holder = (*base, key)
                # Its other keys may set the server too (model: {name: …, tp_size: 8}).
                queue.append((holder, value))
                key, value = named
            elif isinstance(value, Mapping):
                if lowered not in _SKIP:
                    queue.append(((*base, key), value))
                continue
            setting = _setting_for(server, (*holder, key))
            if setting is None or setting.name in GENERIC_SETTINGS or setting.name in seen:
                continue
            if value in (None, "") or (isinstance(value, list) and setting.kind == "multi"):
                continue
            seen.add(setting.name)
            found.append(((*holder, key), value))
    return found


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
        and (any(key in node for key in _COMPOSE_KEYS) or _named_as_compose(source))
    )
    image = _image_text(node)
    if image and compose:
        # As Compose reads it: the project's .env, else the defaults (${TAG:-latest}).
        from linter.model.compose import project_env  # only for Compose files

        image = cmd.expand_shell_vars(image, project_env(source))
    if image:
        raw = node.get("image")
        where: PathT = ("image",)
        if isinstance(raw, Mapping):
            where = ("image", "tag") if raw.get("tag") else ("image", "imageName")
            if "imageName" not in raw and not raw.get("tag"):
                where = ("image",)
        pod.set((*_C, "image"), image, at(*where))
    keyed = _command_and_args(node, section, server, at, pod)
    env_facts(node, at, pod)
    for key in ("resources", "livenessProbe", "readinessProbe", "startupProbe"):
        value = node.get(key)
        if isinstance(value, Mapping) and value and (key == "resources" or is_probe(value)):
            pod.put_tree((*_C, key), dict(value), locate, (*section, key))
    volume_facts(node, section, locate, pod)
    if server == "nim" and _is_nim_chart(node):
        nim_chart_additions(node, at, pod)
    for key in _POD_KEYS:
        if node.get(key) not in (None, "", {}, []):
            pod.put_tree((key,), node[key], locate, (*section, key))
    if node.get("ipc") == "host" and "hostIPC" not in node:
        pod.set(("hostIPC",), True, at("ipc"))  # Compose: the host's IPC namespace and /dev/shm
    gpu_products(node, at, pod)
    _image_gpus(node, at, pod)
    replicas = next((k for k in ("replicaCount", "replicas") if isinstance(node.get(k), int)), "")
    kind = kind or (
        "ServerConfig"
        if not image
        and not node.get("resources")
        and not section
        and not _named_as_values(label.removeprefix("file:").split("#", 1)[0])
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
    if compose:
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


def _command_and_args(
    node: Mapping[str, Any], section: PathT, server: str, at: Any, pod: SyntheticPod
) -> tuple[SettingInput, ...]:
    """The section's command line into the container; its serving keys as settings."""
    image = node.get("image")
    sources: list[tuple[str, tuple[Any, ...], Any]] = [
        ("command", (key,), node.get(key)) for key in _CMD_KEYS
    ]
    if isinstance(image, Mapping):
        sources.append(("command", ("image", "command"), image.get("command")))
    keys = _setting_keys(node, server)
    keyed = tuple(
        item for path, value in keys if (item := _keyed(server, section, path, value, at))
    )
    sources.extend(("args", (key,), node.get(key)) for key in _ARG_KEYS)
    # Argument lists kept beside the serving keys (`vllm.extraArgs`, `vllmConfig.extraArgs`).
    holders = dict.fromkeys(path[:-1] for path, _ in keys if len(path) > 1)
    sources.extend(
        ("args", (*holder, key), _get(node, (*holder, key)))
        for holder in holders
        for key in _ARG_KEYS
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
    setting = _setting_for(server, path)
    if setting is None or not setting.flags:
        return None
    flag = setting.flags[0]
    if setting.kind == "bool" and str(value).lower() in ("false", "0"):
        flag = "--no-" + flag[2:]
    return SettingInput(setting, value, at(*path), format_path((*section, *path)), flag)
