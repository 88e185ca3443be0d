"""The serving model's contract: JSON Schemas, CEL sees the model, findings point at the
right lines, gRPC and live extraction, and nothing heavy on the lint path."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import Result

from linter import _resources
from linter.evaluate.parsers import parse
from linter.model.engine.live import LiveSettings, engine_settings_from_live
from linter.model.frontends.extract import extract_workloads
from linter.model.frontends.profiles import packaged_profiles

FIXTURES = Path(__file__).parent / "fixtures" / "model"
INPUTS = sorted([*(FIXTURES / "manifests").glob("*.yaml"), *(FIXTURES / "values").glob("*.yaml")])


def _workloads(path: Path) -> list[Any]:
    return extract_workloads([parse(str(path), path.read_text(encoding="utf-8"))])


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_every_fixture_workload_matches_the_schema(path: Path) -> None:
    schema = _resources.load_schema("workload.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    workloads = _workloads(path)
    assert workloads
    for workload in workloads:
        errors = [
            f"{list(e.absolute_path)}: {e.message}"
            for e in validator.iter_errors(json.loads(json.dumps(workload.view().data)))
        ]
        assert errors == [], workload.name


def test_packaged_profiles_match_the_profile_schema() -> None:
    schema = _resources.load_schema("profile.schema.json")
    validator = jsonschema.Draft202012Validator(schema)
    root = _resources.builtin_profiles()
    names = []
    for profile in packaged_profiles():
        data = yaml.safe_load((root / profile.source).read_text(encoding="utf-8"))
        assert [e.message for e in validator.iter_errors(data)] == [], profile.source
        names.append(profile.name)
    assert names == [
        "app-template-3",
        "app-template",
        "kubeai-models",
        "llm-d-modelservice",
        "vllm-production-stack",
    ]
    assert jsonschema.Draft202012Validator(schema).is_valid(
        yaml.safe_load((FIXTURES / "profiles" / "acme.yaml").read_text())
    )


def test_scenario_one_through_the_cli(run_line: Callable[..., Result]) -> None:
    result = run_line(
        [
            "lint",
            "--no-builtin",
            "--policy-dir",
            str(FIXTURES / "policies"),
            str(FIXTURES / "values" / "values-prod.yaml"),
        ]
    )
    source = FIXTURES / "values" / "values-prod.yaml"
    assert result.exit_code == 1
    assert result.output == (
        f"{source}:8:3: error model-kv/one-sequence-does-not-fit max_model_len 131072 needs "
        "16.0 GiB of KV cache (128 KiB per token); about 5 GiB are left after the weights "
        "(Llama-3.1-8B-Instruct, TP=1, NVIDIA L4, gpu_memory_utilization 0.90)\n"
        "coverage: 1 file, 1 workload recognised (vllm 1)\n"
        "1 error, 0 warnings, 0 info in 1 file\n"
    )


def test_findings_point_at_flags_shell_strings_and_shm(run_line: Callable[..., Result]) -> None:
    manifests = FIXTURES / "manifests"
    result = run_line(
        [
            "lint",
            "--no-builtin",
            "--policy-dir",
            str(FIXTURES / "policies"),
            "--format",
            "json",
            str(manifests / "vllm-deployment.yaml"),
            str(manifests / "shell-command.yaml"),
        ]
    )
    found = [
        (f["rule"], Path(f["file"]).name, f["line"], f["column"], f["path"], f["message"])
        for f in json.loads(result.output)["findings"]
    ]
    assert result.exit_code == 1
    assert found == [
        (
            "model-args/inline-bool",
            "shell-command.yaml",
            19,
            44,
            "spec.template.spec.containers[0].args[0]",
            "boolean flag with a value: --enable-chunked-prefill False",
        ),
        (
            "model-pod/gpu-besteffort",
            "shell-command.yaml",
            28,
            11,
            "spec.template.spec.containers[0].resources",
            "a GPU pod with no cpu/memory requests is BestEffort",
        ),
        (
            "model-args/lower-case-k",
            "vllm-deployment.yaml",
            23,
            15,
            "spec.template.spec.containers[0].args[2]",
            "--max-model-len 32k is 32000 tokens",
        ),
        (
            "model-args/inline-bool",
            "vllm-deployment.yaml",
            29,
            15,
            "spec.template.spec.containers[0].args[8]",
            "boolean flag with a value: --enforce-eager=true",
        ),
        (
            "model-pod/shm-size",
            "vllm-deployment.yaml",
            67,
            13,
            "spec.template.spec.volumes[0].emptyDir.sizeLimit",
            "/dev/shm is 2048 MiB",
        ),
    ]


def test_triton_flags_are_server_side_and_client_env_is_client_side() -> None:
    triton, client = _workloads(FIXTURES / "manifests" / "grpc.yaml")
    assert triton.view().data["grpc"] == {
        "server_kind": "triton",
        "server": {
            "keepalive_time_ms": 60000,
            "http2_min_recv_ping_interval_without_data_ms": 30000,
            "max_connection_age_ms": 86400000,
        },
    }
    assert (
        triton.view().data["engine"]["name"],
        triton.view().data["engine"]["exit_timeout_secs"],
        triton.view().data["effective"]["exit_timeout_secs"],
    ) == ("trtllm", 45, 45)
    assert triton.view().locate(("grpc", "server", "max_connection_age_ms")).line == 16
    assert client.view().data["grpc"] == {
        "client": {"keepalive_time_ms": 10000, "keepalive_permit_without_calls": True}
    }
    assert client.view().data["engine"] == {
        "image": "example/client:1.0",
        "version_pinned": False,
        "entrypoint": "image",
        "args": [],
        "env": {
            "GRPC_ARG_KEEPALIVE_TIME_MS": "10000",
            "GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS": "1",
        },
        "flags": {},
        "inline_bool_flags": [],
    }
    assert client.view().locate(("grpc", "client", "keepalive_time_ms")).line == 31


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("vllm-models.json", LiveSettings("vllm", {"max_model_len": 2048}, "Qwen/Qwen3-0.6B")),
        (
            "tgi-info.json",
            LiveSettings(
                "tgi",
                {
                    "model_id": "mistralai/Ministral-8B-Instruct-2410",
                    "max_concurrent_requests": 128,
                    "max_input_tokens": 32767,
                    "max_total_tokens": 32768,
                },
                "mistralai/Ministral-8B-Instruct-2410",
                "3.2.1",
                ("model_pipeline_tag", "router", "version"),
            ),
        ),
        (
            "sglang-server-info.json",
            LiveSettings(
                "sglang",
                {
                    "model_path": "qwen/qwen2.5-0.5b-instruct",
                    "mem_fraction_static": 0.874,
                    "tp_size": 1,
                    "max_running_requests": 128,
                    "chunked_prefill_size": 8192,
                },
                "qwen/qwen2.5-0.5b-instruct",
                "0.5.2rc1",
                ("status", "version"),
            ),
        ),
    ],
)
def test_engine_settings_from_live_servers(name: str, expected: LiveSettings) -> None:
    data = json.loads((FIXTURES / "live" / name).read_text(encoding="utf-8"))
    assert engine_settings_from_live(data) == expected


def test_live_vllm_config_file_and_unknown_shapes() -> None:
    config = {"model": "m", "max-model-len": "32k", "enforce-eager": True, "new-knob": 1}
    assert engine_settings_from_live(config) == LiveSettings(
        "vllm",
        {"model": "m", "max_model_len": 32000, "enforce_eager": True},
        "m",
        "",
        ("new-knob",),
    )
    assert engine_settings_from_live({"status": "ok"}) is None
    assert engine_settings_from_live(["x"]) is None


def test_hostile_inputs_give_no_traceback() -> None:
    texts = [
        "image: {repository: [1, 2]}\nargs: [{a: 1}, null, 3]\nenv: [1, {name: 2}]\n",
        "apiVersion: apps/v1\nkind: Deployment\nspec: {template: {spec: {containers: [7, "
        "{name: x, image: vllm/vllm-openai:v1, command: 5, resources: {limits: 3}}]}}}\n",
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: a\n      image: x\n"
        '      command: [sh, -c, "vllm serve \'unclosed --tp 2"]\n'
        "      resources: {limits: {nvidia.com/gpu: one}}\n",
        "servingEngineSpec: {modelSpec: [{name: 1, vllmConfig: 5}, 3, {requestGPU: x}]}\n",
    ]
    names = [
        [w.name for w in extract_workloads([parse(f"t{i}.yaml", t)])] for i, t in enumerate(texts)
    ]
    assert names == [
        [],
        ["Deployment/default/"],
        ["Pod/default/"],
        [
            "file:t3.yaml:servingEngineSpec.modelSpec[0]",
            "file:t3.yaml:servingEngineSpec.modelSpec[2]",
        ],
    ]


def test_extraction_keeps_heavy_modules_off_the_lint_path() -> None:
    code = (
        "import sys\nfrom linter.evaluate.parsers import parse\n"
        "from linter.model.frontends.extract import extract_workloads\n"
        f"for p in {[str(p) for p in INPUTS]!r}:\n"
        "    extract_workloads([parse(p, open(p).read())])\n"
        "heavy = {'jsonschema', 'kubernetes', 'deepdiff', 'ruamel'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
