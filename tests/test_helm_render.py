"""Rendering with the real helm: output split per template, subcharts, helm's messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.findings import Finding, Severity
from linter.helm.render import find_helm, render, rendered_name, split_rendered
from linter.positions import Span

ROOT = Path(__file__).resolve().parent.parent
UMBRELLA = "tests/fixtures/helm/umbrella"


@pytest.fixture(autouse=True)
def _in_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_each_template_is_one_file_with_its_documents(helm: str) -> None:
    rendered = render(helm, UMBRELLA, "inference", [], [], "x")
    assert (rendered.problems, rendered.warnings) == ([], [])
    assert [f.source for f in rendered.files] == [
        f"{UMBRELLA}/templates/configmaps.yaml (rendered)",
        f"{UMBRELLA}/charts/engine/templates/deployment.yaml (rendered)",
    ]
    configmaps, deployment = rendered.files
    assert [(d.index, d.data["metadata"]["name"]) for d in configmaps.documents] == [
        (0, "a"),
        (1, "b"),
    ]
    # lines as in `helm template --show-only templates/configmaps.yaml`
    assert configmaps.documents[1].line_map[("metadata", "name")] == Span(14, 3)
    assert deployment.documents[0].data["spec"]["replicas"] == 1
    assert deployment.documents[0].line_map[("spec", "replicas")] == Span(8, 3)


def test_values_and_sets_reach_helm(helm: str) -> None:
    rendered = render(
        helm, UMBRELLA, "inference", [f"{UMBRELLA}/values.yaml"], ["engine.replicas=4"], "x"
    )
    assert rendered.files[1].documents[0].data["spec"]["replicas"] == 4


def test_helm_error_in_a_subchart_points_at_its_template(helm: str) -> None:
    rendered = render(helm, UMBRELLA, "inference", [], ["engine.server=5"], "x")
    assert rendered.files == []
    assert rendered.problems == [
        Finding(
            "helm-template",
            Severity.ERROR,
            "helm template failed: inference/charts/engine/templates/deployment.yaml:12:39 "
            'executing "inference/charts/engine/templates/deployment.yaml" at '
            "<.Values.server.port>: can't evaluate field port in type interface {}",
            f"{UMBRELLA}/charts/engine/templates/deployment.yaml",
            12,
            39,
        )
    ]


def test_helm_warnings_become_notes(helm: str) -> None:
    from click.testing import CliRunner

    from linter.cli import cli

    result = CliRunner().invoke(
        cli,
        [
            "lint",
            "--chart",
            UMBRELLA,
            "--set",
            "engine.replicas.x=1",
            "--helm",
            helm,
            "--no-builtin",
            "--policy-dir",
            "tests/fixtures/helm/policies/values-image.yaml",
        ],
    )
    assert result.output.splitlines() == [
        "note: helm: warning: destination for inference.engine.replicas is a table. Ignoring "
        "non-table value (1)",
        "note: helm: warning: skipped value for inference.engine.replicas: Not a table.",
        "<--set>:1:1: warning helm-values engine.replicas is a map here but a number in the "
        f"chart's values ({UMBRELLA}/values.yaml:2:3); Helm keeps this value and warns",
        "0 errors, 1 warning, 0 info in 3 files",
    ]
    assert result.exit_code == 0


def test_output_without_source_comments_keeps_the_chart_name() -> None:
    files = split_rendered("---\napiVersion: v1\nkind: List\n---\n# nothing\n", "c/", "c")
    assert [(f.source, len(f.documents)) for f in files] == [("c (rendered)", 1)]


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("vllm/templates/x.yaml", "charts/vllm/templates/x.yaml (rendered)"),
        ("vllm/charts/sub/templates/y.yaml", "charts/vllm/charts/sub/templates/y.yaml (rendered)"),
        ("other/templates/z.yaml", "charts/vllm/templates/z.yaml (rendered)"),
    ],
)
def test_rendered_names(source: str, name: str) -> None:
    assert rendered_name("charts/vllm/", "vllm", source) == name


def test_find_helm(helm: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert find_helm(helm) == helm
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_helm(None) is None
    monkeypatch.setenv("PATH", str(Path(helm).parent))
    assert find_helm(None) == str(Path(helm).parent / "helm")
