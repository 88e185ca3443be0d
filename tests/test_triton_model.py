"""TritonModelConfig workloads: derived facts, the CUDA graph sets, origins, JSON form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from linter.evaluate.parsers import parse
from linter.model.engine.settings import DEFAULT_SETTINGS
from linter.model.frontends.triton_models import extract_triton
from linter.model.records.workload import Workload
from linter.positions import Origin
from linter.triton.graphs import ranges_text

FIXTURES = Path(__file__).parent / "fixtures" / "triton"


def _workload(path: Path, text: str | None = None) -> Workload:
    parsed = parse(str(path), path.read_text() if text is None else text)
    (workload,) = extract_triton([parsed], DEFAULT_SETTINGS)
    return workload


def _model(case: str) -> dict[str, Any]:
    model: dict[str, Any] = (
        _workload(FIXTURES / case / "config.pbtxt").view().data["triton"]["models"][0]
    )
    return model


def test_workload_top_level() -> None:
    workload = _workload(FIXTURES / "trtllm_filled" / "config.pbtxt")
    data = workload.view().data
    assert {k: data[k] for k in ("id", "kind", "name", "source", "engine")} == {
        "id": f"file:{FIXTURES}/trtllm_filled/config.pbtxt",
        "kind": "TritonModelConfig",
        "name": "tensorrt_llm",
        "source": "triton-config",
        "engine": {"name": "trtllm"},
    }
    assert _workload(FIXTURES / "onnx_ok" / "config.pbtxt").view().data["engine"] == {
        "name": "triton"
    }


def test_name_falls_back_to_the_model_directory() -> None:
    assert _model("vllm_model")["derived"]["name"] == "vllm_model"


@pytest.mark.parametrize(
    ("case", "captured", "ungraphed", "basis"),
    [
        ("trt_graphs_default", [1, 8], [2, 3, 4, 5, 6, 7], "dynamic_batching"),
        (
            "trt_graphs_preferred",
            [1, 4, 8, 16],
            [2, 3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15],
            "dynamic_batching",
        ),
        ("trt_graphs_no_batcher", [1, 32], list(range(2, 32)), "no_batcher"),
        ("trt_graph_spec", [4, 8], [1, 2, 3, 5, 6, 7], "graph_spec"),
        ("trt_graphs_ok", [4, 8], [], "graph_spec"),
    ],
)
def test_cuda_graph_batch_sizes(
    case: str, captured: list[int], ungraphed: list[int], basis: str
) -> None:
    graphs = _model(case)["derived"]["cuda_graphs"]
    assert (
        graphs["captured_batch_sizes"],
        graphs["ungraphed_batch_sizes"],
        graphs["default_basis"],
    ) == (captured, ungraphed, basis)
    assert graphs["honoured"] and graphs["enabled"]


def test_no_batcher_set_without_auto_complete_is_recorded() -> None:
    graphs = _model("trt_graphs_no_batcher")["derived"]["cuda_graphs"]
    assert graphs["captured_text_without_auto_complete"] == "1, 2, 3, 4, 6, 8, 12, 16, 32"
    assert graphs["ungraphed_text"] == "2–31"


def test_lower_bounds_enable_inexact_matching() -> None:
    graphs = _model("trt_graphs_ok")["derived"]["cuda_graphs"]
    assert (graphs["inexact_matching"], graphs["graph_spec_errors"]) == (True, [])
    assert _model("trt_graph_spec")["derived"]["cuda_graphs"]["inexact_matching"] is False


def test_graph_spec_errors_are_the_backends_own() -> None:
    errors = _model("graph_spec_invalid")["derived"]["cuda_graphs"]["graph_spec_errors"]
    assert errors == [
        {
            "index": 0,
            "message": "graph spec expects 'batch_size' to be >= 1 and <= 8",
            "max_batch_size_zero": False,
            "path": "optimization.cuda.graph_spec[0]",
        },
        {
            "index": 1,
            "message": "graph lower bound spec expects shape for input 'input_ids'",
            "max_batch_size_zero": False,
            "path": "optimization.cuda.graph_spec[1]",
        },
        {
            "index": 2,
            "message": "graph lower bound spec expects input 'input_ids' to have dimension <= 64",
            "max_batch_size_zero": False,
            "path": "optimization.cuda.graph_spec[2]",
        },
    ]
    zero = _model("graph_spec_max_zero")["derived"]["cuda_graphs"]["graph_spec_errors"]
    assert [(e["index"], e["max_batch_size_zero"]) for e in zero] == [(0, True)]


def test_preferred_batch_size_is_normalised() -> None:
    assert _model("trt_graphs_default")["derived"]["preferred_batch_size"] == [8]
    assert _model("trt_graphs_default")["derived"]["preferred_batch_size_written"] == []
    assert _model("trt_graphs_preferred")["derived"]["preferred_batch_size"] == [4, 8]
    assert "preferred_batch_size" not in _model("trt_graphs_no_batcher")["derived"]


def test_backend_kinds() -> None:
    kinds = {
        case: _model(case)["derived"]["backend_kind"]
        for case in (
            "onnx_ok",
            "negative_max",
            "trt_graphs_default",
            "trt_graphs_preferred",
            "vllm_model",
            "python_batcher",
            "trtllm_filled",
            "trtllm_template",
        )
    }
    assert kinds == {
        "onnx_ok": "onnxruntime",
        "negative_max": "onnxruntime",
        "trt_graphs_default": "tensorrt",
        "trt_graphs_preferred": "tensorrt",
        "vllm_model": "vllm",
        "python_batcher": "python",
        "trtllm_filled": "tensorrtllm",
        "trtllm_template": "unknown",
    }


def test_template_values_are_unknown_not_guessed() -> None:
    derived = _model("trtllm_template")["derived"]
    assert "max_batch_size" not in derived and "decoupled" not in derived
    assert "preferred_batch_size" not in derived
    assert derived["unfilled_fields"] == [
        "backend",
        "dynamic_batching.default_queue_policy.max_queue_size",
        "dynamic_batching.max_queue_delay_microseconds",
        "dynamic_batching.preferred_batch_size[0]",
        "input[1].data_type",
        "max_batch_size",
        "model_transaction_policy.decoupled",
    ]
    assert derived["unfilled_parameters"] == [
        "max_beam_width",
        "gpt_model_type",
        "gpt_model_path",
        "kv_cache_free_gpu_mem_fraction",
    ]
    assert derived["trtllm"] is True


def test_written_zero_max_batch_size_is_remembered() -> None:
    assert _model("python_batcher")["derived"]["max_batch_size_written"] is True
    assert "max_batch_size" not in _model("python_batcher")  # proto3 JSON drops zeros
    assert _model("graph_spec_max_zero")["derived"]["max_batch_size_written"] is False


def test_origins_point_at_the_line_to_edit() -> None:
    source = f"{FIXTURES}/trtllm_filled/config.pbtxt"
    workload = _workload(FIXTURES / "trtllm_filled" / "config.pbtxt")
    model = ("triton", "models", 0)
    assert workload.view().locate((*model, "derived", "unfilled_parameters")) == Origin(
        source, 19, 12, 0, "parameters.gpt_model_type.string_value"
    )
    assert workload.view().locate((*model, "derived", "max_batch_size")) == Origin(
        source, 4, 1, 0, "max_batch_size"
    )
    assert workload.view().locate(
        (*model, "parameters", "gpt_model_type", "string_value")
    ) == Origin(source, 19, 12, 0, "parameters.gpt_model_type.string_value")
    graphs = _workload(FIXTURES / "trt_graphs_default" / "config.pbtxt")
    assert graphs.view().locate(
        (*model, "derived", "cuda_graphs", "ungraphed_batch_sizes")
    ) == Origin(f"{FIXTURES}/trt_graphs_default/config.pbtxt", 7, 5, 0, "optimization.cuda.graphs")


def test_json_form_reads_like_the_pbtxt(tmp_path: Path) -> None:
    pbtxt = tmp_path / "bert_trt" / "config.pbtxt"
    pbtxt.parent.mkdir()
    pbtxt.write_text(
        'name: "bert_trt"\nplatform: "tensorrt_plan"\nmax_batch_size: 4\n'
        'input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ 128 ] } ]\n'
        "dynamic_batching { max_queue_delay_microseconds: 100 }\n"
        "optimization { cuda { graphs: true graph_spec [\n"
        '  { batch_size: 1 input { key: "input_ids" value { dim: [ 128 ] } } },\n'
        '  { batch_size: 4 input { key: "input_ids" value { dim: [ 128 ] } } } ] } }\n'
        "instance_group [ { kind: KIND_GPU count: 1 gpus: [ 0 ]\n"
        "  secondary_devices [ { kind: KIND_NVDLA device_id: 1 } ] } ]\n"
    )
    from_pbtxt = _workload(pbtxt).view().data["triton"]["models"][0]
    from_json = (
        _workload(FIXTURES / "json" / "graph_spec_strings.json").view().data["triton"]["models"][0]
    )
    # The JSON file writes every 64-bit value the other way round from Triton's choice.
    assert from_json["input"][0]["dims"] == [128]
    assert from_json["dynamic_batching"]["max_queue_delay_microseconds"] == 100
    assert from_json["optimization"]["cuda"]["graph_spec"][0]["input"]["input_ids"] == {
        "dim": ["128"]
    }
    assert from_json["instance_group"][0]["secondary_devices"] == [
        {"kind": "KIND_NVDLA", "device_id": "1"}
    ]
    from_json["instance_group"][0]["secondary_devices"][0].pop("kind")  # printed zero value
    assert from_json == from_pbtxt


def test_json_that_is_not_a_model_config_is_left_alone() -> None:
    parsed = parse(
        str(FIXTURES / "json" / "not_a_model_config.json"),
        (FIXTURES / "json" / "not_a_model_config.json").read_text(),
    )
    assert extract_triton([parsed], DEFAULT_SETTINGS) == []


def test_the_document_itself_is_not_modified() -> None:
    path = FIXTURES / "json" / "graph_spec_strings.json"
    parsed = parse(str(path), path.read_text())
    extract_triton([parsed], DEFAULT_SETTINGS)
    assert parsed.documents[0].data["input"][0]["dims"] == ["128"]


@pytest.mark.parametrize(
    ("values", "text"),
    [([], ""), ([3], "3"), ([2, 3, 4, 7], "2–4, 7"), ([1, 3, 5, 6], "1, 3, 5–6")],
)
def test_ranges_text(values: list[int], text: str) -> None:
    assert ranges_text(values) == text


def test_sequence_batcher_preferred_sizes_choose_the_graphs(tmp_path: Path) -> None:
    config = tmp_path / "seq" / "config.pbtxt"
    config.parent.mkdir()
    config.write_text(
        'platform: "tensorrt_plan"\nmax_batch_size: 8\n'
        "sequence_batching { oldest { preferred_batch_size: [ 4 ] } }\n"
        "optimization { cuda { graphs: true } }\n"
    )
    graphs = _workload(config).view().data["triton"]["models"][0]["derived"]["cuda_graphs"]
    assert (graphs["default_basis"], graphs["captured_batch_sizes"], graphs["ungraphed_text"]) == (
        "sequence_batching",
        [1, 4, 8],
        "2–3, 5–7",
    )


@pytest.mark.parametrize(
    ("text", "groups", "sets"),
    [
        (
            "instance_group [ { count: 2, kind: KIND_GPU, gpus: [ 0, 1, 1 ] } ]",
            [
                {
                    "index": 0,
                    "kind": "KIND_GPU",
                    "gpus_listed": True,
                    "count": 2,
                    "gpus": [0, 1, 1],
                    "gpus_at_least": 2,
                }
            ],
            None,
        ),
        (
            "instance_group [ { kind: KIND_GPU } ]\n"
            'parameters: { key: "gpu_device_ids" value: { string_value: "0,1;2,3" } }',
            [
                {
                    "index": 0,
                    "kind": "KIND_GPU",
                    "gpus_listed": False,
                    "count": 1,
                    "gpus_at_least": 4,
                }
            ],
            [[0, 1], [2, 3]],
        ),
        (
            "instance_group [ { kind: KIND_GPU } ]\n"
            'parameters: { key: "gpu_device_ids" value: { string_value: "${gpu_device_ids}" } }',
            [
                {
                    "index": 0,
                    "kind": "KIND_GPU",
                    "gpus_listed": False,
                    "count": 1,
                    "gpus_at_least": 1,
                }
            ],
            None,
        ),
        (
            "instance_group [ { count: 1, kind: KIND_CPU } ]\n"
            'parameters: { key: "gpu_device_ids" value: { string_value: "0,,1" } }',
            [{"index": 0, "kind": "KIND_CPU", "gpus_listed": False, "count": 1}],
            None,
        ),
    ],
    ids=["listed", "every-gpu-with-sets", "placeholder-sets", "unreadable-sets"],
)
def test_instance_gpus_and_device_id_sets(
    tmp_path: Path, text: str, groups: list[dict[str, Any]], sets: list[list[int]] | None
) -> None:
    path = tmp_path / "tensorrt_llm" / "config.pbtxt"
    path.parent.mkdir()
    path.write_text(f'backend: "tensorrtllm"\n{text}\n')
    derived = _workload(path).view().data["triton"]["models"][0]["derived"]
    assert derived["instance_groups"] == groups
    assert derived.get("gpu_device_id_sets") == sets
