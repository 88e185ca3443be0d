"""Coverage: each kind of gap gets its exact note, not-understood inputs are named, files that
are not deployments stay quiet, and --fail-on-unchecked makes it a gate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.coverage import gaps as gaps_module

FIXTURES = Path(__file__).parent / "fixtures" / "coverage"
RunLine = Callable[..., Result]

VLLM_KV = [
    "vllm-kv/max-num-seqs-exceeds-kv-cache",
    "vllm-kv/one-sequence-does-not-fit",
    "vllm-kv/one-sequence-may-not-fit",
    "vllm-kv/weights-do-not-fit",
    "vllm-kv/weights-may-not-fit",
]
MODEL_RULES = sorted(
    [
        "probes/liveness-budget-below-load-time",
        "probes/liveness-kills-before-load",
        "probes/startup-budget-below-load-time",
        "probes/startup-kills-before-load",
        "supply-chain/trust-remote-code-not-needed",
        *VLLM_KV,
        "vllm/attention-heads-not-divisible",
        "vllm/tensor-parallel-above-kv-heads",
    ]
)
VERSION_RULES = [
    "shm/kv-offload-without-dev-shm",
    "shm/nccl-shm-transport-without-dev-shm",
    # Only with --num-gpu-blocks-override, which the engine's version decides.
    "vllm-kv/one-sequence-does-not-fit",
    "vllm/batched-tokens-below-max-model-len",
    "vllm/block-size-invalid",
    "vllm/bool-flag-with-value",
    "vllm/cudagraph-capture-size-mismatch",
    "vllm/flag-not-accepted",
    "vllm/gpu-memory-utilization-out-of-range",
    "vllm/gpu-memory-utilization-whole-gpu",
    "vllm/kv-cache-dtype-invalid",
    "vllm/max-num-seqs-above-batched-tokens",
]
BEST_EFFORT = (
    "warning kubernetes-qos/gpu-pod-best-effort no container sets cpu or memory requests or "
    "limits (only nvidia.com/gpu), so the pod is BestEffort: under node memory pressure the "
    "kubelet evicts it first; set cpu and memory requests (and limits equal to them for "
    "Guaranteed)"
)


def _production_stack(*model_lines: str) -> str:
    """A production-stack values file of one model (Llama 3.1 8B, vLLM v0.11.1) whose
    entry goes on with ``model_lines``, from line 7."""
    head = (
        "servingEngineSpec:\n"
        "  modelSpec:\n"
        "    - name: llama\n"
        "      repository: vllm/vllm-openai\n"
        "      tag: v0.11.1\n"
        "      modelURL: meta-llama/Llama-3.1-8B-Instruct\n"
    )
    return head + "".join(f"      {line}\n" for line in model_lines)


def _lint(run_line: RunLine, *args: str) -> tuple[int, list[str]]:
    result = run_line(["lint", "--no-config", *args])
    return result.exit_code, result.output.splitlines()


def test_unknown_model_names_the_fact_the_rules_and_the_fix(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-model.yaml"
    assert _lint(run_line, "-v", str(path)) == (
        0,
        [
            f"{path}:19:11: {BEST_EFFORT}",
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "coverage: not checked for a missing fact: model architecture on 1 workload",
            f"not checked: {path}:18:29: model architecture (acme/private-llm-13b is not in "
            f"the model catalogue): 12 rules (5 error-level) did not run "
            f"({', '.join(MODEL_RULES)}); fix: give its architecture in .servelint.yaml: "
            "model: {modelConfigs: {acme/private-llm-13b: path/to/config.json}} (or "
            "model.presets), see docs/serving-model.md",
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_without_verbose_the_gaps_are_one_summary_line(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-model.yaml"
    assert _lint(run_line, str(path))[1][1:] == [
        "coverage: 1 file, 1 workload recognised (vllm 1)",
        "coverage: not checked for a missing fact: model architecture on 1 workload "
        "(-v for details)",
        "0 errors, 1 warning, 0 info in 1 file",
    ]


def test_unknown_gpu_points_at_the_gpu_request(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-gpu.yaml"
    assert _lint(run_line, "-v", str(path))[1][3] == (
        f"not checked: {path}:19:15: GPU memory (the pod does not name its GPU type): 5 rules "
        f"(2 error-level) did not run ({', '.join(VLLM_KV)}); fix: name the GPU in the pod's "
        "node selector or affinity (for example cloud.google.com/gke-accelerator: nvidia-l4 "
        "or nvidia.com/gpu.product), or set model.gpuProduct / model.gpuMemory in "
        ".servelint.yaml"
    )


def test_unpinned_server_says_errors_become_warnings(run_line: RunLine) -> None:
    path = FIXTURES / "unpinned.yaml"
    # Line 0 is images/unpinned-server-image, which says the same on the image line.
    assert _lint(run_line, "-v", str(path))[1][4] == (
        f"not checked: {path}:17:11: server version (image vllm/vllm-openai:latest names no "
        f"release): 12 rules (12 error-level) report warnings instead of errors "
        f"({', '.join(VERSION_RULES)}); fix: pin the image to a release tag (for example "
        "vllm/vllm-openai:v0.11.0)"
    )


def test_unknown_kind_with_a_server_image_is_not_understood(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-kind.yaml"
    assert _lint(run_line, "-v", str(path)) == (
        0,
        [
            "coverage: 1 file, 0 workloads recognised, 1 input not understood",
            f"not understood: {path}:7:5: kind ModelDeployment (serving.acme.io/v1): vLLM "
            "image vllm/vllm-openai:v0.11.0 at spec.engine.image; fix: servelint has no "
            "reading of this kind yet: lint the rendered pod template, or describe the layout "
            "with a chart profile (docs/serving-model.md#profiles)",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )


def test_nim_and_kserve_hugging_face_images_in_unknown_shapes_are_not_understood(
    run_line: RunLine,
) -> None:
    # NIM's registry and KServe's Hugging Face runtime name no server word the walk knew.
    path = FIXTURES / "nim-and-kserve-hf.yaml"
    fix = (
        "fix: servelint has no reading of this kind yet: lint the rendered pod template, or "
        "describe the layout with a chart profile (docs/serving-model.md#profiles)"
    )
    assert _lint(run_line, "-v", str(path)) == (
        0,
        [
            "coverage: 1 file, 0 workloads recognised, 2 inputs not understood",
            f"not understood: {path}:6:5: kind ModelDeployment (example.com/v1): NIM image "
            f"nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3 at spec.runner.image; {fix}",
            f"not understood: {path}:14:7: kind ServingRuntime (serving.kserve.io/v1alpha1): "
            "KServe Hugging Face server (vLLM backend) image kserve/huggingfaceserver:v0.14.0 "
            f"at spec.containers[0].image; {fix}",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )


def test_unrecognised_values_layout_in_its_chart_is_not_understood(run_line: RunLine) -> None:
    path = FIXTURES / "chart" / "values.yaml"
    assert _lint(run_line, str(path)) == (
        0,
        [
            "coverage: 1 file, 0 workloads recognised, 1 input not understood (-v for details)",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )
    assert _lint(run_line, "-v", str(path))[1][1] == (
        f"not understood: {path}:3:5: values layout: TGI image "
        "ghcr.io/huggingface/text-generation-inference:3.3.6 at server.container.img; fix: "
        "describe this values layout with a chart profile (docs/serving-model.md#profiles), "
        "or lint the chart with --chart so the rendered manifests are read"
    )


def test_files_that_are_not_deployments_stay_quiet(run_line: RunLine) -> None:
    assert _lint(run_line, "-v", str(FIXTURES / "quiet")) == (
        0,
        ["coverage: 3 files, 0 workloads recognised", "0 errors, 0 warnings, 0 info in 3 files"],
    )
    assert _lint(run_line, str(FIXTURES / "quiet")) == (
        0,
        ["0 errors, 0 warnings, 0 info in 3 files"],
    )


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("unknown-model.yaml", 1),
        ("unknown-gpu.yaml", 1),
        ("unpinned.yaml", 1),
        ("unknown-kind.yaml", 1),
        ("quiet", 0),
    ],
)
def test_fail_on_unchecked_is_a_gate(run_line: RunLine, name: str, code: int) -> None:
    path = str(FIXTURES / name)
    assert _lint(run_line, "--fail-on-unchecked", path)[0] == code
    assert _lint(run_line, path)[0] == 0


def test_fail_on_unchecked_from_the_configuration_and_overridden(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".servelint.yaml").write_text("failOnUnchecked: true\n")
    target = tmp_path / "deploy.yaml"
    target.write_text((FIXTURES / "unknown-kind.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    assert run_line(["lint", "deploy.yaml"]).exit_code == 1
    assert run_line(["lint", "--no-fail-on-unchecked", "deploy.yaml"]).exit_code == 0


def test_json_coverage_section(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-gpu.yaml"
    result = run_line(["lint", "--no-config", "--format", "json", str(path)])
    coverage = json.loads(result.output)["coverage"]
    assert coverage["summary"] == {
        "files": 1,
        "workloads": 1,
        "notUnderstood": 0,
        "gaps": 1,
        "unchecked": True,
    }
    [entry] = coverage["files"]
    [workload] = entry["workloads"]
    assert (entry["file"], entry["notUnderstood"]) == (str(path), [])
    assert {k: v for k, v in workload.items() if k != "gaps"} == {
        "name": "Deployment/default/llama",
        "kind": "Deployment",
        "line": 1,
        "server": "vllm",
        "version": "0.11.0",
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "modelSource": "catalogue",
        "gpu": None,
        "gpuMemoryKnown": False,
    }
    assert [(g["fact"], g["errorRules"], g["rules"], g["line"]) for g in workload["gaps"]] == [
        ("GPU memory", 2, VLLM_KV, 19)
    ]


def test_sarif_carries_coverage_as_notifications_and_properties(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-kind.yaml"
    result = run_line(["lint", "--no-config", "--format", "sarif", str(path)])
    [invocation] = json.loads(result.output)["runs"][0]["invocations"]
    texts = [n["message"]["text"] for n in invocation["toolExecutionNotifications"]]
    assert texts[0] == "coverage: 1 file, 0 workloads recognised, 1 input not understood"
    assert texts[1].startswith(f"not understood: {path}:7:5: kind ModelDeployment")
    assert invocation["properties"]["coverage"]["summary"]["notUnderstood"] == 1


@pytest.mark.parametrize("fmt", ["junit", "github"])
def test_junit_and_github_carry_the_summary_line(run_line: RunLine, fmt: str) -> None:
    path = FIXTURES / "unknown-kind.yaml"
    result = run_line(["lint", "--no-config", "--format", fmt, str(path)])
    assert (
        "coverage: 1 file, 0 workloads recognised, 1 input not understood (-v for details)"
        in result.output
    )


def test_show_a_manifest_locates_every_written_setting(run_line: RunLine) -> None:
    path = FIXTURES / "unknown-gpu.yaml"
    result = run_line(["show", "--no-config", "--format", "json", str(path)])
    assert result.exit_code == 0
    [workload] = json.loads(result.output)["workloads"]
    where = {s["setting"]: (s.get("at"), s.get("from")) for s in workload["settings"]}
    assert where["engine.image"] == (f"{path}:15:11", None)
    assert where["engine.model"] == (f"{path}:16:29", None)
    assert where["model.num_hidden_layers"] == (None, "catalogue")
    assert workload["unknown"] == ["GPU type and memory"]
    assert workload["model"] == {
        "id": "meta-llama/Llama-3.1-8B-Instruct",
        "architecture": "catalogue",
    }


def test_show_a_values_file_in_its_chart_context(run_line: RunLine) -> None:
    chart = Path(__file__).parent.parent / "examples" / "charts" / "vllm"
    result = run_line(["show", "--no-config", str(chart / "values-prod.yaml")])
    lines = result.output.splitlines()
    assert result.exit_code == 0
    assert lines[0] == f"helm:{chart} [prod] (HelmValues) at {chart}/values.yaml:1:1"
    assert lines[1:5] == [
        "  server: vllm 0.11.0",
        "  model: meta-llama/Llama-3.1-8B-Instruct (architecture: catalogue)",
        "  gpu: NVIDIA-L4 × 1, told by manifest",
        "  parallelism: tensor_parallel_size=1",
    ]
    assert (
        f"    engine.max_model_len = 131072  ({chart}/values-prod.yaml:42:7, "
        "vllm.engineArgs.model.maxModelLen)"
    ) in lines


def test_show_chart_with_values_and_set(run_line: RunLine) -> None:
    chart = Path(__file__).parent.parent / "examples" / "charts" / "vllm"
    result = run_line(
        [
            "show",
            "--no-config",
            "--format",
            "json",
            "--chart",
            str(chart),
            "--no-render",  # the values' reading alone, whether helm is on PATH or not
            "-f",
            str(chart / "values-prod.yaml"),
            "--set",
            "vllm.engineArgs.model.maxModelLen=4096",
        ]
    )
    [workload] = json.loads(result.output)["workloads"]
    [setting] = [s for s in workload["settings"] if s["setting"] == "engine.max_model_len"]
    assert setting == {
        "setting": "engine.max_model_len",
        "value": 4096,
        "at": "<--set>:1:1",
        "writtenAs": "vllm.engineArgs.model.maxModelLen",
    }


def test_show_a_triton_config(run_line: RunLine) -> None:
    path = FIXTURES / "model.pbtxt"
    result = run_line(["show", "--no-config", str(path)])
    lines = result.output.splitlines()
    assert lines[:5] == [
        f"ensemble (TritonModelConfig) at {path}:1:1",
        "  server: triton (version unknown)",
        "  model: unknown (architecture: unknown)",
        "  gpu: unknown × ?",
        "  settings:",
    ]
    assert f"    triton.models[0].max_batch_size = 8  ({path}:3:1, max_batch_size)" in lines
    assert lines[-1] == "  unknown: server version, model"


def test_show_a_live_config(run_line: RunLine) -> None:
    path = FIXTURES / "live-sglang.json"
    result = run_line(["show", "--no-config", "--live", str(path)])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            f"{path}: sglang 0.5.2, model Qwen/Qwen2.5-7B-Instruct",
            "  read: /get_server_info",
            "  engine.chunked_prefill_size = 8192",
            "  engine.context_length = 32768",
            "  engine.mem_fraction_static = 0.85",
            "  engine.model_path = 'Qwen/Qwen2.5-7B-Instruct'",
            "  engine.served_model_name = 'qwen'",
            "  engine.tp_size = 2",
            "  not settings (not compared): version",
        ],
    )


LOGS = Path(__file__).parent / "fixtures" / "drift" / "logs"


def test_show_a_live_start_up_log_from_a_file_and_standard_input(run_line: RunLine) -> None:
    # Two replicas printed their non-default args; the second was started with another
    # max_model_len and api key. Keys are masked, the disagreement is named.
    path = LOGS / "vllm-two-replicas.log"
    expected = [
        "  read: non-default args",
        "  engine.api_key = '****'",
        "  engine.data_parallel_size = 2",
        "  engine.enable_prefix_caching = True",
        "  engine.gpu_memory_utilization = 0.92",
        "  engine.host = '0.0.0.0'",
        "  engine.max_model_len = 8192",
        "  engine.max_num_seqs = 64",
        "  engine.model = 'meta-llama/Llama-3.1-8B-Instruct'",
        "  engine.served_model_name = 'llama-3.1-8b'",
        "  not settings (not compared): model_tag",
        "  printed differently by its processes: api_key: pod/llm-vllm-7f9c-a2kq9/vllm "
        "(line 2) ['****'], pod/llm-vllm-7f9c-c9m2p/vllm (line 4) ['****']",
        "  printed differently by its processes: max_model_len: pod/llm-vllm-7f9c-a2kq9/vllm "
        "(line 2) 8192, pod/llm-vllm-7f9c-c9m2p/vllm (line 4) 4096",
    ]
    header = "vllm 0.11.0, model meta-llama/Llama-3.1-8B-Instruct"
    from_file = run_line(["show", "--no-config", "--live", str(path)])
    assert (from_file.exit_code, from_file.output.splitlines()) == (
        0,
        [f"{path}: {header}", *expected],
    )
    piped = run_line(["show", "--no-config", "--live", "-"], input=path.read_text())
    assert (piped.exit_code, piped.output.splitlines()) == (
        0,
        [f"<stdin>: {header}", *expected],
    )


def test_show_a_live_tgi_info_answer(run_line: RunLine) -> None:
    # /info as huggingface_hub returns it, printed by Python (single quotes, None).
    path = LOGS / "tgi-info-python-repr.txt"
    result = run_line(["show", "--no-config", "--live", str(path)])
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            f"{path}: tgi 2.3.0, model mistralai/Mistral-7B-Instruct-v0.3",
            "  read: /info (Python repr)",
            "  engine.dtype = 'bfloat16'",
            "  engine.max_batch_total_tokens = 611376",
            "  engine.max_best_of = 2",
            "  engine.max_client_batch_size = 4",
            "  engine.max_concurrent_requests = 256",
            "  engine.max_input_tokens = 7168",
            "  engine.max_stop_sequences = 4",
            "  engine.max_total_tokens = 8192",
            "  engine.max_waiting_tokens = 20",
            "  engine.model_id = 'mistralai/Mistral-7B-Instruct-v0.3'",
            "  engine.waiting_served_ratio = 0.3",
            "  not settings (not compared): docker_label, model_device_type, "
            "model_pipeline_tag, model_sha, sha, validation_workers, version",
        ],
    )
    shown = json.loads(
        run_line(["show", "--no-config", "--live", str(path), "--format", "json"]).output
    )
    assert [(e["server"], e["version"], e["read"], e["disagreements"]) for e in shown["live"]] == [
        ("tgi", "2.3.0", ["/info (Python repr)"], [])
    ]


def test_show_a_live_log_it_cannot_read(run_line: RunLine) -> None:
    # A log that happens to be valid YAML is not read as YAML: the formats are listed.
    path = LOGS / "yaml-shaped.log"
    result = run_line(["show", "--no-config", "--live", str(path)])
    assert result.exit_code == 3
    assert result.output.startswith(
        f"servelint: {path}: this is a log, but it holds no start-up configuration that "
        "servelint reads (was the start of the log cut off? with --source logs, raise "
        "--log-bytes); the formats understood are: vLLM start-up log "
    )


def test_show_usage_errors(run_line: RunLine) -> None:
    assert run_line(["show"]).exit_code == 2
    assert run_line(["show", "-f", "x.yaml", "a.yaml"]).exit_code == 2
    live = str(FIXTURES / "live-sglang.json")
    assert run_line(["show", "--live", live, "a.yaml"]).exit_code == 2
    unreadable = run_line(["show", "--no-config", "--live", str(FIXTURES / "model.pbtxt")])
    assert unreadable.exit_code == 3


def test_coverage_lines_escape_control_characters(run_line: RunLine, tmp_path: Path) -> None:
    """A file or kind name with a terminal escape cannot drive the reader's terminal."""
    crafted = (
        (FIXTURES / "unknown-kind.yaml")
        .read_text()
        .replace("kind: ModelDeployment", 'kind: "Model\\e[31mDeployment"')
    )
    target = tmp_path / "deploy.yaml"
    target.write_text(crafted)
    result = run_line(["lint", "--no-config", "-v", str(target)])
    assert "\x1b" not in result.output
    assert "kind Model\\x1b[31mDeployment" in result.output


