"""The core CLI contract: inputs, output formats, exit codes, policy failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from linter import __version__

CORE = Path(__file__).parent / "fixtures" / "core"
POLICIES = ["--no-builtin", "--policy-dir", str(CORE / "policies")]
INPUTS = CORE / "inputs"
EXPECTED_TEXT = [
    f"{INPUTS}/deploy.yaml:7:3: error team-replicas/min-replicas needs at least two replicas,"
    " has 1",
    f"{INPUTS}/deploy.yaml:12:11: warning team-replicas/no-latest-tag container server uses"
    " the latest tag",
    f"{INPUTS}/sub/broken.yaml:2:1: error syntax invalid YAML: did not find expected ',' or"
    " ']' while parsing a flow sequence started at line 1, column 4",
    f"{INPUTS}/sub/nolabels.json:1:1: info team-replicas/has-labels cannot evaluate rule: "
    "no such key 'labels' (guard it with has())",
    "2 errors, 1 warning, 1 info in 4 files",
]

RunLine = Callable[..., Result]


def test_directory_is_linted_recursively_skipping_hidden_and_other_files(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, str(INPUTS)])
    assert result.exit_code == 1
    assert result.output.splitlines() == EXPECTED_TEXT


def test_clean_input_exits_zero(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, str(INPUTS / "sub" / "good.yaml")])
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 1 file\n")


@pytest.mark.parametrize(("level", "code"), [("error", 1), ("warning", 1), ("info", 1)])
def test_fail_level(run_line: RunLine, level: str, code: int) -> None:
    result = run_line(["lint", *POLICIES, "--fail-level", level, str(INPUTS / "deploy.yaml")])
    assert result.exit_code == code


def test_warnings_only_fail_at_warning_level(run_line: RunLine, tmp_path: Path) -> None:
    manifest = tmp_path / "d.yaml"
    manifest.write_text(
        "kind: Deployment\nmetadata: {labels: {a: b}}\nspec:\n  replicas: 2\n  template:\n"
        "    spec:\n      containers: [{name: c, image: 'x:latest'}]\n"
    )
    assert run_line(["lint", *POLICIES, str(manifest)]).exit_code == 0
    assert run_line(["lint", *POLICIES, "--fail-level", "warning", str(manifest)]).exit_code == 1


def test_json_output_contract(run_line: RunLine) -> None:
    result = run_line(["lint", *POLICIES, "--format", "json", str(INPUTS / "deploy.yaml")])
    assert result.exit_code == 1
    payload = json.loads(result.output)
    assert payload == {
        "version": 1,
        "findings": [
            {
                "rule": "team-replicas/min-replicas",
                "severity": "error",
                "message": "needs at least two replicas, has 1",
                "file": f"{INPUTS}/deploy.yaml",
                "line": 7,
                "column": 3,
                "path": "spec.replicas",
                "suppressed": False,
            },
            {
                "rule": "team-replicas/no-latest-tag",
                "severity": "warning",
                "message": "container server uses the latest tag",
                "file": f"{INPUTS}/deploy.yaml",
                "line": 12,
                "column": 11,
                "path": "spec.template.spec.containers[0].image",
                "suppressed": False,
            },
        ],
        "summary": {"error": 1, "warning": 1, "info": 0, "suppressed": 0, "files": 1},
        "notes": [],
        "coverage": {
            "version": 1,
            "summary": {
                "files": 1,
                "workloads": 0,
                "notUnderstood": 0,
                "gaps": 0,
                "unchecked": False,
            },
            "files": [{"file": f"{INPUTS}/deploy.yaml", "workloads": [], "notUnderstood": []}],
        },
    }


def test_stdin_is_named_stdin(run_line: RunLine) -> None:
    text = (INPUTS / "deploy.yaml").read_text()
    result = run_line(["lint", *POLICIES, "-"], input=text)
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "<stdin>:7:3: error team-replicas/min-replicas needs at least two replicas, has 1"
    )


def test_output_file(run_line: RunLine, tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    result = run_line(["lint", *POLICIES, "-o", str(out), str(INPUTS / "sub" / "good.yaml")])
    assert (result.exit_code, result.output) == (0, "")
    assert out.read_text() == "0 errors, 0 warnings, 0 info in 1 file\n"


def test_missing_path_is_a_tool_failure(run_line: RunLine, tmp_path: Path) -> None:
    result = run_line(["lint", *POLICIES, str(tmp_path / "nope.yaml")])
    assert result.exit_code == 3
    assert result.output == f"servelint: {tmp_path}/nope.yaml: no such file or directory\n"


def test_unreadable_file_is_reported_and_others_still_linted(
    run_line: RunLine, tmp_path: Path
) -> None:
    bad = tmp_path / "bin.yaml"
    bad.write_bytes(b"\x00\x01binary")
    good = tmp_path / "ok.yaml"
    good.write_text(
        "kind: Deployment\nmetadata: {labels: {a: b}}\nspec:\n  replicas: 1\n"
        "  template: {spec: {containers: []}}\n"
    )
    result = run_line(["lint", *POLICIES, str(bad), str(good)])
    assert result.exit_code == 3
    assert result.output.splitlines() == [
        f"{bad}:1:1: error read-error binary file (contains NUL bytes); not a configuration",
        f"{good}:4:3: error team-replicas/min-replicas needs at least two replicas, has 1",
        "2 errors, 0 warnings, 0 info in 2 files",
    ]


def test_no_paths_is_a_usage_error(run_line: RunLine) -> None:
    result = run_line(["lint"])
    assert result.exit_code == 2
    assert "give at least one file or directory" in result.output


def test_policy_schema_violation_names_file_and_lines(run_line: RunLine) -> None:
    policy = CORE / "bad-policies" / "schema" / "p.yaml"
    result = run_line(
        ["lint", "--no-builtin", "--policy-dir", str(policy.parent), str(INPUTS / "deploy.yaml")]
    )
    assert result.exit_code == 3
    assert result.output.splitlines() == [
        f"servelint: {policy}:6:3: spec.target: 'documents' is not one of ['document', 'workload']",
        f"{policy}:9:7: spec.rules[0].severity: 'fatal' is not one of ['error', 'warning', 'info']",
    ]


def test_cel_compile_error_names_file_line_and_cel_error(run_line: RunLine) -> None:
    policy = CORE / "bad-policies" / "cel" / "p.yaml"
    result = run_line(
        ["lint", "--no-builtin", "--policy-dir", str(policy.parent), str(INPUTS / "deploy.yaml")]
    )
    assert result.exit_code == 3
    assert result.output.startswith(
        f"servelint: {policy}:10:7: spec.rules[0].expression: invalid CEL (expression line 1,"
        " column 21): Syntax error: mismatched input '<EOF>'"
    )


def test_version(run_line: RunLine) -> None:
    result = run_line(["--version"])
    assert (result.exit_code, result.output) == (0, f"servelint, version {__version__}\n")


def test_explain_and_rules(run_line: RunLine) -> None:
    result = run_line(
        ["explain", "--policy-dir", str(CORE / "policies"), "team-replicas/min-replicas"]
    )
    assert result.exit_code == 0
    assert result.output.splitlines()[:8] == [
        "team-replicas/min-replicas (error)",
        "",
        "Serving Deployments run at least two replicas",
        "",
        "One replica means every rollout or node drain is an outage.",
        "",
        "Fix:",
        "  spec:",
    ]
    assert "  https://kubernetes.io/docs/concepts/workloads/controllers/deployment/" in (
        result.output.splitlines()
    )
    unknown = run_line(["explain", "nope/nope"])
    assert unknown.exit_code == 2
    listing = run_line(["rules", "--policy-dir", str(CORE / "policies")])
    assert listing.exit_code == 0
    assert any(
        line.split()[:2] == ["team-replicas/min-replicas", "error"]
        for line in listing.output.splitlines()
    )


def test_installed_command_in_subprocess_with_traceback_flag(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "servelint"
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [str(exe), "lint", *POLICIES, str(INPUTS)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.splitlines() == EXPECTED_TEXT
    failed = subprocess.run(
        [str(exe), "lint", str(tmp_path / "x.yaml")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (failed.returncode, failed.stdout) == (3, "")
    assert failed.stderr == f"servelint: {tmp_path}/x.yaml: no such file or directory\n"
    traced = subprocess.run(
        [str(exe), "--traceback", "lint", str(tmp_path / "x.yaml")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert traced.returncode == 3
    assert traced.stderr.startswith("Traceback (most recent call last):")
    assert traced.stderr.rstrip().endswith(
        f"linter.errors.SourceError: {tmp_path}/x.yaml: no such file or directory"
    )


def test_color_only_on_a_terminal_without_no_color() -> None:
    from linter.findings import Finding, Severity
    from linter.reporters.text import format_finding

    finding = Finding("r/x", Severity.ERROR, "m", "f.yaml", 1, 2)
    assert format_finding(finding) == "f.yaml:1:2: error r/x m"
    assert format_finding(finding, color=True) == "f.yaml:1:2: \033[31merror\033[0m r/x m"


def test_rules_without_a_policy_file_are_listed_and_explained(run_line: RunLine) -> None:
    listing = run_line(["rules", "--no-builtin"])
    assert listing.exit_code == 0
    assert [line.split()[0] for line in listing.output.splitlines()] == [
        "syntax",
        "duplicate-key",
        "input-limit",
        "read-error",
        "number-range",
        "suppression/missing-reason",
        "suppression/expired",
        "suppression/unused",
        "suppression/invalid",
        "helm-values",
        "helm-template",
        "helm-values/unread-key",
        "secrets/literal-secret",
        "secrets/weak-secret",
    ]
    explained = run_line(["explain", "secrets/literal-secret"])
    assert explained.exit_code == 0
    assert explained.output.splitlines()[0] == "secrets/literal-secret (error)"
    assert explained.output.splitlines()[-1] == "Defined in servelint itself (no policy file)"
