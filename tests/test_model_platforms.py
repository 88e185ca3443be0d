"""Deployments as platforms really run them: pod templates inside unknown kinds, and what
KServe's LLMInferenceService base configuration and KubeRay add to the pods they create."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from report_lines import report_lines

from linter.evaluate.inputs import read_inputs
from linter.model.frontends.extract import extract_workloads
from linter.model.records.workload import Workload
from linter.sources.files import expand

FIXTURES = Path(__file__).parent / "fixtures" / "model" / "platforms"
RunLine = Callable[..., Result]
BEST_EFFORT = "warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory"


def _workloads(name: str) -> list[Workload]:
    parsed, failures = read_inputs(expand([str(FIXTURES / name)]))
    assert failures == []
    return extract_workloads(parsed)


def _lint(run_line: RunLine, name: str) -> tuple[int, list[str]]:
    path = FIXTURES / name
    result = run_line(["lint", "--no-config", str(path)])
    prefix = f"{path}:"
    return result.exit_code, [
        line.removeprefix(prefix)[:120] for line in report_lines(result.output)[:-1]
    ]


def test_pod_templates_inside_an_unknown_kind_are_linted(run_line: RunLine) -> None:
    [workload] = _workloads("unknown-crd.yaml")
    assert (workload.name, workload.view().data["kind"], workload.view().data["replicas"]) == (
        "ChatEndpoint/default/support-bot/deployment",
        "ChatEndpoint",
        2,
    )
    assert workload.view().data["engine"]["name"] == "vllm"
    assert _lint(run_line, "unknown-crd.yaml") == (
        0,
        [
            "13:67: warning vllm/enforce-eager --enforce-eager switches CUDA graphs off: every "
            "decode step runs eagerly, which costs ",
            f"14:13: {BEST_EFFORT} requests or limits (only nvidia.com/gpu), so "[:120],
        ],
    )


def test_every_role_of_a_stormservice_is_a_workload(run_line: RunLine) -> None:
    workloads = _workloads("stormservice.yaml")
    assert [
        (w.name, w.view().data["replicas"], w.view().data["multi_node"]) for w in workloads
    ] == [
        ("StormService/default/llama-pd/roles/0", 2, False),
        ("StormService/default/llama-pd/roles/1", 1, False),
    ]
    code, lines = _lint(run_line, "stormservice.yaml")
    assert code == 1
    assert [line.split(" ")[:3] for line in lines] == [
        # The pod holds one rank per GPU it requests: the world size above them is the
        # problem (the error), not a /dev/shm for ranks the pod cannot hold.
        ["16:19:", "info", "diagnostics/prompts-logged-by-default"],
        ["19:23:", "error", "gpu/world-size-above-gpus"],
        ["20:19:", "warning", "kubernetes-qos/gpu-pod-best-effort"],
        ["29:19:", "info", "diagnostics/prompts-logged-by-default"],
        ["31:19:", "warning", "kubernetes-qos/gpu-pod-best-effort"],
    ]


def test_a_pod_group_spans_nodes_so_per_pod_gpu_checks_stay_quiet(run_line: RunLine) -> None:
    [workload] = _workloads("stormservice-group.yaml")
    assert (workload.view().data["multi_node"], workload.view().data["engine"]["tp_size"]) == (
        True,
        2,
    )
    code, lines = _lint(run_line, "stormservice-group.yaml")
    assert (code, [line.split(" ")[:3] for line in lines]) == (
        0,
        [["20:19:", "warning", "kubernetes-qos/gpu-pod-best-effort"]],
    )


def test_llminferenceservice_reads_vllm_additional_args_at_the_variable() -> None:
    [workload] = _workloads("llmisvc.yaml")
    engine = workload.view().data["engine"]
    assert (
        engine["tensor_parallel_size"],
        engine["max_model_len"],
        engine["enforce_eager"],
    ) == (8, 32768, True)
    origin = workload.view().locate(("engine", "tensor_parallel_size"))
    assert (origin.line, origin.column, origin.key) == (
        16,
        13,
        "spec.template.containers[0].env[0].value",
    )


def test_llminferenceservice_gets_the_base_configurations_shm_and_probes() -> None:
    [workload] = _workloads("llmisvc.yaml")
    assert workload.view().data["pod"]["shm"] == {
        "mounted": True,
        "host_ipc": False,
        "volume": "dshm",
        "medium": "Memory",
        "size_limit_bytes": 1 << 30,
    }
    probes = workload.view().data["container"]["probes"]
    assert (probes["liveness"]["http_path"], probes["liveness"]["budget_seconds"]) == (
        "/health",
        100,
    )
    assert probes["readiness"]["budget_seconds"] == 610
    origin = workload.view().locate(("pod", "shm", "size_limit_bytes"))
    assert (origin.line, origin.key) == (12, "added by LLMInferenceService base configuration")


def test_llminferenceservice_findings(run_line: RunLine) -> None:
    code, lines = _lint(run_line, "llmisvc.yaml")
    assert (code, [line.split(" ")[:3] for line in lines]) == (
        0,
        [
            ["12:9:", "warning", "probes/liveness-budget-below-load-time"],
            ["16:13:", "warning", "vllm/enforce-eager"],
        ],
    )


def test_kuberay_mounts_dev_shm_itself(run_line: RunLine) -> None:
    [worker] = _workloads("rayservice.yaml")
    assert worker.name == "RayService/default/llm/worker/gpu"
    assert worker.view().data["pod"]["shm"] == {
        "mounted": True,
        "host_ipc": False,
        "volume": "shared-mem",
        "medium": "Memory",
    }
    assert worker.view().locate(("pod", "shm", "mounted")).key == "added by KubeRay"
    # No /dev/shm warning for tensor parallelism, and the operator's volume is not judged
    # as the user's memory volume without a size limit.
    assert _lint(run_line, "rayservice.yaml") == (0, [])
