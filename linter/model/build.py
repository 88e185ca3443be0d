"""Assemble workloads from a pod spec: pod facts, server, engine settings, model, GPU,
capacity and gRPC. Every front end (manifests, Helm values, profiles) ends here.

A pod becomes a workload when a container runs a recognised server, or when it asks for
GPUs or sets gRPC keepalive options (the platform rules apply to those too). One workload
per server container; the workload's ``container`` is that container's entry of ``pod``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from linter.model import command, defaults, gpus, grpc, presets
from linter.model.args import Token
from linter.model.capacity import capacity
from linter.model.facts import Facts, Locate
from linter.model.facts import lookup as facts_lookup
from linter.model.image_entrypoints import derived_command
from linter.model.images import ImageInfo, parse_image
from linter.model.pod import ContainerView, pod_facts
from linter.model.server import EnvValue, engine_facts, tokens_of
from linter.model.setting_input import SettingInput
from linter.model.settings import ModelSettings
from linter.model.workload import Workload
from linter.positions import Origin, PathT

GRPC_SERVERS = ("triton", "trtllm")


@dataclasses.dataclass(frozen=True)
class Hint:
    """A setting a custom resource states outside the container (``spec.parallelism``)."""

    name: str
    value: Any
    origin: Origin


@dataclasses.dataclass(frozen=True)
class Meta:
    """What the front end knows about the object that holds the pod template."""

    id: str
    kind: str
    name: str
    anchor: Origin
    source: str = "manifest"
    namespace: str = ""
    replicas: int | None = None
    replicas_origin: Origin | None = None
    role: str = ""
    # The server when no container shows one (see ``server_known``).
    server_hint: str = ""
    hints: tuple[Hint, ...] = ()
    multi_node: bool = False
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # (first content line, indent) of a literal block scalar at a pod-spec path, if any.
    blocks: Callable[[PathT], tuple[int, int] | None] | None = None
    # True when ``server_hint`` is the server the front end recognised in the section it
    # assembled the container from (values, a chart profile): used as is, not detected
    # again from that container.
    server_known: bool = False
    # Settings the front end read from keys of its input (``model/setting_input.py``).
    setting_inputs: tuple[SettingInput, ...] = ()


def build_workloads(
    spec: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    base = Facts()
    _meta_facts(meta, base)
    views = pod_facts(spec, locate, base)
    known = meta.server_hint if meta.server_known else ""
    candidates = [
        (view, _server_of(view, locate, meta.blocks, known)) for view in views if not view.init
    ]
    servers = [(v, s) for v, s in candidates if s.server]
    if not servers and meta.server_hint and candidates:
        main = next(
            (c for c in candidates if c[0].spec.get("name") in ("main", "kserve-container")),
            candidates[0],
        )
        servers = [(main[0], main[1]._replace(server=meta.server_hint))]
    if not servers:
        chosen = _fallback(candidates, base)
        if chosen is None:
            return []
        servers = [chosen]
    workloads = []
    for number, (view, found) in enumerate(servers):
        facts = base if len(servers) == 1 else copy.deepcopy(base)
        suffix = f"/{view.spec.get('name', number)}" if len(servers) > 1 else ""
        workloads.append(_workload(spec, view, found, locate, meta, settings, facts, suffix))
    return workloads


class Found(NamedTuple):
    """A container's server, image and invocation; ``args_start`` is where the container's
    own ``args`` begin in ``call.args`` (None when they do not reach the server's parser
    as written: a shell script or an unknown wrapper takes them)."""

    server: str
    image: ImageInfo | None
    call: command.Invocation
    args_start: int | None


def server_of_call(call: command.Invocation, image_server: str) -> str:
    """The server a command runs, else the image's (tritonserver in a TensorRT-LLM image
    is the TensorRT-LLM backend)."""
    server = call.server or image_server
    return "trtllm" if server == "triton" and image_server == "trtllm" else server


def _server_of(
    view: ContainerView,
    locate: Locate,
    blocks: Callable[[PathT], tuple[int, int] | None] | None = None,
    known: str = "",
) -> Found:
    """``known``: the server the front end recognised (the container is its own
    assembly, not a written one): kept as is; the command is still split into the
    server's arguments."""
    image_text = view.spec.get("image")
    image = parse_image(image_text) if isinstance(image_text, str) else None
    located_env = container_env(view, locate)
    env = {k: v.value for k, v in located_env.items()}
    cmd = _tokens(view, "command", locate, blocks)
    args = _tokens(view, "args", locate, blocks)
    if not cmd:
        # The image's own entrypoint runs: some derive settings themselves.
        cmd = derived_command(
            image,
            view.spec,
            {k: Token(v.value, v.origin) for k, v in located_env.items()},
            lambda p: locate((*view.path, *p)),
        )
    image_server = image.server if image else ""
    call = command.invocation(cmd, args, image_server, env)
    start = len(call.args) - len(args)
    reaches = bool(call.entrypoint) and not call.script and start >= 0
    return Found(
        known or server_of_call(call, image_server), image, call, start if reaches else None
    )


