"""Kubernetes objects → workloads: every pod template kind, server, settings and origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.evaluate.parsers import parse
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.custom import ray_runtime_pip
from linter.model.frontends.extract import extract_workloads
from linter.model.records.workload import Workload
from linter.positions import Origin

MODEL = Path(__file__).parent / "fixtures" / "model" / "manifests"


def load(name: str, settings: ModelSettings | None = None) -> list[Workload]:
    path = MODEL / name
    source = f"manifests/{name}"
    return extract_workloads(
        [parse(source, path.read_text(encoding="utf-8"))], settings or ModelSettings()
    )


def where(workload: Workload, *path: str | int) -> tuple[int, int, str]:
    origin = workload.view().locate(path)
    return origin.line, origin.column, origin.key


def test_deployment_args_in_every_form() -> None:
    [w] = load("vllm-deployment.yaml")
    engine = w.view().data["engine"]
    assert (
        w.name,
        w.view().data["kind"],
        w.view().data["namespace"],
        w.view().data["replicas"],
    ) == (
        "Deployment/serving/llama",
        "Deployment",
        "serving",
        2,
    )
    assert {
        k: engine[k]
        for k in (
            "name",
            "version",
            "version_pinned",
            "entrypoint",
            "model_id",
            "max_model_len",
            "tensor_parallel_size",
            "max_num_seqs",
            "enable_prefix_caching",
            "enforce_eager",
            "gpu_memory_utilization",
            "cudagraph_capture_sizes",
            "inline_bool_flags",
        )
    } == {
        "name": "vllm",
        "version": "0.11.0",
        "version_pinned": True,
        "entrypoint": "image",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "max_model_len": 32000,
        "tensor_parallel_size": 2,
        "max_num_seqs": 64,
        "enable_prefix_caching": False,
        "enforce_eager": True,
        "gpu_memory_utilization": 0.85,
        "cudagraph_capture_sizes": [1, 2, 4],
        "inline_bool_flags": ["--enforce-eager=true"],
    }
    assert engine["flags"]["--max-model-len"] == "32k"
    assert engine["flags"]["--tensor-parallel-size"] == "2"
    assert engine["flags"]["--max-num-seqs"] == "64"
    assert "--max_num_seqs" not in engine["flags"]
    assert where(w, "engine", "max_model_len") == (
        23,
        15,
        "spec.template.spec.containers[0].args[2]",
    )
    assert where(w, "engine", "tensor_parallel_size") == (
        25,
        15,
        "spec.template.spec.containers[0].args[4]",
    )
    assert where(w, "engine", "inline_bool_flags", 0)[:2] == (29, 15)
    assert where(w, "replicas")[:2] == (7, 3)


def test_effective_defaults_of_the_version_and_gpu() -> None:
    [w] = load("vllm-deployment.yaml")
    effective = w.view().data["effective"]
    assert {
        k: effective[k]
        for k in (
            "enable_chunked_prefill",
            "max_num_batched_tokens",
            "max_num_seqs",
            "swap_space",
            "block_size",
            "gpu_memory_utilization",
            "termination_grace_period_seconds",
        )
    } == {
        "enable_chunked_prefill": True,
        "max_num_batched_tokens": 2048,
        "max_num_seqs": 64,
        "swap_space": 4,
        "block_size": 16,
        "gpu_memory_utilization": 0.85,
        "termination_grace_period_seconds": 120,
    }
    assert "max_num_batched_tokens" in effective["defaulted"]
    assert "max_num_seqs" not in effective["defaulted"]


def test_pod_facts_of_a_deployment() -> None:
    [w] = load("vllm-deployment.yaml")
    pod, container = w.view().data["pod"], w.view().data["container"]
    assert pod["qos_class"] == "Burstable"  # the init container has no limits
    assert [c["name"] for c in pod["init_containers"]] == ["fetch"]
    assert container["resources"] == {
        "requests": {"cpu": 4.0, "memory": 32 * 2**30, "nvidia.com/gpu": 2},
        "limits": {"cpu": 4.0, "memory": 32 * 2**30, "nvidia.com/gpu": 2},
    }
    assert (container["env"], container["env_from_secret"]) == (
        {"NCCL_DEBUG": "INFO"},
        ["HF_TOKEN"],
    )
    assert container["probes"]["liveness"] == {
        "initial_delay_seconds": 0,
        "period_seconds": 20,
        "timeout_seconds": 1,
        "failure_threshold": 3,
        "success_threshold": 1,
        "type": "httpGet",
        "port": 8000,
        "http_path": "/health",
        "budget_seconds": 60,
        "defaulted": [
            "initial_delay_seconds",
            "timeout_seconds",
            "failure_threshold",
            "success_threshold",
        ],
    }
    assert container["pre_stop_seconds"] == 15
    assert pod["shm"] == {
        "mounted": True,
        "host_ipc": False,
        "volume": "dshm",
        "medium": "Memory",
        "size_limit_bytes": 2 * 2**30,
    }
    assert pod["termination_grace_period_seconds"] == 120
    assert where(w, "pod", "shm", "size_limit_bytes")[:2] == (67, 13)
    assert where(w, "container", "probes", "liveness", "period_seconds")[:2] == (58, 13)
    assert where(w, "container", "env", "NCCL_DEBUG")[:2] == (41, 15)


def test_gpu_model_and_capacity() -> None:
    [w] = load("vllm-deployment.yaml")
    assert w.view().data["gpu"] == {
        "resource": "nvidia.com/gpu",
        "limits": 2,
        "requests": 2,
        "count": 2,
        "platform": "cuda",
        "candidates": ["nvidia-l4"],
        "product": "NVIDIA-L4",
        "product_source": "manifest",
        "memory_bytes": 23034 * 2**20,
        "peer_to_peer": False,
        "interconnect": "pcie",
    }
    model = w.view().data["model"]
    assert (
        model["preset"],
        model["num_key_value_heads"],
        model["head_dim"],
        model["weight_bytes"],
    ) == ("meta-llama/Llama-3.1-8B", 8, 128, 16060522496)
    capacity = w.view().data["capacity"]
    assert (
        capacity["kv_bytes_per_token_per_gpu"],
        capacity["weight_bytes_per_gpu"],
        capacity["tokens_requested"],
        capacity["tokens_for_all_sequences"],
    ) == (65536, 8030261248, 32000, 64 * 32000)


def test_shell_string_command() -> None:
    shell, api = load("shell-command.yaml")
    engine = shell.view().data["engine"]
    assert (engine["name"], engine["entrypoint"], engine["model_id"]) == (
        "vllm",
        "vllm serve",
        "/models/qwen",
    )
    assert (
        engine["tensor_parallel_size"],
        engine["enable_chunked_prefill"],
        engine["kv_cache_dtype"],
    ) == (4, False, "fp8")
    assert engine["unparsed"] == {"max_model_len": "{{"}  # a Helm leftover
    assert engine["inline_bool_flags"] == ["--enable-chunked-prefill False"]
    assert engine["env"]["VLLM_USE_V1"] == "1"
    # Flags inside a `- |` script point at their own line and column.
    assert where(shell, "engine", "kv_cache_dtype")[:2] == (20, 34)
    assert where(shell, "engine", "inline_bool_flags", 0)[:2] == (19, 44)
    assert (
        api.name,
        api.view().data["engine"]["entrypoint"],
        api.view().data["engine"]["swap_space"],
    ) == (
        "Pod/default/api-server",
        "vllm.entrypoints.openai.api_server",
        8.0,
    )
    assert api.view().data["engine"]["version_pinned"] is False
    assert "version" not in api.view().data["engine"]


def test_tgi_environment_and_arguments() -> None:
    [w] = load("tgi-env.yaml")
    engine = w.view().data["engine"]
    assert {
        k: engine[k]
        for k in (
            "name",
            "version",
            "model_id",
            "max_total_tokens",
            "max_input_tokens",
            "cuda_graphs",
            "prefix_caching",
            "sharded",
            "unparsed",
        )
    } == {
        "name": "tgi",
        "version": "3.3.6",
        "model_id": "Qwen/Qwen2.5-72B-Instruct",
        # the command-line argument wins over MAX_TOTAL_TOKENS
        "max_total_tokens": 8192,
        "max_input_tokens": 4095,
        "cuda_graphs": [1, 2, 4, 8],
        "prefix_caching": "1",
        "sharded": True,
        "unparsed": {"num_shard": "two"},
    }
    assert where(w, "engine", "max_input_tokens")[:2] == (18, 15)
    assert where(w, "engine", "max_total_tokens")[2] == "spec.template.spec.containers[0].args[1]"
    effective = w.view().data["effective"]
    assert (
        effective["num_shard"],
        effective["max_concurrent_requests"],
        effective["prefill_chunking"],
        effective["port"],
    ) == (4, 128, "1", 80)
    assert w.view().data["pod"]["qos_class"] == "Guaranteed"


def test_leader_worker_set_with_sglang() -> None:
    leader, worker = load("sglang-lws.yaml")
    assert (leader.name, leader.view().data["role"], leader.view().data["multi_node"]) == (
        "LeaderWorkerSet/default/sglang/leader",
        "leader",
        True,
    )
    assert (worker.name, worker.view().data["role"]) == (
        "LeaderWorkerSet/default/sglang/worker",
        "worker",
    )
    engine = leader.view().data["engine"]
    assert (
        engine["name"],
        engine["version"],
        engine["tp_size"],
        engine["mem_fraction_static"],
        engine["nnodes"],
    ) == ("sglang", "0.5.6.post2", 2, 0.85, 2)  # $(LWS_GROUP_SIZE): the LWS sets it to size
    assert "capacity" not in leader.view().data  # the GPU's memory is not known
    assert worker.view().data["effective"]["mem_fraction_static"] == 0.88
    told, _ = load("sglang-lws.yaml", ModelSettings(gpu_product="NVIDIA-L4"))
    capacity = told.view().data["capacity"]
    # 2 × 32 layers × (8 KV heads // TP 2) × 128 × 2 bytes; SGLang budget = total × 0.85.
    assert (
        capacity["kv_bytes_per_token_per_gpu"],
        capacity["memory_fraction"],
        capacity["overhead_bytes_per_gpu"],
        told.view().data["gpu"]["product_source"],
    ) == (2 * 32 * 4 * 128 * 2, 0.85, 0, "settings")


def test_kserve_kinds() -> None:
    runtime, isvc, llmisvc = load("kserve.yaml")
    assert (
        runtime.name,
        runtime.view().data["engine"]["version"],
        runtime.view().data["engine"]["model_id"],
    ) == ("ServingRuntime/default/vllm-runtime", "0.9.2", "/mnt/models")
    assert (
        isvc.view().data["engine"]["name"],
        isvc.view().data["engine"]["model_id"],
        isvc.view().data["engine"]["max_model_len"],
        isvc.view().data["gpu"]["product"],
    ) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 16384, "NVIDIA-A100-SXM4-80GB")
    assert where(isvc, "engine", "max_model_len")[2] == "spec.predictor.model.args[1]"
    assert where(isvc, "container", "resources", "limits", "nvidia.com/gpu")[:2] == (33, 11)
    assert isvc.view().data["replicas"] == 1
    assert (
        llmisvc.view().data["engine"]["name"],
        llmisvc.view().data["engine"]["tensor_parallel_size"],
        llmisvc.view().data["engine"]["model_id"],
        llmisvc.view().data["replicas"],
    ) == ("vllm", 4, "meta-llama/Llama-3.1-70B-Instruct", 2)
    assert where(llmisvc, "engine", "tensor_parallel_size")[2] == "spec.parallelism.tensor"


def test_ray_service_worker_group_gets_the_engine_kwargs() -> None:
    [w] = load("ray.yaml")
    engine = w.view().data["engine"]
    assert (w.name, w.view().data["replicas"], w.view().data["multi_node"]) == (
        "RayService/default/llm/worker/gpu",
        2,
        True,
    )
    assert (
        engine["name"],
        engine["model_id"],
        engine["max_model_len"],
        engine["tensor_parallel_size"],
        engine["gpu_memory_utilization"],
    ) == ("vllm", "Qwen/Qwen2.5-7B-Instruct", 8192, 2, 0.8)
    assert where(w, "engine", "max_model_len")[2] == "spec.serveConfigV2"


def test_objects_without_pods_or_servers_give_no_workload() -> None:
    text = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: []}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - {name: web, image: nginx}\n"
    )
    assert extract_workloads([parse("x.yaml", text)]) == []


def test_cgroup_writer_hostipc_and_other_kinds() -> None:
    daemon, cron, rollout = load("cgroup-writer.yaml")
    pod = daemon.view().data["pod"]
    [init] = pod["init_containers"]
    assert (
        init["privileged"],
        init["mounts_host_cgroup"],
        init["writes_cgroup_memory"],
        init["cgroup_memory_files"],
    ) == (True, True, True, ["memory.high"])
    assert (pod["privileged"], pod["writes_cgroup_memory"], pod["host_ipc"], pod["shm"]) == (
        True,
        True,
        True,
        {"mounted": False, "host_ipc": True},
    )
    assert where(daemon, "pod", "init_containers", 0, "privileged")[:2] == (13, 13)
    assert (daemon.view().data["gpu"]["resource"], daemon.view().data["gpu"]["count"]) == (
        "amd.com/gpu",
        8,
    )
    assert (
        cron.name,
        cron.view().data["engine"]["name"],
        cron.view().data["engine"]["version"],
    ) == (
        "CronJob/default/nightly",
        "tgi",
        "2.4.0",
    )
    assert (
        rollout.view().data["replicas"],
        rollout.view().data["engine"]["version_parts"],
        rollout.view().data["effective"]["gpu_memory_utilization"],
    ) == (3, [0, 20, 0], 0.92)


def test_user_config_json_and_presets_for_models() -> None:
    config = str(Path(__file__).parent / "fixtures" / "model" / "deepseek-v2-lite-config.json")
    settings = ModelSettings(
        model_configs={"/models/dsv2": config},
        gpu_product="NVIDIA-H100",
        presets={
            "my-org/tiny": {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256}
        },
    )
    daemon, _, _ = load("cgroup-writer.yaml", settings)
    model = daemon.view().data["model"]
    assert (model["known"], model["source"], model["kv_lora_rank"], model["num_hidden_layers"]) == (
        True,
        config,
        512,
        27,
    )
    # MLA: one latent vector of kv_lora_rank + qk_rope_head_dim per layer, no factor 2.
    assert daemon.view().data["capacity"]["kv_bytes_per_token_per_gpu"] == 27 * (512 + 64) * 2
    from linter.model.facts.presets import model_facts

    tiny = model_facts("my-org/tiny", {}, settings)
    assert (tiny["source"], tiny["head_dim"], tiny["num_key_value_heads"]) == ("settings", 64, 4)


def test_effective_cuda_graph_capture_size() -> None:
    [w] = load("vllm-deployment.yaml")
    # -cc capture sizes [1, 2, 4], all within max_num_batched_tokens 2048.
    assert w.view().data["effective"]["max_cudagraph_capture_size"] == 4
    [_, rollout] = load("cgroup-writer.yaml")[1:]
    assert "max_cudagraph_capture_size" not in rollout.view().data["effective"]  # seqs unknown
    told = load("cgroup-writer.yaml", ModelSettings(gpu_product="NVIDIA-H100"))[2]
    # H100 defaults: max_num_seqs 1024, max_num_batched_tokens 8192 → min(2048, 512).
    assert (
        told.view().data["effective"]["max_num_seqs"],
        told.view().data["effective"]["max_cudagraph_capture_size"],
    ) == (1024, 512)


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("applications:\n- runtime_env: {pip: [torch==2.5.1, ' ']}\n", ["torch==2.5.1"]),
        ("applications:\n- runtime_env: {pip: {packages: [boto3]}}\n", ["boto3"]),
        ("applications:\n- runtime_env: {pip: ./requirements.txt}\n", ["./requirements.txt"]),
        (
            "applications:\n- deployments:\n  - ray_actor_options:\n"
            "      runtime_env: {pip: [vllm==0.10.1.1]}\n",
            ["vllm==0.10.1.1"],
        ),
        ("applications:\n- runtime_env: {env_vars: {pip: x}}\n", None),
        ("applications: [pip: [", None),  # not YAML: nothing read
    ],
    ids=["list", "packages", "requirements-file", "actor-options", "no-pip", "broken"],
)
def test_ray_runtime_pip(config: str, expected: list[str] | None) -> None:
    at = Origin("ray.yaml", 6, 3)
    found = ray_runtime_pip({"serveConfigV2": config}, lambda path: at)
    assert (found.value if found is not None else None) == expected
    assert found is None or found.origin == at
