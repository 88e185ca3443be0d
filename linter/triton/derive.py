"""Facts derived from a model configuration, as Triton and its backends compute them.

Every value is computed from what was written, the way the server does it:
- the backend, from ``backend``, ``platform`` or ``default_model_filename``
  (core:src/model_config_utils.cc ``AutoCompleteBackendFields``);
- ``preferred_batch_size``: empty becomes ``[max_batch_size]`` (``NormalizeModelConfig``);
- the CUDA graphs the TensorRT backend captures and which batch sizes find one
  (tensorrt_backend:src/instance_state.cc ``InitializeGraphSpecs``,
  ``FindClosestCudaGraph``, ``ValidateGraphSpec``; see ``graphs``).

A value that is still a template placeholder (``"${triton_max_batch_size}"``) is unknown:
the derived field is left out rather than guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.positions import PathT
from linter.triton.fields import BACKENDS, MODEL_FILENAMES, PLATFORMS
from linter.triton.graphs import cuda_graphs

# Derived field → the config path whose line a user edits to change it.
Sources = dict[PathT, PathT]


def derive(config: Mapping[str, Any], fallback_name: str) -> tuple[dict[str, Any], Sources]:
    out: dict[str, Any] = {
        "name": _text(config.get("name")) or fallback_name,
        "backend_kind": backend_kind(config),
    }
    sources: Sources = {("backend_kind",): _backend_field(config)}
    max_batch = _integer(config.get("max_batch_size", 0))
    if max_batch is not None:
        out["max_batch_size"] = max_batch
    sources[("max_batch_size",)] = ("max_batch_size",)
    decoupled = _section(config, "model_transaction_policy").get("decoupled", False)
    if isinstance(decoupled, bool):
        out["decoupled"] = decoupled
    sources[("decoupled",)] = ("model_transaction_policy", "decoupled")
    _batching(config, max_batch, out, sources)
    graphs = cuda_graphs(config, out["backend_kind"], max_batch, out.get("preferred_batch_size"))
    if graphs is not None:
        out["cuda_graphs"], graph_sources = graphs
        sources.update({("cuda_graphs", *k): v for k, v in graph_sources.items()})
    out["instance_groups"] = _instance_groups(config, out["backend_kind"])
    _parameters(config, out, sources)
    _gpus_at_least(out["instance_groups"], out.get("gpu_device_id_sets", []))
    out["unfilled_fields"] = sorted(_unfilled(config))
    return out, sources


def backend_kind(config: Mapping[str, Any]) -> str:
    backend = _text(config.get("backend"))
    platform = _text(config.get("platform"))
    filename = _text(config.get("default_model_filename"))
    if "${" in backend or "${" in platform:
        return "unknown"
    if backend:
        return BACKENDS.get(backend, "other")
    if platform:
        return PLATFORMS.get(platform, "other")
    return MODEL_FILENAMES.get(filename, "unknown")


def _backend_field(config: Mapping[str, Any]) -> PathT:
    for key in ("backend", "platform", "default_model_filename"):
        if config.get(key):
            return (key,)
    return ()


def _batching(
    config: Mapping[str, Any], max_batch: int | None, out: dict[str, Any], sources: Sources
) -> None:
    out["dynamic_batching"] = isinstance(config.get("dynamic_batching"), dict)
    out["sequence_batching"] = isinstance(config.get("sequence_batching"), dict)
    batching = _section(config, "dynamic_batching")
    written = _integers(batching.get("preferred_batch_size", []))
    preferred_path: PathT = ("dynamic_batching", "preferred_batch_size")
    if written is not None:
        out["preferred_batch_size_written"] = written
        if out["dynamic_batching"] and max_batch is not None:
            out["preferred_batch_size"] = written or ([max_batch] if max_batch > 0 else [])
    sources[("preferred_batch_size",)] = (
        preferred_path if "preferred_batch_size" in batching else ("dynamic_batching",)
    )
    sources[("preferred_batch_size_written",)] = preferred_path
    for key in ("max_queue_delay_microseconds", "priority_levels", "default_priority_level"):
        value = _integer(batching.get(key, 0))
        if value is not None:
            out[key] = value
        sources[(key,)] = ("dynamic_batching", key)
    policies = batching.get("priority_queue_policy")
    levels = [_integer(k) for k in policies] if isinstance(policies, dict) else []
    out["priority_queue_policy_levels"] = [level for level in levels if level is not None]
    sources[("priority_queue_policy_levels",)] = ("dynamic_batching", "priority_queue_policy")


def _instance_groups(config: Mapping[str, Any], backend: str) -> list[dict[str, Any]]:
    groups = []
    for index, group in enumerate(_list(config.get("instance_group"))):
        if not isinstance(group, dict):
            continue
        kind = _text(group.get("kind")) or "KIND_AUTO"
        count = _integer(group.get("count", 0))
        if count is not None and count < 1:  # SetDefaultInstanceCount
            count = 2 if kind == "KIND_CPU" and backend in ("tensorflow", "onnxruntime") else 1
        gpus = group.get("gpus")
        entry: dict[str, Any] = {"index": index, "kind": kind, "gpus_listed": bool(gpus)}
        if count is not None:
            entry["count"] = count
        listed = _integers(gpus) if gpus else None
        if listed is not None:
            entry["gpus"] = listed
        groups.append(entry)
    return groups


def _parameters(config: Mapping[str, Any], out: dict[str, Any], sources: Sources) -> None:
    params: dict[str, str] = {}
    for key, value in _section(config, "parameters").items():
        if isinstance(value, dict):
            params[key] = _text(value.get("string_value"))
            sources[("parameters", key)] = ("parameters", key, "string_value")
    out["parameters"] = params
    sets = _device_id_sets(params.get("gpu_device_ids", ""))
    if sets:
        out["gpu_device_id_sets"] = sets
        sources[("gpu_device_id_sets",)] = ("parameters", "gpu_device_ids", "string_value")
    unfilled = [key for key, value in params.items() if "${" in value]
    out["unfilled_parameters"] = unfilled
    sources[("unfilled_parameters",)] = (
        ("parameters", unfilled[0], "string_value") if unfilled else ("parameters",)
    )


def _gpus_at_least(groups: list[dict[str, Any]], sets: list[list[int]]) -> None:
    """The fewest GPUs a KIND_GPU group places its count instances on: those it lists, or
    (no list: every GPU the server sees) one more than the highest id gpu_device_ids
    names, since those GPUs exist."""
    seen = max((i for ids in sets for i in ids), default=0) + 1
    for group in groups:
        if group["kind"] != "KIND_GPU":
            continue
        if not group["gpus_listed"]:
            group["gpus_at_least"] = seen
        elif "gpus" in group:
            group["gpus_at_least"] = len(set(group["gpus"]))


def _device_id_sets(text: str) -> list[list[int]]:
    """The TensorRT-LLM backend's gpu_device_ids: one comma-separated set of GPU ids per
    instance, sets separated by ';' (tensorrtllm_backend v0.19.0
    inflight_batcher_llm/src/model_state.cc#L97-L107); empty when unset or unreadable
    (the backend then picks the GPUs itself, model_state.cc#L119)."""
    sets = []
    for part in text.split(";"):
        ids = [_integer(v) for v in part.split(",")]
        if not part.strip() or any(v is None or v < 0 for v in ids):
            return []
        sets.append([v for v in ids if v is not None])
    return sets


def _unfilled(config: Mapping[str, Any]) -> set[str]:
    found: set[str] = set()

    def visit(value: Any, path: str) -> None:
        if isinstance(value, str) and "${" in value:
            found.add(path)
        elif isinstance(value, dict):
            for key, child in value.items():
                if not (path == "" and key == "parameters"):
                    visit(child, f"{path}.{key}" if path else key)
        elif isinstance(value, list):
            for index, child in enumerate(value):
                visit(child, f"{path}[{index}]")

    visit(config, "")
    return found


def _section(config: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = config.get(key)
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _integers(values: Any) -> list[int] | None:
    if not isinstance(values, list):
        return None
    ints = [_integer(v) for v in values]
    return None if any(v is None for v in ints) else [v for v in ints if v is not None]
