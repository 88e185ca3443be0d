"""The sizing policy end to end: host memory the server pins (CPU offload, V0 swap space,
LMCache) and memory-backed volumes against the container's memory request and limit, on
realistic Deployments in tests/fixtures/sizing (docs/host-memory.md has the arithmetic)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "sizing"
SIZING = ["--no-config", "--no-builtin", "--policy-dir", str(ROOT / "policies" / "sizing.yaml")]

REQUEST_FINDING = (
    "llama-70b.yaml:36:15: warning sizing/host-memory-above-request the server pins 32.0 GiB "
    "of host memory as it starts (cpu_offload_gb 8 GiB per GPU × 4 GPUs), at or above the "
    "container's memory request of 16.0 GiB: the scheduler may place the pod on a node "
    "without that much free memory, and once its usage exceeds the request the kubelet "
    "evicts it among the first under node memory pressure; raise requests.memory above 32.0 "
    "GiB plus the server process"
)
LIMIT_FINDING = (
    "qwen-sglang.yaml:32:33: warning sizing/host-memory-above-limit the server keeps 40.0 GiB "
    "in CPU memory (cpu_offload_gb 20 GiB per GPU × 2 GPUs) and its memory-backed volumes "
    "hold up to 8.0 GiB: 48.0 GiB, at or above the container's memory limit of 44.0 GiB, so "
    "nothing is left for the server process and it is OOM-killed; raise limits.memory"
)

KV_OFFLOAD_FINDING = (
    "qwen3-kv-offload.yaml:29:35: warning sizing/host-memory-above-request the server pins "
    "200.0 GiB of host memory as it starts (kv_offloading_size 200 GiB), at or above the "
    "container's memory request of 128.0 GiB: the scheduler may place the pod on a node "
    "without that much free memory, and once its usage exceeds the request the kubelet "
    "evicts it among the first under node memory pressure; raise requests.memory above "
    "200.0 GiB plus the server process"
)


def test_pinned_memory_above_request_and_limit(run_line: RunLine) -> None:
    """vLLM's offload over four ranks exceeds the request only; SGLang's offload with
    /dev/shm reaches the limit, reported once (by the limit rule, not the request rule);
    vLLM 0.33's KV offload file in /dev/shm exceeds the request and is counted once
    against the limit, inside its volume."""
    result = run_line(["lint", *SIZING, str(FIXTURES / "offload")])
    prefix = f"{FIXTURES / 'offload'}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        REQUEST_FINDING,
        LIMIT_FINDING,
        KV_OFFLOAD_FINDING,
        "0 errors, 3 warnings, 0 info in 3 files",
    ]
    assert result.exit_code == 0


def test_request_finding_in_json_points_at_the_request(run_line: RunLine) -> None:
    path = FIXTURES / "offload" / "llama-70b.yaml"
    result = run_line(["lint", *SIZING, "--format", "json", str(path)])
    assert result.exit_code == 0
    findings = json.loads(result.output)["findings"]
    assert [(f["rule"], f["severity"], f["line"], f["column"], f["path"]) for f in findings] == [
        (
            "sizing/host-memory-above-request",
            "warning",
            36,
            15,
            "spec.template.spec.containers[0].resources.requests.memory",
        )
    ]


def test_chart_values_report_at_the_request_key(run_line: RunLine) -> None:
    """production-stack values: --cpu-offload-gb in vllmConfig.extraArgs, the request in
    requestMemory; the chart's 20Gi /dev/shm still leaves the 128Gi limit room."""
    result = run_line(["lint", *SIZING, str(FIXTURES / "values")])
    prefix = f"{FIXTURES / 'values'}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        "production-stack.yaml:12:7: warning sizing/host-memory-above-request the server pins "
        "40.0 GiB of host memory as it starts (cpu_offload_gb 10 GiB per GPU × 4 GPUs), at or "
        "above the container's memory request of 32.0 GiB: the scheduler may place the pod on "
        "a node without that much free memory, and once its usage exceeds the request the "
        "kubelet evicts it among the first under node memory pressure; raise requests.memory "
        "above 40.0 GiB plus the server process",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    assert result.exit_code == 0


def test_unknown_model_counts_the_offload_as_written(run_line: RunLine) -> None:
    """Without the model's weights there is no cap, and the rules still run: coverage names
    no gap for them."""
    result = run_line(["lint", "-v", *SIZING, str(FIXTURES / "unknown_model")])
    prefix = f"{FIXTURES / 'unknown_model'}/"
    assert [line.removeprefix(prefix) for line in result.output.splitlines()] == [
        "private-model.yaml:20:34: warning sizing/host-memory-above-request the server pins "
        "24.0 GiB of host memory as it starts (cpu_offload_gb 12 GiB per GPU × 2 GPUs), at or "
        "above the container's memory request of 16.0 GiB: the scheduler may place the pod on "
        "a node without that much free memory, and once its usage exceeds the request the "
        "kubelet evicts it among the first under node memory pressure; raise requests.memory "
        "above 24.0 GiB plus the server process",
        "coverage: 1 file, 1 workload recognised (vllm 1)",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    assert result.exit_code == 0


def test_room_for_the_pinned_memory_is_clean(run_line: RunLine) -> None:
    result = run_line(["lint", *SIZING, str(FIXTURES / "ok")])
    assert report_lines(result.output) == ["0 errors, 0 warnings, 0 info in 1 file"]
    assert result.exit_code == 0


def test_warning_fails_the_run_with_fail_level_warning(run_line: RunLine) -> None:
    path = FIXTURES / "offload" / "llama-70b.yaml"
    result = run_line(["lint", *SIZING, "--fail-level", "warning", str(path)])
    assert report_lines(result.output)[-1] == "0 errors, 1 warning, 0 info in 1 file"
    assert result.exit_code == 1


def test_lmcache_buffer_of_production_stack_values_against_the_limit(run_line: RunLine) -> None:
    """The chart profile gives lmcacheConfig.cpuOffloadingBufferSize to the server as
    LMCACHE_MAX_LOCAL_CPU_SIZE, located at the values key."""
    folder = FIXTURES / "lmcache_values"
    result = run_line(["lint", *SIZING, str(folder)])
    assert [line.removeprefix(f"{folder}/") for line in report_lines(result.output)] == [
        "production-stack.yaml:13:7: warning sizing/host-memory-above-limit the server keeps "
        "55.9 GiB in CPU memory (LMCACHE_MAX_LOCAL_CPU_SIZE 60 GB): 55.9 GiB, at or above the "
        "container's memory limit of 40.0 GiB, so nothing is left for the server process and "
        "it is OOM-killed; raise limits.memory",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    assert result.exit_code == 0
