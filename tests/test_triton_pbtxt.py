"""config.pbtxt parsing: data in Triton's JSON form, positions, placeholders, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.evaluate.parsers import format_for, parse
from linter.parsing.documents import Document
from linter.positions import Span
from linter.triton import descriptor, fields
from linter.triton.detect import is_model_config_json, looks_like_pbtxt
from linter.triton.pbtxt import parse_pbtxt

FIXTURES = Path(__file__).parent / "fixtures" / "triton"


def _document(text: str, name: str = "config.pbtxt") -> Document:
    parsed = parse_pbtxt(name, text)
    assert parsed.problems == []
    (document,) = parsed.documents
    return document


def test_data_is_the_json_form_in_file_order() -> None:
    document = _document((FIXTURES / "trt_graphs_ok" / "config.pbtxt").read_text())
    assert document.fmt == "pbtxt"
    assert document.data == {
        "name": "bert_trt",
        "platform": "tensorrt_plan",
        "max_batch_size": 8,
        "dynamic_batching": {"preferred_batch_size": [4, 8], "max_queue_delay_microseconds": 100},
        "optimization": {
            "cuda": {
                "graphs": True,
                "graph_spec": [
                    {
                        "batch_size": 4,
                        "input": {"input_ids": {"dim": ["128"]}},
                        "graph_lower_bound": {
                            "batch_size": 1,
                            "input": {"input_ids": {"dim": ["1"]}},
                        },
                    },
                    {
                        "batch_size": 8,
                        "input": {"input_ids": {"dim": ["128"]}},
                        "graph_lower_bound": {
                            "batch_size": 5,
                            "input": {"input_ids": {"dim": ["1"]}},
                        },
                    },
                ],
            }
        },
        "instance_group": [{"count": 1, "kind": "KIND_GPU", "gpus": [0]}],
    }
    assert list(document.data) == [
        "name",
        "platform",
        "max_batch_size",
        "dynamic_batching",
        "optimization",
        "instance_group",
    ]


def test_every_field_has_its_line_and_column() -> None:
    document = _document((FIXTURES / "trt_graphs_ok" / "config.pbtxt").read_text())
    expected = {
        (): Span(2, 1),
        ("name",): Span(2, 1),
        ("max_batch_size",): Span(4, 1),
        ("dynamic_batching",): Span(5, 1),
        ("dynamic_batching", "preferred_batch_size"): Span(6, 3),
        ("dynamic_batching", "preferred_batch_size", 1): Span(6, 30),
        ("dynamic_batching", "max_queue_delay_microseconds"): Span(7, 3),
        ("optimization", "cuda", "graphs"): Span(11, 5),
        ("optimization", "cuda", "graph_spec", 0): Span(13, 7),
        ("optimization", "cuda", "graph_spec", 0, "input", "input_ids"): Span(15, 9),
        ("optimization", "cuda", "graph_spec", 0, "input", "input_ids", "dim", 0): Span(15, 49),
        ("optimization", "cuda", "graph_spec", 1, "graph_lower_bound", "batch_size"): Span(25, 11),
        ("instance_group", 0, "gpus", 0): Span(32, 54),
    }
    assert {path: document.line_map.get(path) for path in expected} == expected


def test_64_bit_fields_follow_triton() -> None:
    document = _document(
        'name: "m"\nmax_batch_size: 4\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 16 ] reshape { shape: [ 16 ] } } ]\n'
        "version_policy { specific { versions: [ 1, 3 ] } }\n"
        "dynamic_batching { max_queue_delay_microseconds: 100 priority_levels: 2\n"
        "  default_priority_level: 1 default_queue_policy { default_timeout_microseconds: 5 }\n"
        "  priority_queue_policy { key: 2 value { default_timeout_microseconds: 7 } } }\n"
        "instance_group [ { secondary_devices [ { kind: KIND_NVDLA device_id: 1 } ] } ]\n"
    )
    data = document.data
    assert data["input"][0]["dims"] == [-1, 16]
    assert data["input"][0]["reshape"] == {"shape": [16]}
    assert data["version_policy"] == {"specific": {"versions": [1, 3]}}
    assert data["dynamic_batching"] == {
        "max_queue_delay_microseconds": 100,
        "priority_levels": 2,
        "default_priority_level": 1,
        "default_queue_policy": {"default_timeout_microseconds": 5},
        "priority_queue_policy": {"2": {"default_timeout_microseconds": 7}},
    }
    # KIND_NVDLA is the enum's zero value, which the JSON form leaves out unless printed.
    assert data["instance_group"][0]["secondary_devices"] == [{"device_id": "1"}]
    # dynamic_batching and sequence_batching are a oneof: a second document for the latter.
    sequence = _document(
        "sequence_batching { max_sequence_idle_microseconds: 9\n"
        "  oldest { max_queue_delay_microseconds: 3 }\n"
        '  state [ { input_name: "i" output_name: "o" data_type: TYPE_FP32 dims: [ 2 ]\n'
        '    initial_state [ { name: "z" data_type: TYPE_FP32 dims: [ 2 ] zero_data: true } ]'
        " } ] }\n"
    ).data["sequence_batching"]
    assert (
        sequence["max_sequence_idle_microseconds"],
        sequence["oldest"],
        sequence["state"][0]["dims"],
        sequence["state"][0]["initial_state"][0]["dims"],
    ) == (9, {"max_queue_delay_microseconds": 3}, [2], ["2"])


def test_map_entries_are_keyed_by_their_key_wherever_it_is_written() -> None:
    document = _document(
        'name: "m"\nparameters { value { string_value: "a" "b" } key: "k.1" }\n'
        'parameters: { key: "x", value: { string_value: "y" } };\n'
        'ensemble_scheduling { step [ { model_name: "a" model_version: -1\n'
        '  input_map { key: "in" value: "x" } } ] }\n'
    )
    assert document.data["parameters"] == {
        "k.1": {"string_value": "ab"},
        "x": {"string_value": "y"},
    }
    assert document.data["ensemble_scheduling"]["step"][0]["model_version"] == -1
    assert document.line_map[("parameters", "k.1", "string_value")] == Span(2, 22)
    assert document.line_map[("parameters", "x")] == Span(3, 1)
    assert document.line_map[("ensemble_scheduling", "step", 0, "input_map", "in")] == Span(5, 3)
    assert not any(isinstance(p, str) and "\0" in p for path in document.line_map for p in path)


def test_syntax_error_has_line_and_column_and_no_document() -> None:
    parsed = parse_pbtxt("m/config.pbtxt", 'name: "m"\nmax_batch_size: 8 8\n')
    assert parsed.documents == []
    assert [
        (f.rule_id, f.severity.label, f.line, f.column, f.message) for f in parsed.problems
    ] == [
        (
            "syntax",
            "error",
            2,
            19,
            "invalid Triton model configuration: Message type "
            '"inference.ModelConfig" has no field named "8".',
        )
    ]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('name: "m"\ninput [ { name: "x" }\n', 3, 1, 'unexpected end of file: Expected ",".'),
        (
            "max_batch_size: 1\nmax_batch_size: 2\n",
            2,
            17,
            'Message type "inference.ModelConfig" should not have multiple "max_batch_size" fields.',
        ),
        (
            "instance_group [ { kind: KIND_TPU } ]\n",
            1,
            26,
            'Enum type "inference.ModelInstanceGroup.Kind" has no value named KIND_TPU.',
        ),
    ],
    ids=["eof", "duplicate", "enum"],
)
def test_syntax_errors(text: str, line: int, column: int, message: str) -> None:
    (problem,) = parse_pbtxt("config.pbtxt", text).problems
    assert (problem.line, problem.column, problem.message) == (
        line,
        column,
        f"invalid Triton model configuration: {message}",
    )


def test_placeholder_in_a_number_field_is_named_and_the_rest_still_parses() -> None:
    text = (FIXTURES / "trtllm_template" / "config.pbtxt").read_text()
    parsed = parse_pbtxt("config.pbtxt", text)
    assert [(f.rule_id, f.line, f.column, f.path) for f in parsed.problems] == [
        ("syntax", 4, 17, "max_batch_size"),
        ("syntax", 7, 14, "model_transaction_policy.decoupled"),
        ("syntax", 11, 29, "dynamic_batching.preferred_batch_size[0]"),
        ("syntax", 12, 35, "dynamic_batching.max_queue_delay_microseconds"),
        ("syntax", 13, 45, "dynamic_batching.default_queue_policy.max_queue_size"),
        ("syntax", 25, 16, "input[1].data_type"),
    ]
    assert parsed.problems[0].message == (
        "unfilled template placeholder ${triton_max_batch_size} in max_batch_size, where "
        "Triton expects a number: Triton cannot read the file (failed to read text proto) "
        "and the model does not load; fill it with TensorRT-LLM's tools/fill_template.py "
        "(triton_max_batch_size:<value>) or write the value"
    )
    data = parsed.documents[0].data
    assert (
        data["max_batch_size"],
        data["dynamic_batching"],
        data["input"][1]["data_type"],
        data["model_transaction_policy"],
    ) == (
        "${triton_max_batch_size}",
        {
            "preferred_batch_size": ["${triton_max_batch_size}"],
            "max_queue_delay_microseconds": "${max_queue_delay_microseconds}",
            "default_queue_policy": {"max_queue_size": "${max_queue_size}"},
        },
        "${logits_datatype}",
        {"decoupled": "${decoupled_mode}"},
    )


def test_other_pbtxt_files_are_not_taken_for_model_configs() -> None:
    text = (FIXTURES / "not_triton" / "saved_model.pbtxt").read_text()
    parsed = parse("model/1/saved_model.pbtxt", text)
    assert (parsed.documents, parsed.problems) == ([], [])


def test_empty_config_pbtxt_is_an_empty_configuration() -> None:
    assert _document("# auto-complete fills everything\n").data == {}


def test_stdin_recognition_by_content() -> None:
    triton = (FIXTURES / "onnx_ok" / "config.pbtxt").read_text()
    assert format_for("<stdin>", triton) == "pbtxt"
    assert format_for("<stdin>", "name: foo\nbackend: bar\n") == "yaml"
    assert format_for("<stdin>", "apiVersion: v1\nkind: Pod\nspec: {}\n") == "yaml"
    assert looks_like_pbtxt('backend: "vllm"\ninstance_group [{kind: KIND_MODEL}]\n')


def test_json_form_recognition() -> None:
    assert is_model_config_json({"name": "m", "max_batch_size": 0})
    assert is_model_config_json({"backend": "python", "instance_group": []})
    assert not is_model_config_json({"name": "m", "platform": "linux"})
    assert not is_model_config_json({"max_batch_size": 8, "replicas": 2})
    assert not is_model_config_json([{"max_batch_size": 8}])


def test_shipped_descriptor_matches_the_constants_and_tritons_64_bit_list() -> None:
    message = descriptor.model_config_descriptor()
    assert {f.name for f in message.fields} == fields.MODEL_CONFIG_FIELDS
    found: set[str] = set()

    def collect(desc: object, prefix: str, seen: frozenset[str]) -> None:
        for field in desc.fields:  # type: ignore[attr-defined]
            name = f"{prefix}::{field.name}"
            if field.type in (
                field.TYPE_INT64,
                field.TYPE_UINT64,
                field.TYPE_SINT64,
                field.TYPE_FIXED64,
                field.TYPE_SFIXED64,
            ):
                found.add(name)
            sub = field.message_type
            if sub is not None and sub.full_name not in seen:
                collect(sub, name, seen | {sub.full_name})

    collect(message, "ModelConfig", frozenset({message.full_name}))
    # The list Triton's ModelConfigToJson checks itself against (ValidateModelConfigInt64);
    # jsonform.normalize handles each of these.
    assert found == {
        "ModelConfig::input::dims",
        "ModelConfig::input::reshape::shape",
        "ModelConfig::output::dims",
        "ModelConfig::output::reshape::shape",
        "ModelConfig::version_policy::specific::versions",
        "ModelConfig::dynamic_batching::max_queue_delay_microseconds",
        "ModelConfig::dynamic_batching::default_queue_policy::default_timeout_microseconds",
        "ModelConfig::dynamic_batching::priority_queue_policy::value::default_timeout_microseconds",
        "ModelConfig::dynamic_batching::priority_levels",
        "ModelConfig::dynamic_batching::priority_queue_policy::key",
        "ModelConfig::dynamic_batching::default_priority_level",
        "ModelConfig::sequence_batching::direct::max_queue_delay_microseconds",
        "ModelConfig::sequence_batching::state::dims",
        "ModelConfig::sequence_batching::state::initial_state::dims",
        "ModelConfig::sequence_batching::oldest::max_queue_delay_microseconds",
        "ModelConfig::sequence_batching::max_sequence_idle_microseconds",
        "ModelConfig::ensemble_scheduling::step::model_version",
        "ModelConfig::model_warmup::inputs::value::dims",
        "ModelConfig::optimization::cuda::graph_spec::input::value::dim",
        "ModelConfig::optimization::cuda::graph_spec::graph_lower_bound::input::value::dim",
        "ModelConfig::instance_group::secondary_devices::device_id",
    }
