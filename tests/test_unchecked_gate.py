"""--fail-on-unchecked says why it fails, in every format (issue 31): each gap is an error
finding of the rule ``unchecked`` at the gap's file and line (coverage/gate.py), so the
text report shows it even with -q, GitHub annotates it, SARIF carries it as a result and
JUnit as a failing test case; a chart helm did not render is a gap."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
COVERAGE = Path(__file__).parent / "fixtures" / "coverage"
TRAPS = Path(__file__).parent / "fixtures" / "clitraps"
KIND = (
    "unknown-kind.yaml:7:5: error unchecked not understood: kind ModelDeployment "
    "(serving.acme.io/v1): vLLM image vllm/vllm-openai:v0.11.0 at spec.engine.image; fix: "
    "servelint has no reading of this kind yet: lint the rendered pod template, or describe "
    "the layout with a chart profile (docs/serving-model.md#profiles) (--fail-on-unchecked)"
)
GPU_GAP = (
    "not checked: GPU memory (the pod does not name its GPU type): 5 rules (2 error-level) "
    "did not run (vllm-kv/max-num-seqs-exceeds-kv-cache, vllm-kv/one-sequence-does-not-fit, "
    "vllm-kv/one-sequence-may-not-fit, vllm-kv/weights-do-not-fit, "
    "vllm-kv/weights-may-not-fit); fix: name the GPU in the pod's node selector or affinity "
    "(for example cloud.google.com/gke-accelerator: nvidia-l4 or nvidia.com/gpu.product), or "
    "set model.gpuProduct / model.gpuMemory in .servelint.yaml (--fail-on-unchecked)"
)
HELM_GAP = (
    "chart/Chart.yaml:1:1: error unchecked not understood: chart templates: not rendered: "
    "helm is not on PATH; fix: install helm, or give its path with --helm (or SERVELINT_HELM) "
    "(--fail-on-unchecked)"
)


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(COVERAGE)


def _lint(run_line: RunLine, *args: str) -> tuple[int, list[str]]:
    result = run_line(["lint", "--no-config", *args])
    return result.exit_code, result.output.splitlines()


def test_the_text_report_says_why_even_quiet(run_line: RunLine) -> None:
    assert _lint(run_line, "--fail-on-unchecked", "unknown-kind.yaml") == (
        1,
        [
            KIND,
            "coverage: 1 file, 0 workloads recognised, 1 input not understood (-v for details)",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )
    assert _lint(run_line, "--fail-on-unchecked", "-q", "unknown-kind.yaml") == (1, [KIND])
    # Without the gate a gap is coverage, not a finding; --exit-zero still wins.
    assert _lint(run_line, "-q", "unknown-kind.yaml") == (0, [])
    assert _lint(run_line, "--fail-on-unchecked", "--exit-zero", "-q", "unknown-kind.yaml") == (
        0,
        [KIND],
    )


def test_github_annotates_each_gap_on_its_line(run_line: RunLine) -> None:
    code, lines = _lint(
        run_line,
        "--fail-on-unchecked",
        "--disable",
        "kubernetes-qos",
        "--format",
        "github",
        "unknown-gpu.yaml",
    )
    assert (code, lines) == (
        1,
        [
            f"::error file=unknown-gpu.yaml,line=19,col=15,title=unchecked::{GPU_GAP}",
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "coverage: not checked for a missing fact: GPU memory on 1 workload (-v for details)",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )


def test_sarif_carries_each_gap_as_a_result_of_the_unchecked_rule(run_line: RunLine) -> None:
    result = run_line(
        ["lint", "--no-config", "--fail-on-unchecked", "--format", "sarif", "unknown-kind.yaml"]
    )
    assert result.exit_code == 1
    [run] = json.loads(result.output)["runs"]
    [rule] = run["tool"]["driver"]["rules"]
    assert (rule["id"], rule["defaultConfiguration"], rule["shortDescription"]) == (
        "unchecked",
        {"level": "error"},
        {"text": "An input or a rule the run could not check (--fail-on-unchecked)"},
    )
    [found] = run["results"]
    assert (found["ruleId"], found["level"], found["message"]["text"]) == (
        "unchecked",
        "error",
        KIND.split(" error unchecked ", 1)[1],
    )
    assert found["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "unknown-kind.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7, "startColumn": 5},
    }


def test_junit_fails_one_test_case_per_gap(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two workloads in one file, each without its GPU type: two gaps, two failing cases.
    text = (COVERAGE / "unknown-gpu.yaml").read_text(encoding="utf-8")
    (tmp_path / "two.yaml").write_text(text + "---\n" + text.replace("llama", "other"))
    monkeypatch.chdir(tmp_path)
    result = run_line(
        [
            "lint",
            "--no-config",
            "--fail-on-unchecked",
            "--disable",
            "kubernetes-qos",
            "--format",
            "junit",
            "two.yaml",
        ]
    )
    assert result.exit_code == 1
    cases = [
        line.strip()
        for line in result.output.splitlines()
        if "<testcase" in line or "<testsuite " in line
    ]
    assert cases == [
        '<testsuite name="servelint" tests="2" failures="2" errors="0" skipped="0">',
        '<testcase name="unchecked:19" classname="two.yaml" file="two.yaml">',
        '<testcase name="unchecked:43" classname="two.yaml" file="two.yaml">',
    ]


def test_a_chart_helm_did_not_render_is_unchecked(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no helm on it
    monkeypatch.delenv("SERVELINT_HELM", raising=False)
    monkeypatch.chdir(TRAPS)
    gated = _lint(run_line, "--fail-on-unchecked", "--chart", "chart")
    assert gated == (
        1,
        [
            "note: rendering skipped: helm is not on PATH (install it or pass --helm); "
            "templates were not checked",
            HELM_GAP,
            "coverage: 1 file, 1 workload recognised (vllm 1), 1 input not understood "
            "(-v for details)",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )
    # --no-render is a choice, not a gap; without the gate the gap is coverage only.
    assert _lint(run_line, "--fail-on-unchecked", "-q", "--chart", "chart", "--no-render") == (
        0,
        [],
    )
    assert _lint(run_line, "-q", "--chart", "chart") == (0, [])
