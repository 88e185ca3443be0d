"""The hook definitions: valid for pre-commit, the right files, entries that exist."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import pytest
from pre_commit.clientlib import load_manifest  # type: ignore[import-untyped]
from pre_commit.commands.run import Classifier  # type: ignore[import-untyped]

from linter.cli import cli, main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "precommit"
SAMPLES = [
    "charts/vllm/values.yaml",
    "charts/vllm/values-prod.yml",
    "charts/vllm/values.schema.json",
    "charts/vllm/templates/deployment.yaml",
    "charts/vllm/templates/_helpers.tpl",
    "charts/vllm/Chart.lock",
    "manifests/tgi.json",
    "model_repository/llama/config.pbtxt",
    "model_repository/llama/labels.pbtxt",
    "model_repository/llama/1/model.py",
    "policies/team.yaml",
    "policies/tests/team_test.yml",
    "policies/README.md",
    "README.md",
    "config.pbtxt",
]


def _hooks() -> dict[str, dict[str, Any]]:
    # load_manifest validates the file with pre-commit's own schema and fills defaults.
    return {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}


def _selected(hook: dict[str, Any]) -> list[str]:
    """The sample files pre-commit would pass to ``hook`` (run in the current directory)."""
    for name in SAMPLES:
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text("x: 1\n", encoding="utf-8")
    return sorted(Classifier(SAMPLES).filenames_for_hook(SimpleNamespace(**hook)))


def test_hook_ids_and_common_settings() -> None:
    hooks = _hooks()
    assert {
        hook_id: (
            h["language"],
            h["entry"],
            h["args"],
            h["pass_filenames"],
            h["require_serial"],
            h["minimum_pre_commit_version"],
        )
        for hook_id, h in hooks.items()
    } == {
        # serial: a chart's staged values files must reach one run (chart context)
        # `--`: file names follow, never options (a file named --baseline=x.json)
        "servelint": ("python", "servelint lint", ["--"], True, True, "2.9.0"),
        "servelint-policies": (
            "python",
            "servelint rules",
            ["--policy-dir", "policies"],
            False,
            False,
            "2.9.0",
        ),
        "servelint-policy-tests": ("python", "servelint test", ["policies"], False, False, "2.9.0"),
    }


def test_entries_name_existing_commands() -> None:
    for hook in _hooks().values():
        program, command = shlex.split(hook["entry"])[:2]
        assert (program, command in cli.list_commands(click.Context(cli))) == ("servelint", True)


@pytest.mark.parametrize(
    ("hook_id", "expected"),
    [
        (
            "servelint",
            [
                # A template stands for its chart's environments (run/dependents.py).
                "charts/vllm/templates/_helpers.tpl",
                "charts/vllm/templates/deployment.yaml",
                "charts/vllm/values-prod.yml",
                "charts/vllm/values.schema.json",
                "charts/vllm/values.yaml",
                "config.pbtxt",
                "manifests/tgi.json",
                "model_repository/llama/config.pbtxt",
            ],
        ),
        ("servelint-policies", ["policies/team.yaml", "policies/tests/team_test.yml"]),
        (
            "servelint-policy-tests",
            ["policies/README.md", "policies/team.yaml", "policies/tests/team_test.yml"],
        ),
    ],
    ids=["servelint", "servelint-policies", "servelint-policy-tests"],
)
def test_hook_file_filters(
    hook_id: str, expected: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _selected(_hooks()[hook_id]) == expected


def test_entries_run_on_the_fixtures(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each hook's command as pre-commit would run it, in-process, on a staged file."""
    hooks = _hooks()
    shutil.copytree(FIXTURES / "policies", tmp_path / "policies")
    shutil.copyfile(FIXTURES / "values-bad.yaml", tmp_path / "values.yaml")
    monkeypatch.chdir(tmp_path)

    def run(hook_id: str, files: list[str]) -> tuple[int, str]:
        hook = hooks[hook_id]
        argv = [*shlex.split(hook["entry"])[1:], *hook["args"], *files]
        code = main(argv)
        return code, capsys.readouterr().out

    code, out = run("servelint", ["values.yaml"])
    assert (code, out.splitlines()) == (
        1,
        [
            "values.yaml:3:1: error duplicate-key duplicate key 'nameOverride' (first at line 2);"
            " Helm and Kubernetes silently keep the last value",
            "1 error, 0 warnings, 0 info in 1 file",
        ],
    )
    code, out = run("servelint-policies", [])
    assert (code, out.splitlines()[-1].split()) == (
        0,
        ["team/has-owner", "warning", "Values", "name", "an", "owner"],
    )
    code, out = run("servelint-policy-tests", [])
    assert (code, out.splitlines()) == (
        0,
        [
            "PASS policies/tests/team_test.yaml: values with an owner pass",
            "PASS policies/tests/team_test.yaml: values without an owner fail",
            "2 passed, 0 failed",
        ],
    )
