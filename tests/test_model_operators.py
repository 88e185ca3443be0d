"""Operators whose resources name a server without a pod template: KAITO workspaces and
inference sets, OME runtimes and inference services, NVIDIA Dynamo graph deployments,
each as the pod its operator creates (fixtures from the operators' own examples)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from report_lines import report_lines

from linter.evaluate.inputs import read_inputs
from linter.model.frontends.extract import extract_workloads
from linter.model.frontends.kaito import gpus_of_sku, model_of_preset, parallelism
from linter.model.records.workload import Workload
from linter.sources.files import expand

FIXTURES = Path(__file__).parent / "fixtures" / "model" / "operators"
RunLine = Callable[..., Result]
BEST_EFFORT = (
    "warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory requests or "
    "limits (only nvidia.com/gpu), so the pod is BestEffort: under node memory pressure the "
    "kubelet evicts it first; set cpu and memory requests (and limits equal to them for "
    "Guaranteed)"
)


def _workloads(path: Path) -> list[Workload]:
    parsed, failures = read_inputs(expand([str(path)]))
    assert failures == []
    return extract_workloads(parsed)


def _lint(run_line: RunLine, path: Path, *options: str) -> tuple[int, list[str]]:
    result = run_line(["lint", "--no-config", *options, str(path)])
    prefix = f"{path}:"
    return result.exit_code, [line.removeprefix(prefix) for line in report_lines(result.output)]


def _at(workload: Workload, *path: str | int) -> tuple[int, int, str]:
    origin = workload.view().locate(path)
    return origin.line, origin.column, origin.key


def test_a_kaito_workspace_with_its_inference_config() -> None:
    [workload] = _workloads(FIXTURES / "kaito-workspace-config.yaml")
    data = workload.view().data
    assert workload.name == "Workspace/default/workspace-deepseek-r1-distill-qwen-14b"
    engine = data["engine"]
    assert {
        k: engine[k]
        for k in (
            "name",
            "model_id",
            "served_model_name",
            "tensor_parallel_size",
            "max_model_len",
            "gpu_memory_utilization",
        )
    } == {
        "name": "vllm",
        "model_id": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
        "served_model_name": "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
        # The ConfigMap's value, after the operator's own 1 on a one-GPU instance: it wins.
        "tensor_parallel_size": 2,
        "max_model_len": 131072,
        "gpu_memory_utilization": 0.95,
    }
    assert _at(workload, "engine", "tensor_parallel_size") == (
        7,
        3,
        "data['inference_config.yaml']",
    )
    assert _at(workload, "engine", "model_id") == (27, 5, "inference.preset.name")
    gpu = data["gpu"]
    assert (gpu["count"], gpu["product"]) == (1, "NVIDIA-A100-80GB-PCIe")
    assert _at(workload, "gpu", "count") == (21, 3, "added by KAITO")
    container = data["container"]
    assert {k: v["http_path"] for k, v in container["probes"].items()} == {
        "liveness": "/health",
        "readiness": "/health",
        "startup": "/health",
    }
    assert container["probes"]["startup"]["budget_seconds"] == 1800
    shm = data["pod"]["shm"]
    assert (shm["mounted"], shm["medium"], data["pod"]["volumes"][0]["added_by"]) == (
        True,
        "Memory",
        "KAITO",
    )


def test_a_kaito_workspace_lint(run_line: RunLine) -> None:
    assert _lint(run_line, FIXTURES / "kaito-workspace-config.yaml") == (
        1,
        [
            "7:3: error gpu/world-size-above-gpus tensor_parallel_size 2 × "
            "pipeline_parallel_size 1 needs 2 GPUs, but the pod gets 1 (nvidia.com/gpu): vLLM "
            "fails at start-up (World size (2) is larger than the number of available GPUs (1) "
            "in this node); give the pod 2 GPUs or lower the parallelism",
            f"16:1: {BEST_EFFORT}",
            "1 error, 1 warning, 0 info in 1 file",
        ],
    )


def test_a_kaito_inference_set(run_line: RunLine) -> None:
    [workload] = _workloads(FIXTURES / "kaito-inferenceset.yaml")
    data = workload.view().data
    assert (workload.name, data["replicas"], data["multi_node"]) == (
        "InferenceSet/default/phi-4-mini",
        1,
        False,
    )
    engine = data["engine"]
    assert (engine["model_id"], engine["tensor_parallel_size"]) == (
        "microsoft/Phi-4-mini-instruct",
        1,
    )
    assert (data["gpu"]["count"], data["gpu"]["product"]) == (1, "NVIDIA-A100-80GB-PCIe")
    assert _at(workload, "gpu", "count") == (19, 7, "added by KAITO")
    # --max-model-len auto: vLLM fits the context to the memory; no length is judged.
    assert (data["engine"]["unparsed"], "max_model_len" in engine) == (
        {"max_model_len": "auto"},
        False,
    )
    assert _at(workload, "engine", "unparsed", "max_model_len") == (13, 3, "added by KAITO")
    assert _lint(run_line, FIXTURES / "kaito-inferenceset.yaml") == (
        0,
        [
            f"13:3: {BEST_EFFORT}",
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_kaito_presets_and_skus_from_the_operators_tables() -> None:
    assert model_of_preset("Phi-4-Mini-Instruct") == "microsoft/Phi-4-mini-instruct"
    assert model_of_preset("Qwen/Qwen3-8B") == "Qwen/Qwen3-8B"
    assert (gpus_of_sku("Standard_ND96isr_H100_v5"), gpus_of_sku("g5.12xlarge")) == (8, 4)
    assert gpus_of_sku("Standard_D4s_v5") is None


def test_kaito_parallelism_as_the_operator_chooses_it() -> None:
    # Under half of one GPU (7.15 GiB x 4 x 2 < 320 GiB): data parallel on every GPU.
    assert parallelism("microsoft/Phi-4-mini-instruct", "Standard_NC96ads_A100_v4") == [
        ("--data-parallel-size", "4"),
        ("--tensor-parallel-size", "1"),
    ]
    # phi-4 (27.31 GiB) on four 24 GiB GPUs: tensor parallel over all four.
    assert parallelism("microsoft/phi-4", "g5.12xlarge") == [("--tensor-parallel-size", "4")]
    assert parallelism("Qwen/Qwen3-8B", "Standard_NC24ads_A100_v4") == [
        ("--tensor-parallel-size", "1")
    ]
    # A model whose size the operator's catalogue gives but this table lacks: not guessed.
    assert parallelism("Qwen/Qwen3-8B", "g5.12xlarge") == []


def test_a_kaito_workspace_on_an_unknown_sku_without_its_configmap(tmp_path: Path) -> None:
    path = tmp_path / "workspace.yaml"
    path.write_text(
        "apiVersion: kaito.sh/v1beta1\n"
        "kind: Workspace\n"
        "metadata: {name: ws}\n"
        "resource: {instanceType: Standard_X1}\n"
        "inference:\n"
        "  preset: {name: mistral-7b-instruct}\n"
        "  config: elsewhere\n"
    )
    [workload] = _workloads(path)
    data = workload.view().data
    assert data["engine"]["model_id"] == "mistralai/Mistral-7B-Instruct-v0.3"
    # No GPU count for a SKU the operator's table lacks, and no flags from a ConfigMap
    # that is not in the file.
    assert ("count" in data["gpu"], "tensor_parallel_size" in data["engine"]) == (False, False)


def test_kaito_objects_that_run_no_server_stay_quiet(tmp_path: Path) -> None:
    path = tmp_path / "tuning.yaml"
    path.write_text(
        "apiVersion: kaito.sh/v1beta1\n"
        "kind: Workspace\n"
        "metadata: {name: tune}\n"
        "resource: {instanceType: Standard_NC24ads_A100_v4}\n"
        "tuning:\n"
        "  preset: {name: phi-3-mini-4k-instruct}\n"
        "  method: qlora\n"
    )
    assert _workloads(path) == []


def test_an_ome_serving_runtime(run_line: RunLine) -> None:
    [workload] = _workloads(FIXTURES / "ome-runtime.yaml")
    data = workload.view().data
    assert (workload.name, data["role"], data["engine"]["name"], data["gpu"]["count"]) == (
        "ClusterServingRuntime/default/srt-qwen2-7b-instruct/engine",
        "engine",
        "sglang",
        1,
    )
    assert _at(workload, "gpu", "count") == (
        75,
        11,
        "spec.engineConfig.runner.resources.limits['nvidia.com/gpu']",
    )
    assert _lint(run_line, FIXTURES / "ome-runtime.yaml") == (
        0,
        [
            "36:9: warning kubernetes-memory/memory-volume-without-size-limit emptyDir dshm "
            "has medium: Memory and no sizeLimit: its files are memory that counts against "
            "the limit of the container writing them and cannot be reclaimed, and it may grow "
            "to the pod's memory limit or the node's allocatable memory; set a sizeLimit (and "
            "leave room for it in the memory limit)",
            "55:11: warning diagnostics/prompts-in-logs --log-requests writes partial inputs "
            "and outputs (--log-requests-level 2, the default) of every request to the log: "
            "user content reaches the log pipeline and whoever reads it; drop it, or use "
            "--log-requests-level 0 or 1 for metadata only",
            "61:11: info sglang/mem-fraction-static-like-vllm mem_fraction_static 0.9 covers "
            "only weights and the KV pool in SGLang, unlike vLLM's gpu_memory_utilization: "
            "activations and CUDA graphs get the remaining 10 percent. Leave it out, or lower "
            "it if CUDA-graph capture runs out of memory",
            "0 errors, 2 warnings, 1 info in 1 file",
        ],
    )


def test_an_ome_multinode_runtime_and_a_service_its_runtime_completes() -> None:
    workloads = _workloads(FIXTURES / "ome-multinode.yaml")
    assert [
        (w.name, w.view().data["multi_node"], w.view().data["gpu"]["count"]) for w in workloads
    ] == [
        ("ClusterServingRuntime/default/srt-deepseek-rdma/engine-leader", True, 8),
        ("ClusterServingRuntime/default/srt-deepseek-rdma/engine-worker", True, 8),
    ]
    # The leader's pod has the component's dshm volume beside the leader's runner.
    leader = workloads[0].view().data
    assert (leader["pod"]["shm"]["volume"], _at(workloads[0], "pod", "volumes", 0, "name")) == (
        "dshm",
        (10, 9, "spec.engineConfig.volumes[0].name"),
    )


def test_dynamo_workers_are_the_pods_the_operator_creates() -> None:
    workloads = _workloads(FIXTURES / "dynamo-disagg.yaml")
    summary = [
        (
            w.name,
            w.view().data["replicas"],
            w.view().data["multi_node"],
            w.view().data["engine"]["model_id"],
            w.view().data["engine"].get("enforce_eager"),
            w.view().data["engine"].get("tensor_parallel_size"),
            w.view().data["gpu"]["count"],
            w.view().data["pod"]["shm"]["size_limit_bytes"],
        )
        for w in workloads
    ]
    # The frontend runs no server and asks for no GPU: not a workload.
    assert summary == [
        ("DynamoGraphDeployment/default/vllm-disagg/VllmDecodeWorker", 2, False,
         "Qwen/Qwen3-0.6B", True, None, 1, 8 << 30),
        ("DynamoGraphDeployment/default/vllm-disagg/VllmPrefillWorker", 1, True,
         "Qwen/Qwen3-0.6B", None, 2, 1, 16 << 30),
    ]  # fmt: skip
    decode = workloads[0]
    probes = decode.view().data["container"]["probes"]
    assert {k: (v["http_path"], v["failure_threshold"]) for k, v in probes.items()} == {
        "liveness": ("/live", 1),
        "readiness": ("/health", 3),
        "startup": ("/live", 720),
    }
    assert _at(decode, "container", "probes", "startup", "failure_threshold") == (
        17,
        5,
        "added by the Dynamo operator",
    )
    assert _at(workloads[1], "pod", "volumes", 0, "size_limit_bytes") == (
        43,
        9,
        "added by the Dynamo operator",
    )


def test_dynamo_lint(run_line: RunLine) -> None:
    assert _lint(run_line, FIXTURES / "dynamo-disagg.yaml") == (
        0,
        [
            "31:9: warning vllm/enforce-eager --enforce-eager switches CUDA graphs off (and "
            "torch.compile from vLLM 0.33): every decode step runs eagerly, which costs "
            "steady-state decode throughput and latency; drop it outside debugging",
            "48:9: warning gpu/multi-node-tensor-parallel multi-node vLLM with "
            "tensor_parallel_size 2 on pods of 1 GPUs: tensor-parallel all-reduces cross the "
            "network between nodes; vLLM advises tensor_parallel_size = GPUs per node (1) and "
            "pipeline_parallel_size = number of nodes",
            f"48:9: {BEST_EFFORT}",
            "0 errors, 3 warnings, 0 info in 1 file",
        ],
    )


def test_a_dynamo_service_s_own_probes_and_shared_memory(tmp_path: Path) -> None:
    path = tmp_path / "graph.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1alpha1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: g}\n"
        "spec:\n"
        "  services:\n"
        "    Worker:\n"
        "      componentType: worker\n"
        "      sharedMemory: {disabled: true}\n"
        "      readinessProbe:\n"
        "        httpGet: {path: /ready, port: 9090}\n"
        "      envs:\n"
        "        - {name: DYN_SYSTEM_PORT, value: '9345'}\n"
        "      resources:\n"
        "        limits: {gpu: '2', custom: {rdma/ib: '1'}}\n"
        "      extraPodSpec:\n"
        "        mainContainer:\n"
        "          image: nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.4.0\n"
        "          command: [python3, -m, dynamo.sglang, --model-path, Qwen/Qwen3-0.6B, --tp, '2']\n"
    )
    [workload] = _workloads(path)
    data = workload.view().data
    env = data["container"]["env"]
    assert (
        data["engine"]["name"],
        data["engine"]["model_id"],
        data["engine"]["tp_size"],
        data["gpu"]["count"],
        data["pod"]["shm"]["mounted"],
        data["container"]["probes"]["readiness"]["http_path"],
        env["DYN_SYSTEM_PORT"],
        sorted(data["container"]["resources"]["limits"]),
    ) == (
        "sglang",
        "Qwen/Qwen3-0.6B",
        2,
        2,
        False,
        "/ready",
        "9345",
        ["nvidia.com/gpu", "rdma/ib"],
    )
    assert _at(workload, "container", "probes", "readiness", "http_path") == (
        10,
        19,
        "spec.services.Worker.readinessProbe.httpGet.path",
    )


def test_a_kaito_workspace_with_its_own_pod_template(tmp_path: Path) -> None:
    path = tmp_path / "custom.yaml"
    path.write_text(
        "apiVersion: kaito.sh/v1beta1\n"
        "kind: Workspace\n"
        "metadata: {name: custom}\n"
        "resource: {instanceType: Standard_NC24ads_A100_v4}\n"
        "inference:\n"
        "  template:\n"
        "    spec:\n"
        "      containers:\n"
        "        - name: server\n"
        "          image: vllm/vllm-openai:v0.11.0\n"
        "          args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '8192']\n"
    )
    [workload] = _workloads(path)
    data = workload.view().data
    # The template is the pod as written: the operator adds nothing a rule reads to it.
    assert (
        data["engine"]["model_id"],
        data["engine"]["max_model_len"],
        data["container"]["probes"],
    ) == ("Qwen/Qwen2.5-7B-Instruct", 8192, {})


def test_malformed_operator_objects_are_read_without_failing(
    run_line: RunLine, tmp_path: Path
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "apiVersion: nvidia.com/v1alpha1\n"
        "kind: DynamoGraphDeployment\n"
        "metadata: {name: a}\n"
        "spec:\n"
        "  services:\n"
        "    W:\n"
        "      envs: [1, {name: X}]\n"
        "      sharedMemory: {size: [1]}\n"
        "      resources: {limits: {gpu: abc, custom: 3}, requests: [1]}\n"
        "      extraPodSpec:\n"
        "        volumes: 3\n"
        '        mainContainer: {command: ["python3 -m dynamo.vllm --model \'x"], env: 4}\n'
        "    V: 9\n"
        "---\n"
        "apiVersion: kaito.sh/v1beta1\n"
        "kind: Workspace\n"
        "metadata: {name: k}\n"
        "resource: x\n"
        "inference: {preset: {name: 7}, config: [x], template: {spec: 3}}\n"
        "---\n"
        "apiVersion: ome.io/v1beta1\n"
        "kind: ClusterServingRuntime\n"
        "metadata: {name: o}\n"
        "spec: {engineConfig: {runner: [1], leader: 3}, decoderConfig: {worker: {runner: 4}}}\n"
    )
    result = run_line(["lint", "--no-config", str(path)])
    assert (result.exit_code, report_lines(result.output)) == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )


def test_a_kaito_workspace_over_several_nodes(run_line: RunLine) -> None:
    """Tensor parallel over each node's GPUs, pipeline parallel over the nodes: the
    weights of DeepSeek-R1 are spread over twelve GPUs, not judged against one."""
    path = FIXTURES / "kaito-workspace-multinode.yaml"
    [workload] = _workloads(path)
    engine = workload.view().data["engine"]
    assert (
        engine["tensor_parallel_size"],
        engine["pipeline_parallel_size"],
        engine["distributed_executor_backend"],
    ) == (2, 6, "ray")
    assert _at(workload, "engine", "pipeline_parallel_size") == (9, 3, "added by KAITO")
    assert _lint(run_line, path) == (
        0,
        [f"3:1: {BEST_EFFORT}", "0 errors, 1 warning, 0 info in 1 file"],
    )