def test_other_image_keys_and_server_commands_are_noticed(
    run_line: RunLine, tmp_path: Path
) -> None:
    (tmp_path / "values.yaml").write_text(
        "api:\n  image:\n    containerImage: vllm/vllm-openai\n    version: v0.11.0\n"
    )
    (tmp_path / "graph.yaml").write_text(
        "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: agg}\n"
        "spec:\n  services:\n    Worker:\n      extraPodSpec:\n        mainContainer:\n"
        "          image: my-registry/runtime:1\n"
        "          command: [python3, -m, dynamo.trtllm]\n"
    )
    result = run_line(["lint", "--no-config", "-v", str(tmp_path)])
    # The Dynamo worker is read (linter/model/frontends/dynamo.py): a workload, not a note.
    assert "coverage: 2 files, 1 workload recognised (trtllm 1)" in result.output
    assert [line for line in result.output.splitlines() if line.startswith("not understood")] == [
        f"not understood: {tmp_path}/values.yaml:3:5: values layout: vLLM image "
        "vllm/vllm-openai at api.image.containerImage; fix: describe this values layout with "
        "a chart profile (docs/serving-model.md#profiles), or lint the chart with --chart so "
        "the rendered manifests are read",
    ]


def test_images_that_name_a_server_family_are_noticed(run_line: RunLine, tmp_path: Path) -> None:
    """An engine image that names its server in the tag is not modelled: said. Habana's TGI
    fork (tgi-gaudi) is TGI of a version line of its own: read, its version unknown, based
    on TGI. A family's router image runs no server: quiet."""
    (tmp_path / "gaudi.yaml").write_text(
        "image:\n  repository: ghcr.io/huggingface/tgi-gaudi\n  tag: '2.3.1'\n"
        "resources:\n  limits:\n    habana.ai/gaudi: 1\n"
    )
    (tmp_path / "booster.yaml").write_text(
        "apiVersion: workload.serving.volcano.sh/v1alpha1\nkind: ModelBooster\n"
        "metadata: {name: pd}\nspec:\n  backend:\n    workers:\n"
        "      - image: ghcr.io/volcano-sh/kthena-engine:vllm-ascend_v0.10.1rc1\n"
    )
    (tmp_path / "router.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: router}\nspec:\n"
        "  template:\n    spec:\n      containers:\n        - name: router\n"
        "          image: lmsysorg/sglang-router:v0.2.4\n"
        "          command: [python3, -m, sglang_router.launch_router]\n"
    )
    result = run_line(["lint", "--no-config", "-v", str(tmp_path)])
    assert result.exit_code == 0
    assert [line for line in result.output.splitlines() if line.startswith("not understood")] == [
        f"not understood: {tmp_path}/booster.yaml:7:9: kind ModelBooster "
        "(workload.serving.volcano.sh/v1alpha1): vLLM image "
        "ghcr.io/volcano-sh/kthena-engine:vllm-ascend_v0.10.1rc1 at spec.backend.workers[0].image; "
        "fix: servelint has no reading of this kind yet: lint the rendered pod template, or "
        "describe the layout with a chart profile (docs/serving-model.md#profiles)",
    ]
    assert "coverage: 3 files, 1 workload recognised (tgi 1), 1 input not understood" in (
        result.output
    )
    assert (
        f"not checked: {tmp_path}/gaudi.yaml:3:3: server version (image "
        "ghcr.io/huggingface/tgi-gaudi:2.3.1 is not a TGI release image: version unknown, "
        "based on TGI): 13 rules (13 error-level) report warnings instead of errors"
    ) in result.output


