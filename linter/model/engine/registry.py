"""One registry of settings per inference server: flags, aliases, canonical name, type, unit.

Canonical names are the servers' own field names (``max_model_len``, ``max_total_tokens``,
``mem_fraction_static``). Kinds:

- ``bool``: a switch that takes no value (vLLM ``BooleanOptionalAction``/``store_true``,
  SGLang ``store_true``, TGI clap flags); vLLM also accepts ``--no-<flag>``.
- ``vbool``: a boolean that takes a value (TGI ``--sharded true``, Triton ``--flag=false``).
- ``int``, ``float``, ``str``; ``hint``: vLLM's ``human_readable_int`` (``32k``/``32K``).
- ``json``: a JSON object (``--compilation-config``, ``-cc``).
- ``ints``: ``nargs='+'`` integers; ``csv``: comma-separated integers (TGI ``CUDA_GRAPHS``).
- ``multi``: a repeatable string flag, collected into a list.

Units (``unit``): ``ms``, ``s``, ``GiB``, ``bytes`` or empty. Errata item 5: a value's unit
belongs to the setting, never to its spelling.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import NamedTuple

from linter.lazyregex import lazy_compile


class Setting(NamedTuple):
    name: str
    kind: str
    flags: tuple[str, ...]
    env: str = ""
    unit: str = ""


def _s(name: str, kind: str, *aliases: str, env: str = "", unit: str = "") -> Setting:
    return Setting(name, kind, ("--" + name.replace("_", "-"), *aliases), env, unit)


# vLLM: vllm/engine/arg_utils.py (EngineArgs.add_cli_args) @v0.11.0 and @v0.33.0.
VLLM: tuple[Setting, ...] = (
    _s("model", "str"),
    _s("served_model_name", "str"),
    _s("revision", "str"),
    _s("tokenizer", "str"),
    _s("dtype", "str"),
    _s("quantization", "str", "-q"),
    _s("max_model_len", "hint"),
    _s("max_num_seqs", "int"),
    _s("max_num_batched_tokens", "hint"),
    _s("gpu_memory_utilization", "float", "--device-memory-utilization"),
    _s("kv_cache_memory_bytes", "hint", unit="bytes"),
    _s("tensor_parallel_size", "int", "-tp"),
    _s("pipeline_parallel_size", "int", "-pp"),
    _s("data_parallel_size", "int", "-dp"),
    _s("data_parallel_size_local", "int", "-dpl"),
    _s("enable_expert_parallel", "bool", "-ep"),
    _s("distributed_executor_backend", "str"),
    _s("nnodes", "int"),
    _s("node_rank", "int"),
    _s("headless", "bool"),
    _s("data_parallel_address", "str"),
    _s("enable_chunked_prefill", "bool"),
    _s("enable_prefix_caching", "bool"),
    _s("enforce_eager", "bool"),
    # cuda, cpu, … (removed in 0.10: the platform is detected).
    _s("device", "str"),
    _s("kv_cache_dtype", "str"),
    _s("calculate_kv_scales", "bool"),
    _s("block_size", "int"),
    _s("swap_space", "float", unit="GiB"),
    _s("cpu_offload_gb", "float", unit="GiB"),
    _s("kv_offloading_size", "float", unit="GiB"),
    _s("kv_offloading_backend", "str"),
    _s("cuda_graph_sizes", "ints"),
    _s("cudagraph_capture_sizes", "ints"),
    _s("max_cudagraph_capture_size", "int"),
    _s("max_seq_len_to_capture", "int"),
    _s("compilation_config", "json", "-cc"),
    _s("hf_overrides", "json"),
    _s("speculative_config", "json"),
    _s("kv_transfer_config", "json"),
    _s("num_speculative_tokens", "int"),
    _s("num_scheduler_steps", "int"),
    # --shutdown-timeout (vLLM >= 0.18.0, vllm-project/vllm#34730: 0 aborts in-flight
    # requests on SIGTERM); --shutdown-mode/--shutdown-drain-timeout as in docs/deployment/k8s.md.
    _s("shutdown_timeout", "int", unit="s"),
    _s("shutdown_mode", "str"),
    _s("shutdown_drain_timeout", "int", unit="s"),
    _s("load_format", "str"),
    _s("trust_remote_code", "bool"),
    _s("enable_lora", "bool"),
    _s("max_loras", "int"),
    _s("max_lora_rank", "int"),
    _s("host", "str"),
    _s("port", "int"),
    _s("api_key", "str"),
    _s("performance_mode", "str"),
    _s("config", "str"),
    _s("disable_log_requests", "bool"),
    # Prompts and outputs in the log (0.10.1 and later: off unless enabled).
    _s("enable_log_requests", "bool"),
    _s("enable_log_outputs", "bool"),
    _s("max_log_len", "int"),
    _s("uvicorn_log_level", "str"),
    _s("log_level", "str"),
    _s("enable_sleep_mode", "bool"),
    _s("max_logprobs", "int"),
    _s("seed", "int"),
    _s("hf_config_path", "str"),
    _s("rope_scaling", "json"),
    _s("limit_mm_per_prompt", "json"),
)

# TGI: launcher/src/main.rs `struct Args` (every field is `#[clap(long, env)]`).
TGI: tuple[Setting, ...] = (
    *(
        _s(name, kind, env=name.upper(), unit=unit)
        for name, kind, unit in (
            ("model_id", "str", ""),
            ("revision", "str", ""),
            ("sharded", "vbool", ""),
            ("num_shard", "int", ""),
            ("quantize", "str", ""),
            ("speculate", "int", ""),
            ("dtype", "str", ""),
            ("kv_cache_dtype", "str", ""),
            ("trust_remote_code", "bool", ""),
            ("max_concurrent_requests", "int", ""),
            ("max_best_of", "int", ""),
            ("max_stop_sequences", "int", ""),
            ("max_top_n_tokens", "int", ""),
            ("max_input_tokens", "int", ""),
            ("max_input_length", "int", ""),
            ("max_total_tokens", "int", ""),
            ("waiting_served_ratio", "float", ""),
            ("max_batch_prefill_tokens", "int", ""),
            ("max_batch_total_tokens", "int", ""),
            ("max_waiting_tokens", "int", ""),
            ("max_batch_size", "int", ""),
            ("cuda_graphs", "csv", ""),
            ("hostname", "str", ""),
            ("port", "int", ""),
            ("cuda_memory_fraction", "float", ""),
            ("rope_scaling", "str", ""),
            ("rope_factor", "float", ""),
            ("disable_custom_kernels", "bool", ""),
            ("max_client_batch_size", "int", ""),
            ("lora_adapters", "str", ""),
            ("payload_limit", "int", "bytes"),
            ("usage_stats", "str", ""),
            ("huggingface_hub_cache", "str", ""),
            ("json_output", "bool", ""),
        )
    ),
    # Read by the Python shards from the environment only (server/.../models/globals.py).
    Setting("attention", "str", (), "ATTENTION"),
    Setting("prefix_caching", "str", (), "PREFIX_CACHING"),
    Setting("use_prefix_caching", "str", (), "USE_PREFIX_CACHING"),
    Setting("prefill_chunking", "str", (), "PREFILL_CHUNKING"),
    Setting("tgi_wiggle_room", "float", (), "TGI_WIGGLE_ROOM"),
)

# SGLang: python/sglang/srt/server_args.py @v0.5.6.post2 (`add_cli_args`).
SGLANG: tuple[Setting, ...] = (
    _s("model_path", "str", "--model"),
    _s("tokenizer_path", "str"),
    _s("revision", "str"),
    _s("served_model_name", "str"),
    _s("context_length", "int"),
    _s("mem_fraction_static", "float"),
    _s("chunked_prefill_size", "int"),
    _s("max_prefill_tokens", "int"),
    _s("page_size", "int"),
    _s("cuda_graph_max_bs", "int"),
    _s("cuda_graph_bs", "ints"),
    _s("disable_cuda_graph", "bool"),
    _s("disable_cuda_graph_padding", "bool"),
    _s("max_running_requests", "int"),
    _s("max_total_tokens", "int"),
    _s("max_queued_requests", "int"),
    _s("tp_size", "int", "--tensor-parallel-size", "--tp"),
    _s("pp_size", "int", "--pipeline-parallel-size", "--pp"),
    _s("dp_size", "int", "--data-parallel-size", "--dp"),
    _s("ep_size", "int", "--expert-parallel-size", "--ep"),
    _s("nnodes", "int"),
    _s("node_rank", "int"),
    _s("dist_init_addr", "str"),
    _s("kv_cache_dtype", "str"),
    _s("dtype", "str"),
    _s("quantization", "str"),
    _s("enable_dp_attention", "bool"),
    _s("disable_overlap_schedule", "bool"),
    _s("enable_mixed_chunk", "bool"),
    _s("speculative_algorithm", "str"),
    _s("disaggregation_mode", "str"),
    _s("attention_backend", "str"),
    _s("disable_radix_cache", "bool"),
    _s("enable_torch_compile", "bool"),
    _s("trust_remote_code", "bool"),
    _s("host", "str"),
    _s("port", "int"),
    _s("enable_metrics", "bool"),
    _s("log_level", "str"),
    _s("log_level_http", "str"),
    _s("log_requests", "bool"),
    _s("log_requests_level", "int"),
    _s("json_model_override_args", "json"),
    _s("schedule_conservativeness", "float"),
    _s("config", "str"),
    _s("is_embedding", "bool"),
    _s("weight_version", "str"),
    _s("preferred_sampling_params", "str"),
    # GiB of each rank's weights kept in pinned CPU memory (utils/offloader.py @v0.5.23).
    _s("cpu_offload_gb", "int", unit="GiB"),
)

# Triton: src/command_line_parser.cc. gRPC durations are milliseconds.
TRITON: tuple[Setting, ...] = (
    _s("model_repository", "multi", "--model-store"),
    _s("model_control_mode", "str"),
    _s("load_model", "multi"),
    _s("exit_on_error", "vbool"),
    _s("exit_timeout_secs", "int", unit="s"),
    _s("strict_model_config", "vbool"),
    _s("disable_auto_complete_config", "bool"),
    _s("strict_readiness", "vbool"),
    _s("allow_http", "vbool"),
    _s("allow_grpc", "vbool"),
    _s("allow_metrics", "vbool"),
    _s("http_port", "int"),
    _s("grpc_port", "int"),
    _s("metrics_port", "int"),
    _s("log_verbose", "int"),
    _s("backend_config", "multi"),
    _s("server_id", "str"),
    _s("pinned_memory_pool_byte_size", "int", unit="bytes"),
    _s("cuda_memory_pool_byte_size", "multi"),
    _s("model_load_thread_count", "int"),
    _s("grpc_keepalive_time", "int", unit="ms"),
    _s("grpc_keepalive_timeout", "int", unit="ms"),
    _s("grpc_keepalive_permit_without_calls", "vbool"),
    _s("grpc_http2_max_pings_without_data", "int"),
    _s("grpc_http2_min_recv_ping_interval_without_data", "int", unit="ms"),
    _s("grpc_http2_max_ping_strikes", "int"),
    _s("grpc_max_connection_age", "int", unit="ms"),
    _s("grpc_max_connection_age_grace", "int", unit="ms"),
)

# NVIDIA NIM for LLMs: the NIM_* environment variables its launcher maps to the engine's
# settings (https://docs.nvidia.com/nim/large-language-models/1.12.0/configuration.html,
# "Environment Variables"; https://docs.nvidia.com/nim/large-language-models/latest/reference/environment-variables.html).
# Read from the environment only: NIM's own command line is not a server parser.
NIM: tuple[Setting, ...] = (
    Setting("model", "str", (), "NIM_MODEL_NAME"),  # multi-LLM NIMs: the model to serve
    Setting("model", "str", (), "NIM_MODEL_PATH"),  # the 2.x name of NIM_MODEL_NAME
    Setting("served_model_name", "str", (), "NIM_SERVED_MODEL_NAME"),
    Setting("model_profile", "str", (), "NIM_MODEL_PROFILE"),
    Setting("max_model_len", "int", (), "NIM_MAX_MODEL_LEN"),
    Setting("tensor_parallel_size", "int", (), "NIM_TENSOR_PARALLEL_SIZE"),
    Setting("pipeline_parallel_size", "int", (), "NIM_PIPELINE_PARALLEL_SIZE"),
    Setting("port", "int", (), "NIM_SERVER_PORT"),
    Setting("cache_path", "str", (), "NIM_CACHE_PATH"),
)

REGISTRIES: Mapping[str, tuple[Setting, ...]] = {
    "vllm": VLLM,
    "tgi": TGI,
    "sglang": SGLANG,
    "triton": TRITON,
    "trtllm": TRITON,
    "nim": NIM,
}


class _Index(NamedTuple):
    by_flag: dict[str, Setting]
    by_name: dict[str, Setting]
    by_env: dict[str, Setting]


@functools.cache
def _index(server: str) -> _Index:
    settings = REGISTRIES.get(server, ())
    by_flag = {flag: s for s in settings for flag in s.flags}
    return _Index(by_flag, {s.name: s for s in settings}, {s.env: s for s in settings if s.env})


def by_flag(server: str, flag: str) -> Setting | None:
    return _index(server).by_flag.get(flag)


def by_name(server: str, name: str) -> Setting | None:
    return _index(server).by_name.get(name)


def by_env(server: str, env: str) -> Setting | None:
    return _index(server).by_env.get(env)


def normalize_flag(server: str, flag: str) -> str:
    """vLLM rewrites ``--a_b`` to ``--a-b`` (FlexibleArgumentParser); others keep the text."""
    if server == "vllm" and flag.startswith("--"):
        name, sep, rest = flag[2:].partition("=")
        return "--" + name.replace("_", "-") + sep + rest
    return flag


_CAMEL = lazy_compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_key(key: str) -> str:
    """``maxModelLen``, ``max-model-len``, ``MAX_MODEL_LEN`` → ``max_model_len``."""
    return _CAMEL.sub("_", key.strip().lstrip("-")).replace("-", "_").lower()


def by_key(server: str, key: str) -> Setting | None:
    """The setting a values-file key names, whatever its case style."""
    return _index(server).by_name.get(snake_key(key))
