"""What is derived from a workload's settings: the model's facts (the catalogue or the
user's config), the effective settings (defaults filled in) and the capacity figures,
each at the origin of the written setting it derives from."""

from __future__ import annotations

from typing import Any

from linter.model.engine import defaults
from linter.model.engine.images import ImageInfo
from linter.model.engine.settings import ModelSettings
from linter.model.facts import presets
from linter.model.facts.capacity import capacity
from linter.model.records.located import Located
from linter.model.records.records import Capacity, Effective, Gpu, ModelFacts, ServingModel
from linter.positions import Origin

# NIM images that serve whatever model NIM_MODEL_NAME names (multi-LLM NIMs), not one model.
_NIM_MULTI_LLM = ("llm-nim", "nim-llm")


def nim_image_model(server: str, image: ImageInfo | None) -> str:
    """The model an LLM-specific NIM image serves: ``nvcr.io/nim/meta/llama-3.1-8b-instruct``
    serves ``meta/llama-3.1-8b-instruct`` (the image is named after the model it packages,
    https://docs.nvidia.com/nim/large-language-models/latest/supported-models.html)."""
    if server != "nim" or image is None:
        return ""
    publisher, _, model = image.repository.lower().removeprefix("nvcr.io/nim/").partition("/")
    if not model or "/" in model or model in _NIM_MULTI_LLM:
        return ""
    return f"{publisher}/{model}"


def model_and_capacity(server: str, record: ServingModel, settings: ModelSettings) -> None:
    assert record.engine is not None and record.gpu is not None
    engine = record.engine.value
    plain_engine = engine.values()
    model_id = engine.model_id
    model: dict[str, Any] = {}
    if model_id is not None and isinstance(model_id.value, str) and model_id.value:
        model = presets.model_facts(model_id.value, plain_engine, settings)
        record.model = Located(ModelFacts(**model), model_id.origin)
    gpu = record.gpu.value
    plain_gpu = gpu.plain()
    resolved, defaulted = defaults.effective(plain_engine, plain_gpu, model)
    # A default is at the image it comes with; a written setting at its line.
    effective = Effective(
        settings={key: Located(value, engine.origin_of(key)) for key, value in resolved.items()},
        defaulted=Located(defaulted),
    )
    record.effective = Located(effective, engine.image.origin if engine.image else None)
    if model.get("known"):
        try:
            result = capacity(server, resolved, model, plain_gpu)
        except (OverflowError, ValueError, ZeroDivisionError):
            # A setting out of any sensible range (1e308): the rules on the setting
            # itself report it at its line; the memory budget cannot be computed.
            result = None
        if result is not None:
            at = _capacity_origins(effective, gpu, record.gpu.origin)
            record.capacity = Located(
                Capacity.of(result, at.get), model_id.origin if model_id else None
            )


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


def _capacity_origins(
    effective: Effective, gpu: Gpu, gpu_origin: Origin | None
) -> dict[str, Origin]:
    """Each capacity figure at the first written setting it derives from."""
    out: dict[str, Origin] = {}
    for field, inputs in _CAPACITY_INPUTS.items():
        origin = next(
            (
                found.origin
                for name in inputs
                if (found := effective.settings.get(name)) is not None and found.origin is not None
            ),
            None,
        )
        if origin is not None:
            out[field] = origin
    memory = gpu.memory_bytes.origin if gpu.memory_bytes is not None else None
    if (memory or gpu_origin) is not None:
        out["gpu_memory_bytes"] = memory or gpu_origin  # type: ignore[assignment]
    return out