def _tokens(
    view: ContainerView,
    key: str,
    locate: Locate,
    blocks: Callable[[PathT], tuple[int, int] | None] | None = None,
) -> list[Token]:
    values = view.spec.get(key)
    if not isinstance(values, list):
        return []
    tokens = tokens_of(values, lambda i: locate((*view.path, key, i)))
    if blocks is None:
        return tokens
    # tokens_of skips null and nested items: pair each token with its own list index.
    indices = [i for i, v in enumerate(values) if v is not None and not isinstance(v, dict | list)]
    return [
        t._replace(block=blocks((*view.path, key, i))) if "\n" in t.text else t
        for i, t in zip(indices, tokens, strict=True)
    ]


def container_env(view: ContainerView, locate: Locate) -> dict[str, EnvValue]:
    out: dict[str, EnvValue] = {}
    items = view.spec.get("env")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if (
                isinstance(item, Mapping)
                and isinstance(item.get("name"), str)
                and "value" in item
                and not isinstance(item.get("value"), dict | list)
            ):
                value = item["value"]
                text = (
                    str(value).lower()
                    if isinstance(value, bool)
                    else ("" if value is None else str(value))
                )
                out[item["name"]] = EnvValue(text, locate((*view.path, "env", index, "value")))
    return out


def _fallback(
    candidates: list[tuple[ContainerView, Found]], facts: Facts
) -> tuple[ContainerView, Found] | None:
    pod = facts.data["pod"]
    for view, found in candidates:
        container = pod["containers"][view.model_path[2]]
        resources = container.get("resources", {})
        names = [*resources.get("limits", {}), *resources.get("requests", {})]
        if any(gpus.is_gpu_resource(n) for n in names) or any(
            grpc.knob_for(n) for n in container.get("env", {})
        ):
            return view, found
    return None


def _meta_facts(meta: Meta, facts: Facts) -> None:
    facts.put(("id",), meta.id, meta.anchor)
    facts.put(("kind",), meta.kind, meta.anchor)
    facts.put(("name",), meta.name, meta.anchor)
    facts.put(("source",), meta.source, meta.anchor)
    if meta.namespace:
        facts.put(("namespace",), meta.namespace, meta.anchor)
    if meta.replicas is not None:
        facts.put(("replicas",), meta.replicas, meta.replicas_origin or meta.anchor)
    if meta.role:
        facts.put(("role",), meta.role, meta.anchor)
    facts.put(("multi_node",), meta.multi_node, meta.anchor)
    for key, value in meta.extra.items():
        facts.put((key,), value, meta.anchor)


def _workload(
    spec: Mapping[str, Any],
    view: ContainerView,
    found: Found,
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
    facts: Facts,
    suffix: str,
) -> Workload:
    server, image, call, args_start = found
    facts.put((*view.model_path, "is_server"), bool(server))
    env = container_env(view, locate)
    image_origin = locate((*view.path, "image")) if image else locate(view.path)
    engine_facts(server, image, image_origin, call, env, facts, meta.setting_inputs, args_start)
    if image is not None:
        # The server image as written, for the unpinned-image rule (outside ``engine``,
        # which holds server settings only).
        image_facts: dict[str, Any] = {
            "tag": image.tag,
            "digest": image.digest,
            "official": image.official,
        }
        if image.build_date:
            image_facts["build_date"] = image.build_date
        facts.put(("image",), image_facts, image_origin)
    for hint in meta.hints:
        if not facts.has(("engine", hint.name)):
            facts.put(("engine", hint.name), hint.value, hint.origin)
    nim_model = _nim_image_model(server, image)
    if nim_model and not facts.has(("engine", "model")):
        facts.put(("engine", "model"), nim_model, image_origin)
    if facts.has(("engine", "model")) and not facts.has(("engine", "model_id")):
        facts.put(
            ("engine", "model_id"),
            facts.get(("engine", "model")),
            facts.origins.get(("engine", "model")),
        )
    facts.put(("container",), facts.get(view.model_path), facts.origins.get(view.model_path))
    facts.alias(view.model_path, ("container",))
    container = facts.get(view.model_path)
    facts.put(
        ("gpu",), gpus.gpu_facts(spec, container.get("resources", {}), settings), locate(view.path)
    )
    facts.alias((*view.model_path, "resources"), ("gpu", "resources"))
    _locate_gpu(spec, view, locate, facts)
    _model_and_capacity(server, facts, settings)
    _grpc(server, container, facts)
    _effective_pod(facts)
    if settings.model_load_seconds is not None:
        # The user's measured start-up time, for the probe rules (policies/probes.yaml).
        facts.put(("model_load_seconds",), settings.model_load_seconds, meta.anchor)
    if settings.load_bandwidth_bytes is not None:
        # The user's weight-read bandwidth, for the probe rules' load-time estimate.
        facts.put(("load_bandwidth_bytes",), settings.load_bandwidth_bytes, meta.anchor)
    name = f"{meta.id}{suffix}"
    return Workload(name, facts.data, meta.anchor, facts.origins)


