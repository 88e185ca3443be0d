"""Key spellings and the settings whose unit drift knows.

``maxModelLen``, ``max-model-len``, ``--max-model-len`` and ``max_model_len`` are one key.
A key suffixed with its unit (``_ms``, ``_seconds``, ``timeoutSeconds``) is the same
setting as the bare key with a duration: ``keepalive_time_ms: 30000`` = ``keepaliveTime: 30s``.
"""

from __future__ import annotations

import re

from linter.drift.units import Unit

_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")

# Unit suffixes, longest first so that "_microseconds" is not read as "_seconds".
UNIT_SUFFIXES: tuple[tuple[str, Unit], ...] = (
    ("_microseconds", Unit.MICROSECONDS),
    ("_milliseconds", Unit.MILLISECONDS),
    ("_seconds", Unit.SECONDS),
    ("_millis", Unit.MILLISECONDS),
    ("_msec", Unit.MILLISECONDS),
    ("_secs", Unit.SECONDS),
    ("_sec", Unit.SECONDS),
    ("_ms", Unit.MILLISECONDS),
    ("_us", Unit.MICROSECONDS),
)

# Settings whose unit is known. Keys are canonical (snake_case, unit suffix removed).
# Sources: research notes on vLLM (vllm/config/cache.py: swap_space and cpu_offload_gb are
# GiB; vllm/utils/argparse_utils.py human_readable_int), Triton (tritonserver --help: gRPC
# keepalive flags in ms, pool sizes in bytes) and Kubernetes (resource quantities).
KNOWN_UNITS: dict[str, Unit] = {
    # vLLM
    "swap_space": Unit.GIB,
    "cpu_offload_gb": Unit.GIB,
    "kv_cache_memory_bytes": Unit.BYTES,
    "gpu_memory_utilization": Unit.NUMBER,
    "max_model_len": Unit.TOKENS,
    "max_num_batched_tokens": Unit.TOKENS,
    "max_num_seqs": Unit.COUNT,
    "block_size": Unit.COUNT,
    "tensor_parallel_size": Unit.COUNT,
    "pipeline_parallel_size": Unit.COUNT,
    "data_parallel_size": Unit.COUNT,
    "enforce_eager": Unit.BOOL,
    "enable_prefix_caching": Unit.BOOL,
    "enable_chunked_prefill": Unit.BOOL,
    "trust_remote_code": Unit.BOOL,
    # TGI (launcher flags and /info fields)
    "max_total_tokens": Unit.COUNT,
    "max_input_tokens": Unit.COUNT,
    "max_input_length": Unit.COUNT,
    "max_batch_prefill_tokens": Unit.COUNT,
    "max_batch_total_tokens": Unit.COUNT,
    "max_concurrent_requests": Unit.COUNT,
    "cuda_memory_fraction": Unit.NUMBER,
    "waiting_served_ratio": Unit.NUMBER,
    # SGLang
    "mem_fraction_static": Unit.NUMBER,
    "max_running_requests": Unit.COUNT,
    "context_length": Unit.COUNT,
    "chunked_prefill_size": Unit.COUNT,
    "watchdog_timeout": Unit.SECONDS,
    # Triton server flags: gRPC keepalive values are milliseconds
    "grpc_keepalive_time": Unit.MILLISECONDS,
    "grpc_keepalive_timeout": Unit.MILLISECONDS,
    "grpc_http2_min_recv_ping_interval_without_data": Unit.MILLISECONDS,
    "grpc_http2_min_sent_ping_interval_without_data": Unit.MILLISECONDS,
    "grpc_http2_max_ping_strikes": Unit.COUNT,
    "grpc_http2_max_pings_without_data": Unit.COUNT,
    "grpc_keepalive_permit_without_calls": Unit.BOOL,
    "pinned_memory_pool_byte_size": Unit.BYTES,
    "cuda_memory_pool_byte_size": Unit.BYTES,
    "exit_timeout": Unit.SECONDS,
    "max_batch_size": Unit.COUNT,
    # Kubernetes resources and volumes
    "memory": Unit.BYTES,
    "cpu": Unit.CPU,
    "ephemeral_storage": Unit.BYTES,
    "storage": Unit.BYTES,
    "size_limit": Unit.BYTES,
    "nvidia.com/gpu": Unit.COUNT,
    "amd.com/gpu": Unit.COUNT,
    "google.com/tpu": Unit.COUNT,
}

# Names that mark an unknown key as a duration (so "5m" is five minutes, not 0.005).
_TIME_WORDS = frozenset(
    {
        "timeout",
        "interval",
        "period",
        "delay",
        "duration",
        "time",
        "age",
        "ttl",
        "wait",
        "grace",
        "backoff",
        "deadline",
        "expiry",
        "idle",
    }
)

# Maps from a device to a size, written ``DEVICE:BYTES`` on Triton's command line
# (``--cuda-memory-pool-byte-size 0:67108864``, repeatable) and printed one row per device
# in its option table (``cuda_memory_pool_byte_size{0}``): compared as maps.
DEVICE_MAPS = frozenset({"cuda_memory_pool_byte_size", "cuda_virtual_address_size"})

# Lists whose order the servers ignore: compared as sets.
SET_KEYS = frozenset(
    {
        "served_model_name",
        "preferred_batch_size",
        "cudagraph_capture_sizes",
        "cuda_graph_sizes",
        "cuda_graph_bs",
        "gpus",
        "allowed_origins",
        "allowed_methods",
        "allowed_headers",
        "lora_modules",
        "lora_paths",
        "disable_cuda_graph_padding_bs",
        "tolerations",
        "image_pull_secrets",
        "finalizers",
    }
)


def canonical_key(key: str) -> str:
    """snake_case, whatever the spelling: camelCase, kebab-case, ``--flags``, UPPER_ENV."""
    text = key.lstrip("-")
    if not text.isupper():
        text = _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", text))
    return text.replace("-", "_").lower()


def split_unit(key: str) -> tuple[str, Unit | None]:
    """A canonical key without its unit suffix, and the unit (or the key's known unit)."""
    if key in KNOWN_UNITS:
        return key, KNOWN_UNITS[key]
    for suffix, unit in UNIT_SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)], unit
    return key, None


def is_time_key(key: str) -> bool:
    return any(word in _TIME_WORDS for word in key.split("_"))
