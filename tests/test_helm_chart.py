"""``servelint lint --chart``: environments, provenance, rendering with the real helm.

Policies come from tests/fixtures/helm/policies (``--no-builtin``) and the chart is
tests/fixtures/helm/chart/vllm (clean values; each test brings its own problem), so
these tests depend neither on the built-in policies nor on the bundled example's findings.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from report_lines import report_lines

ROOT = Path(__file__).resolve().parent.parent
CHART = "tests/fixtures/helm/chart/vllm"
POLICIES = ["--no-builtin", "--policy-dir", "tests/fixtures/helm/policies"]
FIX = "tests/fixtures/helm"
RENDERED = f"{CHART}/templates/deployment.yaml (rendered)"
# A rendered finding is placed on the values key that produced its value (the rendered
# position stays in the message), else on the template line of the field.
REPLICAS = (
    f"{CHART}/values.yaml:4:1: warning rendered-replicas/min-replicas replicas is 1; one pod "
    "means downtime on every rollout (rendered templates/deployment.yaml:13:3)"
)
# A value written by --set: on that --set (the first), where the fix goes (issue 31).
REPLICAS_SET = (
    "<--set>:1:1: warning rendered-replicas/min-replicas replicas is 1; one pod means "
    "downtime on every rollout (rendered templates/deployment.yaml:13:3)"
)
SKIPPED = (
    "note: rendering skipped: helm is not on PATH (install it or pass --helm); "
    "templates were not checked"
)

Run = Callable[..., Result]


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # file names in the output are relative to the repository
    monkeypatch.delenv("SERVELINT_HELM", raising=False)


@pytest.fixture
def no_helm_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))


def lines(result: Result) -> list[str]:
    return report_lines(result.output)


def test_two_environments_one_result_each(run_line: Run, helm: str) -> None:
    result = run_line(
        ["lint", "--chart", CHART, "--env", "staging", "--env", "prod", "--helm", helm, *POLICIES]
    )
    assert lines(result) == [
        f"note: environment staging ({CHART}/values.yaml + {CHART}/values-staging.yaml): "
        "0 errors, 1 warning, 0 info",
        f"note: environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): "
        "0 errors, 0 warnings, 0 info",
        f"{REPLICAS} [staging]",
        # The three values files and the two rendered templates, each counted once
        # although each environment renders them (as the coverage line counts them).
        "0 errors, 1 warning, 0 info in 5 files",
    ]
    assert result.exit_code == 0


def test_values_files_as_written_and_shared_findings_once(run_line: Run, helm: str) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "-f",
            f"{FIX}/values-latest.yaml",
            "--env",
            "staging",
            "--env",
            "prod",
            "--set",
            "replicaCount=1",
            "--helm",
            helm,
            *POLICIES,
            "--format",
            "json",
        ]
    )
    report = json.loads(result.output)
    assert report["findings"] == [
        {
            "rule": "rendered-replicas/min-replicas",
            "severity": "warning",
            "message": "replicas is 1; one pod means downtime on every rollout (rendered "
            "templates/deployment.yaml:13:3)",
            "file": "<--set>",
            "line": 1,
            "column": 1,
            "path": "spec.replicas",
            "rendered": {"file": RENDERED, "line": 13, "column": 3, "doc_index": 0},
            "environments": ["staging", "prod"],
            "suppressed": False,
        },
        {
            "rule": "values-image/no-latest",
            "severity": "error",
            "message": "image.tag latest is not a release",
            "file": f"{FIX}/values-latest.yaml",
            "line": 3,
            "column": 3,
            "path": "image.tag",
            "suppressed": False,
        },
    ]
    assert report["notes"] == [
        f"environment staging ({CHART}/values.yaml + {FIX}/values-latest.yaml + "
        f"{CHART}/values-staging.yaml + 1 --set): 0 errors, 1 warning, 0 info",
        f"environment prod ({CHART}/values.yaml + {FIX}/values-latest.yaml + "
        f"{CHART}/values-prod.yaml + 1 --set): 0 errors, 1 warning, 0 info",
    ]
    assert result.exit_code == 1


def test_single_release_has_no_environment_label(run_line: Run, helm: str) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "-f",
            f"{CHART}/values-prod.yaml",
            "--set",
            "replicaCount=1",
            "--helm",
            helm,
            *POLICIES,
        ]
    )
    assert lines(result) == [
        REPLICAS_SET,
        "0 errors, 1 warning, 0 info in 4 files",
    ]
    assert result.exit_code == 0


def test_map_replaced_by_a_string_points_at_the_environment_file(run_line: Run, helm: str) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "--env",
            f"big={FIX}/values-clash.yaml",
            "--helm",
            helm,
            *POLICIES,
            "--fail-level",
            "warning",
        ]
    )
    assert lines(result)[1:] == [
        f"{REPLICAS} [big]",
        f"{FIX}/values-clash.yaml:2:1: warning helm-values resources is a string here but a "
        f"map in the chart's values ({CHART}/values.yaml:27:1); Helm keeps this value and "
        "warns [big]",
        "0 errors, 2 warnings, 0 info in 4 files",
    ]
    assert result.exit_code == 1


def test_helm_failure_is_a_finding_on_the_template_line(run_line: Run, helm: str) -> None:
    result = run_line(["lint", "--chart", CHART, "--set", "vllm=null", "--helm", helm, *POLICIES])
    assert lines(result) == [
        f"{CHART}/templates/deployment.yaml:32:24: error helm-template helm template failed: "
        'vllm/templates/deployment.yaml:32:24 executing "vllm/templates/deployment.yaml" at '
        "<.Values.vllm.model>: nil pointer evaluating interface {}.model",
        "1 error, 0 warnings, 0 info in 1 file",
    ]
    assert result.exit_code == 1


def test_unparsable_environment_file(run_line: Run, helm: str) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "--env",
            f"broken={FIX}/values-broken.yaml",
            "--env",
            "prod",
            "--helm",
            helm,
            *POLICIES,
        ]
    )
    assert lines(result) == [
        f"note: environment broken: values not merged: {FIX}/values-broken.yaml could not be "
        "read as a values file (see its finding)",
        f"note: environment broken ({CHART}/values.yaml + {FIX}/values-broken.yaml): "
        "0 errors, 0 warnings, 0 info",
        f"note: environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): "
        "0 errors, 0 warnings, 0 info",
        f"{FIX}/values-broken.yaml:3:1: error syntax invalid YAML: did not find expected ',' "
        "or ']' while parsing a flow sequence started at line 2, column 16",
        "1 error, 0 warnings, 0 info in 5 files",
    ]
    assert result.exit_code == 1


def test_inline_suppression_in_an_environment_file(run_line: Run, helm: str) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "--env",
            f"canary={FIX}/values-latest-suppressed.yaml",
            "--set",
            "replicaCount=2",
            "--helm",
            helm,
            *POLICIES,
        ]
    )
    assert lines(result)[1:] == [
        f"{FIX}/values-latest-suppressed.yaml:3:3: error values-image/no-latest image.tag "
        "latest is not a release [suppressed (inline): nightly canary, until 2099-12-31]",
        "0 errors, 0 warnings, 0 info, 1 suppressed in 4 files",
    ]
    assert result.exit_code == 0


def test_without_helm_rendering_is_skipped_and_said_once(
    run_line: Run, no_helm_on_path: None
) -> None:
    result = run_line(["lint", "--chart", CHART, "--env", "staging", "--env", "prod", *POLICIES])
    assert lines(result) == [
        SKIPPED,
        f"note: environment staging ({CHART}/values.yaml + {CHART}/values-staging.yaml): "
        "0 errors, 0 warnings, 0 info",
        f"note: environment prod ({CHART}/values.yaml + {CHART}/values-prod.yaml): "
        "0 errors, 0 warnings, 0 info",
        "0 errors, 0 warnings, 0 info in 3 files",
    ]
    assert result.exit_code == 0
    report = json.loads(run_line(["lint", "--chart", CHART, *POLICIES, "--format", "json"]).output)
    assert report["notes"] == [SKIPPED.removeprefix("note: ")]


def test_no_render(run_line: Run, helm: str) -> None:
    result = run_line(["lint", "--chart", CHART, "--no-render", "--helm", helm, *POLICIES])
    assert lines(result) == [
        "note: rendering skipped (--no-render): templates were not checked",
        "0 errors, 0 warnings, 0 info in 1 file",
    ]


def test_workload_findings_point_at_the_file_or_set_that_wrote_the_value(
    run_line: Run, helm: str
) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "--env",
            "staging",
            "--env",
            f"long={CHART}/values-prod.yaml,{FIX}/values-long-context.yaml",
            "--helm",
            helm,
            *POLICIES,
        ]
    )
    # the rendered Deployment and the values see the same problem: one finding, at the
    # values line that set it
    assert lines(result)[2:] == [
        f"{REPLICAS} [staging]",
        f"{FIX}/values-long-context.yaml:3:3: error workload-context/max-context "
        "max_model_len 131072 is above 32768 (rendered templates/deployment.yaml:38:15) [long]",
        "1 error, 1 warning, 0 info in 6 files",
    ]
    assert result.exit_code == 1
    result = run_line(
        [
            "lint",
            "--chart",
            CHART,
            "-f",
            f"{CHART}/values-prod.yaml",
            "--set",
            "replicaCount=3",
            "--set",
            "vllm.maxModelLen=65536",
            "--no-render",
            *POLICIES,
        ]
    )
    assert lines(result)[1:] == [
        "<--set>:2:1: error workload-context/max-context max_model_len 65536 is above 32768",
        "1 error, 0 warnings, 0 info in 2 files",
    ]


def test_rendered_objects_show_what_the_values_do_not(run_line: Run, helm: str) -> None:
    opaque = f"{FIX}/opaque"
    result = run_line(
        ["lint", "--chart", opaque, "--set", "srv.ctx=65536", "--helm", helm, *POLICIES]
    )
    assert lines(result) == [
        "<--set>:1:1: error workload-context/max-context max_model_len 65536 is above 32768 "
        "(rendered templates/deployment.yaml:19:18)",
        "1 error, 0 warnings, 0 info in 2 files",
    ]
    assert result.exit_code == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-f", f"{CHART}/values-prod.yaml"],
            "Error: -f/--values, --set and --env need --chart DIR",
        ),
        (["--set", "a=1", "x.yaml"], "Error: -f/--values, --set and --env need --chart DIR"),
        ([], "Error: give at least one file or directory (or - for stdin), or --chart DIR"),
        (
            ["--chart", CHART, "--set", "a.b"],
            "Error: Invalid value for '--set': --set 'a.b' (column 1): key 'b' has no value",
        ),
        (
            ["--chart", CHART, "--env", "prod", "--env", "prod"],
            "Error: Invalid value for '--env': environment 'prod' is given more than once",
        ),
        (
            ["--chart", CHART, "--env", "=x.yaml"],
            "Error: Invalid value for '--env': '=x.yaml': give a name, as in prod=values-prod.yaml",
        ),
        (
            ["--chart", CHART, "--env", "prod="],
            "Error: Invalid value for '--env': 'prod=': give at least one values file after '='",
        ),
    ],
    ids=[
        "values-without-chart",
        "set-without-chart",
        "nothing",
        "bad-set",
        "env-twice",
        "env-no-name",
        "env-no-file",
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    from linter.cli import main

    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        code = main(["lint", *args])
    assert code == 2
    assert stderr.getvalue().splitlines()[-1] == message


def test_not_a_chart_is_a_tool_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from linter.cli import main

    assert main(["lint", "--chart", str(tmp_path), *POLICIES]) == 3
    assert capsys.readouterr().err == f"servelint: {tmp_path}: not a Helm chart (no Chart.yaml)\n"


def test_helm_that_does_not_exist_is_a_tool_failure(capsys: pytest.CaptureFixture[str]) -> None:
    from linter.cli import main

    assert main(["lint", "--chart", CHART, "--helm", "/nonexistent/helm", *POLICIES]) == 3
    assert capsys.readouterr().err == (
        "servelint: /nonexistent/helm: helm binary not found or not executable (--helm)\n"
    )


def test_missing_environment_file_is_a_read_failure(run_line: Run, helm: str) -> None:
    result = run_line(["lint", "--chart", CHART, "--env", "qa", "--helm", helm, *POLICIES])
    assert lines(result)[:2] == [
        f"note: environment qa: values not merged: {CHART}/values-qa.yaml could not be read "
        "as a values file (see its finding)",
        f"note: environment qa ({CHART}/values.yaml + {CHART}/values-qa.yaml): 0 errors, "
        "0 warnings, 0 info",
    ]
    assert lines(result)[2].startswith(f"{CHART}/values-qa.yaml:1:1: error read-error ")
    assert result.exit_code == 3


def test_baseline_records_and_then_accepts_the_chart_findings(
    run_line: Run, helm: str, tmp_path: Path
) -> None:
    baseline = tmp_path / "baseline.json"
    args = [
        "lint",
        "--chart",
        CHART,
        "--env",
        "staging",
        "-f",
        f"{FIX}/values-latest.yaml",
        "--helm",
        helm,
        *POLICIES,
    ]
    written = run_line([*args, "--write-baseline", str(baseline)])
    assert lines(written)[0] == f"note: baseline {baseline}: recorded 2 findings"
    assert json.loads(baseline.read_text(encoding="utf-8"))["findings"] == [
        {
            "file": f"{CHART}/values.yaml",
            "rule": "rendered-replicas/min-replicas",
            "path": "spec.replicas",
            "message": "replicas is 1; one pod means downtime on every rollout (rendered "
            "templates/deployment.yaml:13:3)",
        },
        {
            "file": f"{FIX}/values-latest.yaml",
            "rule": "values-image/no-latest",
            "path": "image.tag",
            "message": "image.tag latest is not a release",
        },
    ]
    result = run_line([*args, "--baseline", str(baseline)])
    known = f"[suppressed (baseline): known finding, recorded in baseline {baseline}]"
    assert lines(result)[1:] == [
        f"{REPLICAS} [staging] {known}",
        f"{FIX}/values-latest.yaml:3:3: error values-image/no-latest image.tag latest is not "
        f"a release {known}",
        "0 errors, 0 warnings, 0 info, 2 suppressed in 5 files",
    ]
    assert result.exit_code == 0
