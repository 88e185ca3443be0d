"""KV-cache capacity arithmetic, in bytes and tokens per GPU (docs/serving-model.md,
"capacity").

Derived only when the model architecture and the GPU memory are known. These are
quantities; the policies decide (policies/vllm-kv.yaml, sglang-kv.yaml, tgi-kv.yaml):

- ``weight_bytes_per_gpu`` against ``gpu_memory_bytes`` (weights that exceed the physical
  memory fail with CUDA out of memory while loading) and against
  ``memory_budget_bytes_per_gpu`` (total × the server's memory fraction);
- ``kv_bytes_requested`` (one sequence of the longest length) against
  ``free_after_weights_bytes_per_gpu`` (a lower-bound proof: no overhead counted) and
  against ``kv_budget_bytes_per_gpu`` (after the fixed ``overhead_bytes_per_gpu``
  allowance).

The allowance stands for activations at the default batch, CUDA-graph pools and memory
outside the framework; vLLM and TGI reserve it inside their budget, SGLang outside
``mem_fraction_static``, so it is 0 there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from linter.model.facts.presets import DTYPE_BYTES

GIB = 2**30
# vLLM's fp8_ds_mla page: 656 bytes a token and layer (MLAAttentionSpec.page_size_bytes).
_FP8_DS_MLA_BYTES = 656
OVERHEAD_BYTES = {"vllm": 1 * GIB, "tgi": 1 * GIB, "sglang": 0}
_KV_DTYPE_BYTES = {
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_e4m3fn": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "half": 2,
    "float32": 4,
    "fp4_e2m1": 0.5,
    "nvfp4": 0.5,
}


# The figures each setting goes into, as ``capacity`` computes them (coverage names the
# rules a setting that could not be read leaves unjudged). The parallelism splits every
# per-GPU figure: ``EVERY_FIGURE``.
EVERY_FIGURE = frozenset({"*"})
_SEQUENCE = frozenset({"tokens_requested", "kv_bytes_requested", "tokens_for_all_sequences"})
_BUDGET = frozenset(
    {
        "memory_fraction",
        "memory_budget_bytes_per_gpu",
        "free_after_weights_bytes_per_gpu",
        "kv_budget_bytes_per_gpu",
        "kv_tokens_per_gpu",
        "kv_tokens_upper_per_gpu",
        "weights_exceed_budget",
    }
)
_KV_SIZE = frozenset(
    {
        "kv_dtype_bytes",
        "kv_bytes_per_token_per_gpu",
        "kv_bytes_requested",
        "kv_tokens_per_gpu",
        "kv_tokens_upper_per_gpu",
    }
)
FIGURES_OF_SETTING: dict[str, frozenset[str]] = {
    **dict.fromkeys(("max_model_len", "context_length", "max_total_tokens"), _SEQUENCE),
    **dict.fromkeys(
        ("max_num_seqs", "max_running_requests"), frozenset({"tokens_for_all_sequences"})
    ),
    **dict.fromkeys(
        ("tensor_parallel_size", "tp_size", "num_shard", "pipeline_parallel_size", "pp_size"),
        EVERY_FIGURE,
    ),
    **dict.fromkeys(
        (
            "gpu_memory_utilization",
            "mem_fraction_static",
            "cuda_memory_fraction",
            "tgi_wiggle_room",
        ),
        _BUDGET,
    ),
    "kv_cache_dtype": _KV_SIZE,
    "kv_cache_memory_bytes": frozenset({"kv_budget_bytes_per_gpu", "kv_tokens_per_gpu"}),
}


def capacity(
    server: str, effective: Mapping[str, Any], model: Mapping[str, Any], gpu: Mapping[str, Any]
) -> dict[str, Any] | None:
    memory = gpu.get("memory_bytes")
    layers = _int(model.get("num_hidden_layers"))
    if server not in OVERHEAD_BYTES or not isinstance(memory, int) or not layers:
        return None
    tp, pp = _parallelism(server, effective, gpu)
    dtype_bytes = kv_dtype_bytes(effective, model)
    per_token = kv_bytes_per_token_per_gpu(
        model, tp, pp, dtype_bytes, str(effective.get("kv_cache_dtype") or "").lower()
    )
    if per_token is None:
        return None
    assumptions: list[str] = []
    budget, fraction = _budget(server, effective, memory, assumptions)
    out: dict[str, Any] = {
        "tensor_parallel_size": tp,
        "pipeline_parallel_size": pp,
        "gpu_memory_bytes": memory,
        "memory_fraction": fraction,
        "kv_dtype_bytes": dtype_bytes,
        "kv_bytes_per_token_per_gpu": per_token,
        "memory_budget_bytes_per_gpu": budget,
        "overhead_bytes_per_gpu": OVERHEAD_BYTES[server],
        "kv_estimate_exact": not _sliding(model),
    }
    weights = model.get("weight_bytes")
    if isinstance(weights, int):
        per_gpu = math.ceil(weights / (tp * pp))
        free = budget - per_gpu
        kv_budget = max(0, free - OVERHEAD_BYTES[server])
        out.update(
            {
                "weight_bytes_per_gpu": per_gpu,
                "weight_bytes_exact": bool(model.get("weight_bytes_exact")),
                # Deprecated verdicts, kept for user policies that read them: compare
                # weight_bytes_per_gpu with gpu_memory_bytes / memory_budget_bytes_per_gpu.
                "weights_exceed_gpu_memory": per_gpu >= memory,
                "weights_exceed_budget": per_gpu >= budget,
                "free_after_weights_bytes_per_gpu": free,
                "kv_budget_bytes_per_gpu": kv_budget,
                "kv_tokens_per_gpu": kv_budget // per_token,
                "kv_tokens_upper_per_gpu": max(0, free) // per_token,
            }
        )
    if server == "vllm" and isinstance(effective.get("kv_cache_memory_bytes"), int):
        out["kv_budget_bytes_per_gpu"] = effective["kv_cache_memory_bytes"]
        out["kv_tokens_per_gpu"] = effective["kv_cache_memory_bytes"] // per_token
        assumptions.append("kv_cache_memory_bytes replaces the utilization budget")
    _requested(server, effective, model, per_token, out)
    out["assumptions"] = assumptions
    return out


def kv_dtype_bytes(effective: Mapping[str, Any], model: Mapping[str, Any]) -> float:
    kv = str(effective.get("kv_cache_dtype") or "auto").lower()
    if kv in _KV_DTYPE_BYTES:
        return _KV_DTYPE_BYTES[kv]
    return DTYPE_BYTES.get(str(model.get("dtype", "bfloat16")), 2)


def kv_bytes_per_token_per_gpu(
    model: Mapping[str, Any], tp: int, pp: int, dtype_bytes: float, kv_dtype: str = ""
) -> int | None:
    """2 × ⌈L / PP⌉ × max(1, Hkv // TP) × head_dim × dtype bytes; MLA: no factor 2
    (vLLM's page_size_bytes, vllm/v1/kv_cache_interface.py); MLA with ``fp8_ds_mla``: 656
    bytes a token and layer (the latent in FP8 with its scales and the rope part in 16
    bits, vllm/v1/attention/backends/mla/flashmla_sparse.py at v0.11.0)."""
    layers = math.ceil(_int(model.get("num_hidden_layers")) / pp)
    lora = _int(model.get("kv_lora_rank"))
    if lora and kv_dtype == "fp8_ds_mla":
        return layers * _FP8_DS_MLA_BYTES
    if lora:
        return int(layers * (lora + _int(model.get("qk_rope_head_dim"))) * dtype_bytes)
    kv_heads, head_dim = _int(model.get("num_key_value_heads")), _int(model.get("head_dim"))
    if not kv_heads or not head_dim:
        return None
    return int(2 * layers * max(1, kv_heads // tp) * head_dim * dtype_bytes)


def _parallelism(
    server: str, effective: Mapping[str, Any], gpu: Mapping[str, Any]
) -> tuple[int, int]:
    names = {
        "vllm": ("tensor_parallel_size", "pipeline_parallel_size"),
        "sglang": ("tp_size", "pp_size"),
        "tgi": ("num_shard", ""),
    }[server]
    tp = _int(effective.get(names[0])) or 1
    pp = _int(effective.get(names[1])) if names[1] else 1
    return tp, pp or 1


def _budget(
    server: str, effective: Mapping[str, Any], memory: int, assumptions: list[str]
) -> tuple[int, float]:
    if server == "vllm":
        fraction = effective.get("gpu_memory_utilization")
        if not isinstance(fraction, int | float):
            fraction = 0.9
            assumptions.append("gpu_memory_utilization 0.9 assumed (server version unknown)")
    elif server == "sglang":
        fraction = effective.get("mem_fraction_static")
        if not isinstance(fraction, int | float):
            fraction = 0.88
            assumptions.append("mem_fraction_static 0.88 assumed")
    else:
        share = effective.get("cuda_memory_fraction", 1.0)
        wiggle = effective.get("tgi_wiggle_room", 0.9)
        fraction = float(share if isinstance(share, int | float) else 1.0) * float(
            wiggle if isinstance(wiggle, int | float) else 0.9
        )
    return int(memory * float(fraction)), float(fraction)


def _requested(
    server: str,
    effective: Mapping[str, Any],
    model: Mapping[str, Any],
    per_token: int,
    out: dict[str, Any],
) -> None:
    length_name = {"vllm": "max_model_len", "sglang": "context_length", "tgi": "max_total_tokens"}[
        server
    ]
    length = _int(effective.get(length_name))
    if not length and server == "sglang":
        length = _int(model.get("max_position_embeddings"))
    if length > 0:
        out["tokens_requested"] = length
        out["kv_bytes_requested"] = length * per_token
    seqs_name = {"vllm": "max_num_seqs", "sglang": "max_running_requests"}.get(server)
    seqs = _int(effective.get(seqs_name)) if seqs_name else 0
    if seqs and length > 0:
        out["tokens_for_all_sequences"] = seqs * length


def _sliding(model: Mapping[str, Any]) -> bool:
    """Layers that keep less than the whole sequence: a sliding window, or Llama 4's
    chunked local attention (attention_chunk_size)."""
    window = model.get("sliding_window")
    if isinstance(model.get("attention_chunk_size"), int):
        return True
    return isinstance(window, int) and model.get("use_sliding_window") is not False


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
