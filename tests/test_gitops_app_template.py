"""The bjw-s app-template chart through its chart profiles (profiles/app-template*.yaml,
linter/model/frontends/app_template.py), and chart profiles chosen by the release's chart version
(metadata.chartVersions, linter/model/frontends/chart_versions.py).

tests/fixtures/gitops/apptemplate holds a HelmRelease of app-template 4.1.1 shaped like
those of home-lab GitOps repositories (a vLLM controller, a proxy controller, a
memory-backed /dev/shm from persistence) and an Argo CD Application of app-template 3.7.3.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from gitops_repo import checkout, findings

from linter.model.frontends import chart_versions

FIXTURES = Path(__file__).parent / "fixtures" / "gitops" / "apptemplate"
DOES_NOT_FIT = "vllm-kv/one-sequence-does-not-fit"

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, FIXTURES)


def _release(repo: Path, version: str) -> str:
    text = (repo / "release.yaml").read_text().replace("version: 4.1.1", f"version: {version}")
    (repo / "other.yaml").write_text(text)
    return "other.yaml"


def test_a_controller_s_container_is_a_workload_judged_on_the_release_s_lines(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "release.yaml"])
    # 4.x merges defaultPodOptions.nodeSelector (the L4) with the controller's own: the
    # KV cache of 131072 tokens is judged on the args line that set it.
    assert (result.exit_code, findings(result)) == (
        1,
        [("release.yaml", 36, 17, DOES_NOT_FIT, ["HelmRelease/llm"])],
    )


def test_the_container_the_chart_renders(run_line: Run, repo: Path) -> None:
    result = run_line(["show", "release.yaml"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    # One workload: the proxy controller runs no server.
    assert [x for x in lines if x.startswith("helmrelease:")] == [
        "helmrelease:release.yaml@llm:controllers.vllm [HelmRelease/llm] (HelmValues) at "
        "release.yaml:22:7"
    ]
    assert "  gpu: NVIDIA-L4 × 1, told by manifest" in lines
    assert (
        "    engine.max_model_len = 131072  (release.yaml:36:17, "
        "controllers.vllm.containers.app.args[3])"
    ) in lines


def test_version_3_replaces_the_default_pod_options_so_the_gpu_is_unknown(
    run_line: Run, repo: Path
) -> None:
    # The same values on app-template 3.7.3: the controller's nodeSelector replaces the
    # default one whole, the GPU type is not known, and the KV cache is not judged.
    result = run_line(["lint", "--format", "json", _release(repo, "3.7.3")])
    assert (result.exit_code, findings(result)) == (0, [])
    text = run_line(["lint", _release(repo, "3.7.3")])
    assert "coverage: not checked for a missing fact: GPU memory on 1 workload" in text.output


def test_a_version_no_profile_covers_is_named_in_coverage(run_line: Run, repo: Path) -> None:
    result = run_line(["lint", "--fail-on-unchecked", "-v", _release(repo, "2.6.0")])
    assert result.exit_code == 1
    assert (
        "not understood: other.yaml:4:1: chart app-template 2.6.0 (HelmRelease llm): no chart "
        "profile covers version 2.6.0 (app-template-3 >=3.0.0 <4.0.0, app-template >=4.0.0); "
        "fix: describe this chart version with a chart profile (metadata.chartVersions, "
        "docs/gitops.md), or lint the chart with --chart so the rendered manifests are read"
    ) in result.output.splitlines()


def test_an_application_s_target_revision_selects_the_profile_and_args_are_judged(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "application.yaml"])
    env = ["Application/vllm"]
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("application.yaml", 18, 55, "shutdown/vllm-aborts-on-sigterm", env),
            # --swap-space, removed in vLLM 0.18.0, in the container's args.
            ("application.yaml", 20, 24, "vllm/flag-not-accepted", env),
            ("application.yaml", 21, 17, "kubernetes-qos/gpu-pod-best-effort", env),
        ],
    )


def test_an_oci_chart_ref_not_in_the_repository_is_taken_by_its_name(
    run_line: Run, repo: Path
) -> None:
    text = (repo / "release.yaml").read_text()
    start = text.index("  chart:\n")
    end = text.index("  values:\n")
    ref = "  chartRef:\n    kind: OCIRepository\n    name: app-template\n"
    (repo / "other.yaml").write_text(text[:start] + ref + text[end:])
    result = run_line(["lint", "--format", "json", "other.yaml"])
    assert (result.exit_code, findings(result)) == (
        1,
        [("other.yaml", 32, 17, DOES_NOT_FIT, ["HelmRelease/llm"])],
    )
    assert json.loads(result.output)["notes"][0] == (
        "other.yaml:4: HelmRelease llm: chartRef OCIRepository app-template (not in this "
        "repository: taken as chart app-template)"
    )


def test_kustomize_helm_charts_version_selects_the_profile(run_line: Run, repo: Path) -> None:
    (repo / "kustomization.yaml").write_text(
        textwrap.dedent(
            """\
            helmCharts:
              - name: app-template
                repo: oci://ghcr.io/bjw-s-labs/helm
                version: 2.6.0
                valuesInline:
                  controllers:
                    main:
                      containers:
                        main:
                          image: {repository: vllm/vllm-openai, tag: v0.11.0}
            """
        )
    )
    result = run_line(["lint", "-v", "kustomization.yaml"])
    assert "not understood: kustomization.yaml:2:1: chart app-template 2.6.0" in result.output


@pytest.mark.parametrize(
    ("text", "version", "held"),
    [
        (">=3.0.0 <4.0.0", "3.7.3", True),
        (">=3.0.0 <4.0.0", "4.0.0", False),
        (">=4.0.0", "v4.1.1", True),
        ("<0.1.6", "0.1.5", True),
        ("<0.1.6", "0.1.6-rc.1", False),
        ("<3 || >=4.1", "4.1.0", True),
        ("<3 || >=4.1", "3.2", False),
        (">=1.0.0", "main", False),
        ("", "anything", True),
    ],
)
def test_version_ranges(text: str, version: str, held: bool) -> None:
    assert chart_versions.contains(text, version) is held


def test_open_ended_ranges_are_the_newest_releases() -> None:
    assert [chart_versions.open_ended(t) for t in (">=4.0.0", ">=3 <4", "", "<1 || >2")] == [
        True,
        False,
        True,
        True,
    ]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        # 0.1.3-0.1.5: VLLM_USE_V1=0, so vLLM 0.9.2 runs the V0 engine, where chunked
        # prefill is off below 32768 tokens and 8192 batched tokens cannot hold one prompt.
        ("0.1.5", [("stack.yaml", 26, 51, "vllm/batched-tokens-below-max-model-len")]),
        ("0.1.3", [("stack.yaml", 26, 51, "vllm/batched-tokens-below-max-model-len")]),
        # 0.1.6 on: VLLM_USE_V1 only with vllmConfig.v0: 1; before 0.1.3 only with v1.
        ("0.1.6", []),
        ("0.1.2", []),
        # No version: the newest chart's reading, as for a values file.
        ("", []),
    ],
)
def test_production_stack_s_renamed_v1_key_is_read_by_chart_version(
    run_line: Run, repo: Path, version: str, expected: list[tuple[str, int, int, str]]
) -> None:
    text = (repo / "stack.yaml").read_text()
    (repo / "stack.yaml").write_text(text.replace("0.1.5", version))
    result = run_line(["lint", "--format", "json", "stack.yaml"])
    env = ["HelmRelease/stack"]
    assert (result.exit_code, findings(result)) == (
        1 if expected else 0,
        [(*f, env) for f in expected],
    )


def test_a_v1_key_before_0_1_6_is_the_variable_s_value(run_line: Run, repo: Path) -> None:
    text = (repo / "stack.yaml").read_text()
    (repo / "stack.yaml").write_text(text.replace("16384", "16384\n            v1: 1"))
    result = run_line(["lint", "--format", "json", "stack.yaml"])
    assert (result.exit_code, findings(result)) == (0, [])
    shown = run_line(["show", "stack.yaml"])
    assert (
        "    pod.containers[0].env.VLLM_USE_V1 = '1'  (stack.yaml:26:13, "
        "servingEngineSpec.modelSpec[0].vllmConfig.v1)"
    ) in shown.output.splitlines()


def test_a_values_file_of_app_template_is_detected_by_its_controllers(
    run_line: Run, repo: Path
) -> None:
    (repo / "values.yaml").write_text(
        textwrap.dedent(
            """\
            controllers:
              vllm:
                containers:
                  app:
                    image: {repository: vllm/vllm-openai, tag: v0.18.0}
                    args: [--model, Qwen/Qwen2.5-7B-Instruct, --swap-space, "4"]
                    resources: {limits: {nvidia.com/gpu: 1}}
            """
        )
    )
    # Another chart's "controllers" key (a list, no containers map) is not app-template.
    (repo / "other-values.yaml").write_text("controllers:\n  - name: x\n")
    result = run_line(["lint", "--format", "json", "values.yaml", "other-values.yaml"])
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("values.yaml", 5, 47, "shutdown/vllm-aborts-on-sigterm", []),
            ("values.yaml", 6, 51, "vllm/flag-not-accepted", []),
            ("values.yaml", 7, 9, "kubernetes-qos/gpu-pod-best-effort", []),
        ],
    )


def test_each_wrapper_s_version_selects_the_profile(repo: Path) -> None:
    from linter.gitops.kustomize import build
    from linter.gitops.read import wrapped_releases
    from linter.model.engine.settings import ModelSettings
    from linter.parsing.documents import parse_yaml

    settings = ModelSettings()

    def profile_of(name: str) -> str | None:
        releases, _ = wrapped_releases(parse_yaml(name, (repo / name).read_text()), settings)
        return releases[0].chart.profile

    (repo / "kustomize").mkdir()
    (repo / "kustomize" / "kustomization.yaml").write_text(
        "helmCharts:\n  - name: app-template\n    version: 3.2.1\n"
    )
    charts = build(repo / "kustomize", settings).charts
    assert [
        profile_of("release.yaml"),  # spec.chart.spec.version 4.1.1
        profile_of(_release(repo, "3.7.3")),
        profile_of("application.yaml"),  # targetRevision 3.7.3
        charts[0].chart.profile,  # helmCharts version 3.2.1
        profile_of(_release(repo, "2.6.0")),
    ] == ["app-template", "app-template-3", "app-template-3", "app-template-3", None]
