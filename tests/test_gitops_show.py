"""``servelint show`` of GitOps wrappers: each release's serving model, every setting at
the wrapper's (or ConfigMap's) file:line, a Secret's values masked (linter/show.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from gitops_repo import checkout

REPO = Path(__file__).parent / "fixtures" / "gitops" / "repo"

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, REPO)


def shown(result: Result, names: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [
        (workload["environment"], setting["setting"], setting["value"], setting["at"])
        for workload in json.loads(result.output)["workloads"]
        for setting in workload["settings"]
        if setting["setting"] in names
    ]


def test_a_helm_release_s_settings_at_the_lines_that_set_them(run_line: Run, repo: Path) -> None:
    result = run_line(["show", "--format", "json", "flux/release.yaml"])
    names = ("engine.max_model_len", "engine.max_num_seqs", "engine.gpu_memory_utilization")
    env = "HelmRelease/vllm-prod"
    assert (result.exit_code, shown(result, names)) == (
        0,
        [
            (env, "engine.max_num_seqs", 512, "flux/configs.yaml:10:7"),
            # From the Secret: merged, never shown.
            (env, "engine.gpu_memory_utilization", "****", "flux/configs.yaml:20:7"),
            (env, "engine.max_model_len", 131072, "flux/release.yaml:30:7"),
        ],
    )
    assert "0.97" not in result.output


def test_an_application_set_s_releases_and_the_generator_it_cannot_expand(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["show", "--format", "json", "argo/appset.yaml"])
    assert (result.exit_code, shown(result, ("engine.max_model_len",))) == (
        0,
        [
            ("ApplicationSet/vllm-small", "engine.max_model_len", 8192, "argo/appset.yaml:27:15"),
            ("ApplicationSet/vllm-large", "engine.max_model_len", 131072, "argo/appset.yaml:27:15"),
        ],
    )
    unknown = json.loads(result.output)["notUnderstood"]
    assert [(u["file"], u["line"], u["what"]) for u in unknown] == [
        ("argo/appset.yaml", 15, "ApplicationSet generator clusters")
    ]


def test_the_text_form_names_the_release(run_line: Run, repo: Path) -> None:
    result = run_line(["show", "flux/stack.yaml"])
    assert result.exit_code == 0
    assert result.output.splitlines()[0].endswith(
        "[HelmRelease/stack] (HelmValues) at flux/stack.yaml:18:11"
    )
    assert (
        "    engine.max_model_len = 131072  (flux/stack.yaml:32:13, servingEngineSpec.modelSpec[0].vllmConfig.maxModelLen)"
        in (result.output)
    )
