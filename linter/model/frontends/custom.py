"""Custom resources whose pods are not plain pod templates: Ray, KServe, KubeAI.

- RayService/RayCluster/RayJob: head and worker groups; the vLLM engine settings of Ray
  Serve LLM (``serveConfigV2`` → ``llm_configs[].engine_kwargs``) become hints.
- LLMInferenceService: always vLLM (llm-d); ``spec.model`` and ``spec.parallelism`` are hints.
- InferenceService: the predictor's ``model`` spec becomes a container.
- KubeAI Model: ``url``, ``engine``, ``args``, ``env`` and ``resourceProfile``.
- NIM Operator NIMService: the pod the operator creates (``nim.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import yaml

from linter.model.engine import registry
from linter.model.engine.args import convert
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Hint, Meta, build_workloads
from linter.model.frontends.nim import is_nim_service, nim_service_workloads
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.workload import Workload
from linter.positions import PathT

try:  # pragma: no branch
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_HUB_PREFIXES = ("hf://", "huggingface://")
# KubeAI resource profile prefixes → GPU product (charts/kubeai/values.yaml resourceProfiles).
KUBEAI_PROFILES = {
    "nvidia-gpu-l4": "NVIDIA-L4",
    "nvidia-gpu-t4": "Tesla-T4",
    "nvidia-gpu-a10g": "NVIDIA-A10G",
    "nvidia-gpu-l40s": "NVIDIA-L40S",
    "nvidia-gpu-a100-80gb": "NVIDIA-A100-SXM4-80GB",
    "nvidia-gpu-a100-40gb": "NVIDIA-A100-SXM4-40GB",
    "nvidia-gpu-h100": "NVIDIA-H100-80GB-HBM3",
    "nvidia-gpu-h200": "NVIDIA-H200",
}
_ENGINES = {
    # NVIDIA's KServe runtimes for NIM: model format nvidia-nim-<model> (first: a NIM
    # model's name may contain another engine's)
    # (https://github.com/NVIDIA/nim-deploy/blob/3c6bcbd05f0c70612d2ed96112248e623035ed05/kserve/nim-models/llama-3.1-8b-instruct_1xgpu_1.1.0.yaml#L12-L18).
    "nvidia-nim-": "nim",
    "vllm": "vllm",
    "sglang": "sglang",
    "tgi": "tgi",
    "triton": "triton",
    "text-generation-inference": "tgi",
    "huggingface-tgi": "tgi",
}


def model_from_uri(uri: str) -> str:
    for prefix in _HUB_PREFIXES:
        if uri.startswith(prefix):
            return uri[len(prefix) :]
    return uri


def ray_templates(kind: str, data: Mapping[str, Any]) -> list[tuple[PathT, str, PathT | None]]:
    base: PathT = {
        "RayService": ("spec", "rayClusterConfig"),
        "RayCluster": ("spec",),
        "RayJob": ("spec", "rayClusterSpec"),
    }[kind]
    out: list[tuple[PathT, str, PathT | None]] = [
        ((*base, "headGroupSpec", "template", "spec"), "head", None)
    ]
    node: Any = data
    for key in base:
        node = node.get(key) if isinstance(node, Mapping) else None
    groups = node.get("workerGroupSpecs") if isinstance(node, Mapping) else None
    if isinstance(groups, list):
        for index, group in enumerate(groups):
            name = group.get("groupName", index) if isinstance(group, Mapping) else index
            out.append(
                (
                    (*base, "workerGroupSpecs", index, "template", "spec"),
                    f"worker/{name}",
                    (*base, "workerGroupSpecs", index, "replicas"),
                )
            )
    return out


def with_hints(kind: str, data: Mapping[str, Any], locate: Locate, meta: Meta) -> Meta:
    spec = data.get("spec") if isinstance(data.get("spec"), Mapping) else {}
    assert isinstance(spec, Mapping)
    if kind in ("LLMInferenceService", "LLMInferenceServiceConfig"):
        return _replace(meta, "vllm", _llmisvc_hints(spec, locate))
    if kind in ("RayService", "RayCluster", "RayJob") and meta.role.startswith("worker"):
        hints = _ray_hints(spec, locate)
        return _replace(meta, "vllm" if hints else "", hints, multi=True)
    if kind in ("RayService", "RayCluster", "RayJob"):
        return _replace(meta, "", (), multi=True)
    return meta


def _replace(meta: Meta, server: str, hints: tuple[Hint, ...], multi: bool | None = None) -> Meta:
    return dataclasses.replace(
        meta,
        server_hint=server,
        hints=hints,
        multi_node=meta.multi_node if multi is None else multi,
    )


def _llmisvc_hints(spec: Mapping[str, Any], locate: Locate) -> tuple[Hint, ...]:
    hints: list[Hint] = []
    model = spec.get("model")
    if isinstance(model, Mapping):
        key = "name" if isinstance(model.get("name"), str) else "uri"
        if isinstance(model.get(key), str):
            hints.append(Hint("model", model_from_uri(model[key]), locate(("spec", "model", key))))
    parallelism = spec.get("parallelism")
    if isinstance(parallelism, Mapping):
        for key, name in (
            ("tensor", "tensor_parallel_size"),
            ("data", "data_parallel_size"),
            ("dataLocal", "data_parallel_size_local"),
            ("pipeline", "pipeline_parallel_size"),
        ):
            if isinstance(parallelism.get(key), int):
                hints.append(Hint(name, parallelism[key], locate(("spec", "parallelism", key))))
    return tuple(hints)


def _ray_hints(spec: Mapping[str, Any], locate: Locate) -> tuple[Hint, ...]:
    text = spec.get("serveConfigV2")
    if not isinstance(text, str):
        return ()
    origin = locate(("spec", "serveConfigV2"))
    try:
        config = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError:
        return ()
    configs = [
        c
        for app in _list(config, "applications")
        for c in _list(app.get("args") if isinstance(app, Mapping) else None, "llm_configs")
    ]
    if len(configs) != 1 or not isinstance(configs[0], Mapping):
        return ()
    llm = configs[0]
    hints: list[Hint] = []
    loading = llm.get("model_loading_config")
    if isinstance(loading, Mapping):
        source = loading.get("model_source", loading.get("model_id"))
        if isinstance(source, str):
            hints.append(Hint("model", model_from_uri(source), origin))
    kwargs = llm.get("engine_kwargs")
    if isinstance(kwargs, Mapping):
        for key, value in kwargs.items():
            setting = registry.by_key("vllm", str(key))
            converted = convert(setting.kind, value) if setting else None
            if setting is not None and converted is not None:
                hints.append(Hint(setting.name, converted, origin))
    return tuple(hints)


def ray_runtime_pip(spec: Mapping[str, Any], locate: Locate) -> Located[list[str]] | None:
    """The pip packages a RayService's Serve config installs when its replicas start:
    ``runtime_env.pip`` of an application, of a deployment's ``ray_actor_options`` or of
    a Ray Serve LLM config (a list of requirements, ``{packages: [...]}`` or a
    requirements file), at ``serveConfigV2``. Ray creates the environment, pip install
    included, on each node before the replica's worker starts
    (https://docs.ray.io/en/latest/ray-core/handling-dependencies.html#api-reference)."""
    text = spec.get("serveConfigV2")
    if not isinstance(text, str) or "pip" not in text:
        return None
    try:
        config = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError:
        return None
    packages: list[str] = []
    for app in _list(config, "applications"):
        args = app.get("args") if isinstance(app, Mapping) else None
        owners = [app, *_list(args, "llm_configs")]
        owners += [
            d.get("ray_actor_options") for d in _list(app, "deployments") if isinstance(d, Mapping)
        ]
        for owner in owners:
            env = owner.get("runtime_env") if isinstance(owner, Mapping) else None
            packages += _pip_of(env.get("pip") if isinstance(env, Mapping) else None)
    return Located(packages, locate(("spec", "serveConfigV2"))) if packages else None


def _pip_of(pip: object) -> list[str]:
    if isinstance(pip, Mapping):
        pip = pip.get("packages")
    if isinstance(pip, str) and pip.strip():
        return [pip.strip()]
    return [str(p) for p in pip if str(p).strip()] if isinstance(pip, list) else []


def _list(node: object, key: str) -> list[Any]:
    value = node.get(key) if isinstance(node, Mapping) else None
    return value if isinstance(value, list) else []


def custom_workloads(
    kind: str, data: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    api = str(data.get("apiVersion", ""))
    spec = data.get("spec")
    if not isinstance(spec, Mapping):
        return []
    if kind == "InferenceService" and api.startswith("serving.kserve.io"):
        return _inference_service(spec, locate, meta, settings)
    if is_nim_service(kind, api):
        return nim_service_workloads(spec, locate, meta, settings)
    if kind == "Model" and api.startswith("kubeai.org"):
        pod, server, hints = kubeai_pod(spec, ("spec",), locate)
        replicas = spec.get("minReplicas") if isinstance(spec.get("minReplicas"), int) else None
        meta = Meta(
            meta.id,
            kind,
            meta.name,
            meta.anchor,
            meta.source,
            meta.namespace,
            replicas,
            locate(("spec", "minReplicas")) if replicas is not None else None,
            "",
            server,
            hints,
        )
        return build_workloads(pod.spec, pod.locate, meta, settings)
    return []


def _inference_service(
    spec: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    predictor = spec.get("predictor")
    if not isinstance(predictor, Mapping):
        return []
    base: PathT = ("spec", "predictor")
    replicas = predictor.get("minReplicas")
    meta = dataclasses.replace(
        meta,
        replicas=replicas if isinstance(replicas, int) else None,
        replicas_origin=locate((*base, "minReplicas")) if isinstance(replicas, int) else None,
    )
    if isinstance(predictor.get("containers"), list):
        return build_workloads(predictor, lambda p: locate((*base, *p)), meta, settings)
    model = predictor.get("model")
    if not isinstance(model, Mapping):
        return []
    pod = SyntheticPod(locate(base))
    for key, value in predictor.items():
        if key != "model":
            pod.put_tree((key,), value, locate, (*base, key))
    pod.put_tree(("containers", 0), {"name": "kserve-container", **model}, locate, (*base, "model"))
    fmt = model.get("modelFormat")
    label = " ".join(
        str(x)
        for x in (fmt.get("name", "") if isinstance(fmt, Mapping) else "", model.get("runtime", ""))
    ).lower()
    server = next((s for needle, s in _ENGINES.items() if needle in label), "")
    hints: tuple[Hint, ...] = ()
    uri = model.get("storageUri")
    if isinstance(uri, str) and uri.startswith(_HUB_PREFIXES):
        hints = (Hint("model", model_from_uri(uri), locate((*base, "model", "storageUri"))),)
    name = fmt.get("name") if isinstance(fmt, Mapping) else None
    if server == "nim" and isinstance(name, str) and name.startswith("nvidia-nim-") and not hints:
        # The model format names the model the NIM serves (publisher left out).
        where = locate((*base, "model", "modelFormat", "name"))
        hints = (Hint("model", name.removeprefix("nvidia-nim-"), where),)
    return build_workloads(pod.spec, pod.locate, _replace(meta, server, hints), settings)


_VLLM_SERVER = "vllm.entrypoints.openai.api_server"


def kubeai_pod(
    spec: Mapping[str, Any], base: PathT, locate: Locate
) -> tuple[SyntheticPod, str, tuple[Hint, ...]]:
    """A KubeAI ``Model`` spec (or catalog entry) as a pod with one server container."""
    pod = SyntheticPod(locate(base))
    container: PathT = ("containers", 0)
    pod.set((*container, "name"), "server", locate(base))
    args = spec.get("args")
    if isinstance(args, list):
        pod.set((*container, "args"), [str(a) for a in args], locate((*base, "args")))
        for index in range(len(args)):
            pod.origins[(*container, "args", index)] = locate((*base, "args", index))
    env = spec.get("env")
    if isinstance(env, Mapping):
        items = [{"name": str(k), "value": "" if v is None else str(v)} for k, v in env.items()]
        pod.set((*container, "env"), items, locate((*base, "env")))
        for index, key in enumerate(env):
            pod.origins[(*container, "env", index, "value")] = locate((*base, "env", key))
    hints: list[Hint] = []
    if isinstance(spec.get("url"), str):
        hints.append(Hint("model", model_from_uri(spec["url"]), locate((*base, "url"))))
    profile = spec.get("resourceProfile")
    if isinstance(profile, str) and ":" in profile:
        name, _, count = profile.partition(":")
        origin = locate((*base, "resourceProfile"))
        resource = "amd.com/gpu" if name.startswith("amd") else "nvidia.com/gpu"
        if name.startswith(("nvidia", "amd")) and count.isdigit():
            pod.set((*container, "resources", "limits", resource), int(count), origin)
            product = next(
                (p for prefix, p in KUBEAI_PROFILES.items() if name.startswith(prefix)), None
            )
            if product:
                pod.set(("nodeSelector", "nvidia.com/gpu.product"), product, origin)
    engine = str(spec.get("engine", "")).lower()
    if _ENGINES.get(engine) == "vllm":
        # The KubeAI operator mounts a memory-backed emptyDir (no size limit) at /dev/shm
        # in every vLLM pod (internal/modelcontroller/engine_vllm.go, vLLMPodForModel).
        origin = locate((*base, "engine"))
        # ... and passes args to vLLM's OpenAI server as written (same function).
        pod.set((*container, "command"), ["python3", "-m", _VLLM_SERVER], origin)
        pod.append(("volumes",), {"name": "dshm", "emptyDir": {"medium": "Memory"}}, origin)
        pod.append((*container, "volumeMounts"), {"name": "dshm", "mountPath": "/dev/shm"}, origin)
    return pod, _ENGINES.get(engine, ""), tuple(hints)
