"""Every normalisation rule of drift: equal settings never show as drift, real changes do."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from linter.drift.compare import compare
from linter.drift.defaults import SERVERS, ServerDefaults, detect
from linter.drift.keys import canonical_key
from linter.drift.normalize import Options, normalize
from linter.positions import format_path


def drift(
    desired: Any,
    live: Any,
    server: str | None = None,
    ignore: tuple[str, ...] = (),
    unordered: tuple[str, ...] = (),
) -> list[tuple[str, str]]:
    options = Options(unordered=unordered)
    table: ServerDefaults | None = SERVERS[server] if server else None
    found = compare(normalize(desired, options), normalize(live, options), table, ignore)
    return [(format_path(d.path), d.status) for d in found]


@pytest.mark.parametrize(
    ("key", "canonical"),
    [
        ("maxModelLen", "max_model_len"),
        ("max-model-len", "max_model_len"),
        ("--max-model-len", "max_model_len"),
        ("max_model_len", "max_model_len"),
        ("MAX_TOTAL_TOKENS", "max_total_tokens"),
        ("HFToken", "hf_token"),
        ("nvidia.com/gpu", "nvidia.com/gpu"),
    ],
    ids=lambda v: str(v),
)
def test_key_styles_share_one_canonical_form(key: str, canonical: str) -> None:
    assert canonical_key(key) == canonical


def test_key_styles_are_not_drift() -> None:
    desired = {"maxModelLen": 4096, "gpu-memory-utilization": 0.9, "MAX_NUM_SEQS": 8}
    live = {"max_model_len": 4096, "gpu_memory_utilization": 0.9, "max_num_seqs": 8}
    assert drift(desired, live) == []


@pytest.mark.parametrize(
    ("desired", "live"),
    [
        ({"memory": "8Gi"}, {"memory": 8589934592}),
        ({"memory": "8Gi"}, {"memory": "8192Mi"}),
        ({"cpu": "500m"}, {"cpu": 0.5}),
        ({"cpu": "1000m"}, {"cpu": "1"}),
        ({"limits": {"nvidia.com/gpu": "2"}}, {"limits": {"nvidia.com/gpu": 2}}),
        ({"shmSize": "1G"}, {"shm_size": 1000000000}),
        ({"bufferSize": "1e3"}, {"buffer_size": "1k"}),
    ],
    ids=["Gi-bytes", "Gi-Mi", "millicores", "1000m-1", "gpu-count", "G-unknown-key", "e3-k"],
)
def test_kubernetes_quantities_are_compared_by_value(desired: Any, live: Any) -> None:
    assert drift(desired, live) == []


@pytest.mark.parametrize(
    ("desired", "live"),
    [
        ({"servedModelName": "llama"}, {"served_model_name": ["llama"]}),
        ({"apiKey": "k"}, {"api_key": ["k"]}),
        ({"maxModelLen": 8192}, {"max_model_len": [8192]}),
    ],
    ids=["set-key", "nargs-list", "number"],
)
def test_one_value_is_the_same_as_a_list_of_it(desired: Any, live: Any) -> None:
    # vLLM logs arguments that take several values as lists: --api-key k is ['k'].
    assert drift(desired, live) == []


def test_a_second_list_item_is_drift() -> None:
    assert drift({"servedModelName": "a"}, {"served_model_name": ["a", "b"]}) != []


def test_a_different_quantity_is_drift() -> None:
    assert drift({"memory": "8Gi"}, {"memory": "8G"}) == [("memory", "changed")]


@pytest.mark.parametrize(
    ("desired", "live"),
    [
        ({"timeout": "30s"}, {"timeout_seconds": 30}),
        ({"timeoutSeconds": 30}, {"timeout": "30s"}),
        ({"keepaliveTime": "30s"}, {"keepalive_time_ms": 30000}),
        ({"idleTimeout": "5m"}, {"idle_timeout": "300s"}),
        ({"drainTimeout": "1h30m"}, {"drain_timeout_seconds": 5400}),
        ({"queueDelay": "250ms"}, {"queue_delay_us": 250000}),
        ({"pollInterval": "0.1s"}, {"poll_interval_ms": "100"}),
    ],
    ids=[
        "s-seconds",
        "seconds-s",
        "ms-suffix",
        "minutes-time-key",
        "compound",
        "us-suffix",
        "decimal",
    ],
)
def test_durations_and_unit_suffixes_are_compared_in_seconds(desired: Any, live: Any) -> None:
    assert drift(desired, live) == []


def test_m_is_a_quantity_unless_the_key_is_a_duration() -> None:
    # 5m under a key that is not about time is 0.005 (Kubernetes quantity), not 300 s.
    assert drift({"ratio": "5m"}, {"ratio": 0.005}) == []
    assert drift({"ratio": "5m"}, {"ratio": 300}) == [("ratio", "changed")]


def test_known_settings_use_their_own_unit() -> None:
    # vLLM's --swap-space and --cpu-offload-gb are GiB (their --help), not bytes.
    assert drift({"swapSpace": 4}, {"swap_space": "4Gi"}) == []
    assert drift({"cpuOffloadGb": 2.5}, {"cpu_offload_gb": "2.5"}) == []
    assert drift({"swapSpace": 4}, {"swap_space": 4294967296}) == [("swap_space", "changed")]
    # Triton's gRPC keepalive flags are milliseconds.
    assert drift({"grpcKeepaliveTime": "2h"}, {"grpc-keepalive-time": 7200000}) == []
    assert drift({"grpcKeepaliveTime": 7200}, {"grpc_keepalive_time": 7200000}) == [
        ("grpc_keepalive_time", "changed")
    ]
    # vLLM's human_readable_int: 32K is 32768, 32k is 32000.
    assert drift({"maxModelLen": "32K"}, {"max_model_len": 32768}) == []
    assert drift({"maxModelLen": "32k"}, {"max_model_len": 32000}) == []
    assert drift({"maxModelLen": "32k"}, {"max_model_len": 32768}) == [("max_model_len", "changed")]


def test_fractions_are_plain_numbers_not_quantities() -> None:
    assert drift({"gpuMemoryUtilization": "0.90"}, {"gpu_memory_utilization": 0.9}) == []
    # "900m" would be 0.9 as a quantity; the setting is a plain number, so it is a string.
    assert drift({"gpuMemoryUtilization": "900m"}, {"gpu_memory_utilization": 0.9}) == [
        ("gpu_memory_utilization", "type-changed")
    ]


@pytest.mark.parametrize(
    ("desired", "live"),
    [
        ({"maxNumSeqs": "256"}, {"max_num_seqs": 256}),
        ({"ratio": "1.20"}, {"ratio": 1.2}),
        ({"ratio": 2}, {"ratio": 2.0}),
        ({"enforceEager": "true"}, {"enforce_eager": True}),
        ({"enforceEager": "False"}, {"enforce_eager": False}),
        ({"enablePrefixCaching": "1"}, {"enable_prefix_caching": True}),
    ],
    ids=["int-string", "float-string", "int-float", "bool-string", "bool-capital", "bool-known-1"],
)
def test_numbers_and_booleans_written_as_strings(desired: Any, live: Any) -> None:
    assert drift(desired, live) == []


def test_a_boolean_is_not_a_number() -> None:
    assert drift({"flag": True}, {"flag": 1}) == [("flag", "type-changed")]


def test_empty_values_equal_absent_ones() -> None:
    desired = {"a": None, "b": "", "c": {}, "d": [], "e": 1}
    assert drift(desired, {"e": 1}) == []
    assert drift({"e": 1}, desired) == []


def test_sets_ignore_order_lists_do_not() -> None:
    assert drift({"servedModelName": ["a", "b"]}, {"served_model_name": ["b", "a"]}) == []
    assert drift({"servedModelName": ["a", "b"]}, {"served_model_name": ["b", "c"]}) == [
        ("served_model_name.a", "missing-live"),
        ("served_model_name.c", "unexpected-live"),
    ]
    assert drift({"stages": [1, 2]}, {"stages": [2, 1]}) == [
        ("stages[0]", "changed"),
        ("stages[1]", "changed"),
    ]
    assert drift({"stages": [1, 2]}, {"stages": [2, 1]}, unordered=("stages",)) == []
    assert drift({"a": {"order": [1, 2]}}, {"a": {"order": [2, 1]}}, unordered=("*.order",)) == []


def test_named_lists_are_keyed_by_name() -> None:
    desired = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    live = {"env": [{"name": "B", "value": "2"}, {"name": "A", "value": "3"}]}
    assert drift(desired, live) == [("env.A.value", "changed")]


def test_argument_lists_compare_as_flags_and_with_config_files() -> None:
    args = [
        "vllm",
        "serve",
        "m",
        "--max-model-len=4096",
        "--max-num-seqs",
        "64",
        "--no-enable-prefix-caching",
        "--enforce-eager",
    ]
    config = {
        "max_model_len": 4096,
        "max_num_seqs": "64",
        "enable_prefix_caching": False,
        "enforce_eager": True,
        "_positional": ["vllm", "serve", "m"],
    }
    assert drift({"args": args}, {"args": config}) == []
    reordered = [
        "vllm",
        "serve",
        "m",
        "--max-num-seqs",
        "64",
        "--enforce-eager",
        "--max-model-len",
        "4096",
        "--no-enable-prefix-caching",
    ]
    assert drift({"args": args}, {"args": reordered}) == []
    assert drift({"args": args}, {"args": [*args[:5], "32", *args[6:]]}) == [
        ("args.max_num_seqs", "changed")
    ]


def test_statuses() -> None:
    desired = {"a": 1, "b": "x", "c": [1], "only_desired": 1}
    live = {"a": 2, "b": 5, "c": {"k": 1}, "only_live": 1}
    assert drift(desired, live) == [
        ("a", "changed"),
        ("b", "type-changed"),
        ("c", "type-changed"),
        ("only_desired", "missing-live"),
        ("only_live", "unexpected-live"),
    ]


def test_ignore_takes_globs_and_any_key_style() -> None:
    desired = {"seed": 1, "server": {"maxNumSeqs": 8, "port": 1}}
    live = {"seed": 2, "server": {"max_num_seqs": 9, "port": 2}}
    assert drift(desired, live, ignore=("seed",)) == [
        ("server.max_num_seqs", "changed"),
        ("server.port", "changed"),
    ]
    assert drift(desired, live, ignore=("server.*",)) == [("seed", "changed")]
    assert drift(desired, live, ignore=("server.max-num-seqs", "server")) == [("seed", "changed")]


def test_nan_equals_itself() -> None:
    assert drift({"x": float("nan")}, {"x": float("nan")}) == []


def test_vllm_defaults_fill_one_sided_keys() -> None:
    desired = {"maxModelLen": 4096}
    live = {
        "max_model_len": 4096,
        "block_size": 16,
        "gpu_memory_utilization": 0.92,
        "max_num_seqs": 512,
        "tensor_parallel_size": 2,
    }
    assert drift(desired, live, "vllm") == [("tensor_parallel_size", "unexpected-live")]
    # the same rule whichever side holds the key
    assert drift(live, desired, "vllm") == [("tensor_parallel_size", "missing-live")]
    assert drift(desired, live) == [
        ("block_size", "unexpected-live"),
        ("gpu_memory_utilization", "unexpected-live"),
        ("max_num_seqs", "unexpected-live"),
        ("tensor_parallel_size", "unexpected-live"),
    ]


def test_tgi_info_fields_are_not_configuration() -> None:
    live = {
        "model_id": "m",
        "version": "3.2.1",
        "sha": "4d28",
        "docker_label": "sha-4d28",
        "router": "text-generation-router",
        "max_total_tokens": 32768,
        "max_concurrent_requests": 128,
        "max_best_of": 2,
    }
    assert drift({"modelId": "m"}, live, "tgi") == []
    assert drift({"modelId": "m", "version": "2.0"}, live, "tgi") == []


def test_exhaustive_sources_only_excuse_live_only_keys() -> None:
    desired = {"name": "m", "max_batch_size": 8, "removed_field": 1}
    live = {
        "name": "m",
        "max_batch_size": 8,
        "platform": "",
        "runtime": "",
        "model_warmup": [],
        "dynamic_batching": {"max_queue_delay_microseconds": 0, "preferred_batch_size": [8]},
        "unknown_printed_field": 7,
    }
    assert drift(desired, live, "triton") == [("removed_field", "missing-live")]


@pytest.mark.parametrize(
    ("document", "server"),
    [
        ({"model_id": "m", "max_concurrent_requests": 128, "docker_label": "x"}, "tgi"),
        ({"model_path": "m", "tp_size": 1, "mem_fraction_static": 0.8}, "sglang"),
        ({"name": "m", "backend": "python", "max_batch_size": 0}, "triton"),
        ({"max_num_seqs": 8}, "vllm"),
        ({"hello": 1}, None),
        ([1, 2], None),
    ],
    ids=["tgi", "sglang", "triton", "vllm", "unknown", "not-a-map"],
)
def test_server_detection(document: Any, server: str | None) -> None:
    found = detect(document)
    assert (found.name if found else None) == server


def test_canonical_values_are_exact_decimals() -> None:
    tree = normalize({"pollIntervalMs": 100, "memory": "1Ki", "cpu": "250m"}).tree
    assert tree == {
        "poll_interval": Decimal("0.1"),
        "memory": Decimal(1024),
        "cpu": Decimal("0.25"),
    }


def test_every_server_default_is_documented() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "drift.md").read_text()
    table = docs[docs.index("## Server defaults") : docs.index("## Differences")]
    for server in SERVERS.values():
        for key in (*server.defaults, *server.derived, *server.informational):
            assert f"`{key}`" in table, (server.name, key)