# GPU facts read from the node's product (the catalogue's entry for it).
_PRODUCT_FACTS = ("product", "candidates", "memory_bytes", "peer_to_peer", "interconnect")


def _locate_gpu(spec: Mapping[str, Any], view: ContainerView, locate: Locate, facts: Facts) -> None:
    """Each ``gpu`` fact at what it was read from: the count and resource at the GPU
    request or limit, the product and its catalogue figures at the node label that names
    it (a ``nodeSelector`` key; a required node affinity at its expression)."""
    gpu = facts.data.get("gpu", {})
    resource = gpu.get("resource")
    if isinstance(resource, str):
        resources = view.spec.get("resources")
        at = {
            section: locate((*view.path, "resources", section, resource))
            for section in ("limits", "requests")
            if isinstance(resources, Mapping)
            and isinstance(resources.get(section), Mapping)
            and resource in resources[section]
        }
        first = at.get("limits") or at.get("requests")
        for field, origin in (
            ("resource", first),
            ("count", first),
            ("limits", at.get("limits")),
            ("requests", at.get("requests")),
            ("mig", first),
            ("memory_bytes", first if gpu.get("mig") else None),
        ):
            if origin is not None and field in gpu:
                facts.origins[("gpu", field)] = origin
    if gpu.get("product_source", "manifest") != "manifest" or "candidates" not in gpu:
        return
    labelled = gpus.node_label_values(spec)
    selector = spec.get("nodeSelector")
    label = labelled[0][0] if labelled else ""
    if isinstance(selector, Mapping) and label in selector:
        origin = locate(("nodeSelector", label))
    else:
        origin = _affinity_origin(spec, label, locate)
    for field in (*_PRODUCT_FACTS, "product_source"):
        if field in gpu and not (field == "memory_bytes" and gpu.get("mig")):
            facts.origins[("gpu", field)] = origin


def _affinity_origin(spec: Mapping[str, Any], label: str, locate: Locate) -> Origin:
    """The required node-affinity expression on ``label``."""
    base: PathT = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = facts_lookup(spec, (*base, "nodeSelectorTerms"))
    for t, term in enumerate(terms if isinstance(terms, list) else []):
        expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
        for e, expression in enumerate(expressions if isinstance(expressions, list) else []):
            if isinstance(expression, Mapping) and expression.get("key") == label:
                return locate((*base, "nodeSelectorTerms", t, "matchExpressions", e))
    return locate(("affinity",))


# NIM images that serve whatever model NIM_MODEL_NAME names (multi-LLM NIMs), not one model.
_NIM_MULTI_LLM = ("llm-nim", "nim-llm")


def _nim_image_model(server: str, image: ImageInfo | None) -> str:
    """The model an LLM-specific NIM image serves: ``nvcr.io/nim/meta/llama-3.1-8b-instruct``
    serves ``meta/llama-3.1-8b-instruct`` (the image is named after the model it packages,
    https://docs.nvidia.com/nim/large-language-models/latest/supported-models.html)."""
    if server != "nim" or image is None:
        return ""
    publisher, _, model = image.repository.lower().removeprefix("nvcr.io/nim/").partition("/")
    if not model or "/" in model or model in _NIM_MULTI_LLM:
        return ""
    return f"{publisher}/{model}"


