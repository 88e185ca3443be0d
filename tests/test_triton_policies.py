"""Every built-in Triton and TensorRT-LLM rule, end to end: fixtures that fire it and not.

Each case lints one folder of tests/fixtures/triton with only the two policies (validated
against the policy schema on the way, as user policies are) and compares the exact output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from report_lines import report_lines

RunLine = Callable[..., Result]
ROOT = Path(__file__).parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "triton"
POLICIES = [
    "--no-config",
    "--no-builtin",
    "--policy-dir",
    str(ROOT / "policies" / "triton.yaml"),
    "--policy-dir",
    str(ROOT / "policies" / "tensorrt-llm.yaml"),
]

# folder → (exit code, findings with paths relative to the folder, summary line)
CASES: dict[str, tuple[int, list[str], str]] = {
    "bad_syntax": (
        1,
        [
            "config.pbtxt:6:3: error syntax invalid Triton model configuration: Message type "
            '"inference.ModelDynamicBatching" has no field named "max_queue_delay_micros".',
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "graph_spec_invalid": (
        1,
        [
            "config.pbtxt:9:7: error triton/graph-spec-invalid graph_spec[0]: graph spec expects "
            "'batch_size' to be >= 1 and <= 8; graph_spec[1]: graph lower bound spec expects "
            "shape for input 'input_ids'; graph_spec[2]: graph lower bound spec expects input "
            "'input_ids' to have dimension <= 64: the TensorRT backend fails to load the model",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "graph_spec_max_zero": (
        0,
        [
            "config.pbtxt:6:18: warning triton/graph-spec-needs-batch-size-zero max_batch_size is"
            " 0 but graph_spec[0] sets a batch_size: with auto-complete off the TensorRT backend "
            "fails to load the model (graph spec expects 'batch_size' to be 0 if 'max_batch_size'"
            " is 0); set max_batch_size to the engine's maximum",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "instances": (
        0,
        [
            "config.pbtxt:6:3: info triton/instances-on-every-gpu instance_group[1] has count 2, "
            "kind KIND_GPU and no gpus: Triton creates 2 instances on every GPU it sees (2 × the "
            "GPUs of the pod), each with its own copy of the model",
        ],
        "0 errors, 0 warnings, 1 info in 1 file",
    ),
    "json": (
        0,
        [
            "bert_trt.json:21:14: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
            "captured only for batch sizes 1, 8 (without graph_spec: 1, the preferred batch sizes"
            " and max_batch_size); batches of 2–7 run without a graph. With "
            "max_queue_delay_microseconds 0 the dynamic batcher sends whatever is queued at once,"
            " so at light load most batches are of those sizes. Sizes listed in "
            "preferred_batch_size are captured too; add graph_spec entries (a graph_lower_bound "
            "lets one graph serve a range) for the others",
            "graph_spec_strings.json:10:7: warning triton/cuda-graphs-batch-sizes-without-graph "
            "graph_spec captures CUDA graphs for batch sizes 1, 4 and, with no graph_lower_bound,"
            " a batch uses one only on an exact size match; dynamic batches of 2–3 run without a "
            "graph (the batcher sends such a batch when its 100 µs queue delay runs out)",
        ],
        "0 errors, 2 warnings, 0 info in 3 files",
    ),
    "negative_max": (
        1,
        [
            "config.pbtxt:3:1: error triton/max-batch-size-negative max_batch_size is -1: Triton "
            "refuses to load the model ('max_batch_size' must be non-negative value for resnet)",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "not_triton": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "onnx_graphs": (
        0,
        [
            "config.pbtxt:6:10: warning triton/cuda-graphs-ignored optimization.cuda.graphs is "
            "only read by the TensorRT backend; this model uses onnxruntime, so no CUDA graph is "
            "captured (use the TensorRT execution provider parameter trt_cuda_graph_enable "
            "instead)",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "onnx_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "preferred_bad": (
        1,
        [
            "config.pbtxt:5:3: error triton/preferred-batch-size-above-max preferred_batch_size "
            "[0, 4, 16] exceeds max_batch_size 8: Triton refuses to load the model (dynamic "
            "batching preferred size must be <= max batch size for classifier)",
            "config.pbtxt:5:3: error triton/preferred-batch-size-not-positive "
            "preferred_batch_size [0, 4, 16] has a size <= 0: Triton refuses to load the model "
            "(dynamic batching preferred size must be positive for classifier)",
        ],
        "2 errors, 0 warnings, 0 info in 1 file",
    ),
    "priority_default": (
        1,
        [
            "config.pbtxt:4:1: error triton/priority-level-out-of-range default_priority_level is"
            " 0 (unset), outside [1, 2]: Triton refuses to load the model",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "priority_policy": (
        1,
        [
            "config.pbtxt:7:3: error triton/priority-level-out-of-range priority_queue_policy has"
            " a level outside [1, 2] (levels: 3): Triton refuses to load the model",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "python_batcher": (
        0,
        [
            "config.pbtxt:3:1: warning triton/dynamic-batching-without-batching dynamic_batching "
            "is set but max_batch_size is 0, so every batch holds a single request and the "
            "batcher only queues; set max_batch_size to the largest batch the model accepts, or "
            "remove dynamic_batching",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trt_graph_spec": (
        0,
        [
            "config.pbtxt:8:5: warning triton/cuda-graphs-batch-sizes-without-graph graph_spec "
            "captures CUDA graphs for batch sizes 4, 8 and, with no graph_lower_bound, a batch "
            "uses one only on an exact size match; dynamic batches of 1–3, 5–7 run without a "
            "graph (with max_queue_delay_microseconds 0 the batcher sends whatever is queued at "
            "once)",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trt_graphs_default": (
        0,
        [
            "config.pbtxt:7:5: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
            "captured only for batch sizes 1, 8 (without graph_spec: 1, the preferred batch sizes"
            " and max_batch_size; preferred_batch_size is not set, so Triton uses [8]); batches "
            "of 2–7 run without a graph. With max_queue_delay_microseconds 0 the dynamic batcher "
            "sends whatever is queued at once, so at light load most batches are of those sizes. "
            "Sizes listed in preferred_batch_size are captured too; add graph_spec entries (a "
            "graph_lower_bound lets one graph serve a range) for the others",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trt_graphs_no_batcher": (
        0,
        [
            "config.pbtxt:4:23: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
            "captured only for batch sizes 1, 32 (no scheduler is configured, so auto-complete, "
            "on by default, turns on dynamic batching for this engine and only 1 and "
            "max_batch_size get a graph; with auto-complete off: 1, 2, 3, 4, 6, 8, 12, 16, 32); "
            "batches of 2–31 run without a graph. Sizes listed in preferred_batch_size are "
            "captured too; add graph_spec entries (a graph_lower_bound lets one graph serve a "
            "range) for the others",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trt_graphs_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "trt_graphs_preferred": (
        0,
        [
            "config.pbtxt:8:23: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
            "captured only for batch sizes 1, 4, 8, 16 (without graph_spec: 1, the preferred "
            "batch sizes and max_batch_size); batches of 2–3, 5–7, 9–15 run without a graph. The "
            "dynamic batcher waits up to 200 µs for a preferred or full batch, then sends the "
            "batch as it is, often one of those sizes. Sizes listed in preferred_batch_size are "
            "captured too; add graph_spec entries (a graph_lower_bound lets one graph serve a "
            "range) for the others",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trtllm_filled": (
        1,
        [
            "config.pbtxt:19:12: error tensorrt-llm/gpt-model-type-invalid gpt_model_type is the "
            "unfilled template placeholder ${batching_strategy}: the tensorrtllm backend fails to"
            " create the model instance (Invalid gpt_model_type. Must be "
            "v1/inflight_batching/inflight_fused_batching.); run fill_template.py with "
            "batching_strategy:inflight_fused_batching",
            "config.pbtxt:27:12: warning tensorrt-llm/kv-cache-fraction-out-of-range "
            "kv_cache_free_gpu_mem_fraction is '1.5', outside (0, 1]: it is the fraction of the "
            "GPU memory left free after the engine loads that the KV cache may take (not a "
            "fraction of total memory, unlike vLLM's gpu_memory_utilization)",
            "config.pbtxt:31:12: warning tensorrt-llm/unfilled-parameters 2 parameters still hold"
            " an unfilled ${...} placeholder (batch_scheduler_policy, lookahead_ngram_size): the "
            'backend cannot parse them, logs "... is not specified, will use default value" and '
            "runs with its defaults; fill them with fill_template.py or delete the entries",
            "config.pbtxt:35:12: warning tensorrt-llm/lookahead-without-parameters decoding_mode "
            "is lookahead but lookahead_ngram_size, lookahead_verification_set_size missing or "
            "not an unsigned integer: from tensorrtllm_backend v0.19.0 the model fails to load "
            "(Decoding mode is set to lookahead but lookahead parameters are not specified.)",
            "config.pbtxt:45:1: info tensorrt-llm/worker-path-ignored worker_path is no longer "
            "read and is silently ignored: the backend uses executor_worker_path, and only in "
            "orchestrator mode (TRTLLM_ORCHESTRATOR=1)",
        ],
        "1 error, 3 warnings, 1 info in 1 file",
    ),
    "trtllm_ok": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
    "trtllm_kind_gpu": (
        0,
        [
            "config.pbtxt:7:3: warning tensorrt-llm/kind-gpu-instances-share-gpus "
            "instance_group[0] (KIND_GPU, gpus [0, 1], count 1) makes Triton create 2 instances "
            "of tensorrt_llm, but the TensorRT-LLM backend ignores the GPU Triton assigns to an "
            "instance: with no gpu_device_ids every instance runs the engine on the same GPUs: "
            "copies of the engine share those GPUs (the second sizes its KV cache from what the "
            "first left, and may not load) while other GPUs stay idle; use kind KIND_CPU with "
            "count 1, or one gpu_device_ids set per instance",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trtllm_python": (
        0,
        [
            "config.pbtxt:6:46: warning tensorrt-llm/unfilled-parameters 1 parameter still holds "
            "an unfilled ${...} placeholder (gpt_model_type): the backend cannot parse it, logs "
            '"... is not specified, will use default value" and runs with its defaults; fill it '
            "with fill_template.py or delete the entry",
        ],
        "0 errors, 1 warning, 0 info in 1 file",
    ),
    "trtllm_python_bad": (
        1,
        [
            "config.pbtxt:5:46: error tensorrt-llm/gpt-model-type-invalid gpt_model_type 'static'"
            " is not one of v1, inflight_batching, inflight_fused_batching: the model fails to "
            "load (Invalid gpt_model_type)",
        ],
        "1 error, 0 warnings, 0 info in 1 file",
    ),
    "trtllm_template": (
        1,
        [
            "config.pbtxt:3:1: error triton/unfilled-backend backend is the unfilled placeholder "
            "${triton_backend}: Triton finds no backend by that name and the model does not load;"
            " run fill_template.py (triton_backend:tensorrtllm or python) or write the backend",
            "config.pbtxt:4:17: error syntax unfilled template placeholder "
            "${triton_max_batch_size} in max_batch_size, where Triton expects a number: Triton "
            "cannot read the file (failed to read text proto) and the model does not load; fill "
            "it with TensorRT-LLM's tools/fill_template.py (triton_max_batch_size:<value>) or "
            "write the value",
            "config.pbtxt:7:14: error syntax unfilled template placeholder ${decoupled_mode} in "
            "model_transaction_policy.decoupled, where Triton expects true or false: Triton "
            "cannot read the file (failed to read text proto) and the model does not load; fill "
            "it with TensorRT-LLM's tools/fill_template.py (decoupled_mode:<value>) or write the "
            "value",
            "config.pbtxt:11:29: error syntax unfilled template placeholder "
            "${triton_max_batch_size} in dynamic_batching.preferred_batch_size[0], where Triton "
            "expects a number: Triton cannot read the file (failed to read text proto) and the "
            "model does not load; fill it with TensorRT-LLM's tools/fill_template.py "
            "(triton_max_batch_size:<value>) or write the value",
            "config.pbtxt:12:35: error syntax unfilled template placeholder "
            "${max_queue_delay_microseconds} in dynamic_batching.max_queue_delay_microseconds, "
            "where Triton expects a number: Triton cannot read the file (failed to read text "
            "proto) and the model does not load; fill it with TensorRT-LLM's "
            "tools/fill_template.py (max_queue_delay_microseconds:<value>) or write the value",
            "config.pbtxt:13:45: error syntax unfilled template placeholder ${max_queue_size} in "
            "dynamic_batching.default_queue_policy.max_queue_size, where Triton expects a number:"
            " Triton cannot read the file (failed to read text proto) and the model does not "
            "load; fill it with TensorRT-LLM's tools/fill_template.py (max_queue_size:<value>) or"
            " write the value",
            "config.pbtxt:25:16: error syntax unfilled template placeholder ${logits_datatype} in"
            " input[1].data_type, where Triton expects a DataType name such as TYPE_BOOL: Triton "
            "cannot read the file (failed to read text proto) and the model does not load; fill "
            "it with TensorRT-LLM's tools/fill_template.py (logits_datatype:<value>) or write the"
            " value",
            "config.pbtxt:46:5: warning tensorrt-llm/unfilled-parameters 4 parameters still hold "
            "an unfilled ${...} placeholder (max_beam_width, gpt_model_type, gpt_model_path, "
            'kv_cache_free_gpu_mem_fraction): the backend cannot parse them, logs "... is not '
            'specified, will use default value" and runs with its defaults; fill them with '
            "fill_template.py or delete the entries",
        ],
        "7 errors, 1 warning, 0 info in 1 file",
    ),
    "vllm_model": (0, [], "0 errors, 0 warnings, 0 info in 1 file"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fixture_findings(run_line: RunLine, case: str) -> None:
    code, findings, summary = CASES[case]
    result = run_line(["lint", *POLICIES, str(FIXTURES / case)])
    prefix = f"{FIXTURES / case}/"
    assert [line.removeprefix(prefix) for line in report_lines(result.output)] == [
        *findings,
        summary,
    ]
    assert result.exit_code == code


def test_every_rule_fires_somewhere_and_every_policy_has_a_clean_fixture() -> None:
    fired = {line.split(" ")[2] for _, findings, _ in CASES.values() for line in findings}
    rules = {f"{policy}/{rule}" for policy, rule in _policy_rules()}
    assert rules - fired == set()
    assert {case for case, (_, findings, _) in CASES.items() if not findings} == {
        "not_triton",
        "onnx_ok",
        "trt_graphs_ok",
        "trtllm_ok",
        "vllm_model",
    }


def test_rules_cite_sources_and_explain_themselves() -> None:
    for policy, rule, data in _policy_rules(with_data=True):
        assert data["references"], f"{policy}/{rule}"
        assert data["title"] and data["description"] and data["fix"], f"{policy}/{rule}"
        assert re.search(r"\b[A-Z]{2,6}-[0-9]{3}\b", data["description"]) is None, rule
        assert all(ref.startswith("https://") for ref in data["references"]), rule


def test_bad_pbtxt_does_not_stop_the_other_inputs(run_line: RunLine) -> None:
    result = run_line(
        ["lint", *POLICIES, str(FIXTURES / "bad_syntax"), str(FIXTURES / "negative_max")]
    )
    assert result.exit_code == 1
    assert report_lines(result.output) == [
        f"{FIXTURES}/bad_syntax/config.pbtxt:6:3: error syntax invalid Triton model "
        'configuration: Message type "inference.ModelDynamicBatching" has no field named '
        '"max_queue_delay_micros".',
        f"{FIXTURES}/negative_max/config.pbtxt:3:1: error triton/max-batch-size-negative "
        "max_batch_size is -1: Triton refuses to load the model ('max_batch_size' must be "
        "non-negative value for resnet)",
        "2 errors, 0 warnings, 0 info in 2 files",
    ]


def test_config_pbtxt_on_stdin_is_recognised_by_content(run_line: RunLine) -> None:
    text = (FIXTURES / "trt_graphs_default" / "config.pbtxt").read_text()
    result = run_line(["lint", *POLICIES, "-"], input=text)
    assert report_lines(result.output)[0].startswith(
        "<stdin>:7:5: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
        "captured only for batch sizes 1, 8 "
    )
    assert result.exit_code == 0


def test_json_findings_carry_the_config_path(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, "--format", "json", str(FIXTURES / "trtllm_filled")])
    paths = [(f["rule"], f["line"], f["path"]) for f in json.loads(result.output)["findings"]]
    assert paths == [
        ("tensorrt-llm/gpt-model-type-invalid", 19, "parameters.gpt_model_type.string_value"),
        (
            "tensorrt-llm/kv-cache-fraction-out-of-range",
            27,
            "parameters.kv_cache_free_gpu_mem_fraction.string_value",
        ),
        ("tensorrt-llm/unfilled-parameters", 31, "parameters.batch_scheduler_policy.string_value"),
        ("tensorrt-llm/lookahead-without-parameters", 35, "parameters.decoding_mode.string_value"),
        ("tensorrt-llm/worker-path-ignored", 45, "parameters.worker_path"),
    ]


def _policy_rules(with_data: bool = False) -> list[Any]:
    import yaml

    rules: list[Any] = []
    for name in ("triton", "tensorrt-llm"):
        policy = yaml.safe_load((ROOT / "policies" / f"{name}.yaml").read_text())
        rules.extend(
            (name, rule["id"], rule) if with_data else (name, rule["id"])
            for rule in policy["spec"]["rules"]
        )
    return rules


def test_malformed_json_form_is_read_without_crashing(run_line: RunLine, tmp_path: Path) -> None:
    model = tmp_path / "model.json"
    model.write_text(
        '{"name": null, "platform": "tensorrt_plan", "max_batch_size": 8, "parameters": 1.5,\n'
        ' "instance_group": 3, "dynamic_batching": {"max_queue_delay_microseconds": "soon"},\n'
        ' "optimization": {"cuda": {"graphs": true, "graph_spec": 7}}}\n'
    )
    result = run_line(["lint", *POLICIES, str(model)])
    assert report_lines(result.output) == [
        f"{model}:3:28: warning triton/cuda-graphs-default-batch-sizes CUDA graphs are "
        "captured only for batch sizes 1, 8 (without graph_spec: 1, the preferred batch sizes "
        "and max_batch_size; preferred_batch_size is not set, so Triton uses [8]); batches of "
        "2–7 run without a graph. Sizes listed in preferred_batch_size are captured too; add "
        "graph_spec entries (a graph_lower_bound lets one graph serve a range) for the others",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
    assert result.exit_code == 0


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        (
            "",
            "the parameter gpt_model_type is not set: the tensorrtllm backend fails to create the "
            "model instance (Cannot find parameter with name: gpt_model_type)",
        ),
        (
            'parameters: { key: "gpt_model_type" value: { string_value: "Inflight_Batching" } }\n',
            "gpt_model_type 'Inflight_Batching' is not one of V1, v1, inflight_batching, "
            "inflight_fused_batching (case-sensitive): the model fails to load (Invalid "
            "gpt_model_type)",
        ),
    ],
    ids=["missing", "wrong-case"],
)
def test_gpt_model_type_on_the_cpp_backend(
    run_line: RunLine, tmp_path: Path, parameters: str, message: str
) -> None:
    config = tmp_path / "tensorrt_llm" / "config.pbtxt"
    config.parent.mkdir()
    config.write_text(
        'backend: "tensorrtllm"\nmax_batch_size: 8\n'
        'parameters: { key: "gpt_model_path" value: { string_value: "/e" } }\n' + parameters
    )
    result = run_line(["lint", *POLICIES, str(config)])
    line = "4:46" if parameters else "3:1"  # the value, else the parameters block
    assert report_lines(result.output) == [
        f"{config}:{line}: error tensorrt-llm/gpt-model-type-invalid {message}",
        "1 error, 0 warnings, 0 info in 1 file",
    ]


def test_cuda_graph_spec_on_vllm_is_ignored(run_line: RunLine, tmp_path: Path) -> None:
    config = tmp_path / "llama" / "config.pbtxt"
    config.parent.mkdir()
    config.write_text(
        'backend: "vllm"\noptimization { cuda { graph_spec [ { batch_size: 4 } ] } }\n'
    )
    result = run_line(["lint", *POLICIES, str(config)])
    assert report_lines(result.output) == [
        f"{config}:2:23: warning triton/cuda-graphs-ignored optimization.cuda.graph_spec is only "
        "read by the TensorRT backend; this model uses vllm, so no CUDA graph is captured (vLLM "
        "captures its own graphs unless enforce_eager is set in model.json)",
        "0 errors, 1 warning, 0 info in 1 file",
    ]
