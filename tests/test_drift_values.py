"""Normalisation of what servers print: Triton's option table (scalars and one-item lists,
device:bytes maps) compares equal when equal, and a live value that cannot be read as its
setting's type is a finding with the value, never "in sync" (issue 30, item 4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.drift.compare import compare
from linter.drift.normalize import normalize

DRIFT = Path(__file__).parent / "fixtures" / "drift"
TRITON_LOG = str(DRIFT / "logs" / "triton-24.08-verbose.log")
VLLM_LOG = DRIFT / "logs" / "vllm-0.11-dp2.log"
Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_captures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DRIFT / "captures")


@pytest.mark.parametrize(
    ("committed", "live"),
    [
        ("/models", ["/models"]),
        (["/models"], "/models"),
        ("0:67108864", ["0:67108864"]),
        ({0: 67108864}, ["0:67108864"]),
        ({"0": "67108864", "1": 1024}, ["1:1024", "0:67108864"]),
    ],
    ids=["scalar-list", "list-scalar", "text-row", "map-row", "two-devices"],
)
def test_triton_option_values_in_every_spelling_are_equal(committed: object, live: object) -> None:
    key = "model_repository" if "models" in str(committed) else "cuda_memory_pool_byte_size"
    assert compare(normalize({key: committed}), normalize({key: live})) == []


def test_a_different_pool_size_is_still_a_difference() -> None:
    (difference,) = compare(
        normalize({"cuda_memory_pool_byte_size": {0: 67108864}}),
        normalize({"cuda_memory_pool_byte_size": ["0:33554432"]}),
    )
    assert (difference.path, difference.status) == (
        ("cuda_memory_pool_byte_size", "0"),
        "changed",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "triton-24.08-deployment.yaml"],
        ["-f", "triton-24.08-values.yaml", "--values-path", "triton.server"],
    ],
    ids=["manifest", "values"],
)
def test_triton_option_table_in_sync(run_line: Run, args: list[str]) -> None:
    result = run_line(["drift", *args, "--live", TRITON_LOG])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "0 differences in 0 of 1 target, 1 in sync"


def test_triton_planted_differences(run_line: Run, tmp_path: Path) -> None:
    text = (DRIFT / "captures" / "triton-24.08-deployment.yaml").read_text()
    planted = tmp_path / "triton.yaml"
    planted.write_text(
        text.replace(
            "--cuda-memory-pool-byte-size=0:67108864", "--cuda-memory-pool-byte-size=0:1024"
        )
        .replace("--model-repository=/models", "--model-repository=/repo")
        .replace("--exit-timeout-secs=30", "--exit-timeout-secs=60")
    )
    result = run_line(["drift", "-f", str(planted), "--live", TRITON_LOG, "--format", "json"])
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"], f["line"])
        for f in json.loads(result.output)["findings"]
    ] == [
        ("drift/path", "model_repository", "/repo", "/models", 14),
        ("drift/changed", "cuda_memory_pool_byte_size.0", "1024", "67108864", 19),
        ("drift/changed", "exit_timeout_secs", 60, 30, 20),
    ]


@pytest.mark.parametrize(
    ("printed", "shown"), [("'banana'", "banana"), ("'sNaN'", "sNaN"), ("nan", "nan")]
)
def test_a_value_that_is_not_a_number_is_a_finding(
    run_line: Run, tmp_path: Path, printed: str, shown: str
) -> None:
    live = tmp_path / "vllm.log"
    live.write_text(
        VLLM_LOG.read_text()
        .replace("'max_model_len': 8192", f"'max_model_len': {printed}")
        .replace("max_seq_len=8192", f"max_seq_len={printed}")
    )
    values = str(DRIFT / "logs" / "vllm-values.yaml")
    result = run_line(["drift", "-f", values, "--live", str(live), "--format", "json"])
    assert result.exit_code == 1
    (finding,) = json.loads(result.output)["findings"]
    assert (finding["rule"], finding["path"], finding["desired"], finding["live"]) == (
        "drift/unreadable-live",
        "max_model_len",
        8192,
        shown,
    )
    assert finding["message"] == (
        f"max_model_len is '{shown}' in {live}, which is not an integer: the value the "
        "server printed cannot be compared"
    )
    assert finding["line"] == 10


def test_an_unreadable_value_the_committed_side_leaves_out_is_still_reported(
    run_line: Run, tmp_path: Path
) -> None:
    live = tmp_path / "vllm.log"
    live.write_text(
        VLLM_LOG.read_text().replace(
            "'gpu_memory_utilization': 0.92", "'gpu_memory_utilization': 'banana'"
        )
    )
    values = tmp_path / "values.yaml"
    values.write_text(
        (DRIFT / "logs" / "vllm-values.yaml")
        .read_text()
        .replace("      gpuMemoryUtilization: 0.92\n", "")
    )
    result = run_line(["drift", "-f", str(values), "--live", str(live), "--format", "json"])
    assert result.exit_code == 1
    assert [
        (f["rule"], f["path"], f["desired"], f["live"])
        for f in json.loads(result.output)["findings"]
    ] == [("drift/unreadable-live", "gpu_memory_utilization", None, "banana")]
