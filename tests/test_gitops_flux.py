"""Flux HelmReleases read as releases of their chart (linter/gitops/, docs/gitops.md).

The repository is tests/fixtures/gitops/repo, copied into a scratch folder that gets a
``.git`` (the wrapper's chart path is relative to the repository root): charts/vllm is a
chart of this repository (its values.yaml names Llama-3.1-8B on an L4), flux/ holds the
HelmReleases and the ConfigMap and Secret their ``valuesFrom`` names.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
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

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, REPO)


def notes(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("note:")]


def test_a_release_of_a_chart_in_this_repository_with_values_from_a_configmap_and_a_secret(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "flux/release.yaml"])
    env = ["HelmRelease/vllm-prod"]
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("charts/vllm/values.yaml", 12, 1, BEST_EFFORT, env),
            # The ConfigMap's values.yaml and the Secret's overrides.yaml, on their lines.
            ("flux/configs.yaml", 10, 7, UNREAD, []),
            ("flux/configs.yaml", 20, 7, UNREAD, []),
            # The Secret's gpuMemoryUtilization 0.97 leaves little outside vLLM's budget.
            ("flux/configs.yaml", 20, 7, "vllm/gpu-memory-utilization-no-headroom", env),
            ("flux/release.yaml", 30, 7, DOES_NOT_FIT, env),
        ],
    )


def test_the_secret_s_values_are_never_printed_and_the_missing_configmap_is_named(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "flux/release.yaml"])
    assert result.exit_code == 1
    assert "0.97" not in result.output
    # The Secret's gpuMemoryUtilization 0.97 is merged: the room left is that of 0.97.
    assert "room for at most 56211 tokens" in result.output
    assert "gpu_memory_utilization ****" in result.output
    assert notes(result) == [
        "note: flux/release.yaml:25: HelmRelease vllm-prod: valuesFrom ConfigMap "
        "not-in-this-repository: not found in this repository; its values are not judged",
        "note: environment HelmRelease/vllm-prod (charts/vllm/values.yaml + flux/configs.yaml "
        "ConfigMap/vllm-prod-values (valuesFrom[0]) + flux/configs.yaml Secret/vllm-prod-secret "
        "(valuesFrom[1]) + flux/configs.yaml ConfigMap/vllm-prod-values (valuesFrom[2]) + "
        "flux/release.yaml spec.values): 1 error, 2 warnings, 0 info",
    ]


def test_a_release_of_a_repository_chart_is_read_with_its_profile(
    run_line: Run, repo: Path
) -> None:
    result = run_line(["lint", "--format", "json", "flux/stack.yaml"])
    env = ["HelmRelease/stack"]
    assert (result.exit_code, findings(result)) == (
        1,
        [
            ("flux/stack.yaml", 18, 11, "sizing/gpu-server-without-memory-limit", env),
            ("flux/stack.yaml", 33, 13, "gpu/world-size-above-gpus", env),
        ],
    )


def test_a_chart_no_profile_names_is_read_by_its_layout_and_said(run_line: Run, repo: Path) -> None:
    (repo / "flux" / "other.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: helm.toolkit.fluxcd.io/v2beta1
            kind: HelmRelease
            metadata:
              name: other
            spec:
              chartRef:
                kind: OCIRepository
                name: other-chart
              values:
                image:
                  repository: vllm/vllm-openai
                  tag: v0.11.0
                args: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "4"]
                resources:
                  limits:
                    nvidia.com/gpu: 1
            ---
            apiVersion: source.toolkit.fluxcd.io/v1beta2
            kind: OCIRepository
            metadata:
              name: other-chart
            spec:
              url: oci://ghcr.io/example/charts/other
              ref:
                tag: 1.2.3
            """
        )
    )
    result = run_line(["lint", "flux/other.yaml"])
    assert result.exit_code == 0
    assert notes(result) == [
        "note: flux/other.yaml:1: HelmRelease other: chart other 1.2.3 (OCIRepository "
        "other-chart): no chart profile names it; its values are read by their layout alone",
        "note: environment HelmRelease/other (flux/other.yaml spec.values): 0 errors, 2 warnings, "
        "0 info",
    ]
    # Without the chart, the values say what the pod gets only if the chart renders them so.
    assert "flux/other.yaml:13:85: warning gpu/world-size-above-gpus-in-values" in result.output


# The same values as a values file of the chart and inline in a HelmRelease: the findings
# are the same, moved from the file's lines to the release's (4 columns to the right).
EQUIVALENT = [
    pytest.param(
        "chart: ./charts/vllm\n      sourceRef: {kind: GitRepository, name: flux-system}",
        "charts/vllm/values.yaml",
        "vllm:\n  maxModelLen: 131072\n  maxNumSeqs: 64\nreplicaCount: 3\n",
        id="chart-in-repository",
    ),
    pytest.param(
        "chart: vllm-stack\n      sourceRef: {kind: HelmRepository, name: vllm}",
        None,
        (FIXTURES / "sizing" / "values" / "production-stack.yaml").read_text(),
        id="production-stack-profile",
    ),
    pytest.param(
        "chart: llm-d-modelservice\n      sourceRef: {kind: HelmRepository, name: llm-d}",
        None,
        (FIXTURES / "sglang" / "llmd" / "values.yaml").read_text(),
        id="llm-d-modelservice-profile",
    ),
]
HEADER = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: same
spec:
  chart:
    spec:
      {chart}
  values:
"""


@pytest.mark.parametrize(("chart", "chart_values", "values"), EQUIVALENT)
def test_inline_values_find_what_the_same_values_file_finds(
    run_line: Run, repo: Path, chart: str, chart_values: str | None, values: str
) -> None:
    # A values file of the chart, linted alone: one release over the chart's values; with
    # no chart here, the profile reads the file alone.
    values_file = "charts/vllm/values-same.yaml" if chart_values else "values-same.yaml"
    (repo / values_file).write_text(values)
    header = HEADER.format(chart=chart)
    (repo / "release.yaml").write_text(header + textwrap.indent(values, "    "))
    shift = header.count("\n")
    as_file = run_line(["lint", "--format", "json", values_file])
    inline = run_line(["lint", "--format", "json", "release.yaml"])

    def moved(found: dict[str, Any]) -> tuple[Any, ...]:
        if found["file"] == values_file:
            found = {**found, "file": "release.yaml"}
            found["line"] += shift
            found["column"] += 4
        return (found["file"], found["line"], found["column"], found["rule"], found["message"])

    expected = [moved(f) for f in json.loads(as_file.output)["findings"]]
    got = [moved(f) for f in json.loads(inline.output)["findings"]]
    assert expected  # each case finds something to compare
    assert (inline.exit_code, sorted(got)) == (as_file.exit_code, sorted(expected))


def test_a_values_file_alone_does_not_load_the_gitops_readers(tmp_path: Path) -> None:
    # A repository without wrappers, as the hook benchmark's: none of linter/gitops loads.
    (tmp_path / ".git").mkdir()
    values = tmp_path / "values-prod.yaml"
    shutil.copy(FIXTURES / "sizing" / "values" / "production-stack.yaml", values)
    script = (
        "import sys\n"
        "from linter.cli import main\n"
        f"code = main(['lint', '--no-config', {str(values)!r}])\n"
        "print(code, [m for m in sys.modules if m.startswith('linter.gitops')], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.stderr.strip().splitlines()[-1] == "0 []"
