"""KAITO ``Workspace`` (kaito.sh/v1alpha1, v1beta1) and ``InferenceSet`` as the pod the
operator creates for a preset model.

Read from KAITO at v0.12.0 (https://github.com/kaito-project/kaito, commit 056b8280):

- A ``Workspace`` keeps ``resource`` and ``inference`` at the top level, not under ``spec``
  (``api/v1beta1/workspace_types.go`` L302-L303); an ``InferenceSet`` keeps the same two
  under ``spec.template`` (``api/v1beta1/inferenceset_types.go``).
- ``inference.preset.name`` names the model: a legacy preset name
  (``pkg/utils/plugin/plugin.go`` ``LegacyBuiltinToCatalog`` L47, ``_PRESETS`` below) or a
  Hugging Face id (``ResolveHFModelID``).
- ``resource.instanceType`` fixes the GPUs: the SKU table of
  ``pkg/sku/azure_sku_handler.go`` and ``pkg/sku/aws_sku_handler.go`` gives the count the
  operator requests as ``nvidia.com/gpu`` in limits and requests
  (``pkg/workspace/inference/preset_inferences.go`` ``GenerateInferencePodSpec`` L560-L575);
  the product is the instance type's (``catalogue/gpus.yaml`` ``instanceTypes``).
- The operator adds a memory-backed ``/dev/shm`` (``pkg/utils/common_preset.go``
  ``ConfigSHMVolume`` L143, no size limit), HTTP ``/health`` probes on port 5000
  (``preset_inferences.go`` L52-L108, the startup probe from ``buildStartupProbe`` L403,
  30 minutes by default) and runs ``presets/workspace/inference/vllm/inference_api.py``.
- ``inference.config`` names a ConfigMap whose ``inference_config.yaml`` holds vLLM
  arguments under ``vllm:``; ``inference_api.py`` (``parse_args`` L128-L148) appends them
  after the operator's own flags, so they win (argparse keeps the last value). The
  operator's flags read here are the ones it always sets for a single-node preset:
  ``--served-model-name`` (``pkg/model/interface.go`` L405-L413), ``--max-model-len auto``
  (``preset_inferences.go`` L581-L590: vLLM fits the context to the memory) and
  the parallelism of ``configureParallelism`` (L543-L559: tensor parallel 1 on one GPU;
  on more, data parallel when the model is under half a GPU, else tensor parallel; unset
  when the model's size is not known here); over several nodes, tensor parallel over each
  node's GPUs and pipeline parallel over the nodes, on Ray (L557-L570).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Hint, Meta, build_workloads
from linter.model.frontends.operator_kinds import flag_hints
from linter.model.frontends.role_pods import added_by
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate, document_locate, lookup
from linter.model.records.pod_volumes import ADDED_BY
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT

API_GROUP = "kaito.sh/"
KINDS = ("Workspace", "InferenceSet")
WHO = "KAITO"
_C: PathT = ("containers", 0)
_PORT = 5000
_CONFIG_FILE = "inference_config.yaml"
_CONFIG_MOUNT = "/mnt/config"
# pkg/utils/plugin/plugin.go LegacyBuiltinToCatalog (v0.12.0): preset name → model id.
_PRESETS = {
    "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "llama-3.3-70b-instruct": "meta-llama/Llama-3.3-70B-Instruct",
    "deepseek-r1-0528": "deepseek-ai/DeepSeek-R1-0528",
    "deepseek-v3-0324": "deepseek-ai/DeepSeek-V3-0324",
    "falcon-7b": "tiiuae/falcon-7b",
    "falcon-7b-instruct": "tiiuae/falcon-7b-instruct",
    "falcon-40b": "tiiuae/falcon-40b",
    "falcon-40b-instruct": "tiiuae/falcon-40b-instruct",
    "mistral-7b": "mistralai/Mistral-7B-v0.3",
    "mistral-7b-instruct": "mistralai/Mistral-7B-Instruct-v0.3",
    "ministral-3-3b-instruct": "mistralai/Ministral-3-3B-Instruct-2512",
    "ministral-3-8b-instruct": "mistralai/Ministral-3-8B-Instruct-2512",
    "ministral-3-14b-instruct": "mistralai/Ministral-3-14B-Instruct-2512",
    "mistral-large-3-675b-instruct": "mistralai/Mistral-Large-3-675B-Instruct-2512",
    "phi-2": "microsoft/phi-2",
    "phi-3-mini-4k-instruct": "microsoft/Phi-3-mini-4k-instruct",
    "phi-3-mini-128k-instruct": "microsoft/Phi-3-mini-128k-instruct",
    "phi-3-medium-4k-instruct": "microsoft/Phi-3-medium-4k-instruct",
    "phi-3-medium-128k-instruct": "microsoft/Phi-3-medium-128k-instruct",
    "phi-3.5-mini-instruct": "microsoft/Phi-3.5-mini-instruct",
    "phi-4-mini-instruct": "microsoft/Phi-4-mini-instruct",
    "phi-4": "microsoft/phi-4",
    "qwen2.5-coder-7b-instruct": "Qwen/Qwen2.5-Coder-7B-Instruct",
    "qwen2.5-coder-32b-instruct": "Qwen/Qwen2.5-Coder-32B-Instruct",
    "deepseek-r1-distill-qwen-14b": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
    "deepseek-r1-distill-llama-8b": "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
    "gemma-3-4b-instruct": "google/gemma-3-4b-it",
    "gemma-3-27b-instruct": "google/gemma-3-27b-it",
    "gpt-oss-20b": "openai/gpt-oss-20b",
    "gpt-oss-120b": "openai/gpt-oss-120b",
}
# The operator's SKU tables (pkg/sku/azure_sku_handler.go, aws_sku_handler.go at v0.12.0):
# instance type → (GPUs per node, their memory together in GiB). The product comes from the
# GPU catalogue's instance types. The AMD, Trainium and Inferentia types are left out: the
# operator asks for nvidia.com/gpu on every type (preset_inferences.go L560), which those
# nodes do not offer.
_SKUS = {
    "standard_nv36ads_a10_v5": (1, 24),
    "standard_nv72ads_a10_v5": (2, 48),
    "standard_nc24ads_a100_v4": (1, 80),
    "standard_nc48ads_a100_v4": (2, 160),
    "standard_nc96ads_a100_v4": (4, 320),
    "standard_nd96asr_a100_v4": (8, 320),
    "standard_nd96amsr_a100_v4": (8, 640),
    "standard_nc40ads_h100_v5": (1, 94),
    "standard_nc80adis_h100_v5": (2, 188),
    "standard_nd96isr_h100_v5": (8, 640),
    "standard_ncc40ads_h100_v5": (1, 94),
    "standard_nd96isr_h200_v5": (8, 1128),
    "p4d.24xlarge": (8, 320),
    "p4de.24xlarge": (8, 640),
    "p5.48xlarge": (8, 640),
    "p5e.48xlarge": (8, 1128),
    "p5en.48xlarge": (8, 1128),
    "g6.xlarge": (1, 24),
    "g6.2xlarge": (1, 24),
    "g6.4xlarge": (1, 24),
    "g6.8xlarge": (1, 24),
    "g6.16xlarge": (1, 24),
    "gr6.4xlarge": (1, 24),
    "gr6.8xlarge": (1, 24),
    "g6.12xlarge": (4, 96),
    "g6.24xlarge": (4, 96),
    "g6.48xlarge": (8, 192),
    "g5.xlarge": (1, 24),
    "g5.2xlarge": (1, 24),
    "g5.4xlarge": (1, 24),
    "g5.8xlarge": (1, 24),
    "g5.12xlarge": (4, 96),
    "g5.16xlarge": (1, 24),
    "g5.24xlarge": (4, 96),
    "g5.48xlarge": (8, 192),
}
# presets/workspace/models/model_catalog.yaml modelFileSize (GiB) of the preset models, for
# the operator's choice between data and tensor parallelism (configureParallelism).
_MODEL_GIB = {
    "meta-llama/Llama-3.1-8B-Instruct": 14.96,
    "meta-llama/Llama-3.3-70B-Instruct": 131.42,
    "deepseek-ai/DeepSeek-R1-0528": 641.30,
    "deepseek-ai/DeepSeek-V3-0324": 641.30,
    "mistralai/Mistral-7B-v0.3": 13.50,
    "mistralai/Mistral-7B-Instruct-v0.3": 13.50,
    "mistralai/Ministral-3-3B-Instruct-2512": 4.35,
    "mistralai/Ministral-3-8B-Instruct-2512": 9.70,
    "mistralai/Ministral-3-14B-Instruct-2512": 14.65,
    "mistralai/Mistral-Large-3-675B-Instruct-2512": 634.70,
    "microsoft/Phi-3-mini-4k-instruct": 7.12,
    "microsoft/Phi-3-mini-128k-instruct": 7.12,
    "microsoft/Phi-3-medium-4k-instruct": 26.00,
    "microsoft/Phi-3-medium-128k-instruct": 26.00,
    "microsoft/Phi-3.5-mini-instruct": 7.12,
    "microsoft/Phi-4-mini-instruct": 7.15,
    "microsoft/phi-4": 27.31,
    "Qwen/Qwen2.5-Coder-7B-Instruct": 14.19,
    "Qwen/Qwen2.5-Coder-32B-Instruct": 61.03,
    "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B": 27.51,
    "deepseek-ai/DeepSeek-R1-Distill-Llama-8B": 14.96,
    "google/gemma-3-4b-it": 8.01,
    "google/gemma-3-27b-it": 51.10,
    "openai/gpt-oss-20b": 25.63,
    "openai/gpt-oss-120b": 121.54,
}
# preset_inferences.go defaultLivenessProbe, defaultReadinessProbe, buildStartupProbe.
_PROBES: dict[str, dict[str, Any]] = {
    "livenessProbe": {
        "httpGet": {"path": "/health", "port": _PORT},
        "initialDelaySeconds": 0,
        "periodSeconds": 10,
        "failureThreshold": 3,
    },
    "readinessProbe": {
        "httpGet": {"path": "/health", "port": _PORT},
        "initialDelaySeconds": 30,
        "periodSeconds": 10,
    },
    "startupProbe": {
        "httpGet": {"path": "/health", "port": _PORT},
        "periodSeconds": 10,
        "failureThreshold": 180,
    },
}


def is_kaito(kind: str, api_version: str) -> bool:
    return kind in KINDS and api_version.startswith(API_GROUP)


def model_of_preset(name: str) -> str:
    """The model a preset name serves: the operator's table, else the name itself (a
    Hugging Face id such as ``Qwen/Qwen2.5-Coder-7B-Instruct``)."""
    return _PRESETS.get(name.lower(), name)


def gpus_of_sku(instance_type: str) -> int | None:
    found = _SKUS.get(instance_type.lower())
    return found[0] if found else None


def parallelism(model: str, instance_type: str) -> list[tuple[str, str]]:
    """The parallelism flags the operator passes on one node (``configureParallelism``,
    ``modelFitsOnSingleGPU`` in pkg/model/interface.go L543-L559, L686-L698): a model under
    half of one GPU's memory runs data parallel on every GPU, a larger one tensor parallel.
    Empty when the model's size is not in the operator's catalogue as read here."""
    found = _SKUS.get(instance_type.lower())
    if found is None:
        return []
    count, total_gib = found
    if count == 1:
        return [("--tensor-parallel-size", "1")]
    size = _MODEL_GIB.get(model)
    if size is None:
        return []
    if size * count * 2 < total_gib:
        return [("--data-parallel-size", str(count)), ("--tensor-parallel-size", "1")]
    return [("--tensor-parallel-size", str(count))]


def kaito_workloads(
    data: Mapping[str, Any],
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
    companions: Sequence[Any] = (),
) -> list[Workload]:
    """The workload of a Workspace or an InferenceSet; ``companions``: the documents of
    the same file, where the inference-config ConfigMap may be."""
    base: PathT = ("spec", "template") if data.get("kind") == "InferenceSet" else ()
    inference = lookup(data, (*base, "inference"))
    if not isinstance(inference, Mapping):
        return []  # a tuning workspace, or nothing to run
    spec = lookup(inference, ("template", "spec"))
    if isinstance(spec, Mapping):
        # A custom model: the user's own pod template, run as written.
        where = (*base, "inference", "template", "spec")
        return build_workloads(spec, lambda p: locate((*where, *p)), meta, settings)
    preset = lookup(inference, ("preset", "name"))
    if not isinstance(preset, str) or not preset:
        return []
    pod = SyntheticPod(locate(base))
    at = lambda *rest: locate((*base, *rest))  # noqa: E731
    operator = added_by(at(), WHO)
    pod.set((*_C, "name"), str(meta.name), at())
    pod.set((*_C, "command"), ["python3", "/workspace/vllm/inference_api.py"], operator)
    model = model_of_preset(preset)
    preset_at = at("inference", "preset", "name")
    args: list[tuple[str, Origin]] = [("--served-model-name", preset_at), (model, preset_at)]
    # vLLM sizes the context to the memory it finds (preset_inferences.go L581-L590).
    args += [("--max-model-len", operator), ("auto", operator)]
    sku = _gpus(data, base, at, pod)
    nodes = lookup(data, (*base, "resource", "count"))
    if sku:
        size_at = added_by(at("resource", "instanceType"), WHO)
        several = nodes if _is_int(nodes) and nodes > 1 else 1
        pairs = parallelism(model, sku) if several == 1 else across_nodes(sku, several)
        args += [(word, size_at) for pair in pairs for word in pair]
    args += _config_flags(inference, base, locate, companions)
    for index, (token, origin) in enumerate(args):
        pod.append((*_C, "args"), token, origin)
        pod.origins[(*_C, "args", index)] = origin
    _operator_pieces(pod, inference, operator)
    replicas = lookup(data, ("spec", "replicas")) if base else None
    # The server's parser reads these words (inference_api.py forwards them), so they are
    # its settings, the ConfigMap's last.
    completed = dataclasses.replace(
        meta,
        server_hint="vllm",
        server_known=True,
        hints=(Hint("model", model, preset_at), *flag_hints("vllm", args)),
        replicas=replicas if _is_int(replicas) else None,
        replicas_origin=locate(("spec", "replicas")) if _is_int(replicas) else None,
        multi_node=_is_int(nodes) and nodes > 1,
    )
    return build_workloads(pod.spec, pod.locate, completed, settings)


def across_nodes(instance_type: str, nodes: int) -> list[tuple[str, str]]:
    """The parallelism flags of a workspace over several nodes (``configureParallelism``,
    pkg/model/interface.go L544-L570 at 056b8280): tensor parallel over one node's GPUs,
    pipeline parallel over the nodes, on Ray. Its condition, ``DistributedInference``, holds
    for every preset there (presets/workspace/models/vllm_model.go L273)."""
    count = gpus_of_sku(instance_type)
    if count is None:
        return []
    return [
        ("--tensor-parallel-size", str(count)),
        ("--pipeline-parallel-size", str(nodes)),
        ("--distributed-executor-backend", "ray"),
    ]


def _gpus(data: Mapping[str, Any], base: PathT, at: Any, pod: SyntheticPod) -> str:
    """The GPUs the operator requests for the instance type, and the node label that
    names the type (so the catalogue finds the product); the instance type, or ''."""
    sku = lookup(data, (*base, "resource", "instanceType"))
    if not isinstance(sku, str) or not sku:
        return ""
    origin = added_by(at("resource", "instanceType"), WHO)
    pod.set(("nodeSelector", "node.kubernetes.io/instance-type"), sku, origin)
    count = gpus_of_sku(sku)
    if count is None:
        return ""
    for side in ("limits", "requests"):
        pod.set((*_C, "resources", side, "nvidia.com/gpu"), count, origin)
    return sku


def _config_flags(
    inference: Mapping[str, Any], base: PathT, locate: Locate, companions: Sequence[Any]
) -> list[tuple[str, Origin]]:
    """The ``vllm:`` arguments of the inference-config ConfigMap, as command-line flags
    at the ConfigMap's ``inference_config.yaml`` line."""
    name = inference.get("config")
    if not isinstance(name, str) or not name:
        return []
    for document in companions:
        data = getattr(document, "data", None)
        if not (
            isinstance(data, Mapping)
            and data.get("kind") == "ConfigMap"
            and lookup(data, ("metadata", "name")) == name
        ):
            continue
        text = lookup(data, ("data", _CONFIG_FILE))
        if not isinstance(text, str):
            return []
        return _flags_of(text, document_locate(document)(("data", _CONFIG_FILE)))
    return []


