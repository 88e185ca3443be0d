"""Nothing outside the repository is read unless the user names it (issue 31).

A pull request can commit a symbolic link to anywhere (``deploy/leak.yaml ->
~/.aws/credentials``) and a ``.servelint.yaml`` naming ``../outside``: a folder's walk, a
chart's own values files, templates and files, and the configuration's ``policyDirs`` and
``baseline`` are read only inside the repository (linter/sources/repository.py); what
the command line names is read as named.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from tests.robustness import generate

SECRET = "OUTSIDE-THE-REPOSITORY"
PROBE = ("--no-config", "--no-builtin", "--policy-dir", "policies")

Runner = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git checkout (``.git`` marks its top) beside a folder it must not read."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(f"probe: true\nsecret: {SECRET}\n")
    (outside / "values.yaml").write_text(
        f"vllm:\n  image: vllm/vllm-openai:v0.10.0\n  x: {SECRET}\n"
    )
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    generate.write_policy(root)
    generate.write_good(root / "deploy")
    monkeypatch.chdir(root)
    return root


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def test_walk_does_not_follow_a_link_out_of_the_repository(repo: Path, run_line: Runner) -> None:
    _link(repo / "deploy" / "leak.yaml", repo.parent / "outside" / "secret.yaml")
    _link(repo / "deploy" / "inside.yaml", repo / "deploy" / "good.yaml")
    result = run_line(["lint", *PROBE, "deploy"])
    assert (result.exit_code, result.output) == (
        0,
        f"note: deploy/leak.yaml: a symbolic link to a file outside the repository ({repo}); "
        "not read: name it on the command line to lint it\n"
        "deploy/good.yaml:2:1: warning probe/seen linted\n"
        "deploy/inside.yaml:2:1: warning probe/seen linted\n"
        "0 errors, 2 warnings, 0 info in 2 files\n",
    )
    for fmt in ("json", "sarif", "junit", "github"):
        assert SECRET not in run_line(["lint", *PROBE, "--format", fmt, "deploy"]).output
    shown = run_line(["show", "deploy"])
    assert shown.output.splitlines()[-2:] == [
        f"not read: deploy/leak.yaml: a symbolic link to a file outside the repository "
        f"({repo}); not read: name it on the command line to lint it",
        "no workload recognised",
    ]
    assert SECRET not in shown.output


def test_a_link_named_on_the_command_line_is_read(repo: Path, run_line: Runner) -> None:
    _link(repo / "deploy" / "leak.yaml", repo.parent / "outside" / "secret.yaml")
    result = run_line(["lint", *PROBE, "deploy/leak.yaml"])
    assert (result.exit_code, result.output) == (
        0,
        "deploy/leak.yaml:1:1: warning probe/seen linted\n0 errors, 1 warning, 0 info in 1 file\n",
    )


def test_outside_git_the_repository_is_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Runner
) -> None:
    (tmp_path / "secret.yaml").write_text(f"probe: true\nsecret: {SECRET}\n")
    here = tmp_path / "work"
    generate.write_policy(here)
    generate.write_good(here / "deploy")
    _link(here / "deploy" / "leak.yaml", tmp_path / "secret.yaml")
    monkeypatch.chdir(here)
    result = run_line(["lint", *PROBE, "deploy"])
    assert (result.exit_code, result.output) == (
        0,
        f"note: deploy/leak.yaml: a symbolic link to a file outside the repository ({here}); "
        "not read: name it on the command line to lint it\n"
        "deploy/good.yaml:2:1: warning probe/seen linted\n"
        "0 errors, 1 warning, 0 info in 1 file\n",
    )


def _chart(repo: Path) -> Path:
    chart = repo / "charts" / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
        "data: {image: {{ .Values.vllm.image | quote }}}\n"
    )
    return chart


def test_a_charts_own_values_files_that_link_out_are_not_merged(
    repo: Path, run_line: Runner
) -> None:
    chart = _chart(repo)
    outside = repo.parent / "outside" / "values.yaml"
    _link(chart / "values.yaml", outside)
    _link(chart / "values-prod.yaml", outside)
    refused = (
        f"a symbolic link to a file outside the repository ({repo}); "
        "not read: give it with -f or --env NAME=FILE to use it"
    )
    result = run_line(["lint", *PROBE, "--no-render", "--chart", "charts/c", "--env", "prod"])
    assert (result.exit_code, result.output) == (
        3,
        "note: rendering skipped (--no-render): templates were not checked\n"
        "note: environment prod: values not merged: charts/c/values.yaml, "
        "charts/c/values-prod.yaml could not be read as a values file (see its finding)\n"
        "note: environment prod (charts/c/values.yaml + charts/c/values-prod.yaml): "
        "0 errors, 0 warnings, 0 info\n"
        f"charts/c/values-prod.yaml:1:1: error read-error {refused}\n"
        f"charts/c/values.yaml:1:1: error read-error {refused}\n"
        "2 errors, 0 warnings, 0 info in 2 files\n",
    )
    shown = run_line(["show", "--chart", "charts/c"])
    assert (shown.exit_code, shown.output) == (
        3,
        "servelint: charts/c: the chart's values could not be merged\n"
        f"  charts/c/values.yaml:1:1: {refused}\n",
    )
    # Named on the command line, the same file is read.
    named = run_line(["lint", *PROBE, "--no-render", "--chart", "charts/c", "-f", str(outside)])
    assert named.exit_code == 3  # values.yaml itself is still refused
    assert f"error read-error {refused}" in named.output
    assert "values-prod" not in named.output


def test_a_values_file_linted_in_its_chart_ignores_a_values_yaml_that_links_out(
    repo: Path, run_line: Runner
) -> None:
    chart = _chart(repo)
    _link(chart / "values.yaml", repo.parent / "outside" / "values.yaml")
    (chart / "values-prod.yaml").write_text("probe: true\n")
    result = run_line(["lint", *PROBE, "charts/c/values-prod.yaml"])
    assert (result.exit_code, result.output) == (
        0,
        f"note: charts/c/values.yaml: a symbolic link to a file outside the repository "
        f"({repo}); not read: give it with -f or --env NAME=FILE to use it\n"
        "note: charts/c/values-prod.yaml: linted without the chart's values: "
        "charts/c/values.yaml could not be read as a values file\n"
        "charts/c/values-prod.yaml:1:1: warning probe/seen linted\n"
        "0 errors, 1 warning, 0 info in 1 file\n",
    )


def test_chart_templates_that_link_out_or_are_not_regular_files_are_not_read(
    repo: Path, run_line: Runner
) -> None:
    chart = _chart(repo)
    (chart / "values.yaml").write_text("vllm:\n  image: vllm/vllm-openai:v0.10.0\n")
    _link(chart / "templates" / "leak.yaml", repo.parent / "outside" / "secret.yaml")
    _link(chart / "templates" / "stdin.yaml", Path("/dev/stdin"))
    os.mkfifo(chart / "templates" / "fifo.yaml")
    # The built-in policies read the templates (keys no template reads, /dev/shm).
    result = run_line(["lint", "--no-config", "--no-render", "--chart", "charts/c"])
    notes = [line for line in result.output.splitlines() if line.startswith("note: charts/c:")]
    assert (result.exit_code, notes) == (
        0,
        [
            "note: charts/c: charts/c/templates/fifo.yaml: not a regular file (a pipe, socket "
            "or device): not read; its values are taken as read",
            f"note: charts/c: charts/c/templates/leak.yaml: a symbolic link to a file outside "
            f"the repository ({repo}): not read; its values are taken as read",
            f"note: charts/c: charts/c/templates/stdin.yaml: a symbolic link to a file outside "
            f"the repository ({repo}): not read; its values are taken as read",
        ],
    )


def test_policy_dirs_outside_the_repository_are_an_error_at_their_line(
    repo: Path, run_line: Runner
) -> None:
    policies = repo.parent / "outside" / "policies"
    policies.mkdir()
    (policies / "p.yaml").write_text(f"bogus: {SECRET}\n")
    (repo / ".servelint.yaml").write_text(
        "builtin: false\npolicyDirs:\n  - policies\n  - ../outside/policies\n"
    )
    expected = (
        f"servelint: .servelint.yaml:4:5: policyDirs '../outside/policies' is outside the "
        f"repository ({repo}); nothing outside it is read unless named on the command line: "
        "give it with --policy-dir\n"
    )
    for command in (["lint", "deploy"], ["rules"], ["explain", "probe/seen"]):
        result = run_line(command)
        assert (command, result.exit_code, result.output) == (command, 3, expected)
    # Named on the command line, the folder is read.
    named = run_line(["lint", "--policy-dir", str(policies), "deploy"])
    assert (named.exit_code, "outside the repository" in named.output) == (0, False)


def test_a_baseline_outside_the_repository_is_an_error_at_its_line(
    repo: Path, run_line: Runner
) -> None:
    (repo / ".servelint.yaml").write_text("baseline: ../outside/secret.yaml\n")
    result = run_line(["lint", "deploy"])
    assert (result.exit_code, result.output) == (
        3,
        f"servelint: .servelint.yaml:1:1: baseline '../outside/secret.yaml' is outside the "
        f"repository ({repo}); nothing outside it is read unless named on the command line: "
        "give it with --baseline\n",
    )


def test_a_policy_file_linked_out_of_the_repository_is_refused(
    repo: Path, run_line: Runner
) -> None:
    _link(repo / "policies" / "leak.yaml", repo.parent / "outside" / "secret.yaml")
    result = run_line(["lint", *PROBE, "deploy"])
    assert (result.exit_code, result.output) == (
        3,
        f"servelint: policies/leak.yaml: a symbolic link to a file outside the repository "
        f"({repo}); not read\n",
    )
