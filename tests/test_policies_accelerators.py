"""Accelerators beyond NVIDIA's, end to end with the built-in policies: AMD Instinct
(amd.com/gpu), Google TPU with GKE's topology label (google.com/tpu), Intel Gaudi
(habana.ai/gaudi) and AWS Neuron (aws.amazon.com/neuron). Each folder of
tests/fixtures/accelerators is linted without configuration and its findings compared line
for line; folders ending in ``_ok`` stay clean."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
FIXTURES = Path(__file__).parent / "fixtures" / "accelerators"

# folder → (exit code, findings with paths relative to the folder, summary line)
CASES: dict[str, tuple[int, list[str], str]] = {
    "amd": (
        1,
        [
            "deployment.yaml:16:75: error gpu/world-size-above-gpus tensor_parallel_size 4 × "
            "pipeline_parallel_size 1 needs 4 GPUs, but the pod gets 2 (amd.com/gpu): vLLM fails "
            "at start-up (World size (4) is larger than the number of available GPUs (2) in this "
            "node); give the pod 4 GPUs or lower the parallelism",
            "deployment.yaml:16:75: warning shm/tensor-parallel-without-dev-shm "
            "tensor_parallel_size 4 without a memory-backed volume at /dev/shm: the container has"
            " the runtime's 64 MiB, which NCCL and the worker processes outgrow, usually under "
            "load; mount an emptyDir with medium: Memory and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "deployment.yaml:19:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only amd.com/gpu), so the pod is BestEffort: under"
            " node memory pressure the kubelet evicts it first; set cpu and memory requests (and "
            "limits equal to them for Guaranteed)",
            "deployment.yaml:38:29: error vllm-kv/weights-do-not-fit Llama-3.1-405B (405.9B "
            "parameters in bfloat16) needs 378.0 GiB of weights per GPU at TP=2; the AMD Instinct"
            " MI300X has 192 GiB, 172.8 GiB of it at gpu_memory_utilization 0.90: vLLM fails with"
            " HIP out of memory while loading the weights; raise tensor_parallel_size (with as "
            "many GPUs) or use a quantized checkpoint",
        ],
        "2 errors, 2 warnings, 0 info in 1 file",
    ),
    "amd_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "gaudi": (
        1,
        [
            "deployment.yaml:16:92: warning gpu/world-size-above-devices tensor_parallel_size 4 × "
            "pipeline_parallel_size 1 needs 4 Gaudi cards, but the pod gets 2 (habana.ai/gaudi): "
            "vLLM cannot give every rank a device of its own and fails at start-up; give the pod "
            "4 Gaudi cards or lower the parallelism",
            "deployment.yaml:38:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only habana.ai/gaudi), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
            "deployment.yaml:40:15: error gpu/extended-resource-request-without-limit container "
            "vllm requests habana.ai/gaudi 1 without a limit: the API server rejects the "
            "Deployment (Limit must be set for non overcommitable resources); set the limit, the "
            "request defaults to it",
        ],
        "1 error, 2 warnings, 0 info in 1 file",
    ),
    "gaudi_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "neuron": (
        0,
        [
            "deployment.yaml:12:11: warning readiness/missing the vLLM container vllm has no "
            "readinessProbe: Kubernetes counts it ready as soon as it starts, so the Service "
            "sends requests while the model is still loading (and after every restart), and they "
            "fail; add a readinessProbe with httpGet on /health port 8000",
            "deployment.yaml:14:83: warning gpu/world-size-above-devices tensor_parallel_size 4 × "
            "pipeline_parallel_size 1 needs 4 NeuronCores, but the pod gets 2 (1 "
            "aws.amazon.com/neuron device of 2 cores): vLLM cannot give every rank a NeuronCore "
            "of its own and fails at start-up; give the pod 4 NeuronCores or lower the "
            "parallelism",
            "deployment.yaml:16:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only aws.amazon.com/neuron), so the pod is "
            "BestEffort: under node memory pressure the kubelet evicts it first; set cpu and "
            "memory requests (and limits equal to them for Guaranteed)",
        ],
        "0 errors, 3 warnings, 0 info in 1 file",
    ),
    "neuron_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "tpu": (
        1,
        [
            "deployment.yaml:16:75: error gpu/tensor-parallel-above-tpu-slice "
            "tensor_parallel_size 8 × pipeline_parallel_size 2 needs 16 TPU chips, but the 2x4 "
            "slice of Google TPU v6e has 8: vLLM cannot place the shards and fails at start-up; "
            "choose a topology of 16 chips or lower the parallelism",
            "deployment.yaml:20:11: warning kubernetes-qos/gpu-pod-best-effort no container sets "
            "cpu or memory requests or limits (only google.com/tpu), so the pod is BestEffort: "
            "under node memory pressure the kubelet evicts it first; set cpu and memory requests "
            "(and limits equal to them for Guaranteed)",
        ],
        "1 error, 1 warning, 0 info in 1 file",
    ),
    "tpu_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixture_findings(run_line: RunLine, case: str) -> None:
    code, findings, summary = CASES[case]
    result = run_line(["lint", "--no-config", str(FIXTURES / case)])
    prefix = f"{FIXTURES / case}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *findings,
        summary,
    ]
    assert result.exit_code == code


def test_every_fixture_folder_is_a_case() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == set(CASES)
