"""Several reports from one run: ``--format FORMAT[:FILE]`` (repeatable) and ``-o``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

import linter.run.pipeline
from linter.cli import main
from linter.evaluate.result import RunResult
from linter.reporters.outputs import OutputSpec, parse_spec, plan_outputs

REPORTERS = Path(__file__).parent / "fixtures" / "reporters"
POLICIES = ["--no-config", "--no-builtin", "--policy-dir", "policies"]
TEXT = [
    "inputs/deploy.yaml:5:3: info team/has-labels add labels",
    "inputs/deploy.yaml:7:3: error team/min-replicas needs at least two replicas, has 1",
    "inputs/deploy.yaml:12:11: warning team/no-latest-tag container server uses "
    "vllm/vllm-openai:latest",
    "inputs/deploy.yaml:14:11: warning team/no-latest-tag container sidecar uses busybox:latest",
    "1 error, 2 warnings, 1 info in 1 file",
]
USAGE = "Usage: servelint lint [OPTIONS] [PATHS]...\nTry 'servelint lint --help' for help.\n\n"

RunLine = Callable[..., Result]


@pytest.fixture
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPORTERS)


@pytest.mark.usefixtures("in_fixtures")
def test_text_on_terminal_and_three_files_from_one_evaluation(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real_run = linter.run.pipeline.run

    def counting_run(*args: Any, **kwargs: Any) -> RunResult:
        calls.append(1)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(linter.run.pipeline, "run", counting_run)
    sarif, junit, gh = tmp_path / "out.sarif", tmp_path / "junit.xml", tmp_path / "gh.txt"
    result = run_line(
        [
            "lint",
            *POLICIES,
            "--format",
            "text",
            "--format",
            f"sarif:{sarif}",
            "--format",
            f"junit:{junit}",
            "--format",
            f"github:{gh}",
            "inputs/deploy.yaml",
        ]
    )
    assert (result.exit_code, result.output.splitlines(), len(calls)) == (1, TEXT, 1)
    log = json.loads(sarif.read_text("utf-8"))
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == [
        "team/has-labels",
        "team/min-replicas",
        "team/no-latest-tag",
        "team/no-latest-tag",
    ]
    assert ET.fromstring(junit.read_text("utf-8")).attrib["failures"] == "3"
    assert gh.read_text("utf-8").splitlines()[1] == (
        "::error file=inputs/deploy.yaml,line=7,col=3,title=team/min-replicas::"
        "needs at least two replicas, has 1"
    )


@pytest.mark.usefixtures("in_fixtures")
def test_output_option_takes_the_formats_without_a_file(run_line: RunLine, tmp_path: Path) -> None:
    report = tmp_path / "report.sarif"
    result = run_line(
        [
            "lint",
            *POLICIES,
            "--format",
            "sarif",
            "-o",
            str(report),
            "--format",
            f"text:{tmp_path / 'report.txt'}",
            "inputs/deploy.yaml",
        ]
    )
    assert (result.exit_code, result.output) == (1, "")
    assert json.loads(report.read_text("utf-8"))["version"] == "2.1.0"
    assert (tmp_path / "report.txt").read_text("utf-8").splitlines() == TEXT


@pytest.mark.usefixtures("in_fixtures")
def test_default_is_text_on_standard_output(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, "inputs/deploy.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (1, TEXT)


@pytest.mark.usefixtures("in_fixtures")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--format", "xml"],
            "unknown format 'xml'; choose from github, html, json, junit, sarif, text",
        ),
        (["--format", "sarif:"], "'sarif:': give a file name after ':' (for example sarif:report)"),
        (
            ["--format", "text", "--format", "json"],
            "several formats would be written to standard output; give each format its own file, "
            "e.g. --format sarif:servelint.sarif",
        ),
        (
            ["--format", "json:r.out", "--format", "sarif", "-o", "r.out"],
            "several formats would be written to 'r.out'; give each format its own file, "
            "e.g. --format sarif:servelint.sarif",
        ),
    ],
    ids=["unknown", "empty-file", "two-on-stdout", "two-in-one-file"],
)
def test_bad_output_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main(["lint", *POLICIES, *args, "inputs/deploy.yaml"])
    captured = capsys.readouterr()
    assert (code, captured.out, captured.err) == (
        2,
        "",
        f"{USAGE}Error: Invalid value for '--format': {message}\n",
    )
    assert not Path("r.out").exists()


@pytest.mark.usefixtures("in_fixtures")
def test_unwritable_report_file_is_a_tool_failure_after_the_terminal_report(
    run_line: RunLine, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-dir" / "out.sarif"
    good = tmp_path / "junit.xml"
    result = run_line(
        [
            "lint",
            *POLICIES,
            "--format",
            f"sarif:{missing}",
            "--format",
            "text",
            "--format",
            f"junit:{good}",
            "inputs/deploy.yaml",
        ]
    )
    assert (result.exit_code, result.stdout.splitlines(), result.stderr) == (
        3,
        TEXT,
        f"servelint: {missing}: cannot write the sarif report: No such file or directory\n",
    )
    assert ET.fromstring(good.read_text("utf-8")).tag == "testsuites"


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("sarif", OutputSpec("sarif", None)),
        ("sarif:out/servelint.sarif", OutputSpec("sarif", "out/servelint.sarif")),
        ("junit:C:/reports/junit.xml", OutputSpec("junit", "C:/reports/junit.xml")),
    ],
    ids=["stdout", "file", "colon-in-file"],
)
def test_parse_spec(text: str, spec: OutputSpec) -> None:
    assert parse_spec(text) == spec


def test_plan_outputs_defaults() -> None:
    assert (plan_outputs([], None), plan_outputs([], "r.txt")) == (
        [OutputSpec("text", None)],
        [OutputSpec("text", "r.txt")],
    )


@pytest.mark.usefixtures("in_fixtures")
def test_inline_suppression_reaches_every_format(run_line: RunLine, tmp_path: Path) -> None:
    """Errata item 6 end to end: the finding is kept, marked, and does not fail the run."""
    sarif, junit, gh = tmp_path / "out.sarif", tmp_path / "junit.xml", tmp_path / "gh.txt"
    result = run_line(
        [
            "lint",
            *POLICIES,
            "--today",
            "2026-06-01",
            "--format",
            "text",
            "--format",
            f"sarif:{sarif}",
            "--format",
            f"junit:{junit}",
            "--format",
            f"github:{gh}",
            "suppressed/values.yaml",
        ]
    )
    assert (result.exit_code, result.output.splitlines()) == (
        0,
        [
            "suppressed/values.yaml:4:3: error duplicate-key duplicate key 'maxModelLen' (first at"
            " line 2); Helm and Kubernetes silently keep the last value [suppressed (inline): kept"
            " for the migration, until 2026-12-31]",
            "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file",
        ],
    )
    [entry] = json.loads(sarif.read_text("utf-8"))["runs"][0]["results"]
    assert (entry["ruleId"], entry["suppressions"]) == (
        "duplicate-key",
        [
            {
                "kind": "inSource",
                "status": "accepted",
                "justification": "kept for the migration",
                "properties": {"source": "inline", "until": "2026-12-31"},
            }
        ],
    )
    case = ET.fromstring(junit.read_text("utf-8")).find("testsuite/testcase")
    assert case is not None
    assert [(child.tag, child.attrib) for child in case] == [
        ("skipped", {"message": "suppressed: kept for the migration"})
    ]
    assert gh.read_text("utf-8") == "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file\n"
