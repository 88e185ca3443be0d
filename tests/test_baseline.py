"""Baselines: record today's findings, fail only on new ones, report stale entries."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

POLICIES = Path(__file__).parent / "fixtures" / "authoring" / "policies"
TWO_LATEST = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
        - name: metrics
          image: prom/statsd-exporter:latest
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "app.yaml").write_text(TWO_LATEST)
    (tmp_path / "deploy" / "ok.yaml").write_text("a: 1\n")
    # The configuration reads policies inside the repository only (issue 31).
    shutil.copytree(POLICIES, tmp_path / "team-policies")
    return tmp_path


def _lint(run_line: Callable[..., Result], *args: str) -> Result:
    return run_line(
        [
            "lint",
            "--no-config",
            "--no-builtin",
            "--policy-dir",
            str(POLICIES / "team-images.yaml"),
            *args,
            "deploy",
        ]
    )


def test_write_records_findings_keyed_without_lines(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    result = _lint(run_line, "--write-baseline", "baseline.json")
    assert (result.exit_code, result.output) == (
        0,
        (
            "note: baseline baseline.json: recorded 2 findings\n"
            "deploy/app.yaml:10:11: error team-images/no-latest container vllm uses the latest tag "
            "[suppressed (baseline): known finding, recorded in baseline baseline.json]\n"
            "deploy/app.yaml:12:11: error team-images/no-latest container metrics uses the latest "
            "tag [suppressed (baseline): known finding, recorded in baseline baseline.json]\n"
            "0 errors, 0 warnings, 0 info, 2 suppressed in 2 files\n"
        ),
    )
    assert json.loads((repo / "baseline.json").read_text()) == {
        "version": 2,
        "findings": [
            {
                "file": "deploy/app.yaml",
                "rule": "team-images/no-latest",
                "path": "spec.template.spec.containers[0].image",
                "message": "container vllm uses the latest tag",
            },
            {
                "file": "deploy/app.yaml",
                "rule": "team-images/no-latest",
                "path": "spec.template.spec.containers[1].image",
                "message": "container metrics uses the latest tag",
            },
        ],
    }


def test_known_findings_survive_moved_lines_and_only_new_ones_fail(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    assert _lint(run_line, "--write-baseline", "baseline.json").exit_code == 0
    moved = TWO_LATEST.replace("  name: llama\n", "  name: llama\n  labels: {team: ml}\n")
    (repo / "deploy" / "app.yaml").write_text(moved)
    result = _lint(run_line, "--baseline", "baseline.json")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "0 errors, 0 warnings, 0 info, 2 suppressed in 2 files",
    )
    (repo / "deploy" / "new.yaml").write_text(TWO_LATEST.replace("llama", "mistral"))
    result = _lint(run_line, "--baseline", "baseline.json", "--format", "json")
    findings = json.loads(result.output)["findings"]
    assert result.exit_code == 1
    assert [(f["file"], f["line"], f["suppressed"]) for f in findings] == [
        ("deploy/app.yaml", 11, True),
        ("deploy/app.yaml", 13, True),
        ("deploy/new.yaml", 10, False),
        ("deploy/new.yaml", 12, False),
    ]
    assert findings[0]["suppression"] == {
        "reason": "known finding, recorded in baseline baseline.json",
        "until": None,
        "source": "baseline",
    }


def test_fixed_findings_leave_stale_entries_as_notes(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    assert _lint(run_line, "--write-baseline", "baseline.json").exit_code == 0
    (repo / "deploy" / "app.yaml").write_text(
        TWO_LATEST.replace("exporter:latest", "exporter:v0.28")
    )
    result = _lint(run_line, "--baseline", "baseline.json")
    assert (result.exit_code, result.output) == (
        0,
        (
            "note: baseline baseline.json: stale entry deploy/app.yaml: team-images/no-latest at "
            "spec.template.spec.containers[1].image is no longer found; refresh it with "
            "--write-baseline baseline.json\n"
            "deploy/app.yaml:10:11: error team-images/no-latest container vllm uses the latest tag "
            "[suppressed (baseline): known finding, recorded in baseline baseline.json]\n"
            "0 errors, 0 warnings, 0 info, 1 suppressed in 2 files\n"
        ),
    )


def test_entries_count_and_files_outside_the_run_are_not_stale(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    (repo / "deploy" / "app.yaml").write_text(TWO_LATEST + "---\n" + TWO_LATEST)
    assert _lint(run_line, "--write-baseline", "baseline.json").exit_code == 0
    (repo / "deploy" / "app.yaml").write_text(
        TWO_LATEST + "---\n" + TWO_LATEST + "---\n" + TWO_LATEST
    )
    result = _lint(run_line, "--baseline", "baseline.json")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        1,
        "2 errors, 0 warnings, 0 info, 4 suppressed in 2 files",
    )
    result = run_line(
        [
            "lint",
            "--no-config",
            "--no-builtin",
            "--policy-dir",
            str(POLICIES / "team-images.yaml"),
            "--baseline",
            "baseline.json",
            "deploy/ok.yaml",
        ]
    )
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 1 file\n")


def test_syntax_errors_are_never_baselined(repo: Path, run_line: Callable[..., Result]) -> None:
    (repo / "deploy" / "broken.yaml").write_text("a: [\n")
    result = _lint(run_line, "--write-baseline", "baseline.json")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        1,
        "1 error, 0 warnings, 0 info, 2 suppressed in 3 files",
    )
    assert len(json.loads((repo / "baseline.json").read_text())["findings"]) == 2


def test_baseline_from_the_configuration_file(repo: Path, run_line: Callable[..., Result]) -> None:
    result = _lint(run_line, "--write-baseline", "ci/baseline.json")
    assert (result.exit_code, result.output) == (
        3,
        "servelint: ci/baseline.json: cannot write baseline: No such file or directory\n",
    )
    (repo / "ci").mkdir()
    assert _lint(run_line, "--write-baseline", "ci/baseline.json").exit_code == 0
    (repo / "ci" / ".servelint.yaml").write_text(
        "builtin: false\npolicyDirs: [../team-policies]\ndisable: [team-probes, vllm]\n"
        "baseline: baseline.json\n"
    )
    result = run_line(["lint", "--config", "ci/.servelint.yaml", "deploy"])
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "0 errors, 0 warnings, 0 info, 2 suppressed in 2 files",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            None,
            "servelint: b.json: baseline not found; create it with 'servelint lint "
            "--write-baseline b.json ...'\n",
        ),
        (
            "{\n  nope\n",
            "servelint: b.json:2:3: invalid JSON: Expecting property name enclosed in "
            "double quotes\n",
        ),
        (
            '{"version": 3, "findings": []}',
            "servelint: b.json: not a servelint baseline (version 2)\n",
        ),
        (
            '{"version": 2, "findings": [{"file": "a"}]}',
            "servelint: b.json: 'findings' must be a list of {file, rule, path} entries\n",
        ),
    ],
    ids=["missing", "json", "version", "entries"],
)
def test_a_bad_baseline_is_a_tool_failure(
    repo: Path, run_line: Callable[..., Result], content: str | None, message: str
) -> None:
    if content is not None:
        (repo / "b.json").write_text(content)
    result = _lint(run_line, "--baseline", "b.json")
    assert (result.exit_code, result.output) == (3, message)


def test_baseline_and_write_baseline_exclude_each_other(
    repo: Path, run_line: Callable[..., Result]
) -> None:
    result = _lint(run_line, "--baseline", "a.json", "--write-baseline", "b.json")
    assert result.exit_code == 2
    assert "--baseline and --write-baseline exclude each other" in result.output
