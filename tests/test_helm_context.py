"""Values files linted in the context of their chart, and chart folders in directories.

The chart is tests/fixtures/helm/context/charts/vllm: its values.yaml names the model and
the GPU, values-prod.yaml and values-staging.yaml only override a few settings. The
policies (tests/fixtures/helm/context-policies, ``--no-builtin``) need the model and the
GPU, so a finding on values-prod.yaml alone proves the chart's values were merged in.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from report_lines import report_lines

from linter.sources.chartlayout import chart_of, environment_name

ROOT = Path(__file__).resolve().parent.parent
FIX = Path(__file__).parent / "fixtures" / "helm"
CONTEXT = "tests/fixtures/helm/context"
CHART = f"{CONTEXT}/charts/vllm"
POLICIES = ["--no-builtin", "--policy-dir", str(FIX / "context-policies")]
LONG = (
    "error context-kv/long-context max_model_len 131072 for "
    "meta-llama/Llama-3.1-8B-Instruct on NVIDIA-L4"
)
SEQS = "warning context-kv/many-sequences max_num_seqs 512 is above 256"
REPLICAS = "warning values-replicas/two-or-more replicaCount 1 means downtime on every rollout"

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.fixture
def charts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the chart at charts/vllm in a scratch folder, which is the working folder."""
    shutil.copytree(ROOT / CHART, tmp_path / "charts" / "vllm")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "charts" / "vllm"


def lines(result: Result) -> list[str]:
    return report_lines(result.output)