def _model_and_capacity(server: str, facts: Facts, settings: ModelSettings) -> None:
    engine = facts.data.get("engine", {})
    model_id = engine.get("model_id")
    model: dict[str, Any] = {}
    if isinstance(model_id, str) and model_id:
        model = presets.model_facts(model_id, engine, settings)
        facts.put(("model",), model, facts.origins.get(("engine", "model_id")))
    gpu = facts.data.get("gpu", {})
    resolved, defaulted = defaults.effective(engine, gpu, model)
    resolved["defaulted"] = defaulted
    facts.put(("effective",), resolved, facts.origins.get(("engine", "image")))
    for key in resolved:
        origin = facts.origins.get(("engine", key))
        if origin is not None:
            facts.origins[("effective", key)] = origin
    if model.get("known"):
        try:
            result = capacity(server, resolved, model, gpu)
        except (OverflowError, ValueError, ZeroDivisionError):
            # A setting out of any sensible range (1e308): the rules on the setting
            # itself report it at its line; the memory budget cannot be computed.
            result = None
        if result is not None:
            facts.put(("capacity",), result, facts.origins.get(("engine", "model_id")))
            _locate_capacity(facts)


# The settings each capacity figure is derived from, first written one first: a finding on
# ``capacity.tokens_requested`` belongs on the line that set max_model_len, not on the
# model's. Figures not listed (weights, per-token bytes) derive from the model itself.
_CAPACITY_INPUTS: dict[str, tuple[str, ...]] = {
    "tokens_requested": ("max_model_len", "context_length", "max_total_tokens"),
    "kv_bytes_requested": ("max_model_len", "context_length", "max_total_tokens"),
    "tokens_for_all_sequences": ("max_num_seqs", "max_running_requests", "max_model_len"),
    "tensor_parallel_size": ("tensor_parallel_size", "tp_size", "num_shard"),
    "pipeline_parallel_size": ("pipeline_parallel_size", "pp_size"),
    "memory_fraction": ("gpu_memory_utilization", "mem_fraction_static", "cuda_memory_fraction"),
    "memory_budget_bytes_per_gpu": (
        "gpu_memory_utilization",
        "mem_fraction_static",
        "cuda_memory_fraction",
    ),
    "kv_dtype_bytes": ("kv_cache_dtype",),
    "kv_budget_bytes_per_gpu": ("kv_cache_memory_bytes", "gpu_memory_utilization"),
    "kv_tokens_per_gpu": ("kv_cache_memory_bytes", "gpu_memory_utilization"),
}


def _locate_capacity(facts: Facts) -> None:
    for field, inputs in _CAPACITY_INPUTS.items():
        origin = next(
            (o for name in inputs if (o := facts.origins.get(("effective", name))) is not None),
            None,
        )
        if origin is not None and facts.has(("capacity", field)):
            facts.origins[("capacity", field)] = origin
    gpu_origin = facts.origins.get(("gpu", "memory_bytes")) or facts.origins.get(("gpu",))
    if gpu_origin is not None and facts.has(("capacity", "gpu_memory_bytes")):
        facts.origins[("capacity", "gpu_memory_bytes")] = gpu_origin


def _grpc(server: str, container: Mapping[str, Any], facts: Facts) -> None:
    engine = facts.data.get("engine", {})
    if server in GRPC_SERVERS:
        grpc.grpc_from_triton(engine, facts.origins, facts)
        facts.put(("grpc", "server_kind"), "triton", facts.origins.get(("engine", "name")))
    env = container.get("env", {})
    env_origins = {name: facts.origins.get(("container", "env", name)) for name in env}
    grpc.grpc_from_env(env, env_origins, facts, "server" if server in GRPC_SERVERS else "client")
    facts.put(("grpc",), facts.get(("grpc",), {}))


def _effective_pod(facts: Facts) -> None:
    grace = facts.get(("pod", "termination_grace_period_seconds"))
    effective = facts.data.setdefault("effective", {})
    effective["termination_grace_period_seconds"] = grace if isinstance(grace, int) else 30
    if not isinstance(grace, int):
        effective.setdefault("defaulted", []).append("termination_grace_period_seconds")
    else:
        facts.origins[("effective", "termination_grace_period_seconds")] = facts.origins[
            ("pod", "termination_grace_period_seconds")
        ]


def grpc_tree_facts(data: Any, locate: Locate) -> Facts:
    """Keepalive settings written anywhere in a values tree: read once per tree, and added
    to each of its workloads with ``add_grpc_facts``."""
    facts = Facts()
    grpc.grpc_from_tree(data, locate, facts, "unspecified")
    return facts


def add_grpc_facts(workload: Workload, facts: Facts) -> None:
    for side, values in facts.data.get("grpc", {}).items():
        workload.data.setdefault("grpc", {}).setdefault(side, {}).update(copy.deepcopy(values))
    workload.origins.update(facts.origins)


def relative(locate: Locate, prefix: PathT) -> Locate:
    """``locate`` for paths relative to ``prefix`` (a pod spec inside a document)."""
    return lambda path: locate((*prefix, *path))
