"""``effective``: engine settings resolved with the defaults of the server version.

A default is filled in only when it can be told: most depend on the version in the image
tag, some on the GPU's memory. Names that came from a default are listed in
``effective.defaulted``. Sources are cited in llm-servers.md §1.1, §1.3, §2.1 and §4.1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from linter.model.engine.images import version_tuple

GIB = 2**30
Resolved = dict[str, Any]


def effective(
    engine: Mapping[str, Any], gpu: Mapping[str, Any], model: Mapping[str, Any]
) -> tuple[Resolved, list[str]]:
    name = engine.get("name", "")
    version = version_tuple(str(engine.get("version", "")))
    defaults = _DEFAULTS.get(name, _none)(engine, version, gpu, model)
    resolved: Resolved = {}
    defaulted: list[str] = []
    for key, value in defaults.items():
        if key in engine:
            resolved[key] = engine[key]
        elif value is not None:
            resolved[key] = value
            defaulted.append(key)
    return resolved, sorted(defaulted)


def _none(
    engine: Mapping[str, Any],
    version: tuple[int, ...],
    gpu: Mapping[str, Any],
    model: Mapping[str, Any],
) -> Resolved:
    return {}


def _vllm(
    engine: Mapping[str, Any],
    version: tuple[int, ...],
    gpu: Mapping[str, Any],
    model: Mapping[str, Any],
) -> Resolved:
    v1 = bool(version) and version >= (0, 8) and engine.get("env", {}).get("VLLM_USE_V1") != "0"
    out: Resolved = {
        "tensor_parallel_size": 1,
        "pipeline_parallel_size": 1,
        "data_parallel_size": 1,
        "enforce_eager": False,
        "kv_cache_dtype": "auto",
        "block_size": 16,
        "cpu_offload_gb": 0,
        # vllm/config/cache.py: 0.9 up to 0.19.x, 0.92 from 0.20.0.
        "gpu_memory_utilization": (0.92 if version >= (0, 20) else 0.9) if version else None,
        "enable_prefix_caching": v1 if version else None,
        "enable_chunked_prefill": True if v1 else None,
        "swap_space": 4 if version and version < (0, 18) else None,
        "max_model_len": _derived_max_len(model),
        "shutdown_drain_timeout": 120 if engine.get("shutdown_mode") == "drain" else None,
        # The port it listens on: 8000 (entrypoints/openai/cli_args.py), 50051 for the gRPC
        # server (entrypoints/grpc_server.py at v0.14.0, L506-L508).
        "port": 50051 if engine.get("entrypoint") == "vllm.entrypoints.grpc_server" else 8000,
        # Written values are kept even when the default cannot be told (below).
        "max_num_batched_tokens": None,
        "max_num_seqs": None,
    }
    memory = gpu.get("memory_bytes")
    if version >= (0, 10, 1) and isinstance(memory, int):
        # arg_utils.py get_batch_defaults (API server): by device memory (§1.3).
        tokens, seqs = 2048, 256
        if memory >= 70 * GIB and "A100" not in str(gpu.get("product", "")):
            tokens, seqs = 8192, 1024
        if memory >= 160 * GIB and version >= (0, 33):
            tokens, seqs = 16384, 1024
        if engine.get("enable_chunked_prefill") is False and isinstance(
            engine.get("max_model_len"), int
        ):
            tokens = max(tokens, engine["max_model_len"])
        batched = engine.get("max_num_batched_tokens", tokens)
        out["max_num_batched_tokens"] = tokens
        out["max_num_seqs"] = min(seqs, batched) if isinstance(batched, int) else seqs
    out["max_cudagraph_capture_size"] = _capture_max(engine, version, gpu, out)
    return out


def _capture_max(
    engine: Mapping[str, Any], version: tuple[int, ...], gpu: Mapping[str, Any], out: Resolved
) -> int | None:
    """The largest decode batch that gets a CUDA graph: the largest capture size
    not above max_num_batched_tokens, by default min(2 × max_num_seqs × (1 + speculative
    tokens), 512), 1024 on B200 in v0.33 (config/vllm.py ``_set_cudagraph_sizes`` @v0.33.0;
    config/__init__.py L551–612 @v0.11.0, without the speculative factor)."""
    batched = engine.get("max_num_batched_tokens", out.get("max_num_batched_tokens"))
    sizes = engine.get("cudagraph_capture_sizes") or engine.get("cuda_graph_sizes")
    if isinstance(sizes, list) and sizes:
        kept = [s for s in sizes if not isinstance(batched, int) or s <= batched]
        return max(kept) if kept else None
    seqs = engine.get("max_num_seqs", out.get("max_num_seqs"))
    blackwell = gpu.get("product") == "NVIDIA-B200"
    if not isinstance(seqs, int) or version < (0, 11) or (blackwell and version < (0, 33)):
        return None
    spec = engine.get("num_speculative_tokens")
    config = engine.get("speculative_config")
    if not isinstance(spec, int) and isinstance(config, Mapping):
        spec = config.get("num_speculative_tokens")
    spec = spec if isinstance(spec, int) and version >= (0, 11, 1) else 0
    value = min(seqs * 2 * (1 + spec), 1024 if blackwell else 512)
    return min(value, batched) if isinstance(batched, int) else value


def _derived_max_len(model: Mapping[str, Any]) -> int | None:
    length = model.get("max_position_embeddings")
    return (
        length
        if isinstance(length, int) and not model.get("rope_scaling")
        else (length if isinstance(length, int) and _rope_type(model) == "llama3" else None)
    )


def _rope_type(model: Mapping[str, Any]) -> str:
    rope = model.get("rope_scaling")
    if isinstance(rope, Mapping):
        return str(rope.get("rope_type", rope.get("type", "")))
    return ""


def _tgi(
    engine: Mapping[str, Any],
    version: tuple[int, ...],
    gpu: Mapping[str, Any],
    model: Mapping[str, Any],
) -> Resolved:
    count = gpu.get("count")
    official = "text-generation-inference" in str(engine.get("image", ""))
    return {
        "max_concurrent_requests": 128,
        "max_best_of": 2,
        "max_stop_sequences": 4,
        "waiting_served_ratio": 0.3,
        "max_waiting_tokens": 20,
        "cuda_graphs": [1, 2, 4, 8, 16, 32],
        "cuda_memory_fraction": 1.0,
        # globals.py: 0.95 in 2.3.x, 0.90 later.
        "tgi_wiggle_room": 0.95 if version and (2, 3) <= version < (2, 4) else 0.9,
        "num_shard": count if isinstance(count, int) and count > 0 else None,
        "hostname": "0.0.0.0",
        # The official image sets ENV PORT=80; the bare launcher default is 3000.
        "port": 80 if official else None,
        "prefill_chunking": ("1" if version >= (3,) else "0") if version else None,
        # Written values are kept (the launcher's defaults depend on the model and memory).
        "max_total_tokens": None,
        "max_input_tokens": None,
        "max_batch_prefill_tokens": None,
        "max_batch_total_tokens": None,
    }


# SGLang server_args.py _handle_gpu_memory_settings @v0.5.6.post2, by GPU memory in GiB.
_SGL_CHUNK = ((20, 2048), (35, 2048), (60, 4096), (90, 8192), (160, 8192))
_SGL_GRAPH = ((20, 8, 8), (35, 24, 80), (60, 32, 160), (90, 256, 512), (160, 256, 512))


def _sglang(
    engine: Mapping[str, Any],
    version: tuple[int, ...],
    gpu: Mapping[str, Any],
    model: Mapping[str, Any],
) -> Resolved:
    out: Resolved = {
        "tp_size": 1,
        "pp_size": 1,
        "dp_size": 1,
        "ep_size": 1,
        "nnodes": 1,
        "page_size": 1,
        "disable_cuda_graph": False,
        "kv_cache_dtype": "auto",
        "max_prefill_tokens": 16384,
        "mem_fraction_static": None,
        "port": 30000,  # server_args.py
        # No default of their own (the model's length; a limit from the memory): carried
        # when written, so the capacity figures use what the server is told.
        "context_length": None,
        "max_running_requests": None,
    }
    memory = gpu.get("memory_bytes")
    tp = engine.get("tp_size", 1) if isinstance(engine.get("tp_size"), int) else 1
    pp = engine.get("pp_size", 1) if isinstance(engine.get("pp_size"), int) else 1
    if not isinstance(memory, int):
        out["cuda_graph_max_bs"] = 160
        out["mem_fraction_static"] = 0.88
        return out
    gib = memory / GIB
    out["chunked_prefill_size"] = next((c for limit, c in _SGL_CHUNK if gib < limit), 16384)
    out["cuda_graph_max_bs"] = next(
        ((small if tp < 4 else large) for limit, small, large in _SGL_GRAPH if gib < limit), 512
    )
    chunk = engine.get("chunked_prefill_size", out["chunked_prefill_size"])
    graph = engine.get("cuda_graph_max_bs", out["cuda_graph_max_bs"])
    chunk = chunk if isinstance(chunk, int) else out["chunked_prefill_size"]
    graph = graph if isinstance(graph, int) else out["cuda_graph_max_bs"]
    reserved_mb = 512 + max(chunk, 2048) * 1.5 + graph * 2 + tp * pp / 8 * 1024
    total_mb = memory / 2**20
    if gib > 60:
        reserved_mb = max(reserved_mb, 10 * 1024)
    out["mem_fraction_static"] = round((total_mb - reserved_mb) / total_mb, 3)
    return out


def _triton(
    engine: Mapping[str, Any],
    version: tuple[int, ...],
    gpu: Mapping[str, Any],
    model: Mapping[str, Any],
) -> Resolved:
    # src/command_line_parser.h (exit_timeout_secs_{30}, exit_on_error_{true}).
    return {
        "exit_timeout_secs": 30,
        "exit_on_error": True,
        "model_control_mode": "none",
        "http_port": 8000,
        "grpc_port": 8001,
        "metrics_port": 8002,
    }


_DEFAULTS: dict[
    str,
    Callable[[Mapping[str, Any], tuple[int, ...], Mapping[str, Any], Mapping[str, Any]], Resolved],
] = {
    "vllm": _vllm,
    "tgi": _tgi,
    "sglang": _sglang,
    "triton": _triton,
    "trtllm": _triton,
}
