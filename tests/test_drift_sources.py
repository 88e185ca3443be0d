"""What each live source prints: a committed setting the source does not report is "not
reported by this source", shown in the report's coverage, never drift; with
--fail-on-unchecked it fails as lint's gaps do (issue 30, item 3)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.drift.live import read_capture

CAPTURES = Path(__file__).parent / "fixtures" / "drift" / "captures"
Run = Callable[..., Result]

DP = ["drift", "-f", "vllm-0.8.3-dp-deployment.yaml", "--live", "vllm-0.8.3-dp-engine-cores.log"]
NO_MODEL = ["drift", "-f", "vllm-0.9.2-values.yaml", "--live", "vllm-0.9.2-no-positional-model.log"]


@pytest.fixture(autouse=True)
def _in_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CAPTURES)


def test_the_engine_line_of_0_8_does_not_report_data_parallel_size(run_line: Run) -> None:
    result = run_line(DP)
    assert result.exit_code == 0
    assert result.output == (
        "vllm-0.8.3-dp-engine-cores.log: in sync (vllm defaults applied; read: vLLM 0.8.3: "
        "V1 engine config)\n"
        "  not reported by this source (not compared): data_parallel_size\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )
    report = json.loads(run_line([*DP, "--format", "json"]).output)
    assert report["targets"][0]["not_reported"] == ["data_parallel_size"]
    assert report["findings"] == []


def test_fail_on_unchecked_fails_at_the_line_of_the_unreported_setting(run_line: Run) -> None:
    result = run_line([*DP, "--fail-on-unchecked", "--format", "json"])
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["file"], f["line"], f["message"])
        for f in json.loads(result.output)["findings"]
    ] == [
        (
            "unchecked",
            "data_parallel_size",
            "vllm-0.8.3-dp-deployment.yaml",
            16,
            "not checked: data_parallel_size is not reported by this source (vLLM 0.8.3: V1 "
            "engine config) in vllm-0.8.3-dp-engine-cores.log (--fail-on-unchecked)",
        )
    ]


def test_what_the_engine_line_reports_is_still_compared(run_line: Run, tmp_path: Path) -> None:
    planted = tmp_path / "deployment.yaml"
    planted.write_text(
        (CAPTURES / "vllm-0.8.3-dp-deployment.yaml")
        .read_text()
        .replace("--max-model-len=32768", "--max-model-len=16384")
    )
    result = run_line(["drift", "-f", str(planted), "--live", DP[-1], "--format", "json"])
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"], f["line"])
        for f in json.loads(result.output)["findings"]
    ] == [("drift/changed", "max_model_len", 16384, 32768, 15)]


def test_a_positional_model_left_out_of_the_non_default_args(run_line: Run) -> None:
    result = run_line(NO_MODEL)
    assert result.exit_code == 0
    assert result.output == (
        "vllm-0.9.2-no-positional-model.log: in sync (vllm defaults applied; read: vLLM "
        "0.9.2: non-default args, scheduler defaults)\n"
        "  not reported by this source (not compared): model_id\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_the_non_default_args_report_every_other_setting(run_line: Run) -> None:
    # enforce_eager set in Git but absent from the non-default args: vLLM did not get it.
    result = run_line(
        [
            *NO_MODEL,
            "--set",
            "vllm.engineArgs.scheduler.maxNumSeqs=64",
            "--set",
            "vllm.engineArgs.model.enforceEager=true",
            "--format",
            "json",
        ]
    )
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"], f["file"], f["line"])
        for f in json.loads(result.output)["findings"]
    ] == [
        ("drift/changed", "max_num_seqs", 64, 32, "<--set>", 1),
        ("drift/missing-live", "enforce_eager", True, None, "<--set>", 2),
    ]


def test_model_tag_stands_for_the_model_where_the_model_is_not_listed() -> None:
    text = (
        "INFO 08-19 18:30:11 [api_utils.py:273] non-default args: {'model_tag': "
        "'Qwen/Qwen2.5-0.5B-Instruct', 'host': '0.0.0.0', 'gpu_memory_utilization': 0.9}\n"
    )
    capture = read_capture(text)
    assert capture is not None
    assert (capture.model, "model" in capture.reported) == ("Qwen/Qwen2.5-0.5B-Instruct", True)
    bare = read_capture(text.replace("'model_tag': 'Qwen/Qwen2.5-0.5B-Instruct', ", ""))
    assert bare is not None
    assert (bare.model, "model" in bare.reported) == ("", False)
