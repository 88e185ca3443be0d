"""Deployments written the ways people really write them: NVIDIA NIM (NIMService, the
nim-llm chart's values, NIM images in plain and KServe objects)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from report_lines import report_lines

from linter.evaluate.inputs import read_inputs
from linter.model.frontends.extract import extract_workloads
from linter.model.records.workload import Workload
from linter.sources.files import expand

FIXTURES = Path(__file__).parent / "fixtures" / "model" / "recognition"
RunLine = Callable[..., Result]
BEST_EFFORT = (
    "warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory requests or "
    "limits (only nvidia.com/gpu), so the pod is BestEffort: under node memory pressure the "
    "kubelet evicts it first; set cpu and memory requests (and limits equal to them for "
    "Guaranteed)"
)


def _workloads(name: str) -> list[Workload]:
    parsed, failures = read_inputs(expand([str(FIXTURES / name)]))
    assert failures == []
    return extract_workloads(parsed)


def _lint(run_line: RunLine, name: str) -> tuple[int, list[str]]:
    path = FIXTURES / name
    result = run_line(["lint", "--no-config", str(path)])
    prefix = f"{path}:"
    return result.exit_code, [line.removeprefix(prefix) for line in report_lines(result.output)]


def _at(workload: Workload, *path: str | int) -> tuple[int, int, str]:
    origin = workload.view().locate(path)
    return origin.line, origin.column, origin.key


def test_a_nimservice_is_the_pod_the_nim_operator_creates(run_line: RunLine) -> None:
    [workload] = _workloads("nim-nimservice.yaml")
    data = workload.view().data
    assert (workload.name, data["kind"], data["replicas"]) == (
        "NIMService/inference/llama-31-8b",
        "NIMService",
        2,
    )
    engine = data["engine"]
    assert {k: engine[k] for k in ("name", "image", "version", "model_id", "port")} == {
        "name": "nim",
        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.8.4",
        "version": "1.8.4",
        "model_id": "meta/llama-3.1-8b-instruct",
        "port": 8080,
    }
    assert (engine["max_model_len"], engine["tensor_parallel_size"]) == (32768, 2)
    assert _at(workload, "engine", "max_model_len") == (22, 7, "spec.env[0].value")
    assert _at(workload, "engine", "tensor_parallel_size") == (24, 7, "spec.env[1].value")
    assert _at(workload, "engine", "image") == (10, 5, "spec.image.tag")
    assert _at(workload, "engine", "port") == (39, 7, "added by the NIM Operator")
    assert _at(workload, "replicas") == (25, 3, "spec.replicas")
    assert data["model"]["known"] is True
    assert data["gpu"]["count"] == 2
    container = data["container"]
    assert container["name"] == "llama-31-8b-ctr"
    assert {k: v["http_path"] for k, v in container["probes"].items()} == {
        "liveness": "/v1/health/live",
        "readiness": "/v1/health/ready",
        "startup": "/v1/health/ready",
    }
    assert container["probes"]["startup"]["budget_seconds"] == 1230
    assert _at(workload, "container", "probes", "startup", "failure_threshold") == (
        7,
        1,
        "added by the NIM Operator",
    )
    shm = data["pod"]["shm"]
    assert (shm["mounted"], shm["medium"], shm["size_limit_bytes"]) == (True, "Memory", 8 << 30)
    assert data["pod"]["volumes"][0]["added_by"] == "NIM Operator"
    assert _lint(run_line, "nim-nimservice.yaml") == (0, ["0 errors, 0 warnings, 0 info in 1 file"])


def test_a_nimservice_on_a_moving_tag_without_host_resources(run_line: RunLine) -> None:
    [workload] = _workloads("nim-nimservice-latest.yaml")
    assert workload.view().data["engine"]["model_id"] == "mistralai/mistral-7b-instruct-v0.3"
    # spec.readinessProbe.enabled: false leaves the container without one.
    assert sorted(workload.view().data["container"]["probes"]) == ["liveness", "startup"]
    assert workload.view().data["engine"]["port"] == 8000
    assert _lint(run_line, "nim-nimservice-latest.yaml") == (
        0,
        [
            "9:5: warning images/unpinned-server-image image "
            "nvcr.io/nim/mistralai/mistral-7b-instruct-v0.3:latest uses the moving tag latest: "
            "the server release changes under this manifest whenever the tag moves, and "
            "version-gated checks cannot run; pin a NIM release tag of this image (its NGC "
            "catalogue page lists them, for example 1.3.3) or a digest",
            f"18:3: {BEST_EFFORT}",
            "0 errors, 2 warnings, 0 info in 1 file",
        ],
    )


def test_nim_environment_settings_in_a_deployment(run_line: RunLine) -> None:
    [workload] = _workloads("nim-deployment.yaml")
    engine = workload.view().data["engine"]
    assert {
        k: engine[k]
        for k in (
            "name",
            "version",
            "model_id",
            "served_model_name",
            "max_model_len",
            "tensor_parallel_size",
            "pipeline_parallel_size",
        )
    } == {
        "name": "nim",
        "version": "1.14.0",
        "model_id": "hf://Qwen/Qwen2.5-7B-Instruct",
        "served_model_name": "qwen2.5-7b",
        "max_model_len": 16384,
        "tensor_parallel_size": 2,
        "pipeline_parallel_size": 1,
    }
    # The multi-LLM image serves the model NIM_MODEL_NAME names, not one of its own.
    assert _at(workload, "engine", "model_id") == (
        26,
        15,
        "spec.template.spec.containers[0].env[1].value",
    )
    assert _at(workload, "engine", "tensor_parallel_size") == (
        32,
        15,
        "spec.template.spec.containers[0].env[4].value",
    )
    assert workload.view().data["model"]["known"] is True
    assert _lint(run_line, "nim-deployment.yaml") == (
        0,
        [
            "19:11: warning readiness/missing the NIM container nim has no readinessProbe: "
            "Kubernetes counts it ready as soon as it starts, so the Service sends requests "
            "while the model is still loading (and after every restart), and they fail; add a "
            "readinessProbe with httpGet on /v1/health/ready port 8000",
            "32:15: warning shm/tensor-parallel-without-dev-shm NIM with 2 GPUs without a "
            "memory-backed volume at /dev/shm: the container has the runtime's 64 MiB, which "
            "NCCL and the worker processes outgrow, usually under load (without peer-to-peer "
            "between the GPUs, NCCL fails at start-up); mount an emptyDir with medium: Memory "
            "and a sizeLimit (e.g. 2Gi) at /dev/shm",
            "0 errors, 2 warnings, 0 info in 1 file",
        ],
    )


def test_nim_llm_chart_values_with_a_templated_image(run_line: RunLine) -> None:
    [workload] = _workloads("nim-llm-values.yaml")
    data = workload.view().data
    assert (data["kind"], data["source"], data["engine"]["name"]) == (
        "HelmValues",
        "helm-values",
        "nim",
    )
    assert (data["engine"]["max_model_len"], data["engine"]["port"]) == (65536, 8000)
    assert _at(workload, "engine", "max_model_len") == (13, 5, "env[0].value")
    assert _at(workload, "engine", "port") == (10, 3, "added by the nim-llm chart")
    # The chart's template always mounts a memory-backed /dev/shm.
    assert data["pod"]["shm"]["mounted"] is True
    assert data["pod"]["volumes"][0]["added_by"] == "nim-llm chart"
    assert data["gpu"]["count"] == 4
    assert _lint(run_line, "nim-llm-values.yaml") == (
        0,
        [f"14:1: {BEST_EFFORT}", "0 errors, 1 warning, 0 info in 1 file"],
    )


def test_a_kserve_runtime_with_a_nim_image(run_line: RunLine) -> None:
    [workload] = _workloads("nim-kserve-runtime.yaml")
    engine = workload.view().data["engine"]
    assert (
        workload.view().data["kind"],
        engine["name"],
        engine["model_id"],
        engine["version"],
    ) == (
        "ClusterServingRuntime",
        "nim",
        "meta/llama-3.1-70b-instruct",
        "1.3.3",
    )
    assert _at(workload, "engine", "model_id") == (
        9,
        7,
        "spec.containers[0].image",
    )
    assert workload.view().data["model"]["known"] is True
    assert _lint(run_line, "nim-kserve-runtime.yaml") == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )


def test_a_model_given_as_a_map(run_line: RunLine) -> None:
    [workload] = _workloads("model-map-values.yaml")
    engine = workload.view().data["engine"]
    assert (engine["name"], engine["model_id"], engine["max_model_len"]) == (
        "vllm",
        "Qwen/Qwen2.5-7B-Instruct",
        65536,
    )
    assert _at(workload, "engine", "model_id") == (7, 5, "server.model.name")
    assert workload.view().data["model"]["known"] is True
    # ``revision`` beside the name is not taken for the model.
    assert "revision" not in engine
    assert _lint(run_line, "model-map-values.yaml") == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )
    [tgi] = _workloads("model-id-values.yaml")
    assert (tgi.view().data["engine"]["name"], tgi.view().data["engine"]["model_id"]) == (
        "tgi",
        "mistralai/Mistral-7B-Instruct-v0.3",
    )
    assert _at(tgi, "engine", "model_id") == (7, 5, "tgi.model.id")


def test_a_triton_chart_names_its_image_and_gpus_its_own_way(run_line: RunLine) -> None:
    [workload] = _workloads("triton-values.yaml")
    data = workload.view().data
    assert (data["kind"], data["engine"]["name"], data["engine"]["version"]) == (
        "HelmValues",
        "triton",
        "24.08",
    )
    assert data["engine"]["image"] == "nvcr.io/nvidia/tritonserver:24.08-py3"
    assert _at(workload, "engine", "image") == (4, 3, "image.imageName")
    assert (data["gpu"]["count"], data["replicas"]) == (1, 2)
    assert _at(workload, "container", "resources", "limits", "nvidia.com/gpu") == (
        7,
        3,
        "image.numGpus",
    )
    assert _lint(run_line, "triton-values.yaml") == (
        0,
        [f"2:1: {BEST_EFFORT}", "0 errors, 1 warning, 0 info in 1 file"],
    )


def test_a_values_file_beside_a_chart_whatever_its_name() -> None:
    [beside] = _workloads("chart/l4.yaml")
    [alone] = _workloads("server-l4.yaml")
    # The same text: Helm values beside Chart.yaml, a server configuration elsewhere.
    assert (beside.view().data["kind"], beside.view().data["source"]) == (
        "HelmValues",
        "helm-values",
    )
    assert (alone.view().data["kind"], alone.view().data["source"]) == (
        "ServerConfig",
        "server-config",
    )
    for workload in (beside, alone):
        engine = workload.view().data["engine"]
        assert (engine["model_id"], engine["max_model_len"]) == (
            "meta-llama/Llama-3.1-8B-Instruct",
            8192,
        )
        assert _at(workload, "engine", "model_id") == (5, 3, "model.name")
    # Chart.yaml itself is the chart's metadata, not values.
    assert _workloads("chart/Chart.yaml") == []


def test_leaderworkerset_variables_in_a_command_line(run_line: RunLine) -> None:
    leader, worker = _workloads("lws-sglang.yaml")
    assert (leader.view().data["engine"]["nnodes"], leader.view().data["engine"]["node_rank"]) == (
        2,
        0,
    )
    assert worker.view().data["engine"]["nnodes"] == 2
    # A worker's index differs from pod to pod: it stays unread.
    assert worker.view().data["engine"]["unparsed"] == {"node_rank": "$(LWS_WORKER_INDEX)"}
    prefix = "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]"
    assert _at(leader, "engine", "nnodes") == (30, 17, f"{prefix}.command[10]")
    assert _at(leader, "container", "env", "LWS_GROUP_SIZE") == (
        10,
        5,
        "added by LeaderWorkerSet",
    )
    assert leader.view().data["container"]["env"]["LWS_GROUP_SIZE"] == "2"
    assert "LWS_WORKER_INDEX" not in worker.view().data["container"]["env"]
    # The leader address depends on the group: it is left as written.
    assert leader.view().data["engine"]["dist_init_addr"] == "$(LWS_LEADER_ADDRESS):20000"
    assert _lint(run_line, "lws-sglang.yaml") == (
        0,
        [
            "40:13: warning readiness/tcp-only the readinessProbe of SGLang only opens a TCP "
            "connection: it passes while the port accepts connections, even when the engine "
            "cannot serve; probe /health with httpGet instead (it answers 200 only once SGLang "
            "can serve)",
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_the_substratusai_vllm_entrypoint_uses_every_gpu(run_line: RunLine) -> None:
    [workload] = _workloads("substratus-vllm.yaml")
    engine = workload.view().data["engine"]
    assert {
        k: engine[k]
        for k in ("tensor_parallel_size", "model_id", "max_model_len", "gpu_memory_utilization")
    } == {
        "tensor_parallel_size": 2,
        "model_id": "mistralai/Mistral-7B-Instruct-v0.3",
        "max_model_len": 16384,
        "gpu_memory_utilization": 0.9,
    }
    container = "spec.template.spec.containers[0]"
    assert _at(workload, "engine", "tensor_parallel_size") == (
        33,
        46,
        f"{container}.resources.limits['nvidia.com/gpu']",
    )
    assert _at(workload, "engine", "max_model_len") == (24, 15, f"{container}.env[1].value")
    # Two GPUs, two tensor-parallel ranks: no GPU sits idle.
    assert _lint(run_line, "substratus-vllm.yaml") == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )


def test_a_later_substratusai_image_runs_vllms_own_entrypoint() -> None:
    from linter.model.engine.args import Token
    from linter.model.engine.image_entrypoints import derived_command
    from linter.model.engine.images import parse_image
    from linter.positions import Origin

    origin = Origin("f.yaml", 1, 1)
    env = {"MODEL": Token("facebook/opt-125m", origin)}
    container = {"resources": {"limits": {"nvidia.com/gpu": 4}}}
    for image in ("substratusai/vllm:v0.6.3", "substratusai/vllm", "substratusai/vllm:latest"):
        assert derived_command(parse_image(image), container, env, lambda p: origin) == []
    derived = derived_command(
        parse_image("substratusai/vllm:v0.6.2"), container, env, lambda p: origin
    )
    assert [t.text for t in derived] == [
        "python3",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--tensor-parallel-size",
        "4",
        "--model",
        "facebook/opt-125m",
        "--served-model-name",
        "facebook/opt-125m",
    ]


def test_triton_vllm_backend_engine_arguments(run_line: RunLine) -> None:
    workloads = _workloads("triton-vllm")
    kinds = sorted(
        (w.view().data["kind"], w.view().data["engine"]["name"], w.name) for w in workloads
    )
    base = f"file:{FIXTURES}/triton-vllm/model_repository"
    assert kinds == [
        ("TritonModelConfig", "triton", "llama_lora"),
        ("TritonModelConfig", "triton", "opt"),
        ("TritonVLLMModel", "vllm", f"{base}/llama_lora/1/model.json"),
        ("TritonVLLMModel", "vllm", f"{base}/opt/1/model.json"),
    ]
    opt = next(w for w in workloads if w.name.endswith("opt/1/model.json"))
    engine = opt.view().data["engine"]
    assert (engine["model_id"], engine["max_num_seqs"], engine["max_num_batched_tokens"]) == (
        "facebook/opt-125m",
        4096,
        2048,
    )
    assert _at(opt, "engine", "max_num_batched_tokens") == (7, 5, "max_num_batched_tokens")
    path = FIXTURES / "triton-vllm"
    result = run_line(["lint", "--no-config", str(path)])
    assert result.exit_code == 1
    assert report_lines(result.output) == [
        f"{path}/model_repository/opt/1/model.json:7:5: error "
        "vllm/max-num-seqs-above-batched-tokens max_num_batched_tokens 2048 is below "
        "max_num_seqs 4096: vLLM refuses to start (ValueError: max_num_batched_tokens (2048) "
        "must be greater than or equal to max_num_seqs (4096)); raise "
        "max_num_batched_tokens or lower max_num_seqs",
        "1 error, 0 warnings, 0 info in 4 files",
    ]


KEEPALIVE_DEFAULT = (
    "info grpc-keepalive/server-keepalive-default the server's gRPC settings leave its "
    "keepalive time at the 2-hour default: a client that disappears without closing its "
    "connection is noticed only after about 2 h, and its streams hold resources until then; "
    "set the server keepalive time (Triton --grpc-keepalive-time) to a minute or a few"
)
PING_TEXT = (
    "after three early pings on a connection where the server sends nothing (a queued "
    "request, a long prefill, an idle stream) the server closes it with GOAWAY "
    "too_many_pings and the RPCs on it fail; lower the server's minimum ping interval or "
    "raise the client's keepalive time to at least 300 s"
)


def test_grpc_keepalive_as_dotted_client_and_server_keys(run_line: RunLine) -> None:
    [workload] = _workloads("grpc-dotted-values.yaml")
    # A gateway's values: no inference server, but both ends of its gRPC link.
    assert (workload.view().data["kind"], workload.view().data["engine"]) == ("GrpcSettings", {})
    assert workload.view().data["grpc"] == {
        "server": {
            "http2_min_recv_ping_interval_without_data_ms": 300000,
            "keepalive_permit_without_calls": False,
        },
        "client": {"keepalive_time_ms": 30000, "keepalive_timeout_ms": 10000},
    }
    assert _at(workload, "grpc", "server", "http2_min_recv_ping_interval_without_data_ms") == (
        6,
        1,
        "['grpc.server.keepalive.minTime']",
    )
    assert _at(workload, "grpc", "client", "keepalive_time_ms") == (
        8,
        1,
        "['grpc.client.keepalive.time']",
    )
    assert _lint(run_line, "grpc-dotted-values.yaml") == (
        0,
        [
            f"7:1: {KEEPALIVE_DEFAULT}",
            "8:1: warning grpc-keepalive/client-ping-below-server-minimum client keepalive "
            f"time 30 s is below the server's minimum ping interval of 300 s: {PING_TEXT}",
            "0 errors, 1 warning, 1 info in 1 file",
        ],
    )


def test_grpc_channel_arguments_map(run_line: RunLine) -> None:
    [workload] = _workloads("grpc-channel-args-values.yaml")
    grpc = workload.view().data["grpc"]
    assert (grpc["server_kind"], grpc["server"], grpc["client"]) == (
        "triton",
        {"keepalive_time_ms": 7200000},
        {
            "keepalive_time_ms": 10000,
            "keepalive_permit_without_calls": True,
            "http2_max_pings_without_data": 0,
        },
    )
    assert _at(workload, "grpc", "client", "keepalive_time_ms") == (
        15,
        5,
        "client.channelArguments['grpc.keepalive_time_ms']",
    )
    code, lines = _lint(run_line, "grpc-channel-args-values.yaml")
    assert (code, [line.split(" ")[:3] for line in lines]) == (
        0,
        [
            ["15:5:", "warning", "grpc-keepalive/client-ping-below-server-minimum"],
            ["16:5:", "warning", "grpc-keepalive/idle-pings-not-permitted"],
            ["0", "errors,", "2"],
        ],
    )


def test_a_cgroup_writer_whose_path_the_shell_builds(run_line: RunLine) -> None:
    [workload] = _workloads("cgroup-shell-path.yaml")
    tuner = workload.view().data["pod"]["containers"][1]
    assert (tuner["name"], tuner["writes_cgroup_memory"], tuner["cgroup_memory_files"]) == (
        "memory-tuner",
        True,
        ["memory.high"],
    )
    assert (tuner["mounts_host_cgroup"], workload.view().data["pod"]["writes_cgroup_memory"]) == (
        True,
        True,
    )
    assert _at(workload, "pod", "containers", 1, "cgroup_memory_files") == (
        30,
        11,
        "spec.template.spec.containers[1].command",
    )
    assert _lint(run_line, "cgroup-shell-path.yaml") == (
        0,
        [
            # The fixture's Llama has no Hugging Face token: a finding of its own.
            "18:29: warning hub/gated-model-without-token meta-llama/Llama-3.1-8B-Instruct is a "
            "gated repository on the Hugging Face Hub and the container sets no HF_TOKEN: the "
            "download at start-up fails (401, gated repo) unless the weights are already in the "
            "image or a cache; give the token from a Secret",
            "30:11: warning kubernetes-memory/memory-high-written-by-hand container "
            "memory-tuner writes memory.high with the host's /sys/fs/cgroup mounted: the "
            "kubelet owns these values and resets or replaces them (QoS-level cgroups within a "
            "minute, a container's on restart or resize), memory.high throttles instead of "
            "OOM-killing, and namespaces enforcing the Pod Security Standard baseline reject "
            "privileged pods; set memory requests and limits instead",
            "0 errors, 2 warnings, 0 info in 1 file",
        ],
    )


def test_an_inference_service_on_a_nim_runtime(run_line: RunLine) -> None:
    [workload] = _workloads("nim-kserve-isvc.yaml")
    engine = workload.view().data["engine"]
    assert (workload.view().data["kind"], engine["name"], engine["model_id"]) == (
        "InferenceService",
        "nim",
        "llama-3.1-8b-instruct",
    )
    assert _at(workload, "engine", "model_id") == (11, 9, "spec.predictor.model.modelFormat.name")
    assert (workload.view().data["model"]["known"], workload.view().data["gpu"]["count"]) == (
        True,
        2,
    )
    # The runtime (not in this file) brings the parallelism and /dev/shm: nothing is judged
    # on what the InferenceService alone cannot show.
    assert _lint(run_line, "nim-kserve-isvc.yaml") == (
        0,
        ["0 errors, 0 warnings, 0 info in 1 file"],
    )


def test_parallelism_in_a_model_map_is_read() -> None:
    """A chart's short keys for vLLM's parallelism (tp_size, pp_size) are the settings:
    left unread, the capacity checks would size 671B weights for one GPU."""
    [workload] = _workloads("parallelism-in-model-map.yaml")
    engine = workload.view().data["engine"]
    assert (engine["tensor_parallel_size"], engine["pipeline_parallel_size"]) == (8, 2)
    assert _at(workload, "engine", "tensor_parallel_size") == (5, 3, "model.tp_size")
    assert _at(workload, "engine", "pipeline_parallel_size") == (6, 3, "model.pp_size")
    assert _at(workload, "engine", "model_id") == (4, 3, "model.name")
