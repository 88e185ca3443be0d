"""GitHub Actions annotations: commands, levels and the toolkit's escaping."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter.evaluate.result import RunResult
from linter.findings import Finding, Severity, Suppression
from linter.reporters.github import (
    GithubReporter,
    escape_data,
    escape_property,
    format_annotation,
)

REPORTERS = Path(__file__).parent / "fixtures" / "reporters"
POLICIES = ["--no-config", "--no-builtin", "--policy-dir", "policies"]

RunLine = Callable[..., Result]


def test_cli_github_annotations(run_line: RunLine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPORTERS)
    result = run_line(["lint", *POLICIES, "--format", "github", "inputs"])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "::error file=inputs/broken.yaml,line=2,col=1,title=syntax::invalid YAML: did not find"
        " expected ',' or ']' while parsing a flow sequence started at line 1, column 9",
        "::notice file=inputs/deploy.yaml,line=5,col=3,title=team/has-labels::add labels",
        "::error file=inputs/deploy.yaml,line=7,col=3,title=team/min-replicas::needs at least"
        " two replicas, has 1",
        "::warning file=inputs/deploy.yaml,line=12,col=11,title=team/no-latest-tag::container"
        " server uses vllm/vllm-openai:latest",
        "::warning file=inputs/deploy.yaml,line=14,col=11,title=team/no-latest-tag::container"
        " sidecar uses busybox:latest",
        "::error file=inputs/values.yaml,line=3,col=3,title=duplicate-key::duplicate key"
        " 'maxModelLen' (first at line 2); Helm and Kubernetes silently keep the last value",
        "3 errors, 2 warnings, 1 info in 3 files",
    ]


@pytest.mark.parametrize(
    ("text", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("50% of 2,048: done", "50%25 of 2,048: done", "50%25 of 2%2C048%3A done"),
        ("line\r\nnext\n", "line%0D%0Anext%0A", "line%0D%0Anext%0A"),
        ("%0A literal", "%250A literal", "%250A literal"),
    ],
    ids=["plain", "percent-comma-colon", "newlines", "already-escaped"],
)
def test_escaping_matches_actions_toolkit(text: str, data: str, prop: str) -> None:
    assert (escape_data(text), escape_property(text)) == (data, prop)


def test_annotation_escapes_properties_and_message(tmp_path: Path) -> None:
    finding = Finding(
        "team/x",
        Severity.ERROR,
        "100% wrong:\nsee docs, please",
        str(tmp_path / "charts" / "a,b:c.yaml"),
        3,
        4,
    )
    assert format_annotation(finding, tmp_path) == (
        "::error file=charts/a%2Cb%3Ac.yaml,line=3,col=4,title=team/x::"
        "100%25 wrong:%0Asee docs, please"
    )


def test_file_outside_the_checkout_keeps_its_name(tmp_path: Path) -> None:
    finding = Finding("syntax", Severity.WARNING, "m", "/elsewhere/v.yaml", 1, 1)
    assert format_annotation(finding, tmp_path / "repo") == (
        "::warning file=/elsewhere/v.yaml,line=1,col=1,title=syntax::m"
    )


def test_suppressed_findings_are_not_annotated(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    findings = [
        Finding(
            "vllm/enforce-eager",
            Severity.WARNING,
            "eager",
            "values.yaml",
            4,
            3,
            suppression=Suppression("profiling", None, "inline"),
        ),
        Finding("team/x", Severity.INFO, "fyi", "values.yaml", 6, 1),
    ]
    stream = io.StringIO()
    GithubReporter().report(RunResult(findings, 1, notes=["helm not found"]), stream)
    assert stream.getvalue().splitlines() == [
        "note: helm not found",
        "::notice file=values.yaml,line=6,col=1,title=team/x::fyi",
        "0 errors, 0 warnings, 1 info, 1 suppressed in 1 file",
    ]
