"""Argo CD Applications and ApplicationSets read as releases of their chart
(linter/gitops/argo.py, appset.py; docs/gitops.md). The repository is
tests/fixtures/gitops/repo (see test_gitops_flux.py): argo/ holds the wrappers,
envs/prod/vllm.yaml a values file they name."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from gitops_repo import checkout, findings

FIXTURES = Path(__file__).parent / "fixtures"
REPO = FIXTURES / "gitops" / "repo"
BEST_EFFORT = "kubernetes-qos/gpu-pod-best-effort"
UNREAD = "helm-values/unread-key"
DOES_NOT_FIT = "vllm-kv/one-sequence-does-not-fit"
TOO_MANY_SEQS = "vllm-kv/max-num-seqs-exceeds-kv-cache"

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, REPO)


def test_values_file_string_and_parameters_in_argo_cd_s_order(run_line: Run, repo: Path) -> None:
    result = run_line(["lint", "--format", "json", "argo/application.yaml"])
    env = ["Application/vllm-app"]
    assert (result.exit_code, findings(result)) == (
        1,
        [
            # maxNumSeqs of the values string (line 21 of the file) wins over the file's.
            ("argo/application.yaml", 21, 11, UNREAD, []),
            # The parameter's 131072 wins over the string's 65536.
            ("argo/application.yaml", 24, 11, DOES_NOT_FIT, env),
            ("charts/vllm/values.yaml", 12, 1, BEST_EFFORT, env),
            ("envs/prod/vllm.yaml", 2, 3, UNREAD, []),
        ],
    )


def test_values_object_and_a_values_file_of_a_second_source(run_line: Run, repo: Path) -> None:
    result = run_line(["lint", "argo/object.yaml"])
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("note:")] == [
        "note: environment Application/vllm-object (charts/vllm/values.yaml + "
        "envs/prod/vllm.yaml + argo/object.yaml helm.valuesObject): 1 error, 1 warning, 0 info"
    ]
    assert "argo/object.yaml:17:13: error vllm-kv/one-sequence-does-not-fit" in result.output


def test_an_application_set_list_generator_makes_one_release_per_element(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "argo/appset.yaml"])
    small, large = "ApplicationSet/vllm-small", "ApplicationSet/vllm-large"
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("argo/appset.yaml", 27, 15, DOES_NOT_FIT, [large]),
            ("charts/vllm/values.yaml", 10, 3, TOO_MANY_SEQS, [small]),
            ("charts/vllm/values.yaml", 12, 1, BEST_EFFORT, [small, large]),
        ],
    )
    coverage = json.loads(result.output)["coverage"]
    unknown = [n for f in coverage["files"] for n in f["notUnderstood"]]
    assert [(n["file"], n["line"], n["what"]) for n in unknown] == [
        ("argo/appset.yaml", 15, "ApplicationSet generator clusters")
    ]


def test_a_git_directory_generator_and_force_string(run_line: Run, repo: Path) -> None:
    (repo / "argo" / "dirs.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: argoproj.io/v1alpha1
            kind: ApplicationSet
            metadata:
              name: charts
            spec:
              goTemplate: true
              generators:
                - git:
                    repoURL: https://github.com/example/gitops.git
                    directories:
                      - path: charts/*
              template:
                metadata:
                  name: "{{.path.basename}}"
                spec:
                  source:
                    path: "{{.path.path}}"
                    helm:
                      parameters:
                        - name: vllm.maxModelLen
                          value: "131072"
                        - name: image.tag
                          value: "0.11"
                          forceString: true
            """
        )
    )
    result = run_line(["lint", "--format", "json", "argo/dirs.yaml"])
    env = ["ApplicationSet/vllm"]
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("argo/dirs.yaml", 21, 15, DOES_NOT_FIT, env),
            ("charts/vllm/values.yaml", 12, 1, BEST_EFFORT, env),
        ],
    )


def test_a_path_with_a_chart_and_no_helm_section_is_a_release_of_its_defaults(
    run_line: Run, repo: Path
) -> None:
    (repo / "argo" / "plain.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: plain\n"
        "spec:\n  source:\n    repoURL: https://example.com/x.git\n    path: charts/vllm\n"
    )
    result = run_line(["lint", "--format", "json", "argo/plain.yaml"])
    env = ["Application/plain"]
    assert (result.exit_code, findings(result)) == (
        0,
        [
            ("charts/vllm/values.yaml", 10, 3, TOO_MANY_SEQS, env),
            ("charts/vllm/values.yaml", 12, 1, BEST_EFFORT, env),
        ],
    )


def test_a_values_string_that_is_not_yaml_is_a_finding_on_its_line(
    run_line: Run, repo: Path
) -> None:
    (repo / "argo" / "broken.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: argoproj.io/v1alpha1
            kind: Application
            metadata:
              name: broken
            spec:
              source:
                path: charts/vllm
                helm:
                  values: |
                    vllm:
                      maxModelLen: [1
            """
        )
    )
    result = run_line(["lint", "argo/broken.yaml"])
    assert result.exit_code == 1
    # The end of the string, where the parser gave up: line 3 of the string, column 1.
    assert "argo/broken.yaml:12:9: error helm-values the values string is not valid YAML" in (
        result.output
    )


@pytest.mark.parametrize(
    ("source", "values_file", "values"),
    [
        pytest.param(
            "path: charts/vllm",
            "charts/vllm/values-same.yaml",
            "vllm:\n  maxModelLen: 131072\n  maxNumSeqs: 64\nreplicaCount: 3\n",
            id="chart-in-repository",
        ),
        pytest.param(
            "chart: vllm-stack\n    repoURL: https://vllm-project.github.io/production-stack",
            "values-same.yaml",
            (FIXTURES / "sizing" / "values" / "production-stack.yaml").read_text(),
            id="production-stack-profile",
        ),
        pytest.param(
            "chart: llm-d-modelservice\n    repoURL: https://llm-d.ai/llm-d-modelservice",
            "values-same.yaml",
            (FIXTURES / "sglang" / "llmd" / "values.yaml").read_text(),
            id="llm-d-modelservice-profile",
        ),
    ],
)
def test_a_values_string_finds_what_the_same_values_file_finds(
    run_line: Run, repo: Path, source: str, values_file: str, values: str
) -> None:
    header = (
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: same\n"
        f"spec:\n  source:\n    {source}\n    helm:\n      values: |\n"
    )
    (repo / values_file).write_text(values)
    (repo / "app.yaml").write_text(header + textwrap.indent(values, "        "))
    shift = header.count("\n")
    as_file = run_line(["lint", "--format", "json", values_file])
    inline = run_line(["lint", "--format", "json", "app.yaml"])

    def moved(found: dict[str, Any]) -> tuple[Any, ...]:
        if found["file"] == values_file:
            found = {**found, "file": "app.yaml", "line": found["line"] + shift}
            found["column"] += 8
        return (found["file"], found["line"], found["column"], found["rule"], found["message"])

    expected = sorted(moved(f) for f in json.loads(as_file.output)["findings"])
    got = sorted(moved(f) for f in json.loads(inline.output)["findings"])
    assert expected
    assert (inline.exit_code, got) == (as_file.exit_code, expected)
