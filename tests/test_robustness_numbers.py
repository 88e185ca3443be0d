"""Values no reader can hold (issue 31): a lone surrogate, integers too long for a float
or for Python, a baseline nested 200,000 deep. Each is read or refused with its file and
line; none ends the run with an internal error, and the other inputs are still reported."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from report_lines import report_lines

from tests.robustness import generate

Runner = Callable[..., Result]
PROBE = ("--no-config", "--no-builtin", "--policy-dir", "policies")

SURROGATE_DEPLOYMENT = (
    '{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x\\ud800"}, '
    '"spec": {"template": {"spec": {"containers": [{"name": "v", '
    '"image": "vllm/vllm-openai:v0.10.0\\ud800"}]}}}}'
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    generate.write_policy(tmp_path)
    generate.write_good(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_lone_surrogate_is_read_as_the_replacement_character(
    folder: Path, run_line: Runner
) -> None:
    (folder / "sur.json").write_text(SURROGATE_DEPLOYMENT)
    (folder / "latest.yaml").write_text("image: vllm/vllm-openai:latest\n")
    text = run_line(["lint", "--no-config", "sur.json", "latest.yaml"])
    assert (text.exit_code, report_lines(text.output)) == (
        0,
        [
            "latest.yaml:1:1: warning images/unpinned-server-image image "
            "vllm/vllm-openai:latest uses the moving tag latest: the server release changes "
            "under this manifest whenever the tag moves, and version-gated checks cannot run; "
            "pin a release tag or a digest (the newest release: vllm/vllm-openai:v0.33.0)",
            "sur.json:1:1: warning gpu/server-without-gpu container v runs a GPU build of vLLM "
            "but requests no GPU: on a node without one it fails to start, and on a GPU node "
            "with NVIDIA's default runtime it may take every GPU of the node unaccounted; "
            "request the GPUs it uses (nvidia.com/gpu)",
            "sur.json:1:1: warning readiness/missing the vLLM container v has no readinessProbe: "
            "Kubernetes counts it ready as soon as it starts, so the Service sends requests "
            "while the model is still loading (and after every restart), and they fail; add a "
            "readinessProbe with httpGet on /health port 8000",
            "0 errors, 3 warnings, 0 info in 2 files",
        ],
    )
    sarif = run_line(["lint", "--no-config", "--format", "sarif", "sur.json", "latest.yaml"])
    results = json.loads(sarif.output)["runs"][0]["results"]
    assert (sarif.exit_code, [r["ruleId"] for r in results]) == (
        0,
        ["images/unpinned-server-image", "gpu/server-without-gpu", "readiness/missing"],
    )
    shown = run_line(["show", "sur.json"])
    assert (shown.exit_code, shown.output.splitlines()[0]) == (
        0,
        "Deployment/default/x\ufffd (Deployment) at sur.json:1:1",
    )


def test_an_integer_too_long_for_a_float_is_kept_as_text(folder: Path, run_line: Runner) -> None:
    digits = "9" * 400
    (folder / "n400.yaml").write_text(f"a: {digits}\nb: -{digits}\n")
    result = run_line(["lint", *PROBE, "n400.yaml", "good.yaml"])
    assert (result.exit_code, result.output) == (
        0,
        "good.yaml:2:1: warning probe/seen linted\n"
        "n400.yaml:1:4: warning number-range integer of 400 digits: far beyond any 64-bit "
        "setting; read as text\n"
        "n400.yaml:2:4: warning number-range integer of 400 digits: far beyond any 64-bit "
        "setting; read as text\n"
        "0 errors, 3 warnings, 0 info in 2 files\n",
    )


def test_a_json_integer_of_5001_digits_is_a_warning_at_its_place(
    folder: Path, run_line: Runner
) -> None:
    (folder / "big.json").write_text('{"probe": true, "replicas": ' + "9" * 5001 + "}")
    result = run_line(["lint", *PROBE, "big.json", "good.yaml"])
    assert (result.exit_code, result.output) == (
        0,
        "big.json:1:2: warning probe/seen linted\n"
        "big.json:1:29: warning number-range integer of 5001 digits: far beyond any 64-bit "
        "setting; read as text\n"
        "good.yaml:2:1: warning probe/seen linted\n"
        "0 errors, 3 warnings, 0 info in 2 files\n",
    )


@pytest.mark.parametrize(
    ("gpu_memory", "message"),
    [
        (
            "9" * 400,
            ".servelint.yaml:2:14: integer of 400 digits: far beyond any 64-bit setting; "
            "read as text",
        ),
        (
            '"' + "9" * 400 + 'Gi"',
            ".servelint.yaml:2:3: model.gpuMemory: '" + "9" * 79 + "… is not valid: GPU memory "
            "when the manifest does not name the GPU: bytes, or a quantity such as 80Gi or 24GB.",
        ),
    ],
    ids=["integer", "quantity"],
)
def test_a_400_digit_gpu_memory_is_a_configuration_error(
    folder: Path, run_line: Runner, gpu_memory: str, message: str
) -> None:
    (folder / ".servelint.yaml").write_text(f"model:\n  gpuMemory: {gpu_memory}\n")
    result = run_line(["lint", "good.yaml"])
    assert (result.exit_code, result.output) == (3, f"servelint: {message}\n")


def test_a_baseline_nested_200000_deep_is_an_error_at_its_place(
    folder: Path, run_line: Runner
) -> None:
    (folder / "baseline.json").write_text('{\n  "findings": ' + "[" * 200_000)
    result = run_line(["lint", *PROBE, "--baseline", "baseline.json", "good.yaml"])
    assert (result.exit_code, result.output) == (
        3,
        "servelint: baseline.json:2:214: nested deeper than 200 levels; not a servelint baseline\n",
    )
    (folder / "baseline.json").write_text('{"version": 1, "findings": [], "n": ' + "9" * 5001 + "}")
    result = run_line(["lint", *PROBE, "--baseline", "baseline.json", "good.yaml"])
    assert (result.exit_code, result.output) == (
        0,
        "good.yaml:2:1: warning probe/seen linted\n0 errors, 1 warning, 0 info in 1 file\n",
    )
