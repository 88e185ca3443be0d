"""Where a values tree configures an inference server: which mappings are a server's
section (by image, by command, by the server's own keys), which server, and which of its
keys name the server's settings. ``values.py`` builds the workloads of the sections found
here."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Mapping
from typing import Any

from linter.model.engine import command as cmd
from linter.model.engine import registry
from linter.model.engine.images import parse_image
from linter.model.engine.server import MODEL_SETTING
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.facts import gpus
from linter.model.frontends.build import server_of_call
from linter.model.frontends.profiles import matching_profile
from linter.model.frontends.values_pod import words
from linter.positions import PathT
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
ARG_KEYS = ("args", "extraArgs", "customArgs", "serverArgs", "extra_args")
CMD_KEYS = ("command", "customCommand")


def looks_like_values(data: Any, name: str, settings: ModelSettings = DEFAULT_SETTINGS) -> bool:
    """A YAML mapping that is not a Kubernetes object and has something to serve."""
    if not isinstance(data, Mapping) or ("apiVersion" in data and "kind" in data):
        return False
    return (
        named_as_values(name)
        or matching_profile(data, settings.profile_dirs) is not None
        or bool(server_sections(data))
    )


def named_as_compose(name: str) -> bool:
    """compose.yaml, docker-compose.yml, compose.prod.yaml, docker-compose.gpu.yml: the
    names Compose reads (https://docs.docker.com/compose/intro/compose-application-model/)."""
    base = os.path.basename(name).lower()
    return base.startswith(("compose.", "compose-", "docker-compose")) and base.endswith(
        (".yaml", ".yml")
    )


def named_as_values(name: str) -> bool:
    """A file named like Helm values (``values-prod.yaml``), or a YAML mapping beside a
    chart's ``Chart.yaml`` (``gpu-l4.yaml``): Helm's layout keeps only values files there
    besides the chart's own metadata (``helm/layout.py`` looks at the same folder)."""
    base = name.rsplit("/", 1)[-1].lower()
    if "values" in base:
        return True
    if not base.endswith((".yaml", ".yml")) or base in _CHART_METADATA:
        return False
    return is_chart(os.path.dirname(name))


def node_at(data: Any, path: PathT) -> Any:
    node = data
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def server_sections(data: Mapping[str, Any]) -> list[tuple[PathT, str]]:
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
        node = node_at(data, path)
        server = _server_of(node)
        if (server or _gpu_container(node)) and not any(
            path[: len(p)] == p and p for p, _ in found
        ):
            found.append((path, server))
    if found:
        return found
    found_keys = {s: setting_keys(data, s) for s in ("vllm", "sglang", "tgi")}
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
    if not isinstance(node, Mapping) or not image_text(node):
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


def is_nim_chart(node: Mapping[str, Any]) -> bool:
    model = node.get("model")
    return isinstance(model, Mapping) and any(k in model for k in _NIM_CHART_MODEL_KEYS)


def _server_of(node: Any) -> str:
    if not isinstance(node, Mapping):
        return ""
    image = image_text(node)
    # ``${NIM_IMAGE:-nvcr.io/nim/...}``: Compose's (and the shell's) default names the image.
    server = parse_image(cmd.expand_shell_vars(image, {})).server if image else ""
    if not server and is_nim_chart(node):
        server = "nim"  # the image is often a template (``${model_id}``) in these files
    tokens = [str(t) for key in (*CMD_KEYS, *ARG_KEYS) for t in words(node.get(key))]
    if isinstance(node.get("image"), Mapping):
        tokens += [str(t) for t in words(node["image"].get("command"))]
    if tokens:
        from linter.model.engine.args import Token
        from linter.positions import Origin

        origin = Origin("", 1, 1)
        call = cmd.invocation([Token(t, origin) for t in tokens], [], server, {})
        server = server_of_call(call, server)
    return server


def image_text(node: Mapping[str, Any]) -> str:
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


def setting_for(server: str, path: PathT) -> registry.Setting | None:
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


def setting_keys(node: Any, server: str, path: PathT = ()) -> list[tuple[PathT, Any]]:
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
            setting = setting_for(server, (*holder, key))
            if setting is None or setting.name in GENERIC_SETTINGS or setting.name in seen:
                continue
            if value in (None, "") or (isinstance(value, list) and setting.kind == "multi"):
                continue
            seen.add(setting.name)
            found.append(((*holder, key), value))
    return found