def _flags_of(text: str, origin: Origin) -> list[tuple[str, Origin]]:
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return []  # inference_api.py would fail at start; nothing to read here
    engine = config.get("vllm") if isinstance(config, Mapping) else None
    if not isinstance(engine, Mapping):
        return []
    out: list[tuple[str, Origin]] = []
    for key, value in engine.items():
        # inference_api.py passes each as "--key" "str(value)" (True becomes "True").
        out += [(f"--{key}", origin), (str(value), origin)]
    return out


def _operator_pieces(pod: SyntheticPod, inference: Mapping[str, Any], operator: Origin) -> None:
    pod.append((*_C, "ports"), {"name": "http", "containerPort": _PORT}, operator)
    for key, probe in _PROBES.items():
        pod.set((*_C, key), dict(probe), operator)
    volume = {"name": "dshm", "emptyDir": {"medium": "Memory"}, ADDED_BY: WHO}
    spot = pod.append(("volumes",), volume, operator)
    pod.copy_origins(("volumes", spot), volume, lambda _p: operator, ())
    pod.append((*_C, "volumeMounts"), {"name": "dshm", "mountPath": "/dev/shm"}, operator)
    if isinstance(inference.get("config"), str) and inference["config"]:
        mount = {"name": "config-volume", "mountPath": _CONFIG_MOUNT}
        pod.append((*_C, "volumeMounts"), mount, operator)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
