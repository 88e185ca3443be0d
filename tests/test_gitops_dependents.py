"""Environments re-judged when what they inherit changes (linter/run/dependents.py).

pre-commit passes the changed files alone: a chart's values.yaml, Chart.yaml or template
(without another values file of the chart) judges every environment of the chart, as a
run over the chart's folder does; a ConfigMap a HelmRelease reads, or a values file an
Application names, judges that release; a chart profile of model.profileDirs judges the
releases it reads. (A changed Kustomize base: test_gitops_kustomize.py.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from gitops_repo import checkout, findings

FIXTURES = Path(__file__).parent / "fixtures"
CONTEXT_CHART = FIXTURES / "helm" / "context" / "charts" / "vllm"
REPO = FIXTURES / "gitops" / "repo"
DOES_NOT_FIT = "vllm-kv/one-sequence-does-not-fit"

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The GitOps repository, with the chart of test_helm_context.py (values.yaml,
    values-prod.yaml, values-staging.yaml) at charts/envs."""
    return checkout(tmp_path, monkeypatch, REPO, (CONTEXT_CHART, "charts/envs"))


@pytest.mark.parametrize(
    "changed",
    ["charts/envs/values.yaml", "charts/envs/Chart.yaml"],
    ids=["values.yaml", "Chart.yaml"],
)
def test_a_file_every_environment_inherits_judges_them_all_as_a_full_run(
    run_line: Run, repo: Path, changed: str
) -> None:
    full = run_line(["lint", "charts/envs/"])
    alone = run_line(["lint", changed])
    assert (alone.exit_code, alone.output) == (full.exit_code, full.output)
    assert "charts/envs/values-prod.yaml:4:3: error vllm-kv/one-sequence-does-not-fit" in (
        alone.output
    )
    assert " [prod]\n" in alone.output


def test_values_yaml_with_an_environment_s_file_judges_the_environments_given(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "charts/envs/values.yaml", "charts/envs/values-prod.yaml"])
    notes = [line for line in result.output.splitlines() if line.startswith("note: environment")]
    assert [n.split(" (")[0] for n in notes] == [
        "note: environment default",
        "note: environment prod",
    ]


def test_a_values_file_of_one_environment_is_still_that_release_alone(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "charts/envs/values-staging.yaml"])
    assert (result.exit_code, findings(result)) == (
        0,
        [
            ("charts/envs/values.yaml", 10, 3, "vllm-kv/max-num-seqs-exceeds-kv-cache", []),
            ("charts/envs/values.yaml", 12, 1, "kubernetes-qos/gpu-pod-best-effort", []),
        ],
    )


def test_a_configmap_a_helm_release_reads_judges_the_release(run_line: Run, repo: Path) -> None:
    result = run_line(["lint", "--format", "json", "flux/configs.yaml"])
    assert result.exit_code == 1
    assert ("flux/release.yaml", 30, 7, DOES_NOT_FIT, ["HelmRelease/vllm-prod"]) in findings(result)


def test_a_values_file_an_application_names_judges_the_application(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "envs/prod/vllm.yaml"])
    assert result.exit_code == 1
    assert [f for f in findings(result) if f[3] == DOES_NOT_FIT] == [
        ("argo/application.yaml", 24, 11, DOES_NOT_FIT, ["Application/vllm-app"]),
        ("argo/object.yaml", 17, 13, DOES_NOT_FIT, ["Application/vllm-object"]),
    ]


def test_a_file_no_wrapper_reads_brings_none_in(run_line: Run, repo: Path) -> None:
    (repo / "other.yaml").write_text("vllm:\n  maxNumSeqs: 4\n")
    result = run_line(["lint", "--format", "json", "other.yaml"])
    assert (result.exit_code, findings(result)) == (0, [])


