"""Server defaults: a key present on one side only is not drift when it holds the default.

One table per server (documented in docs/drift.md, "Server defaults"). For every entry:

- ``defaults``: the value the server uses when the key is not given (several values when
  it changed between versions, e.g. vLLM's ``gpu_memory_utilization`` 0.9 → 0.92);
- ``derived``: the server computes the value when it is not given (TGI's
  ``max_total_tokens``, vLLM's ``max_num_seqs``), so a one-sided value is not evidence;
- ``informational``: status fields that are not configuration (versions, hashes);
- ``exhaustive``: the live source prints every field (SGLang ``/get_server_info``,
  Triton ``/config``), so a one-sided live key that the table does not know is a default.

The elision is symmetric (whichever side holds the key alone, the same rule applies),
except for ``exhaustive``, which only applies to the live side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.drift.keys import canonical_key, split_unit
from linter.drift.normalize import EMPTY, Indexed, SetOf, scalar
from linter.lightclass import frozen
from linter.positions import PathT


@frozen
class ServerDefaults:
    name: str
    defaults: Mapping[str, tuple[Any, ...]]
    derived: frozenset[str] = frozenset()
    informational: frozenset[str] = frozenset()
    exhaustive: bool = False
    # Live settings the server reports as set explicitly (vLLM's non-default args): one
    # on the live side alone is drift even from an exhaustive source.
    explicit: frozenset[str] = frozenset()
    # The live source prints a few settings only (TGI /info, SGLang GetModelInfo): a key
    # the desired side holds and the live side does not print is not evidence either way.
    partial: bool = False


VLLM = ServerDefaults(
    "vllm",
    # vllm/config/*.py and vllm/engine/arg_utils.py at v0.11.0 (research notes §1.1).
    defaults={
        "gpu_memory_utilization": (0.9, 0.92),
        "tensor_parallel_size": (1,),
        "pipeline_parallel_size": (1,),
        "data_parallel_size": (1,),
        "block_size": (16,),
        "swap_space": (4,),
        "cpu_offload_gb": (0,),
        "kv_cache_dtype": ("auto",),
        "dtype": ("auto",),
        "enforce_eager": (False,),
        "trust_remote_code": (False,),
        "load_format": ("auto",),
        "tokenizer_mode": ("auto",),
        "port": (8000,),
        "uvicorn_log_level": ("info",),
        "disable_log_stats": (False,),
        # Switches that are off unless given (EngineArgs fields defaulting to False).
        "enable_lora": (False,),
        "enable_expert_parallel": (False,),
        "enable_sleep_mode": (False,),
        "enable_prompt_adapter": (False,),
        "calculate_kv_scales": (False,),
        "disable_custom_all_reduce": (False,),
        "disable_log_requests": (False,),
        "headless": (False,),
    },
    derived=frozenset(
        {
            "max_model_len",
            "max_num_seqs",
            "max_num_batched_tokens",
            "enable_prefix_caching",
            "enable_chunked_prefill",
            "served_model_name",
            "quantization",
            "seed",
            "max_cudagraph_capture_size",
            "cudagraph_capture_sizes",
        }
    ),
)

TGI = ServerDefaults(
    "tgi",
    # text-generation-inference launcher/src/main.rs `struct Args`; docs/source/reference/
    # launcher.md (research notes §2.1). The router binary's waiting_served_ratio is 1.2.
    defaults={
        "max_concurrent_requests": (128,),
        "max_best_of": (2,),
        "max_stop_sequences": (4,),
        "max_top_n_tokens": (5,),
        "max_waiting_tokens": (20,),
        "waiting_served_ratio": (0.3, 1.2),
        "validation_workers": (2,),
        "max_client_batch_size": (4,),
        "cuda_memory_fraction": (1.0,),
        "hostname": ("0.0.0.0",),
        "port": (3000, 80),
    },
    derived=frozenset(
        {
            "max_input_tokens",
            "max_input_length",
            "max_total_tokens",
            "max_batch_prefill_tokens",
            "max_batch_total_tokens",
            "max_batch_size",
            "num_shard",
            "cuda_graphs",
            "model_dtype",
            "model_device_type",
            "kv_cache_dtype",
        }
    ),
    informational=frozenset(
        {
            "model_sha",
            "model_pipeline_tag",
            "version",
            "sha",
            "docker_label",
            "router",
        }
    ),
)

SGLANG = ServerDefaults(
    "sglang",
    # sglang/srt/server_args.py at v0.5.x (research notes §4.1).
    defaults={
        "max_prefill_tokens": (16384,),
        "kv_cache_dtype": ("auto",),
        "tp_size": (1,),
        "pp_size": (1,),
        "dp_size": (1,),
        "ep_size": (1,),
        "schedule_policy": ("fcfs",),
        "schedule_conservativeness": (1.0,),
        "stream_interval": (1,),
        "disable_cuda_graph": (False,),
        "trust_remote_code": (False,),
        "dtype": ("auto",),
        "load_format": ("auto",),
        "tokenizer_mode": ("auto",),
        "host": ("127.0.0.1",),
        "port": (30000,),
        "log_level": ("info",),
        "max_loras_per_batch": (8,),
        "watchdog_timeout": (300,),
        "is_embedding": (False,),
        "weight_version": ("default",),
    },
    derived=frozenset(
        {
            "context_length",
            "mem_fraction_static",
            "chunked_prefill_size",
            "cuda_graph_max_bs",
            "cuda_graph_bs",
            "max_running_requests",
            "max_total_tokens",
            "page_size",
            "random_seed",
            "served_model_name",
            "tokenizer_path",
            "max_total_num_tokens",
            "max_req_input_len",
            "max_queued_requests",
        }
    ),
    informational=frozenset({"status", "version", "internal_states", "memory_usage"}),
    exhaustive=True,
)

TRITON = ServerDefaults(
    "triton",
    # `GET v2/models/<m>/config` prints every scalar field, defaults included, and the
    # normalised sub-messages (research notes §3.3); proto3 defaults are zero values.
    defaults={
        "max_batch_size": (0,),
        "dynamic_batching.max_queue_delay_microseconds": (0,),
        "dynamic_batching.preserve_ordering": (False,),
        "dynamic_batching.priority_levels": (0,),
        "dynamic_batching.default_priority_level": (0,),
    },
    derived=frozenset(
        {
            "platform",
            "backend",
            "runtime",
            "default_model_filename",
            "instance_group",
            "input",
            "output",
            "optimization",
            "version_policy",
            "model_warmup",
            "cc_model_filenames",
            "metric_tags",
            "parameters",
            "model_transaction_policy",
            "batch_input",
            "batch_output",
            "response_cache",
            "dynamic_batching.preferred_batch_size",
        }
    ),
    exhaustive=True,
)

SERVERS: dict[str, ServerDefaults] = {s.name: s for s in (VLLM, TGI, SGLANG, TRITON)}


def detect(live: Any) -> ServerDefaults | None:
    """Which server wrote a live document, from the keys only that server prints."""
    if not isinstance(live, dict):
        return None
    keys = {canonical_key(str(k)) for k in live}
    if {"mem_fraction_static", "tp_size"} <= keys or "model_path" in keys:
        return SGLANG
    if "max_concurrent_requests" in keys and keys & {"docker_label", "router", "model_id"}:
        return TGI
    if "name" in keys and keys & {"platform", "backend"} and keys & {"input", "max_batch_size"}:
        return TRITON
    if keys & {
        "max_num_seqs",
        "gpu_memory_utilization",
        "max_num_batched_tokens",
        "tensor_parallel_size",
        "enable_prefix_caching",
        "swap_space",
    }:
        return VLLM
    return None


def elide(desired: Any, live: Any, server: ServerDefaults) -> tuple[Any, Any]:
    """Both trees without the keys that hold a default on one side only."""
    table = _canonical_table(server)
    return _elide(desired, live, (), server, table)


def _canonical_table(server: ServerDefaults) -> dict[PathT, list[Any]]:
    table: dict[PathT, list[Any]] = {}
    for dotted, values in server.defaults.items():
        path = tuple(split_unit(canonical_key(part))[0] for part in dotted.split("."))
        unit = split_unit(canonical_key(dotted.split(".")[-1]))[1]
        table[path] = [scalar(v, unit, path[-1]) for v in values]
    return table


def _canonical(names: frozenset[str]) -> set[PathT]:
    return {tuple(split_unit(canonical_key(p))[0] for p in n.split(".")) for n in names}


def _elide(
    a: Any, b: Any, path: PathT, server: ServerDefaults, table: dict[PathT, list[Any]]
) -> tuple[Any, Any]:
    if not (_plain_dict(a) and _plain_dict(b)):
        return a, b
    derived, informational = _canonical(server.derived), _canonical(server.informational)
    explicit = _canonical(server.explicit)
    out_a: dict[str, Any] = {}
    out_b: dict[str, Any] = {}
    for key in list(a) + [k for k in b if k not in a]:
        here = (*path, key)
        if here in informational:
            continue
        if key in a and key in b:
            out_a[key], out_b[key] = _elide(a[key], b[key], here, server, table)
            continue
        if server.partial and key not in b:
            continue
        side, other = (a, out_a) if key in a else (b, out_b)
        # Only the live side can print a field because it is a default (exhaustive
        # sources); a desired key the live server does not print at all is reported.
        exhaustive = server.exhaustive and side is b and here not in explicit
        kept = _strip_defaults(side[key], here, table, derived, exhaustive)
        if kept is not EMPTY:
            other[key] = kept
    return out_a, out_b


def _strip_defaults(
    value: Any, path: PathT, table: dict[PathT, list[Any]], derived: set[PathT], exhaustive: bool
) -> Any:
    if path in derived:
        return EMPTY
    if path in table:
        return EMPTY if any(_same(value, default) for default in table[path]) else value
    if _plain_dict(value):
        kept = {
            k: v
            for k, v in (
                (k, _strip_defaults(v, (*path, k), table, derived, exhaustive))
                for k, v in value.items()
            )
            if v is not EMPTY
        }
        return kept or EMPTY
    return EMPTY if exhaustive else value


def _same(value: Any, default: Any) -> bool:
    # bool is an int in Python: True must not equal a default of 1.
    return type(value) is type(default) and value == default


def _plain_dict(value: Any) -> bool:
    return isinstance(value, dict) and not isinstance(value, Indexed | SetOf)
