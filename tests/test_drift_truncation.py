"""Captures cut before their end (pasted into an issue or a chat, or cut by a size limit):
every parser reads the complete fields before the cut, says "truncated after <field>",
and compares what it read, with the exit codes of a complete capture (issue 30, item 5)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.drift.live import literal, read_capture
from linter.drift.live.vllm import engine_fields

DRIFT = Path(__file__).parent / "fixtures" / "drift"
Run = Callable[..., Result]

CASES = [
    (
        "logs/sglang-values.yaml",
        "sglang-0.5-server-args-cut.log",
        "SGLang: server_args (truncated after max_running_requests)",
        "chunked_prefill_size, enable_metrics, served_model_name, tp_size",
    ),
    (
        "logs/vllm-0.7-values.yaml",
        "vllm-0.7.3-namespace-cut.log",
        "vLLM 0.7.3: args Namespace (truncated after cpu_offload_gb), V0 engine config",
        "disable_log_requests, gpu_memory_utilization",
    ),
    (
        "logs/vllm-values.yaml",
        "vllm-0.11-non-default-args-cut.log",
        "vLLM 0.11.0: non-default args (truncated after data_parallel_size), scheduler "
        "defaults, V1 engine config",
        "gpu_memory_utilization, max_num_seqs",
    ),
    (
        "captures/vllm-0.8.3-dp-deployment.yaml",
        "vllm-0.8.3-engine-line-cut.log",
        "vLLM 0.8.3: V1 engine config (truncated after quantization)",
        "data_parallel_size, enable_prefix_caching, served_model_name",
    ),
    (
        "logs/tgi-values.yaml",
        "tgi-2.3-args-cut.log",
        "TGI: launcher Args (truncated after speculate), launcher defaults",
        "max_concurrent_requests, max_input_tokens, max_total_tokens",
    ),
]
IDS = ["sglang-server-args", "vllm-namespace", "vllm-non-default-args", "vllm-engine", "tgi-args"]


@pytest.fixture(autouse=True)
def _in_drift(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DRIFT)


@pytest.mark.parametrize(("committed", "capture", "read", "unreported"), CASES, ids=IDS)
def test_a_cut_capture_is_read_up_to_the_cut_and_in_sync(
    run_line: Run, committed: str, capture: str, read: str, unreported: str
) -> None:
    live = f"captures/{capture}"
    result = run_line(["drift", "-f", committed, "--live", live])
    assert result.exit_code == 0, result.output
    server = read.split(" ", 1)[0].split(":")[0].lower()
    assert result.output == (
        f"{live}: in sync ({server} defaults applied; read: {read})\n"
        f"  not reported by this source (not compared): {unreported}\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


@pytest.mark.parametrize(
    ("committed", "capture", "planted", "expected"),
    [
        (
            "logs/sglang-values.yaml",
            "sglang-0.5-server-args-cut.log",
            ["--set", "sglang.serverArgs.memFractionStatic=0.9"],
            [("drift/changed", "mem_fraction_static", 0.9, 0.85, "<--set>", 1)],
        ),
        (
            "logs/vllm-0.7-values.yaml",
            "vllm-0.7.3-namespace-cut.log",
            ["--set", "vllm.engineArgs.parallel.tensorParallelSize=4"],
            [("drift/changed", "tensor_parallel_size", 4, 2, "<--set>", 1)],
        ),
        (
            "logs/vllm-values.yaml",
            "vllm-0.11-non-default-args-cut.log",
            ["--set", "vllm.engineArgs.model.maxModelLen=4096"],
            [("drift/changed", "max_model_len", 4096, 8192, "<--set>", 1)],
        ),
        (
            "logs/tgi-values.yaml",
            "tgi-2.3-args-cut.log",
            ["--set", "tgi.launcher.quantize=awq"],
            [("drift/changed", "quantize", "awq", "eetq", "<--set>", 1)],
        ),
    ],
    ids=["sglang-server-args", "vllm-namespace", "vllm-non-default-args", "tgi-args"],
)
def test_a_difference_before_the_cut_is_drift(
    run_line: Run, committed: str, capture: str, planted: list[str], expected: list[object]
) -> None:
    result = run_line(
        ["drift", "-f", committed, "--live", f"captures/{capture}", *planted, "--format", "json"]
    )
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"], f["file"], f["line"])
        for f in json.loads(result.output)["findings"]
    ] == expected


def test_the_cut_engine_line_compares_the_fields_it_holds(run_line: Run, tmp_path: Path) -> None:
    planted = tmp_path / "deployment.yaml"
    planted.write_text(
        (DRIFT / "captures" / "vllm-0.8.3-dp-deployment.yaml")
        .read_text()
        .replace("--max-model-len=32768", "--max-model-len=16384")
    )
    live = "captures/vllm-0.8.3-engine-line-cut.log"
    result = run_line(["drift", "-f", str(planted), "--live", live, "--format", "json"])
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"], f["line"])
        for f in json.loads(result.output)["findings"]
    ] == [("drift/changed", "max_model_len", 16384, 32768, 15)]


def test_the_field_the_cut_went_through_is_not_read() -> None:
    # enforce_eager=Fal is not a value; what comes before it is.
    values, cut = engine_fields("model='m', max_seq_len=4096, quantization=None, enforce_eager=Fal")
    assert (values, cut) == (
        {"model": "m", "max_seq_len": 4096, "quantization": None},
        "quantization",
    )
    complete = "model='m', max_seq_len=4096, compilation_config={\"level\": 3}"
    assert engine_fields(complete) == (
        {"model": "m", "max_seq_len": 4096, "compilation_config": {"level": 3}},
        "",
    )
    assert engine_fields('model=\'m\', compilation_config={"level": 3, "x"') == (
        {"model": "m"},
        "model",
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'a': 1, 'b': [1, 2], 'c': 'xy", ({"a": 1, "b": [1, 2]}, "b")),
        (
            "Namespace(model='m', tp=2, x=Config(a=None), y=Fa",
            ({"model": "m", "tp": 2, "x": {"a": None}}, "x"),
        ),
        (
            'Args {\n    model_id: "org/m",\n    revision: Some(\n        "main",\n    ),\n    quantize: Some(\n',
            ({"model_id": "org/m", "revision": "main"}, "revision"),
        ),
        ("{'a': 1}", ({"a": 1}, "")),
    ],
    ids=["dict", "namespace", "rust-struct", "complete"],
)
def test_parse_cut_reads_the_complete_fields(text: str, expected: tuple[object, str]) -> None:
    assert literal.parse_cut(text) == expected


def test_a_broken_value_that_is_not_cut_is_still_an_error() -> None:
    with pytest.raises(literal.LiteralError, match="expected ':' after a key"):
        literal.parse_cut("{'a': 1, 'b' 2}")


def test_a_copy_cut_in_one_process_is_no_disagreement_with_a_complete_copy() -> None:
    text = (DRIFT / "captures" / "vllm-0.8.3-dp-engine-cores.log").read_text()
    lines = text.split("\n")
    lines[0] = lines[0][: lines[0].index("enforce_eager=Fal") + len("enforce_eager=Fal")]
    capture = read_capture("\n".join(lines))
    assert capture is not None
    assert (capture.disagreements, capture.truncated) == ((), ())
    assert capture.settings["served_model_name"] == "qwen2.5-7b"