def test_a_chart_s_values_yaml_judges_the_wrappers_that_release_the_chart(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "charts/vllm/values.yaml"])
    assert result.exit_code == 1
    assert [f for f in findings(result) if f[3] == DOES_NOT_FIT] == [
        ("argo/application.yaml", 24, 11, DOES_NOT_FIT, ["Application/vllm-app"]),
        ("argo/appset.yaml", 27, 15, DOES_NOT_FIT, ["ApplicationSet/vllm-large"]),
        ("argo/object.yaml", 17, 13, DOES_NOT_FIT, ["Application/vllm-object"]),
        ("flux/release.yaml", 30, 7, DOES_NOT_FIT, ["HelmRelease/vllm-prod"]),
    ]


def test_a_changed_template_alone_judges_every_environment_as_a_full_run(
    run_line: Run, repo: Path
) -> None:
    full = run_line(["lint", "charts/envs/"])
    alone = run_line(["lint", "charts/envs/templates/deployment.yaml"])
    assert (alone.exit_code, alone.output) == (full.exit_code, full.output)
    assert "charts/envs/values-prod.yaml:4:3: error vllm-kv/one-sequence-does-not-fit" in (
        alone.output
    )
    # The template is not read as a file (it is Go template text): no note tells to lint it.
    assert "a chart template" not in alone.output


def test_a_changed_template_of_a_released_chart_judges_its_wrappers(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "charts/vllm/templates/deployment.yaml"])
    assert result.exit_code == 1
    assert [f for f in findings(result) if f[3] == DOES_NOT_FIT] == [
        ("argo/application.yaml", 24, 11, DOES_NOT_FIT, ["Application/vllm-app"]),
        ("argo/appset.yaml", 27, 15, DOES_NOT_FIT, ["ApplicationSet/vllm-large"]),
        ("argo/object.yaml", 17, 13, DOES_NOT_FIT, ["Application/vllm-object"]),
        ("flux/release.yaml", 30, 7, DOES_NOT_FIT, ["HelmRelease/vllm-prod"]),
    ]


def test_a_changed_chart_profile_judges_the_releases_it_reads_as_a_full_run(
    run_line: Run, repo: Path
) -> None:
    """A profile of model.profileDirs describing vllm-stack: the HelmRelease of that chart
    (flux/stack.yaml) and a values file the profile detects are judged with it."""
    profile = Path(__file__).parents[1] / "profiles" / "vllm-production-stack.yaml"
    (repo / "profiles").mkdir()
    (repo / "profiles" / "stack.yaml").write_text(
        profile.read_text().replace("name: vllm-production-stack", "name: my-stack")
    )
    (repo / ".servelint.yaml").write_text("model:\n  profileDirs: [profiles]\n")
    values = FIXTURES / "sizing" / "values" / "production-stack.yaml"
    (repo / "envs" / "stack-values.yaml").write_text(values.read_text())
    alone = run_line(["lint", "--format", "json", "profiles/stack.yaml"])
    full = run_line(
        [
            "lint",
            "--format",
            "json",
            "profiles/stack.yaml",
            "flux/stack.yaml",
            "envs/stack-values.yaml",
        ]
    )
    assert (alone.exit_code, findings(alone)) == (full.exit_code, findings(full))
    assert findings(alone) == [
        ("envs/stack-values.yaml", 12, 7, "sizing/host-memory-above-request", []),
        (
            "flux/stack.yaml",
            18,
            11,
            "sizing/gpu-server-without-memory-limit",
            ["HelmRelease/stack"],
        ),
        ("flux/stack.yaml", 33, 13, "gpu/world-size-above-gpus", ["HelmRelease/stack"]),
    ]


def test_a_file_outside_the_profile_folders_is_not_a_profile(run_line: Run, repo: Path) -> None:
    (repo / "stack.yaml").write_text("apiVersion: servelint/v1\nkind: ChartProfile\n")
    result = run_line(["lint", "--format", "json", "stack.yaml"])
    assert (result.exit_code, findings(result)) == (0, [])
