"""Kustomize overlays built without kustomize (linter/gitops/kustomize.py, docs/gitops.md).

The repository is tests/fixtures/kustomize, copied into a scratch folder with a ``.git``:
base/ is a vLLM Deployment on image v0.17.1 that passes ``--swap-space`` (removed in vLLM
0.18.0) and a configMapGenerator; overlays/prod moves the image to v0.18.0 (``images``
``newTag``) and patches the container by strategic merge (an env var by name, two GPUs);
overlays/json adds a flag and replaces the replicas by JSON 6902; overlays/bad names a
missing resource, a patch that cannot apply and two patches that are not YAML; helm/ releases
the chart of tests/fixtures/gitops/repo (copied to helm/charts/vllm) with valuesInline.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from gitops_repo import checkout

from linter.gitops.kustomize import build
from linter.model.engine.settings import ModelSettings
from linter.positions import Origin

FIXTURES = Path(__file__).parent / "fixtures"
REPO = FIXTURES / "kustomize"
CHART = FIXTURES / "gitops" / "repo" / "charts" / "vllm"

BASE = "Kustomization/base"
PROD = "Kustomization/overlays/prod"
JSON_ENV = "Kustomization/overlays/json"
BAD = "Kustomization/overlays/bad"
READINESS = ("base/deployment.yaml", 14, 11, "readiness/missing")
GATED = ("base/deployment.yaml", 17, 15, "hub/gated-model-without-token")
BEST_EFFORT = ("base/deployment.yaml", 19, 11, "kubernetes-qos/gpu-pod-best-effort")
BASE_NOTE = "environment Kustomization/base (base/kustomization.yaml): 0 errors, 3 warnings, 0 info"
IMAGE_NOTE = (
    "[the image is set by the overlay: vllm/vllm-openai:v0.18.0 by "
    "overlays/prod/kustomization.yaml:11 (newTag)]"
)

Run = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return checkout(tmp_path, monkeypatch, REPO, (CHART, "helm/charts/vllm"))


def lint(run_line: Run, *args: str) -> tuple[int, list[tuple[Any, ...]], list[str], dict[str, str]]:
    result = run_line(["lint", "--no-config", "--format", "json", *args])
    report = json.loads(result.output)
    found = [
        (f["file"], f["line"], f["column"], f["rule"], f.get("environments"))
        for f in report["findings"]
    ]
    messages = {f"{f['file']}:{f['line']}": f["message"] for f in report["findings"]}
    return result.exit_code, found, report["notes"], messages


def test_an_overlay_s_strategic_patch_and_image_tag_are_judged_on_the_lines_that_set_them(
    run_line: Run, repo: Path
) -> None:
    code, found, notes, messages = lint(run_line, "overlays/prod/kustomization.yaml")
    assert code == 1
    assert found == [
        (*READINESS, [PROD, BASE]),
        # The patch's HF_TOKEN merged into the container by name: the overlay has a token.
        (*GATED, [BASE]),
        # The base's flag, rejected by the release the overlay's newTag names.
        ("base/deployment.yaml", 18, 15, "vllm/flag-not-accepted", [PROD]),
        (*BEST_EFFORT, [PROD, BASE]),
        ("overlays/prod/kustomization.yaml", 11, 5, "shutdown/vllm-aborts-on-sigterm", [PROD]),
        ("overlays/prod/token.yaml", 16, 15, "gpu/idle-gpus", [PROD]),
    ]
    assert messages["base/deployment.yaml:18"] == (
        "--swap-space is not a flag of vLLM 0.18.0: removed in vLLM 0.18.0 (accepted in "
        "0.6.0–0.17.1); vllm serve exits at once (unrecognized arguments: --swap-space); "
        f"delete it {IMAGE_NOTE}"
    )
    # The patch's own line says what it set: no overlay note there.
    assert IMAGE_NOTE not in messages["overlays/prod/token.yaml:16"]
    assert notes == [
        "environment Kustomization/overlays/prod (overlays/prod/kustomization.yaml + images "
        "vllm/vllm-openai:v0.18.0 (overlays/prod/kustomization.yaml:11)): 1 error, 4 warnings, "
        "0 info",
        BASE_NOTE,
    ]


def test_a_json_6902_patch_is_judged_on_the_line_of_its_value(run_line: Run, repo: Path) -> None:
    code, found, notes, _ = lint(run_line, "overlays/json/kustomization.yaml")
    assert code == 1
    assert found == [
        (*READINESS, [JSON_ENV, BASE]),
        (*GATED, [JSON_ENV, BASE]),
        (*BEST_EFFORT, [JSON_ENV, BASE]),
        ("overlays/json/kustomization.yaml", 8, 9, "gpu/world-size-above-gpus", [JSON_ENV]),
    ]
    assert notes[0] == (
        "environment Kustomization/overlays/json (overlays/json/kustomization.yaml): "
        "1 error, 3 warnings, 0 info"
    )


def test_a_base_is_judged_alone(run_line: Run, repo: Path) -> None:
    code, found, notes, _ = lint(run_line, "--no-chart-context", "base/kustomization.yaml")
    assert code == 0
    assert found == [(*READINESS, [BASE]), (*GATED, [BASE]), (*BEST_EFFORT, [BASE])]
    assert notes == [BASE_NOTE]


def test_helm_charts_values_inline_is_a_release_of_the_chart_in_the_repository(
    run_line: Run, repo: Path
) -> None:
    code, found, notes, _ = lint(run_line, "helm/kustomization.yaml")
    assert code == 1
    assert found == [
        ("helm/charts/vllm/values.yaml", 12, 1, BEST_EFFORT[3], ["Kustomization/helm"]),
        (
            "helm/kustomization.yaml",
            7,
            9,
            "vllm-kv/one-sequence-does-not-fit",
            ["Kustomization/helm"],
        ),
    ]
    assert notes == [
        "environment Kustomization/helm (helm/charts/vllm/values.yaml + helm/kustomization.yaml "
        "helmCharts[0].valuesInline): 1 error, 1 warning, 0 info"
    ]


def test_bad_input_is_a_note_with_file_and_line(run_line: Run, repo: Path) -> None:
    code, found, notes, _ = lint(run_line, "overlays/bad/kustomization.yaml")
    assert code == 0
    assert found == [(*READINESS, [BAD, BASE]), (*GATED, [BAD, BASE]), (*BEST_EFFORT, [BAD, BASE])]
    assert notes == [
        "overlays/bad/kustomization.yaml:3: missing.yaml: no such file or folder",
        "overlays/bad/kustomization.yaml:7: /spec/template/spec/nodeSelector: no such key in "
        "the target; the operation is not applied",
        "overlays/bad/broken.yaml:4: not read: invalid YAML: did not find expected ',' or '}' "
        "while parsing a flow mapping started at line 3, column 11",
        "overlays/bad/kustomization.yaml:11: the patch is not valid YAML: invalid YAML: did "
        "not find expected node content while parsing a flow node",
        "environment Kustomization/overlays/bad (overlays/bad/kustomization.yaml): 0 errors, "
        "3 warnings, 0 info",
        BASE_NOTE,
    ]


def test_a_changed_base_file_re_judges_its_overlays(run_line: Run, repo: Path) -> None:
    # What pre-commit passes when only the base's Deployment changed.
    code, found, notes, messages = lint(run_line, "base/deployment.yaml")
    assert code == 1
    assert ("base/deployment.yaml", 18, 15, "vllm/flag-not-accepted", [PROD]) in found
    assert IMAGE_NOTE in messages["base/deployment.yaml:18"]
    assert (*READINESS, [BASE, BAD, JSON_ENV, PROD]) in found
    assert [n.split(" (")[0] for n in notes if n.startswith("environment")] == [
        f"environment {BASE}",
        f"environment {BAD}",
        f"environment {JSON_ENV}",
        f"environment {PROD}",
    ]
    # With --no-chart-context the file is judged as the file it is.
    alone = run_line(["lint", "--no-config", "--no-chart-context", "base/deployment.yaml"])
    assert "vllm/flag-not-accepted" not in alone.output
    assert "Kustomization/" not in alone.output


def test_the_build_renames_places_and_generates(repo: Path) -> None:
    prod = build(Path("overlays/prod"), ModelSettings())
    deployment, config = prod.objects
    assert deployment.data["metadata"] == {"name": "prod-vllm", "namespace": "llm"}
    assert config.data == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "prod-vllm-env", "namespace": "llm"},
        "data": {"LOG_LEVEL": "info"},
    }
    assert config.locate(("data", "LOG_LEVEL")) == Origin(
        "base/kustomization.yaml", 8, 9, 0, "data.LOG_LEVEL"
    )
    container = ("spec", "template", "spec", "containers", 0)
    assert deployment.data["spec"]["template"]["spec"]["containers"][0]["env"][0]["name"] == (
        "HF_TOKEN"
    )
    assert deployment.locate((*container, "image"))[:3] == (
        "overlays/prod/kustomization.yaml",
        11,
        5,
    )
    assert deployment.locate((*container, "args", 1))[:2] == ("base/deployment.yaml", 18)
    assert {os.path.relpath(r, repo) for r in prod.reads} == {
        "base/deployment.yaml",
        "base/kustomization.yaml",
        "overlays/prod/kustomization.yaml",
        "overlays/prod/token.yaml",
    }
    json_build = build(Path("overlays/json"), ModelSettings())
    (patched, _) = json_build.objects
    assert patched.data["spec"]["replicas"] == 2
    assert patched.locate(("spec", "replicas"))[:2] == ("overlays/json/kustomization.yaml", 11)
    assert patched.data["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "--model=meta-llama/Llama-3.1-8B-Instruct",
        "--swap-space=4",
        "--tensor-parallel-size=8",
    ]


def test_the_older_patch_fields_are_read(repo: Path) -> None:
    folder = repo / "overlays" / "old"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(
        "resources: [../../base]\n"
        "patchesStrategicMerge:\n"
        "  - |\n"
        "    kind: Deployment\n"
        "    metadata: {name: vllm}\n"
        "    spec:\n"
        "      template:\n"
        "        spec:\n"
        "          containers:\n"
        "            - name: vllm\n"
        "              ports: [{containerPort: 8000}]\n"
        "patchesJson6902:\n"
        "  - target: {group: apps, version: v1, kind: Deployment, name: vllm}\n"
        "    path: ops.yaml\n"
    )
    (folder / "ops.yaml").write_text(
        "- op: remove\n  path: /spec/template/spec/containers/0/args/1\n"
        "- op: move\n  from: /spec/replicas\n  path: /spec/x\n"
    )
    old = build(Path("overlays/old"), ModelSettings())
    deployment = old.objects[0]
    container = deployment.data["spec"]["template"]["spec"]["containers"][0]
    assert container["ports"] == [{"containerPort": 8000}]
    assert container["args"] == ["--model=meta-llama/Llama-3.1-8B-Instruct"]
    at = ("spec", "template", "spec", "containers", 0)
    assert deployment.locate((*at, "ports", 0, "containerPort"))[:2] == (
        "overlays/old/kustomization.yaml",
        11,
    )
    assert deployment.locate((*at, "image"))[:2] == ("base/deployment.yaml", 15)
    assert old.notes == ["overlays/old/ops.yaml:3: the JSON 6902 operation move is not applied"]


def test_worker_processes_name_every_environment_of_a_base_finding(
    run_line: Run, repo: Path
) -> None:
    # 60 more files: the run forks workers, each building the bases of its own overlays.
    (repo / "extra").mkdir()
    for number in range(60):
        (repo / "extra" / f"c{number}.yaml").write_text(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{number}}}\n"
        )
    _, found, _, messages = lint(run_line, ".")
    assert (*READINESS, [BASE, BAD, JSON_ENV, PROD]) in found
    assert (*GATED, [BASE, BAD, JSON_ENV]) in found
    assert ("base/deployment.yaml", 18, 15, "vllm/flag-not-accepted", [PROD]) in found
    assert IMAGE_NOTE in messages["base/deployment.yaml:18"]
    assert [f for f in found if f[:4] == READINESS] == [(*READINESS, [BASE, BAD, JSON_ENV, PROD])]


def test_show_prints_each_build_with_the_line_of_every_setting(run_line: Run, repo: Path) -> None:
    result = run_line(["show", "--no-config", "overlays/prod/kustomization.yaml"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    heads = [line for line in lines if line and not line.startswith(" ")]
    assert heads == [
        "Deployment/llm/prod-vllm [Kustomization/overlays/prod] (Deployment) at "
        "base/deployment.yaml:1:1",
        "Deployment/default/vllm [Kustomization/base] (Deployment) at base/deployment.yaml:1:1",
    ]
    image = "spec.template.spec.containers[0].image"
    swap = "spec.template.spec.containers[0].args[1]"
    assert (
        f"    engine.image = 'vllm/vllm-openai:v0.18.0'  (overlays/prod/kustomization.yaml:11:5, {image})"
        in lines
    )
    assert (
        f"    engine.image = 'vllm/vllm-openai:v0.17.1'  (base/deployment.yaml:15:11, {image})"
        in lines
    )
    assert f"    engine.swap_space = 4.0  (base/deployment.yaml:18:15, {swap})" in lines
