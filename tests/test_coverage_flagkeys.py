"""A mapping whose keys are mostly one server's flags, in the forms recipes write them."""

from __future__ import annotations

import pytest

from linter.coverage.flagkeys import FlagKeys, flag_keys, flag_string


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (
            ["max_model_len", "tensor_parallel_size", "gpu_memory_utilization", "model"],
            FlagKeys(
                "vllm", ("max_model_len", "tensor_parallel_size", "gpu_memory_utilization", "model")
            ),
        ),
        (
            ["max-model-len", "enforce-eager", "max-num-seqs"],
            FlagKeys("vllm", ("max-model-len", "enforce-eager", "max-num-seqs")),
        ),
        (
            ["SM_VLLM_MAX_MODEL_LEN", "SM_VLLM_DTYPE", "SM_VLLM_MAX_NUM_SEQS"],
            FlagKeys("vllm", ("SM_VLLM_MAX_MODEL_LEN", "SM_VLLM_DTYPE", "SM_VLLM_MAX_NUM_SEQS")),
        ),
        (
            ["mem_fraction_static", "chunked_prefill_size", "tp_size"],
            FlagKeys("sglang", ("mem_fraction_static", "chunked_prefill_size", "tp_size")),
        ),
        (
            ["max_input_tokens", "max_total_tokens", "num_shard"],
            FlagKeys("tgi", ("max_input_tokens", "max_total_tokens", "num_shard")),
        ),
        # Words every server takes (model, port, host): not one server's configuration.
        (["model", "port", "host", "dtype"], None),
        # Half of the keys are flags: not mostly.
        (["max_model_len", "tensor_parallel_size", "model", "backend", "a_b", "c_d"], None),
        # Fewer than three keys.
        (["max_model_len", "tensor_parallel_size"], None),
        # No server's flags at all.
        (["replica_count", "machine_type", "accelerator_type"], None),
    ],
    ids=["vllm", "dashes", "sagemaker", "sglang", "tgi", "common", "half", "few", "none"],
)
def test_flag_keys(keys: list[str], expected: FlagKeys | None) -> None:
    assert flag_keys(dict.fromkeys(keys, 1)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "--max-num-seqs 16 --enforce-eager",
            FlagKeys("vllm", ("--max-num-seqs", "--enforce-eager")),
        ),
        (
            "--mem-fraction-static=0.85 --chunked-prefill-size 4096 --tp-size 2",
            FlagKeys("sglang", ("--mem-fraction-static", "--chunked-prefill-size", "--tp-size")),
        ),
        # One option, or options no server has, or words every server takes.
        ("--max-model-len 4096", None),
        ("run it with --help or --version", None),
        ("--port 8000 --host 0.0.0.0", None),
        ("--foo-bar 1 --baz-qux 2 --max-num-seqs 4", None),
        # Prose that mentions options, and options every server has.
        ("vLLM tuning: run with --max-model-len 8192 and --enforce-eager to save memory", None),
        ("--log-level debug --enable-metrics", None),
    ],
)
def test_flag_string(text: str, expected: FlagKeys | None) -> None:
    assert flag_string(text) == expected