def test_a_values_file_is_linted_with_its_charts_values(run_line: Run) -> None:
    result = run_line(["lint", *POLICIES, f"{CHART}/values-prod.yaml"])
    assert (result.exit_code, lines(result)) == (
        1,
        [
            f"{CHART}/values-prod.yaml:4:3: {LONG}",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )


def test_a_values_file_in_the_working_folder(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT / CHART)
    result = run_line(["lint", *POLICIES, "values-prod.yaml", "values.yaml"])
    assert (result.exit_code, lines(result)) == (
        1,
        [
            "note: environment default (values.yaml): 0 errors, 1 warning, 0 info",
            "note: environment prod (values.yaml + values-prod.yaml): 1 error, 0 warnings, 0 info",
            f"values-prod.yaml:4:3: {LONG} [prod]",
            f"values.yaml:1:1: {REPLICAS}",
            f"values.yaml:10:3: {SEQS} [default]",
            "1 error, 2 warnings, 0 info in 2 files",
        ],
    )


def test_without_chart_context_the_file_alone_names_no_model(run_line: Run) -> None:
    result = run_line(["lint", *POLICIES, "--no-chart-context", f"{CHART}/values-prod.yaml"])
    assert (result.exit_code, lines(result)) == (0, ["0 errors, 0 warnings, 0 info in 1 file"])


def test_a_default_that_is_the_culprit_is_found_in_values_yaml(run_line: Run) -> None:
    result = run_line(["lint", *POLICIES, f"{CHART}/values-staging.yaml"])
    assert (result.exit_code, lines(result)) == (
        0,
        [
            f"{CHART}/values.yaml:10:3: {SEQS}",
            "0 errors, 1 warning, 0 info in 1 file",
        ],
    )


def test_a_directory_lints_each_values_file_as_an_environment(run_line: Run) -> None:
    # templates/ of the chart is skipped (no syntax findings on Go templates); a folder
    # named templates outside a chart is linted: 5 files are Chart.yaml, three values
    # files and manifests/templates/service.yaml.
    result = run_line(["lint", *POLICIES, CONTEXT])
    assert (result.exit_code, lines(result)) == (
        1,
        [
            f"note: environment default ({CHART}/values.yaml): 0 errors, 1 warning, 0 info",
            f"note: environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): "
            "1 error, 0 warnings, 0 info",
            f"note: environment staging ({CHART}/values.yaml + {CHART}/values-staging.yaml): "
            "0 errors, 1 warning, 0 info",
            f"{CHART}/values-prod.yaml:4:3: {LONG} [prod]",
            f"{CHART}/values.yaml:1:1: {REPLICAS}",
            f"{CHART}/values.yaml:10:3: {SEQS} [default, staging]",
            "1 error, 2 warnings, 0 info in 5 files",
        ],
    )


def test_without_chart_context_a_directory_still_skips_chart_templates(run_line: Run) -> None:
    result = run_line(["lint", *POLICIES, "--no-chart-context", CONTEXT])
    assert (result.exit_code, lines(result)) == (
        0,
        [
            f"{CHART}/values.yaml:1:1: {REPLICAS}",
            f"{CHART}/values.yaml:10:3: {SEQS}",
            "0 errors, 2 warnings, 0 info in 5 files",
        ],
    )


def test_a_template_named_on_the_command_line_is_a_note(run_line: Run) -> None:
    # Issue 31: pre-commit passes every changed YAML file, templates too; a Go template is
    # not a configuration, and a syntax error on it said nothing true.
    # (Without the chart context: with it, the template stands for the chart's
    # environments, test_gitops_dependents.py.)
    template = f"{CHART}/templates/deployment.yaml"
    result = run_line(["lint", *POLICIES, "--no-chart-context", template])
    assert (result.exit_code, lines(result)) == (
        0,
        [
            f"note: {CHART}/templates/deployment.yaml: a chart template: lint the chart "
            f"(servelint lint --chart {CHART})",
            "note: no files to lint",
            "0 errors, 0 warnings, 0 info in 0 files",
        ],
    )


def test_json_names_the_environments_of_each_finding(run_line: Run) -> None:
    result = run_line(
        ["lint", *POLICIES, "--format", "json", f"{CHART}/values.yaml", f"{CHART}/values-prod.yaml"]
    )
    report = json.loads(result.output)
    assert [
        (f["rule"], f["file"], f["line"], f["path"], f.get("environments"))
        for f in report["findings"]
    ] == [
        ("context-kv/long-context", f"{CHART}/values-prod.yaml", 4, "vllm.maxModelLen", ["prod"]),
        ("values-replicas/two-or-more", f"{CHART}/values.yaml", 1, "replicaCount", None),
        ("context-kv/many-sequences", f"{CHART}/values.yaml", 10, "vllm.maxNumSeqs", ["default"]),
    ]
    assert report["notes"] == [
        f"environment default ({CHART}/values.yaml): 0 errors, 1 warning, 0 info",
        f"environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): "
        "1 error, 0 warnings, 0 info",
    ]
    assert result.exit_code == 1


def test_a_suppression_in_the_charts_values_covers_the_merged_finding(
    run_line: Run, charts: Path
) -> None:
    values = charts / "values.yaml"
    text = values.read_text(encoding="utf-8")
    values.write_text(
        text.replace(
            "  maxNumSeqs: 512\n",
            '  # servelint: ignore[context-kv/many-sequences] reason="batch jobs" until=2099-12-31\n'
            "  maxNumSeqs: 512\n"
            '  # servelint: ignore[context-kv/long-context] reason="nothing here"\n'
            "  dtype: bfloat16\n",
        ),
        encoding="utf-8",
    )
    result = run_line(["lint", *POLICIES, "charts/vllm/values-staging.yaml"])
    # values.yaml is only context here: its unused suppression is judged when it is linted.
    assert (result.exit_code, lines(result)) == (
        0,
        [
            "charts/vllm/values.yaml:11:3: warning context-kv/many-sequences max_num_seqs 512 is "
            "above 256 [suppressed (inline): batch jobs, until 2099-12-31]",
            "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file",
        ],
    )
    # values.yaml alone judges every environment of the chart (run/dependents.py): prod's
    # long-context finding is on values-prod.yaml, so the suppression is still unused.
    result = run_line(["lint", *POLICIES, "charts/vllm/values.yaml"])
    assert lines(result)[-2:] == [
        "charts/vllm/values.yaml:12:3: warning suppression/unused suppression of "
        "'context-kv/long-context' matches no finding; remove it",
        "1 error, 2 warnings, 0 info, 1 suppressed in 4 files",
    ]


def test_unreadable_chart_values_leave_the_file_on_its_own(run_line: Run, charts: Path) -> None:
    (charts / "values.yaml").write_text("vllm: [unclosed\n", encoding="utf-8")
    result = run_line(["lint", *POLICIES, "charts/vllm/values-prod.yaml"])
    assert (result.exit_code, lines(result)) == (
        0,
        [
            "note: charts/vllm/values-prod.yaml: linted without the chart's values: "
            "charts/vllm/values.yaml could not be read as a values file",
            "0 errors, 0 warnings, 0 info in 1 file",
        ],
    )


def test_a_values_file_helm_cannot_use_is_a_helm_values_error(run_line: Run, charts: Path) -> None:
    (charts / "values-canary.yaml").write_text("- maxModelLen: 4096\n", encoding="utf-8")
    result = run_line(["lint", *POLICIES, "charts/vllm/values-canary.yaml"])
    assert (result.exit_code, lines(result)) == (
        1,
        [
            "charts/vllm/values-canary.yaml:1:1: error helm-values a values file must be a map of "
            "keys to values, not a list",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )


def test_without_a_chart_yaml_the_file_is_linted_alone(run_line: Run, charts: Path) -> None:
    (charts / "Chart.yaml").unlink()
    result = run_line(["lint", *POLICIES, "charts/vllm/values-prod.yaml"])
    assert (result.exit_code, lines(result)) == (0, ["0 errors, 0 warnings, 0 info in 1 file"])


@pytest.mark.parametrize(
    ("name", "environment"),
    [
        ("charts/vllm/values.yaml", "default"),
        ("charts/vllm/values-prod.yaml", "prod"),
        ("values.staging.yml", "staging"),
        ("charts/vllm/values_eu-west.yaml", "eu-west"),
        ("charts/vllm/canary-values.yaml", "canary"),
        ("charts/vllm/overrides-values-gpu.yaml", "overrides-values-gpu"),
    ],
    ids=["chart-values", "dash", "dot", "underscore", "suffix", "other"],
)
def test_environment_names(name: str, environment: str) -> None:
    assert environment_name(name) == environment


@pytest.mark.parametrize(
    ("name", "chart"),
    [
        (f"{CHART}/values-prod.yaml", CHART),
        (f"{CHART}/Chart.yaml", None),
        (f"{CHART}/templates/deployment.yaml", None),
        (f"{CONTEXT}/manifests/templates/service.yaml", None),
    ],
    ids=["values", "chart-file", "template", "no-chart"],
)
def test_which_files_are_a_charts_values(name: str, chart: str | None) -> None:
    assert chart_of(name) == chart
