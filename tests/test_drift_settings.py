"""Every setting the server's flag table knows is compared; host, port, seed, served model
names and paths under rule ids of their own, compared when the committed side sets them
(issue 30, item 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

CAPTURES = Path(__file__).parent / "fixtures" / "drift" / "captures"
LOG = "vllm-0.10.1-tool-calling.log"
MANIFEST = "vllm-0.10.1-tool-calling.yaml"
VALUES = "vllm-0.10.1-tool-calling-values.yaml"
Run = Callable[..., Result]

PLANTED = {
    "--host=0.0.0.0": "--host=127.0.0.1",
    "--port=8080": "--port=8000",
    "/templates/qwen3.jinja": "/templates/qwen3-tools.jinja",
    "--tool-call-parser=hermes": "--tool-call-parser=qwen3_coder",
    "--tokenizer-mode=auto": "--tokenizer-mode=slow",
    "--revision=b96": "--revision=a96",
    "--seed=1234": "--seed=0",
    "--reasoning-parser=qwen3": "--reasoning-parser=deepseek_r1",
    '"image": 0': '"image": 2',
    "--served-model-name=qwen3-8b": "--served-model-name=qwen3",
}


@pytest.fixture(autouse=True)
def _in_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CAPTURES)


def _planted(tmp_path: Path, name: str) -> Path:
    text = (CAPTURES / name).read_text()
    for old, new in PLANTED.items():
        assert old in text
        text = text.replace(old, new)
    out = tmp_path / name
    out.write_text(text)
    return out


def _rows(result: Result) -> list[tuple[object, ...]]:
    return [
        (f["rule"], f["path"], f["desired"], f["live"], f["line"])
        for f in json.loads(result.output)["findings"]
    ]


@pytest.mark.parametrize("committed", [MANIFEST, VALUES], ids=["manifest", "values"])
def test_in_sync_on_every_setting(run_line: Run, committed: str) -> None:
    result = run_line(["drift", "-f", committed, "--live", LOG])
    assert result.exit_code == 0
    assert result.output == (
        f"{LOG}: in sync (vllm defaults applied; read: vLLM 0.10.1.1: non-default args, "
        "scheduler defaults, V1 engine config)\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


@pytest.mark.parametrize(
    ("committed", "first"), [(MANIFEST, 15), (VALUES, 8)], ids=["manifest", "values"]
)
def test_every_planted_setting_is_reported_on_its_line(
    run_line: Run, tmp_path: Path, committed: str, first: int
) -> None:
    planted = _planted(tmp_path, committed)
    result = run_line(["drift", "-f", str(planted), "--live", LOG, "--format", "json"])
    assert result.exit_code == 1
    revision = "968826d9c46dd6066d109eabc6255188de91218"
    assert _rows(result) == [
        ("drift/host", "host", "127.0.0.1", "0.0.0.0", first),
        ("drift/port", "port", 8000, 8080, first + 1),
        (
            "drift/path",
            "chat_template",
            "/templates/qwen3-tools.jinja",
            "/templates/qwen3.jinja",
            first + 2,
        ),
        ("drift/changed", "tool_call_parser", "qwen3_coder", "hermes", first + 4),
        ("drift/changed", "tokenizer_mode", "slow", "auto", first + 5),
        ("drift/changed", "revision", f"a{revision}", f"b{revision}", first + 6),
        ("drift/seed", "seed", 0, 1234, first + 7),
        ("drift/changed", "reasoning_parser", "deepseek_r1", "qwen3", first + 9),
        ("drift/changed", "limit_mm_per_prompt.image", 2, 0, first + 10),
        ("drift/served-model-name", "served_model_name", "qwen3", "qwen3-8b", first + 11),
    ]
    status = {f["path"]: f.get("status") for f in json.loads(result.output)["findings"]}
    assert (status["port"], status["tool_call_parser"]) == ("changed", None)


def test_teams_switch_the_endpoint_rules_off(run_line: Run, tmp_path: Path) -> None:
    planted = _planted(tmp_path, MANIFEST)
    args = ["drift", "-f", str(planted), "--live", LOG, "--format", "json"]
    result = run_line([*args, "--disable", "drift/host", "--disable", "drift/port"])
    rules = [row[0] for row in _rows(result)]
    assert "drift/host" not in rules and "drift/port" not in rules
    assert len(rules) == 8
    everything = run_line([*args, "--disable", "drift/*"])
    assert (everything.exit_code, _rows(everything)) == (0, [])


def test_endpoint_settings_the_committed_side_leaves_out_are_not_compared(
    run_line: Run, tmp_path: Path
) -> None:
    # The log prints host, port and seed; a manifest that does not set them is in sync.
    text = (CAPTURES / MANIFEST).read_text()
    for line in ("--host=0.0.0.0", "--port=8080", "--seed=1234"):
        text = text.replace(f"            - {line}\n", "")
    bare = tmp_path / "bare.yaml"
    bare.write_text(text)
    result = run_line(["drift", "-f", str(bare), "--live", LOG])
    assert result.exit_code == 0, result.output


def test_a_table_only_setting_set_live_alone_is_compared_with_a_recorded_default(
    run_line: Run, tmp_path: Path
) -> None:
    # tokenizer_mode has a default in the defaults table (auto): slow live, unset in Git
    # is drift; tool_call_parser has none: unset in Git, it is not compared.
    text = (CAPTURES / MANIFEST).read_text()
    for line in ("--tokenizer-mode=auto", "--tool-call-parser=hermes"):
        text = text.replace(f"            - {line}\n", "")
    bare = tmp_path / "bare.yaml"
    bare.write_text(text)
    live = tmp_path / "slow.log"
    live.write_text(
        (CAPTURES / LOG).read_text().replace("'tokenizer_mode': 'auto'", "'tokenizer_mode': 'slow'")
    )
    result = run_line(["drift", "-f", str(bare), "--live", str(live), "--format", "json"])
    assert result.exit_code == 1
    assert _rows(result) == [("drift/unexpected-live", "tokenizer_mode", None, "slow", 3)]


def test_a_table_only_setting_the_non_default_args_leave_out_was_not_set(
    run_line: Run, tmp_path: Path
) -> None:
    # The non-default args list every argument that was set: a parser set in Git that
    # they do not list never reached vLLM.
    live = tmp_path / "vllm.log"
    live.write_text((CAPTURES / LOG).read_text().replace("'tool_call_parser': 'hermes', ", ""))
    result = run_line(["drift", "-f", MANIFEST, "--live", str(live), "--format", "json"])
    assert result.exit_code == 1
    assert _rows(result) == [("drift/missing-live", "tool_call_parser", "hermes", None, 19)]
