"""Helm values → workloads: the layout heuristics, packaged and user chart profiles, and
the public entry point for merged values."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.errors import ConfigError
from linter.evaluate.parsers import parse
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.extract import extract_workloads
from linter.model.frontends.values import workloads_from_values
from linter.model.frontends.values_sections import looks_like_values
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT, format_path

VALUES = Path(__file__).parent / "fixtures" / "model" / "values"
PROFILES = Path(__file__).parent / "fixtures" / "model" / "profiles"


def load(name: str, settings: ModelSettings | None = None) -> list[Workload]:
    text = (VALUES / name).read_text(encoding="utf-8")
    return extract_workloads([parse(f"values/{name}", text)], settings or ModelSettings())


def line(workload: Workload, *path: str | int) -> tuple[int, int]:
    origin = workload.view().locate(path)
    return origin.line, origin.column


def test_flat_values_with_camel_snake_and_kebab_keys() -> None:
    [w] = load("values-prod.yaml")
    engine = w.view().data["engine"]
    assert (w.name, w.view().data["kind"], w.view().data["source"]) == (
        "file:values/values-prod.yaml",
        "HelmValues",
        "helm-values",
    )
    assert {
        k: engine[k]
        for k in (
            "name",
            "version",
            "model_id",
            "max_model_len",
            "gpu_memory_utilization",
            "max_num_seqs",
            "enable_prefix_caching",
            "enforce_eager",
        )
    } == {
        "name": "vllm",
        "version": "0.11.0",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "max_model_len": 131072,
        "gpu_memory_utilization": 0.9,
        "max_num_seqs": 16,
        "enable_prefix_caching": True,
        "enforce_eager": True,
    }
    assert engine["env"] == {"VLLM_LOGGING_LEVEL": "INFO", "HF_HUB_OFFLINE": "1"}
    assert "port" not in engine  # service.port is not the server's --port
    assert line(w, "engine", "max_model_len") == (8, 3)
    assert line(w, "engine", "enable_prefix_caching") == (11, 3)
    assert line(w, "engine", "enforce_eager") == (13, 5)
    assert line(w, "engine", "version") == (4, 3)
    assert w.view().locate(("engine", "max_model_len")).key == "vllm.maxModelLen"
    assert (
        w.view().data["replicas"],
        w.view().data["pod"]["qos_class"],
        w.view().data["gpu"]["product"],
    ) == (
        1,
        "Burstable",
        "NVIDIA-L4",
    )


def test_scenario_one_capacity_numbers() -> None:
    [w] = load("values-prod.yaml")
    capacity = w.view().data["capacity"]
    assert {
        k: capacity[k]
        for k in (
            "kv_bytes_per_token_per_gpu",
            "kv_bytes_requested",
            "weight_bytes_per_gpu",
            "memory_budget_bytes_per_gpu",
            "free_after_weights_bytes_per_gpu",
            "weights_exceed_gpu_memory",
            "tokens_requested",
            "memory_fraction",
        )
    } == {
        "kv_bytes_per_token_per_gpu": 128 * 1024,  # 128 KiB per token
        "kv_bytes_requested": 16 * 2**30,  # 16.0 GiB for 131072 tokens
        "weight_bytes_per_gpu": 16060522496,
        "memory_budget_bytes_per_gpu": int(23034 * 2**20 * 0.9),
        "free_after_weights_bytes_per_gpu": 5677087129,  # about 5 GiB
        "weights_exceed_gpu_memory": False,
        "tokens_requested": 131072,
        "memory_fraction": 0.9,
    }


def test_production_stack_profile() -> None:
    big, small = load("production-stack.yaml")  # the disabled entry renders nothing
    assert (big.name, big.view().data["chart_profile"], big.view().data["renders"]) == (
        "file:values/production-stack.yaml:servingEngineSpec.modelSpec[0]",
        "vllm-production-stack",
        "Deployment",
    )
    engine = big.view().data["engine"]
    assert {
        k: engine[k]
        for k in (
            "name",
            "version",
            "entrypoint",
            "model_id",
            "tensor_parallel_size",
            "max_model_len",
            "enable_chunked_prefill",
            "enable_prefix_caching",
            "max_num_batched_tokens",
        )
    } == {
        "name": "vllm",
        "version": "0.10.1",
        "entrypoint": "vllm serve",
        "model_id": "meta-llama/Llama-3.1-70B-Instruct",
        "tensor_parallel_size": 4,
        "max_model_len": 32768,
        "enable_chunked_prefill": False,
        # the chart renders --no-enable-prefix-caching unless enablePrefixCaching is true
        "enable_prefix_caching": False,
        "max_num_batched_tokens": 8192,
    }
    # Errata item 4: requestGPU in both requests and limits, and a 20Gi /dev/shm for TP.
    assert big.view().data["container"]["resources"] == {
        "requests": {"cpu": 8.0, "memory": 64 * 2**30, "nvidia.com/gpu": 4},
        "limits": {"nvidia.com/gpu": 4},
    }
    assert big.view().data["pod"]["shm"] == {
        "mounted": True,
        "host_ipc": False,
        "volume": "shm",
        "medium": "Memory",
        "size_limit_bytes": 20 * 2**30,
    }
    assert big.view().data["container"]["env_from_secret"] == ["HF_TOKEN"]
    assert big.view().data["container"]["probes"]["startup"]["budget_seconds"] == 615
    assert line(big, "engine", "max_model_len") == (21, 9)
    assert line(big, "engine", "tensor_parallel_size") == (20, 9)
    assert line(big, "container", "resources", "limits", "nvidia.com/gpu") == (18, 7)
    assert line(big, "container", "probes", "startup", "period_seconds") == (5, 5)
    assert line(big, "pod", "shm", "size_limit_bytes") == (11, 7)
    assert small.view().data["pod"]["shm"]["mounted"] is False  # no tensorParallelSize: no shm
    assert (
        small.view().data["gpu"]["resource"],
        small.view().data["gpu"]["memory_bytes"],
        small.view().data["replicas"],
    ) == ("nvidia.com/mig-3g.40gb", 40 * 2**30, 2)
    assert small.view().data["container"]["resources"]["limits"] == {
        "memory": 16 * 2**30,
        "nvidia.com/mig-3g.40gb": 1,
    }


def test_grpc_settings_in_values_by_side() -> None:
    [w] = load("grpc-values.yaml")
    assert w.view().data["grpc"] == {
        "server_kind": "triton",
        "server": {
            "keepalive_time_ms": 7200000,
            "keepalive_timeout_ms": 20000,
            "http2_min_recv_ping_interval_without_data_ms": 300000,
            "keepalive_permit_without_calls": False,
            "max_connection_age_ms": 1800000,
            "max_connection_age_grace_ms": 300000,
        },
        "client": {
            "keepalive_time_ms": 30000,
            "keepalive_permit_without_calls": True,
            "keepalive_timeout_ms": 5000,
        },
    }
    assert line(w, "grpc", "client", "keepalive_time_ms") == (16, 7)
    assert line(w, "grpc", "server", "max_connection_age_ms") == (12, 5)


def test_server_configuration_file() -> None:
    [w] = load("server-config.yaml", ModelSettings(model_load_seconds=240))
    assert (
        w.view().data["kind"],
        w.view().data["source"],
        w.view().data["engine"]["max_model_len"],
        w.view().data["engine"]["enforce_eager"],
        w.view().data["model_load_seconds"],
    ) == ("ServerConfig", "server-config", 32768, False, 240)


def test_merged_values_with_provenance() -> None:
    """The Helm front end passes already-merged values and a locate() with provenance."""
    data = {
        "image": {"repository": "vllm/vllm-openai", "tag": "v0.8.5"},
        "args": ["--max-model-len", "4096"],
        "maxNumSeqs": 8,
    }
    origins = {
        ("image", "tag"): Origin("values-prod.yaml", 3, 8, 0, "image.tag"),
        ("args", 1): Origin("values.yaml", 9, 5, 0, "args[1]"),
        ("maxNumSeqs",): Origin("values-prod.yaml", 5, 1, 0, "maxNumSeqs"),
    }

    def locate(path: PathT) -> Origin:
        for end in range(len(path), 0, -1):
            if path[:end] in origins:
                return origins[path[:end]]
        return Origin("values.yaml", 1, 1, 0, format_path(path))

    [w] = workloads_from_values(data, locate, "release prod", ModelSettings())
    assert (
        w.name,
        w.view().data["engine"]["version"],
        w.view().data["engine"]["max_model_len"],
        w.view().data["engine"]["max_num_seqs"],
    ) == ("release prod", "0.8.5", 4096, 8)
    assert w.view().locate(("engine", "max_model_len")) == origins[("args", 1)]
    assert w.view().locate(("engine", "max_num_seqs")) == origins[("maxNumSeqs",)]
    assert w.view().locate(("engine", "version")) == origins[("image", "tag")]


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        ({"replicaCount": 1}, "values-dev.yaml", True),
        ({"replicaCount": 1}, "settings.yaml", False),
        ({"apiVersion": "v1", "kind": "ConfigMap"}, "values.yaml", False),
        ({"image": "vllm/vllm-openai:v0.9.0"}, "anything.yaml", True),
        ({"servingEngineSpec": {"modelSpec": []}}, "stack.yaml", True),
        ({"max_model_len": 1, "max_num_seqs": 2}, "x.yaml", True),
        # A TensorRT-LLM LLM-API file shares two keys with vLLM but is not a vLLM config.
        (
            {
                "model": "m",
                "backend": "pytorch",
                "tensor_parallel_size": 1,
                "pipeline_parallel_size": 1,
                "pytorch_backend_config": {},
                "triton_config": {},
            },
            "model.yaml",
            False,
        ),
        (["a"], "values.yaml", False),
    ],
)
def test_values_recognition(data: object, name: str, expected: bool) -> None:
    assert looks_like_values(data, name) is expected


def test_user_profile_directory(tmp_path: Path) -> None:
    (tmp_path / "acme.yaml").write_text((PROFILES / "acme.yaml").read_text(), encoding="utf-8")
    text = "inference:\n  engines:\n    - model: Qwen/Qwen2.5-7B-Instruct\n      ctx: 4096\n"
    settings = ModelSettings(profile_dirs=(str(tmp_path),))
    [w] = extract_workloads([parse("acme.yaml", text)], settings)
    assert (
        w.view().data["chart_profile"],
        w.view().data["engine"]["name"],
        w.view().data["engine"]["max_model_len"],
        w.view().data["engine"]["model_id"],
    ) == ("acme-inference", "vllm", 4096, "Qwen/Qwen2.5-7B-Instruct")
    assert line(w, "engine", "max_model_len") == (4, 7)


def test_invalid_user_profile_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: servelint/v1\nkind: ChartProfile\nmetadata:\n  name: bad\nspec:\n"
        "  detect:\n    required: [x]\n  workloads:\n    - forEach: x\n      builder: magic\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as raised:
        load("values-prod.yaml", ModelSettings(profile_dirs=(str(tmp_path),)))
    assert str(raised.value) == (
        f"{tmp_path / 'bad.yaml'}:10:7: invalid profile: 'magic' is not one of "
        "['container', 'pod-spec', 'kubeai-model', 'app-template']"
    )


def test_a_user_profile_s_chart_versions_must_be_a_range(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        "apiVersion: servelint/v1\nkind: ChartProfile\nmetadata:\n  name: bad\n"
        "  chartVersions: newest\nspec:\n"
        "  detect:\n    required: [x]\n  workloads:\n    - forEach: x\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as raised:
        load("values-prod.yaml", ModelSettings(profile_dirs=(str(tmp_path),)))
    assert str(raised.value) == (
        f"{tmp_path / 'bad.yaml'}:5:3: invalid profile: chartVersions 'newest' is not a "
        "version range (such as '>=3.0.0 <4.0.0')"
    )
