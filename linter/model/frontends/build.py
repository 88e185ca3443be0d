"""Assemble workloads from a pod spec: pod facts, server, engine settings, model, GPU,
capacity and gRPC. Every front end (manifests, Helm values, profiles) ends here.

A pod becomes a workload when a container runs a recognised server, or when it asks for
GPUs or sets gRPC keepalive options (the platform rules apply to those too). One workload
per server container; the workload's ``container`` is that container's entry of ``pod``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from linter.lightclass import frozen
from linter.model.engine import command, grpc
from linter.model.engine.args import Token
from linter.model.engine.images import ImageInfo, parse_image
from linter.model.engine.server import (
    MODEL_SETTING,
    EnvValue,
    engine_record,
    mark_unparsed,
    tokens_of,
)
from linter.model.engine.setting_input import SettingInput
from linter.model.engine.settings import ModelSettings
from linter.model.facts import gpus
from linter.model.facts.derived import model_and_capacity, nim_image_model
from linter.model.facts.gpu_origins import locate_gpu
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.pod import ContainerView, pod_record
from linter.model.records.pod_records import Container, Pod
from linter.model.records.records import (
    Engine,
    Gpu,
    Grpc,
    Image,
    ServingModel,
)
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT

GRPC_SERVERS = ("triton", "trtllm")


@frozen
class Hint:
    """A setting a custom resource states outside the container (``spec.parallelism``)."""

    name: str
    value: Any
    origin: Origin
    # The text as written when ``value`` is None: it does not read as the setting's type
    # (KAITO's ``--max-model-len auto``), so the rules that read the setting skip it.
    raw: str = ""


@frozen
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
    # A Docker Compose service; the chart profile that read a values entry and the kind
    # its chart renders.
    compose: bool = False
    chart_profile: str = ""
    renders: str = ""
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
    known = meta.server_hint if meta.server_known else ""
    first, views = pod_record(spec, locate)
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
        chosen = _fallback(candidates)
        if chosen is None:
            return []
        servers = [chosen]
    workloads = []
    for number, (view, found) in enumerate(servers):
        # Each workload owns its pod record: a later step may change one (chart pods).
        pod, own = pod_record(spec, locate) if number else (first, views)
        mine = next(v for v in own if v.path == view.path) if number else view
        suffix = f"/{view.spec.get('name', number)}" if len(servers) > 1 else ""
        workloads.append(_workload(spec, mine, found, locate, meta, settings, suffix, pod))
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
        from linter.model.engine.image_entrypoints import derived_command  # only without a command

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
    candidates: list[tuple[ContainerView, Found]],
) -> tuple[ContainerView, Found] | None:
    for view, found in candidates:
        container = view.record.value
        resources = container.resources.value
        names = [
            *(resources.limits.value if resources.limits else {}),
            *(resources.requests.value if resources.requests else {}),
        ]
        if any(gpus.is_gpu_resource(n) for n in names) or any(
            grpc.knob_for(n) for n in container.env.value
        ):
            return view, found
    return None


def _identity(meta: Meta) -> ServingModel:
    at = meta.anchor
    record = ServingModel(
        id=Located(meta.id, at),
        kind=Located(meta.kind, at),
        name=Located(meta.name, at),
        source=Located(meta.source, at),
        namespace=Located(meta.namespace, at) if meta.namespace else None,
        replicas=Located(meta.replicas, meta.replicas_origin or at)
        if meta.replicas is not None
        else None,
        role=Located(meta.role, at) if meta.role else None,
        multi_node=Located(meta.multi_node, at),
    )
    if meta.compose:
        record.compose = Located(True, at)
    if meta.chart_profile:
        record.chart_profile = Located(meta.chart_profile, at)
        record.renders = Located(meta.renders, at)
    return record


def _workload(
    spec: Mapping[str, Any],
    view: ContainerView,
    found: Found,
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
    suffix: str,
    pod: Pod,
) -> Workload:
    server, image, call, args_start = found
    record = _identity(meta)
    record.pod = Located(pod)
    container = view.record
    container.value.is_server = Located(bool(server), container.value.is_server.origin)
    env = container_env(view, locate)
    image_origin = locate((*view.path, "image")) if image else locate(view.path)
    engine = engine_record(server, image, image_origin, call, env, meta.setting_inputs, args_start)
    record.engine = Located(engine)
    if image is not None:
        # The server image as written, for the unpinned-image rule (outside ``engine``,
        # which holds server settings only).
        record.image = Located(
            Image(
                tag=Located(image.tag),
                digest=Located(image.digest),
                official=Located(image.official),
                build_date=Located(image.build_date) if image.build_date else None,
                platform=Located(image.platform) if image.platform else None,
            ),
            image_origin,
        )
    for hint in meta.hints:
        if hint.value is None:
            if hint.name not in engine.settings:
                mark_unparsed(engine, hint.name, hint.raw, hint.origin)
            continue
        engine.settings.setdefault(hint.name, Located(hint.value, hint.origin))
    nim_model = nim_image_model(server, image)
    if nim_model:
        engine.settings.setdefault("model", Located(nim_model, image_origin))
    if engine.model_id is None:
        # A hint may carry the server's own model setting (SGLang's model_path).
        key = next((k for k in (MODEL_SETTING.get(server), "model") if k in engine.settings), None)
        if key is not None:
            engine.model_id = engine.settings[key]
    record.container = container
    gpu = Gpu.of(gpus.gpu_facts(spec, container.value.resources.value.plain(), settings))
    locate_gpu(spec, view, locate, gpu)
    record.gpu = Located(gpu, locate(view.path))
    model_and_capacity(server, record, settings)
    record.grpc = Located(_grpc(server, engine, container.value))
    _effective_pod(record)
    if settings.model_load_seconds is not None:
        # The user's measured start-up time, for the probe rules (policies/probes.yaml).
        record.model_load_seconds = Located(settings.model_load_seconds, meta.anchor)
    if settings.load_bandwidth_bytes is not None:
        # The user's weight-read bandwidth, for the probe rules' load-time estimate.
        record.load_bandwidth_bytes = Located(settings.load_bandwidth_bytes, meta.anchor)
    name = f"{meta.id}{suffix}"
    return Workload(name, record, meta.anchor)


def _grpc(server: str, engine: Engine, container: Container) -> Grpc:
    record = Grpc()
    if server in GRPC_SERVERS:
        grpc.grpc_from_triton(engine, record)
        record.server_kind = Located("triton", engine.name.origin if engine.name else None)
    grpc.grpc_from_env(
        container.env.value, record, "server" if server in GRPC_SERVERS else "client"
    )
    return record


def _effective_pod(record: ServingModel) -> None:
    assert record.pod is not None and record.effective is not None
    grace = record.pod.value.termination_grace_period_seconds
    effective = record.effective.value
    if grace is not None:
        effective.termination_grace_period_seconds = grace
    else:
        effective.termination_grace_period_seconds = Located(30)
        assert effective.defaulted is not None
        effective.defaulted.value.append("termination_grace_period_seconds")


def grpc_of_tree(data: Any, locate: Locate) -> Grpc:
    """Keepalive settings written anywhere in a values tree: read once per tree, and added
    to each of its workloads with ``add_tree_grpc``."""
    record = Grpc()
    grpc.grpc_from_tree(data, locate, record, "unspecified")
    return record


def add_tree_grpc(workload: Workload, tree: Grpc) -> None:
    """The keepalive settings of the workload's values tree (``grpc_of_tree``) over its
    own: a key of the tree wins over the container's environment."""
    model = workload.record
    if model.grpc is None:
        model.grpc = Located(Grpc())
    model.grpc.value.merge(tree)


def relative(locate: Locate, prefix: PathT) -> Locate:
    """``locate`` for paths relative to ``prefix`` (a pod spec inside a document)."""
    return lambda path: locate((*prefix, *path))