def test_a_setting_that_does_not_read_as_its_type_is_not_checked(run_line: RunLine) -> None:
    """A template left in a value (``{{ .Values.maxModelLen }}``) is named with the rules
    that did not judge it: those reading the setting and the capacity figures it goes
    into (not the weights' rules, which do not depend on it). A worker's rank written as
    a variable is how a multi-node server is written, not a gap."""
    path = FIXTURES / "unread-setting.yaml"
    rules = [
        "vllm-kv/max-num-seqs-exceeds-kv-cache",
        "vllm-kv/one-sequence-does-not-fit",
        "vllm-kv/one-sequence-may-not-fit",
        "vllm/batched-tokens-above-seqs-times-len",
        "vllm/batched-tokens-below-max-model-len",
        "vllm/batched-tokens-below-max-model-len-version-unknown",
    ]
    assert _lint(run_line, "-v", str(path)) == (
        0,
        [
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "coverage: not checked for a missing fact: setting value on 1 workload",
            f"not checked: {path}:17:15: setting value (max_model_len is written as "
            "'{{ .Values.maxModelLen }}', not as an integer): 6 rules (2 error-level) did not "
            f"judge it ({', '.join(rules)}); fix: write the value itself, or lint the chart "
            "with --chart so that helm renders it",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )
    result = run_line(["lint", "--no-config", "--format", "json", str(path)])
    [workload] = json.loads(result.output)["coverage"]["files"][0]["workloads"]
    assert workload["gaps"] == [
        {
            "fact": "setting value",
            "detail": "max_model_len is written as '{{ .Values.maxModelLen }}', not as an integer",
            "effect": "did not judge it",
            "rules": rules,
            "errorRules": 2,
            "fix": "write the value itself, or lint the chart with --chart so that helm renders it",
            "file": str(path),
            "line": 17,
            "column": 15,
        }
    ]
    # --fail-on-unchecked makes the gap fail a gate, as the other gaps do.
    failed = run_line(["lint", "--no-config", "--fail-on-unchecked", str(path)])
    assert failed.exit_code == 1


def test_a_workload_with_two_unread_settings_counts_once(run_line: RunLine, tmp_path: Path) -> None:
    text = (FIXTURES / "unread-setting.yaml").read_text(encoding="utf-8")
    path = tmp_path / "two.yaml"
    path.write_text(
        text.replace(
            "            - --node-rank=$(POD_INDEX)\n",
            "            - --max-num-seqs={{ .Values.maxNumSeqs }}\n",
        ),
        encoding="utf-8",
    )
    code, lines = _lint(run_line, "-v", str(path))
    assert (code, lines[1]) == (
        0,
        "coverage: not checked for a missing fact: setting value on 1 workload",
    )
    assert [line.split("(", 2)[1].split(",")[0] for line in lines[2:4]] == [
        "max_model_len is written as '{{ .Values.maxModelLen }}'",
        "max_num_seqs is written as '{{ .Values.maxNumSeqs }}'",
    ]


def test_a_list_where_one_value_belongs_is_not_read(run_line: RunLine, tmp_path: Path) -> None:
    """A serving key written as a list: how a chart renders it into a flag is the chart's
    own, so its value is not guessed (neither the list nor its first item); a setting of
    several values (``cudaGraphSizes``) is read as its list. The same through a chart
    profile (production-stack's ``vllmConfig``)."""
    path = FIXTURES / "list-setting-values.yaml"
    kv_rules = (
        "vllm-kv/max-num-seqs-exceeds-kv-cache, vllm-kv/one-sequence-does-not-fit, "
        "vllm-kv/one-sequence-may-not-fit"
    )
    fix = "fix: write the value itself, or lint the chart with --chart so that helm renders it"
    code, lines = _lint(run_line, "-v", str(path))
    assert code == 0
    assert lines[1:] == [
        "coverage: 1 file, 1 workload recognised (vllm 1)",
        "coverage: not checked for a missing fact: setting value on 1 workload",
        f"not checked: {path}:7:3: setting value (max_model_len is written as '[8192]', not as "
        f"an integer): 6 rules (2 error-level) did not judge it ({kv_rules}, "
        "vllm/batched-tokens-above-seqs-times-len, vllm/batched-tokens-below-max-model-len, "
        f"vllm/batched-tokens-below-max-model-len-version-unknown); {fix}",
        f"not checked: {path}:8:3: setting value (gpu_memory_utilization is written as "
        f"'[0.9, 0.8]', not as a number): 9 rules (4 error-level) did not judge it ({kv_rules}, "
        "vllm-kv/weights-do-not-fit, vllm-kv/weights-may-not-fit, "
        "vllm/gpu-memory-utilization-no-headroom, vllm/gpu-memory-utilization-not-positive, "
        "vllm/gpu-memory-utilization-out-of-range, vllm/gpu-memory-utilization-whole-gpu); "
        f"{fix}",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    # The list setting is read: its finding (capture sizes up to 4) is the first line.
    assert lines[0].startswith(f"{path}:9:3: warning vllm/decode-batches-without-cuda-graphs ")
    values = tmp_path / "values.yaml"
    values.write_text(
        _production_stack("requestGPU: 1", "vllmConfig:", "  maxModelLen: [8192]"),
        encoding="utf-8",
    )
    result = run_line(["lint", "--no-config", "--format", "json", str(values)])
    [workload] = json.loads(result.output)["coverage"]["files"][0]["workloads"]
    assert [(g["fact"], g["line"], g["column"]) for g in workload["gaps"]] == [
        ("GPU memory", 7, 7),
        ("setting value", 9, 9),
    ]


def test_a_switch_whose_value_is_not_known_is_not_read(run_line: RunLine, tmp_path: Path) -> None:
    """A switch key holding a template is neither on (``--enforce-eager``, which reported
    eager mode that the chart may not render) nor off, in a values section or through a
    chart profile's ``boolean`` rule (where it was skipped without a word)."""
    section = tmp_path / "section.yaml"
    section.write_text(
        "vllm:\n"
        "  image: vllm/vllm-openai:v0.11.1\n"
        "  model: meta-llama/Llama-3.1-8B-Instruct\n"
        '  enforceEager: "{{ .Values.eager }}"\n',
        encoding="utf-8",
    )
    profile = tmp_path / "values.yaml"
    profile.write_text(
        _production_stack("vllmConfig:", '  enableChunkedPrefill: "{{ .Values.chunked }}"'),
        encoding="utf-8",
    )
    result = run_line(["lint", "--no-config", "--format", "json", str(tmp_path)])
    report = json.loads(result.output)
    assert [f["rule"] for f in report["findings"] if "eager" in f["rule"]] == []
    gaps = {
        entry["file"]: [
            (g["fact"], g["detail"], g["line"]) for w in entry["workloads"] for g in w["gaps"]
        ]
        for entry in report["coverage"]["files"]
    }
    assert gaps[str(section)] == [
        (
            "setting value",
            "enforce_eager is written as '{{ .Values.eager }}', not as true or false",
            4,
        )
    ]
    assert gaps[str(profile)] == [
        (
            "setting value",
            "enable_chunked_prefill is written as '{{ .Values.chunked }}', not as true or false",
            8,
        )
    ]


def test_the_fix_for_an_unknown_device_names_the_platform_labels(
    run_line: RunLine, tmp_path: Path
) -> None:
    """A TPU, Neuron or Gaudi pod whose device is not named is told which labels (or
    settings) name it on that platform, not NVIDIA's."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n"
        "    - name: vllm\n      image: vllm/vllm-openai:v0.11.0\n"
        "      args: [--model, Qwen/Qwen2.5-7B-Instruct]\n"
        "      resources: {{limits: {{{resource}: 1}}}}\n"
    )
    for name, resource in (
        ("tpu", "google.com/tpu"),
        ("inf", "aws.amazon.com/neuron"),
        ("hpu", "habana.ai/gaudi"),
    ):
        (tmp_path / f"{name}.yaml").write_text(pod.format(name=name, resource=resource))
    result = run_line(["lint", "--no-config", "--format", "json", str(tmp_path)])
    files = json.loads(result.output)["coverage"]["files"]
    fixes = sorted(
        (Path(f["file"]).name, g["fix"])
        for f in files
        for w in f["workloads"]
        for g in w["gaps"]
        if g["fact"] == "GPU memory"
    )
    assert fixes == [
        ("hpu.yaml", gaps_module.PLATFORM_GPU_FIX["hpu"]),
        ("inf.yaml", gaps_module.PLATFORM_GPU_FIX["neuron"]),
        ("tpu.yaml", gaps_module.PLATFORM_GPU_FIX["tpu"]),
    ]
    assert gaps_module.PLATFORM_GPU_FIX["tpu"].startswith(
        "name the TPU in the pod's node selector or affinity (for example "
        "cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice"
    )
