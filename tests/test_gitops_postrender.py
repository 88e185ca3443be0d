"""Flux ``spec.postRenderers[].kustomize`` (linter/gitops/postrender.py): applied to the
pod a chart profile assembles with the Kustomize code, and named in coverage wherever
they cannot be applied.

tests/fixtures/gitops/postrender/release.yaml: a production-stack release whose
post-renderer sets the image to vLLM 0.18.0 (images newTag), appends --swap-space to the
server's args (JSON 6902), adds VLLM_SERVER_DEV_MODE (strategic merge) and patches the
Service (not among what servelint reads of the release).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from gitops_repo import checkout, findings

FIXTURES = Path(__file__).parent / "fixtures" / "gitops"
ENV = ["HelmRelease/stack"]
FIX = (
    "lint the rendered release (helm template ... | kustomize, or lint --chart of a chart "
    "in this repository), or patch the values instead of the rendered manifests"
)

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, FIXTURES / "postrender")


def not_understood(result: Result) -> list[tuple[str, int, str, str]]:
    files = json.loads(result.output)["coverage"]["files"]
    return [
        (n["file"], n["line"], n["what"], n["evidence"])
        for f in files
        for n in f.get("notUnderstood", [])
        if n["fix"] == FIX
    ]


def test_patches_and_images_are_judged_on_the_post_renderer_s_lines(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "release.yaml"])
    assert (result.exit_code, findings(result)) == (
        1,
        [
            # The images entry's newTag makes the server vLLM 0.18.0 ...
            ("release.yaml", 17, 13, "shutdown/vllm-aborts-on-sigterm", ENV),
            # ... which no longer accepts the flag the JSON 6902 patch appends,
            ("release.yaml", 24, 17, "vllm/flag-not-accepted", ENV),
            # and the strategic merge patch's env variable, on the patch's line.
            ("release.yaml", 39, 29, "diagnostics/development-endpoints", ENV),
        ],
    )
    # The Service patch is not applied: named, with its line.
    assert not_understood(result) == [
        (
            "release.yaml",
            40,
            "postRenderers of HelmRelease stack",
            "not applied: the patch's target Service is not among the resources read",
        )
    ]


def test_show_places_the_image_on_the_images_entry(run_line: Run, repo: Path) -> None:
    result = run_line(["show", "release.yaml"])
    assert "    engine.image = 'vllm/vllm-openai:v0.18.0'  (release.yaml:17:13" in result.output


def test_a_patch_of_a_path_the_pod_does_not_hold_is_named(run_line: Run, repo: Path) -> None:
    text = (repo / "release.yaml").read_text()
    (repo / "release.yaml").write_text(
        text.replace("/spec/template/spec/containers/0/args/-", "/spec/strategy/type")
    )
    result = run_line(["lint", "--format", "json", "release.yaml"])
    assert ("release.yaml", 24, 17, "vllm/flag-not-accepted", ENV) not in findings(result)
    assert not_understood(result)[0] == (
        "release.yaml",
        22,
        "postRenderers of HelmRelease stack",
        "not applied: /spec/strategy/type: no such path in the target; the operation is not "
        "applied",
    )


def test_a_release_of_a_chart_of_this_repository_names_its_post_renderers(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = checkout(tmp_path, monkeypatch, FIXTURES / "repo")
    (repo / "flux" / "post.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: helm.toolkit.fluxcd.io/v2
            kind: HelmRelease
            metadata:
              name: local
            spec:
              chart:
                spec:
                  chart: ./charts/vllm
                  sourceRef: {kind: GitRepository, name: flux-system}
              postRenderers:
                - kustomize:
                    images:
                      - {name: vllm/vllm-openai, newTag: v0.18.0}
            """
        )
    )
    result = run_line(["lint", "--fail-on-unchecked", "--format", "json", "flux/post.yaml"])
    assert result.exit_code == 1
    assert not_understood(result) == [
        (
            "flux/post.yaml",
            11,
            "postRenderers of HelmRelease local",
            "not applied: the Kustomize patches and images apply to the chart's rendered "
            "manifests, which are not rendered here (the values are read as the chart's "
            "values)",
        )
    ]


def test_a_release_read_without_a_profile_names_its_post_renderers(
    run_line: Run, repo: Path
) -> None:
    text = (repo / "release.yaml").read_text()
    (repo / "release.yaml").write_text(text.replace("chart: vllm-stack", "chart: other"))
    result = run_line(["lint", "--format", "json", "release.yaml"])
    assert not_understood(result) == [
        (
            "release.yaml",
            14,
            "postRenderers of HelmRelease stack",
            "not applied: the Kustomize patches and images apply to the rendered manifests; "
            "no chart profile reads this chart, so they are not applied",
        )
    ]


def test_the_older_spellings_written_as_objects(run_line: Run, repo: Path) -> None:
    result = run_line(["lint", "--format", "json", "older.yaml"])
    # The JSON 6902 operation appends VLLM_SERVER_DEV_MODE to the server's env.
    assert (result.exit_code, findings(result)) == (
        0,
        [("older.yaml", 34, 53, "diagnostics/development-endpoints", ENV)],
    )
    assert not_understood(result) == [
        (
            "older.yaml",
            17,
            "postRenderers of HelmRelease stack",
            "not applied: the patch's target Deployment/vllm-llama8b-deployment-vllm is not "
            "among the resources read",
        )
    ]
