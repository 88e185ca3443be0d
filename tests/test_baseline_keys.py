"""Baseline entries are keyed by rule, file and setting path: a reworded message or a
changed number keeps a known finding known. A committed secret is never baselined, and
is suppressed only with a reason that says it was rotated."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {{name: team}}
spec:
  target: document
  matchConditions:
    - name: deployments
      expression: "has(doc.kind) && doc.kind == 'Deployment'"
  rules:
    - id: min-replicas
      severity: error
      expression: "has(doc.spec.replicas) && doc.spec.replicas >= {minimum}"
      messageExpression: "'{wording} ' + string(doc.spec.replicas) + ', want {minimum}'"
      fieldPath: spec.replicas
"""
DEPLOY = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  replicas: 1\n"
TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWx12"
VALUES = f"model: meta-llama/Llama-3.1-8B-Instruct\nhfToken: {TOKEN}\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "policies").mkdir()
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "app.yaml").write_text(DEPLOY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def _policy(repo: Path, minimum: int, wording: str) -> None:
    (repo / "policies" / "team.yaml").write_text(POLICY.format(minimum=minimum, wording=wording))


def _lint(run_line: RunLine, *args: str) -> Result:
    return run_line(
        ["lint", "--no-config", "--no-builtin", "--policy-dir", "policies", *args, "deploy"]
    )


def test_a_changed_message_and_number_keep_the_finding_known(repo: Path, run_line: RunLine) -> None:
    _policy(repo, 2, "has replicas")
    written = _lint(run_line, "--write-baseline", "baseline.json")
    assert written.exit_code == 0
    assert json.loads((repo / "baseline.json").read_text()) == {
        "version": 2,
        "findings": [
            {
                "file": "deploy/app.yaml",
                "rule": "team/min-replicas",
                "path": "spec.replicas",
                "message": "has replicas 1, want 2",
            }
        ],
    }
    _policy(repo, 3, "runs only")  # a new release rewords the message and raises the bar
    result = _lint(run_line, "--baseline", "baseline.json")
    assert (result.exit_code, result.output) == (
        0,
        "deploy/app.yaml:5:3: error team/min-replicas runs only 1, want 3 "
        "[suppressed (baseline): known finding, recorded in baseline baseline.json]\n"
        "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file\n",
    )
    # Another setting of the same rule in the same file is a new finding.
    (repo / "deploy" / "app.yaml").write_text(DEPLOY + "---\n" + DEPLOY)
    again = _lint(run_line, "--baseline", "baseline.json", "-q")
    assert (again.exit_code, again.output) == (
        1,
        "deploy/app.yaml:11:3: error team/min-replicas runs only 1, want 3\n",
    )


def test_a_version_1_baseline_still_matches_whatever_its_messages(
    repo: Path, run_line: RunLine
) -> None:
    _policy(repo, 2, "has replicas")
    (repo / "baseline.json").write_text(
        json.dumps(
            {
                "version": 1,
                "findings": [
                    {
                        "file": "deploy/app.yaml",
                        "rule": "team/min-replicas",
                        "path": "spec.replicas",
                        "message": "needs at least two replicas, has 1",
                    }
                ],
            }
        )
    )
    result = _lint(run_line, "--baseline", "baseline.json")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file",
    )


SECRET_FINDING = (
    "deploy/values.yaml:2:1: error secrets/literal-secret literal secret in 'hfToken' is "
    "committed: anyone who can read the repository can use it; keep it in a Kubernetes "
    "Secret and reference it (env valueFrom.secretKeyRef, or the chart's existing-Secret "
    "setting); rotate the exposed value"
)


def _lint_values(run_line: RunLine, *args: str) -> Result:
    return run_line(["lint", "--no-config", *args, "deploy/values.yaml"])


def test_a_committed_secret_is_never_baselined(repo: Path, run_line: RunLine) -> None:
    (repo / "deploy" / "values.yaml").write_text(VALUES)
    written = _lint_values(run_line, "--write-baseline", "baseline.json")
    assert (written.exit_code, written.output.splitlines()) == (
        1,
        [
            "note: baseline baseline.json: recorded 0 findings",
            "note: baseline baseline.json: 1 committed secret not recorded: a secret stays in "
            "the history of the repository; rotate it, then suppress the finding with a reason "
            "that says it was rotated",
            SECRET_FINDING,
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )
    assert json.loads((repo / "baseline.json").read_text()) == {"version": 2, "findings": []}
    assert TOKEN not in (repo / "baseline.json").read_text()
    # An entry written by hand (or by an older servelint) does not hide it either.
    (repo / "baseline.json").write_text(
        json.dumps(
            {
                "version": 2,
                "findings": [
                    {"file": "deploy/values.yaml", "rule": "secrets/literal-secret", "path": ""}
                ],
            }
        )
    )
    applied = _lint_values(run_line, "--baseline", "baseline.json", "-q")
    assert (applied.exit_code, applied.output) == (1, SECRET_FINDING + "\n")


@pytest.mark.parametrize(
    ("reason", "suppressed"),
    [
        ("test fixture, ignore", False),
        ("rotation planned next sprint", False),
        ("rotated on 2026-11-30, history kept for audit", True),
        ("token revoked in the Hugging Face settings", True),
    ],
    ids=["any-reason", "not-yet", "rotated", "revoked"],
)
def test_a_secret_is_suppressed_only_when_the_reason_says_it_was_rotated(
    repo: Path, run_line: RunLine, reason: str, suppressed: bool
) -> None:
    (repo / "deploy" / "values.yaml").write_text(
        VALUES.replace(
            "hfToken:", f'# servelint: ignore[secrets/literal-secret] reason="{reason}"\nhfToken:'
        )
    )
    result = _lint_values(run_line)
    finding = SECRET_FINDING.replace("values.yaml:2:1", "values.yaml:3:1")
    if suppressed:
        assert (result.exit_code, result.output.splitlines()) == (
            0,
            [
                f"{finding} [suppressed (inline): {reason}]",
                "0 errors, 0 warnings, 0 info, 1 suppressed in 1 file",
            ],
        )
        return
    assert (result.exit_code, result.output.splitlines()) == (
        1,
        [
            "deploy/values.yaml:2:1: warning suppression/missing-reason suppression of "
            "'secrets/literal-secret' does not say the secret was rotated, so it is not applied "
            f"to the committed secret ({reason}); the value stays in the repository's history: "
            'rotate it, then say so (reason="rotated on YYYY-MM-DD")',
            finding,
            "1 error, 1 warning, 0 info in 1 file",
        ],
    )


def test_a_wildcard_suppression_in_the_configuration_does_not_hide_a_secret(
    repo: Path, run_line: RunLine
) -> None:
    (repo / "deploy" / "values.yaml").write_text(VALUES)
    (repo / ".servelint.yaml").write_text(
        "suppressions:\n  - rules: ['secrets/*']\n    reason: legacy values, cleaned up later\n"
    )
    result = run_line(["lint", "deploy/values.yaml"])
    assert (result.exit_code, result.output.splitlines()) == (
        1,
        [
            ".servelint.yaml:2:5: warning suppression/missing-reason suppression of 'secrets/*' "
            "does not say the secret was rotated, so it is not applied to the committed secret "
            "(legacy values, cleaned up later); the value stays in the repository's history: "
            'rotate it, then say so (reason="rotated on YYYY-MM-DD")',
            SECRET_FINDING,
            "1 error, 1 warning, 0 info in 1 file",
        ],
    )
