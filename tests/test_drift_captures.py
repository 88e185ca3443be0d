"""Captures across servers and releases, each against its committed side as a manifest and
as values: in sync exits 0; planted differences are all reported, each on the line that
was planted (issue 30, "done means"). The captures are in tests/fixtures/drift/captures,
written in the shapes of start-up logs published with the command lines that started
them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import Result

CAPTURES = Path(__file__).parent / "fixtures" / "drift" / "captures"
Run = Callable[..., Result]


class Plant(NamedTuple):
    old: str  # in the committed file
    new: str
    rule: str
    path: str
    desired: object
    live: object


class Case(NamedTuple):
    capture: str
    committed: str
    plants: tuple[Plant, ...]


CASES = [
    Case(
        "vllm-0.6.3-ray.log",
        "vllm-0.6.3-ray-deployment.yaml",
        (
            Plant(
                "--max-model-len=16384",
                "--max-model-len=8192",
                "drift/changed",
                "max_model_len",
                8192,
                16384,
            ),
            Plant(
                "--tensor-parallel-size=4",
                "--tensor-parallel-size=8",
                "drift/changed",
                "tensor_parallel_size",
                8,
                4,
            ),
            Plant(
                "--max-num-seqs=128", "--max-num-seqs=64", "drift/changed", "max_num_seqs", 64, 128
            ),
        ),
    ),
    Case(
        "vllm-0.6.3-ray.log",
        "vllm-0.6.3-ray-values.yaml",
        (
            Plant(
                "maxModelLen: 16384",
                "maxModelLen: 8192",
                "drift/changed",
                "max_model_len",
                8192,
                16384,
            ),
            Plant(
                "tensorParallelSize: 4",
                "tensorParallelSize: 8",
                "drift/changed",
                "tensor_parallel_size",
                8,
                4,
            ),
            Plant(
                "gpuMemoryUtilization: 0.95",
                "gpuMemoryUtilization: 0.9",
                "drift/changed",
                "gpu_memory_utilization",
                0.9,
                0.95,
            ),
        ),
    ),
    Case(
        "vllm-0.8.3-dp-engine-cores.log",
        "vllm-0.8.3-dp-deployment.yaml",
        (
            Plant(
                "--max-model-len=32768",
                "--max-model-len=4096",
                "drift/changed",
                "max_model_len",
                4096,
                32768,
            ),
            Plant(
                "--served-model-name=qwen2.5-7b",
                "--served-model-name=qwen",
                "drift/served-model-name",
                "served_model_name",
                "qwen",
                "qwen2.5-7b",
            ),
        ),
    ),
    Case(
        "vllm-0.8.3-dp-engine-cores.log",
        "vllm-0.8.3-dp-values.yaml",
        (
            Plant(
                "maxModelLen: 32768",
                "maxModelLen: 4096",
                "drift/changed",
                "max_model_len",
                4096,
                32768,
            ),
            Plant(
                "enablePrefixCaching: true",
                "enablePrefixCaching: false",
                "drift/changed",
                "enable_prefix_caching",
                False,
                True,
            ),
        ),
    ),
    Case(
        "vllm-0.9.2-no-positional-model.log",
        "vllm-0.9.2-deployment.yaml",
        (
            Plant(
                "--tensor-parallel-size=2",
                "--tensor-parallel-size=4",
                "drift/changed",
                "tensor_parallel_size",
                4,
                2,
            ),
            Plant(
                "--max-num-seqs=32", "--max-num-seqs=16", "drift/changed", "max_num_seqs", 16, 32
            ),
        ),
    ),
    Case(
        "vllm-0.9.2-no-positional-model.log",
        "vllm-0.9.2-values.yaml",
        (
            Plant(
                "maxModelLen: 16384",
                "maxModelLen: 32768",
                "drift/changed",
                "max_model_len",
                32768,
                16384,
            ),
            Plant(
                "servedModelName: mistral-small",
                "servedModelName: mistral",
                "drift/served-model-name",
                "served_model_name",
                "mistral",
                "mistral-small",
            ),
        ),
    ),
    Case(
        "vllm-0.11.2-ray-dp.log",
        "vllm-0.11.2-ray-dp-deployment.yaml",
        (
            Plant(
                "--data-parallel-size=4",
                "--data-parallel-size=2",
                "drift/changed",
                "data_parallel_size",
                2,
                4,
            ),
            Plant(
                "--data-parallel-backend=ray",
                "--data-parallel-backend=mp",
                "drift/changed",
                "data_parallel_backend",
                "mp",
                "ray",
            ),
            Plant(
                "--max-num-batched-tokens=16384",
                "--max-num-batched-tokens=8192",
                "drift/changed",
                "max_num_batched_tokens",
                8192,
                16384,
            ),
        ),
    ),
    Case(
        "vllm-0.11.2-ray-dp.log",
        "vllm-0.11.2-ray-dp-values.yaml",
        (
            Plant(
                "dataParallelSize: 4",
                "dataParallelSize: 8",
                "drift/changed",
                "data_parallel_size",
                8,
                4,
            ),
            Plant("maxNumSeqs: 256", "maxNumSeqs: 512", "drift/changed", "max_num_seqs", 512, 256),
        ),
    ),
    Case(
        "vllm-0.10.1-tool-calling.log",
        "vllm-0.10.1-tool-calling.yaml",
        (
            Plant(
                "--tool-call-parser=hermes",
                "--tool-call-parser=llama3_json",
                "drift/changed",
                "tool_call_parser",
                "llama3_json",
                "hermes",
            ),
            Plant(
                "--max-model-len=32768",
                "--max-model-len=40960",
                "drift/changed",
                "max_model_len",
                40960,
                32768,
            ),
        ),
    ),
    Case(
        "vllm-0.10.1-tool-calling.log",
        "vllm-0.10.1-tool-calling-values.yaml",
        (
            Plant(
                "--reasoning-parser=qwen3",
                "--reasoning-parser=deepseek_r1",
                "drift/changed",
                "reasoning_parser",
                "deepseek_r1",
                "qwen3",
            ),
            Plant("--port=8080", "--port=9000", "drift/port", "port", 9000, 8080),
        ),
    ),
    Case(
        "tgi-3.1-launcher.log",
        "tgi-3.1-deployment.yaml",
        (
            Plant(
                "--max-total-tokens=32000",
                "--max-total-tokens=16000",
                "drift/changed",
                "max_total_tokens",
                16000,
                32000,
            ),
            Plant("--quantize=fp8", "--quantize=awq", "drift/changed", "quantize", "awq", "fp8"),
            Plant("--port=8080", "--port=80", "drift/port", "port", 80, 8080),
        ),
    ),
    Case(
        "tgi-3.1-launcher.log",
        "tgi-3.1-values.yaml",
        (
            Plant(
                "maxInputTokens: 30000",
                "maxInputTokens: 20000",
                "drift/changed",
                "max_input_tokens",
                20000,
                30000,
            ),
            Plant(
                "maxBatchPrefillTokens: 30050",
                "maxBatchPrefillTokens: 4096",
                "drift/changed",
                "max_batch_prefill_tokens",
                4096,
                30050,
            ),
        ),
    ),
    Case(
        "sglang-0.4.6-launch.log",
        "sglang-0.4.6-deployment.yaml",
        (
            Plant("--tp=4", "--tp=2", "drift/changed", "tp_size", 2, 4),
            Plant(
                "--mem-fraction-static=0.88",
                "--mem-fraction-static=0.8",
                "drift/changed",
                "mem_fraction_static",
                0.8,
                0.88,
            ),
            Plant(
                "--reasoning-parser=deepseek-r1",
                "--reasoning-parser=qwen3",
                "drift/changed",
                "reasoning_parser",
                "qwen3",
                "deepseek-r1",
            ),
        ),
    ),
    Case(
        "sglang-0.4.6-launch.log",
        "sglang-0.4.6-values.yaml",
        (
            Plant(
                "contextLength: 32768",
                "contextLength: 65536",
                "drift/changed",
                "context_length",
                65536,
                32768,
            ),
            Plant(
                "maxRunningRequests: 128",
                "maxRunningRequests: 64",
                "drift/changed",
                "max_running_requests",
                64,
                128,
            ),
        ),
    ),
    Case(
        "../logs/tgi-2.3-launcher.log",
        "tgi-2.3-deployment.yaml",
        (
            Plant("--num-shard=2", "--num-shard=4", "drift/changed", "num_shard", 4, 2),
            Plant(
                "--max-input-length=7168",
                "--max-input-length=4096",
                "drift/changed",
                "max_input_tokens",
                4096,
                7168,
            ),
        ),
    ),
    Case(
        "../logs/tgi-2.3-launcher.log",
        "../logs/tgi-values.yaml",
        (
            Plant(
                "maxTotalTokens: 8192",
                "maxTotalTokens: 16384",
                "drift/changed",
                "max_total_tokens",
                16384,
                8192,
            ),
            Plant("quantize: eetq", "quantize: awq", "drift/changed", "quantize", "awq", "eetq"),
        ),
    ),
    Case(
        "../logs/sglang-0.5-launch.log",
        "sglang-0.5-deployment.yaml",
        (
            Plant("--tp-size=2", "--tp-size=4", "drift/changed", "tp_size", 4, 2),
            Plant(
                "--chunked-prefill-size=8192",
                "--chunked-prefill-size=4096",
                "drift/changed",
                "chunked_prefill_size",
                4096,
                8192,
            ),
        ),
    ),
    Case(
        "../logs/sglang-0.5-launch.log",
        "../logs/sglang-values.yaml",
        (
            Plant(
                "memFractionStatic: 0.85",
                "memFractionStatic: 0.9",
                "drift/changed",
                "mem_fraction_static",
                0.9,
                0.85,
            ),
        ),
    ),
    Case(
        "../logs/triton-24.08-verbose.log",
        "triton-24.08-deployment.yaml",
        (
            Plant(
                "--model-control-mode=explicit",
                "--model-control-mode=poll",
                "drift/changed",
                "model_control_mode",
                "poll",
                "explicit",
            ),
            Plant(
                "--pinned-memory-pool-byte-size=268435456",
                "--pinned-memory-pool-byte-size=536870912",
                "drift/changed",
                "pinned_memory_pool_byte_size",
                536870912,
                268435456,
            ),
        ),
    ),
]
IDS = [f"{case.capture.rsplit('/', 1)[-1]}-{case.committed.rsplit('-', 1)[-1]}" for case in CASES]


@pytest.fixture(autouse=True)
def _in_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CAPTURES)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_in_sync(run_line: Run, case: Case) -> None:
    result = run_line(["drift", "-f", case.committed, "--live", case.capture, "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (report["findings"], report["summary"]["in_sync"]) == ([], 1)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_planted_differences_all_reported_on_their_lines(
    run_line: Run, tmp_path: Path, case: Case
) -> None:
    text = (CAPTURES / case.committed).read_text()
    for plant in case.plants:
        assert text.count(plant.old) == 1, plant.old
        text = text.replace(plant.old, plant.new)
    planted = tmp_path / Path(case.committed).name
    planted.write_text(text)
    lines = text.splitlines()
    expected = sorted(
        (
            plant.rule,
            plant.path,
            plant.desired,
            plant.live,
            next(n for n, line in enumerate(lines, 1) if plant.new in line),
        )
        for plant in case.plants
    )
    result = run_line(["drift", "-f", str(planted), "--live", case.capture, "--format", "json"])
    assert result.exit_code == 1
    found = [
        (f["rule"], f["path"], f["desired"], f["live"], f["line"])
        for f in json.loads(result.output)["findings"]
    ]
    assert sorted(found) == expected
