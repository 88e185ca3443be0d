"""One committed side: drift reads committed files with lint's front ends (manifests,
values files in their chart, GitOps wrappers) and compares serving-model settings, never
documents (issue 30, item 1)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from gitops_repo import checkout

DRIFT = Path(__file__).parent / "fixtures" / "drift"
COMMITTED = DRIFT / "committed"
LOG = DRIFT / "logs" / "vllm-0.11-dp2.log"
Run = Callable[..., Result]

READ = "read: vLLM 0.11.0: non-default args, scheduler defaults, V1 engine config"


@pytest.fixture(autouse=True)
def _in_committed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(COMMITTED)


def _rows(result: Result) -> list[tuple[str, str, object, object, str]]:
    return [
        (f["rule"], f["path"], f.get("desired"), f.get("live"), f"{f['file']}:{f['line']}")
        for f in json.loads(result.output)["findings"]
    ]


def test_a_deployment_is_compared_by_its_settings_not_as_a_document(run_line: Run) -> None:
    result = run_line(["drift", "-f", "vllm-deployment.yaml", "--live", str(LOG)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{LOG}: in sync (vllm defaults applied; {READ})\n"
        "0 differences in 0 of 1 target, 1 in sync\n"
    )


def test_planted_differences_in_a_deployment_point_at_its_args(
    run_line: Run, tmp_path: Path
) -> None:
    text = (COMMITTED / "vllm-deployment.yaml").read_text()
    planted = tmp_path / "deployment.yaml"
    planted.write_text(
        text.replace("--max-num-seqs=64", "--max-num-seqs=128")
        .replace("--max-model-len=8192", "--max-model-len=16384")
        .replace("            - --enable-prefix-caching\n", "")
    )
    result = run_line(["drift", "-f", str(planted), "--live", str(LOG), "--format", "json"])
    assert result.exit_code == 1
    assert _rows(result) == [
        ("drift/unexpected-live", "enable_prefix_caching", None, True, f"{planted}:3"),
        ("drift/changed", "max_model_len", 16384, 8192, f"{planted}:24"),
        ("drift/changed", "max_num_seqs", 128, 64, f"{planted}:28"),
    ]
    assert not [f for f in json.loads(result.output)["findings"] if f["path"] in ("kind", "spec")]


def test_several_servers_in_one_file_are_matched_by_model_and_named(run_line: Run) -> None:
    result = run_line(["drift", "-f", "two-servers.yaml", "--live", str(LOG), "--format", "json"])
    report = json.loads(result.output)
    assert report["targets"][0]["compared_with"] == (
        "Deployment/default/vllm-chat (Deployment, two-servers.yaml:3)"
    )
    # vllm-code (another model) is not compared: only vllm-chat's settings are.
    assert _rows(result) == [
        (
            "drift/served-model-name",
            "served_model_name",
            None,
            "llama-3.1-8b",
            "two-servers.yaml:3",
        ),
        ("drift/unexpected-live", "data_parallel_size", None, 2, "two-servers.yaml:3"),
        ("drift/unexpected-live", "enable_prefix_caching", None, True, "two-servers.yaml:3"),
    ]
    text = run_line(["drift", "-f", "two-servers.yaml", "--live", str(LOG)])
    assert text.output.splitlines()[0] == (
        f"{LOG}: 3 differences (compared with Deployment/default/vllm-chat (Deployment, "
        f"two-servers.yaml:3); vllm defaults applied; {READ})"
    )


def test_servers_of_one_model_are_matched_by_the_name_of_the_capture(
    run_line: Run, tmp_path: Path
) -> None:
    two = (COMMITTED / "two-servers.yaml").read_text()
    same = tmp_path / "same-model.yaml"
    same.write_text(
        two.replace("Qwen/Qwen2.5-Coder-7B-Instruct", "meta-llama/Llama-3.1-8B-Instruct")
    )
    live = tmp_path / "vllm-code-5d9c7-a2kq9.log"
    live.write_text(LOG.read_text())
    result = run_line(["drift", "-f", str(same), "--live", str(live), "--format", "json"])
    assert json.loads(result.output)["targets"][0]["compared_with"] == (
        f"Deployment/default/vllm-code (Deployment, {same}:15)"
    )
    assert ("drift/changed", "max_model_len", 16384, 8192, f"{same}:25") in _rows(result)
    other = tmp_path / "capture.log"
    other.write_text(LOG.read_text())
    unnamed = run_line(["drift", "-f", str(same), "--live", str(other)])
    assert unnamed.exit_code == 3
    assert unnamed.output == (
        f"{other}: error (no-pairing): several vllm workloads in the committed files match "
        f"(Deployment/default/vllm-chat (Deployment, {same}:3), Deployment/default/vllm-code "
        f"(Deployment, {same}:15)); give the file of one, or pair the sides with "
        "--values-path\n"
        "0 differences in 0 of 1 target, 0 in sync, 1 error\n"
    )


def test_set_and_values_path_belong_to_values_files(run_line: Run) -> None:
    with_set = run_line(["drift", "-f", "vllm-deployment.yaml", "--live", str(LOG), "--set", "a=1"])
    assert with_set.exit_code == 3
    assert with_set.output == (
        "servelint: --set applies to values files; vllm-deployment.yaml is not one (change "
        "the committed file, or give the values file)\n"
    )
    by_path = run_line(
        ["drift", "-f", "vllm-deployment.yaml", "--live", str(LOG), "--values-path", "spec"]
    )
    assert by_path.exit_code == 3
    assert by_path.output == (
        "servelint: --values-path compares a subtree of values files; vllm-deployment.yaml "
        "holds Kubernetes objects or other committed files, whose serving-model settings "
        "are compared without it\n"
    )


def test_a_manifest_without_a_server_says_so(run_line: Run, tmp_path: Path) -> None:
    config = tmp_path / "cm.yaml"
    config.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
    result = run_line(["drift", "-f", str(config), "--live", str(LOG)])
    assert result.exit_code == 3
    assert result.output == (
        f"servelint: {config}: no workload of an inference server the serving model "
        "recognises (servelint show lists what it read)\n"
    )


def test_a_flux_helm_release_with_values_from_configmaps_and_secrets(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout(tmp_path, monkeypatch, Path(__file__).parent / "fixtures" / "gitops" / "repo")
    result = run_line(["drift", "-f", "flux/release.yaml", "--live", str(LOG), "--format", "json"])
    assert result.exit_code == 1
    # Each setting at the line that set it: the ConfigMap, the Secret (masked), the
    # release's own values.
    assert _rows(result) == [
        (
            "drift/served-model-name",
            "served_model_name",
            None,
            "llama-3.1-8b",
            "charts/vllm/values.yaml:1",
        ),
        ("drift/unexpected-live", "data_parallel_size", None, 2, "charts/vllm/values.yaml:1"),
        ("drift/unexpected-live", "enable_prefix_caching", None, True, "charts/vllm/values.yaml:1"),
        ("drift/changed", "max_num_seqs", 512, 64, "flux/configs.yaml:10"),
        ("drift/changed", "gpu_memory_utilization", "****", "****", "flux/configs.yaml:20"),
        ("drift/changed", "max_model_len", 131072, 8192, "flux/release.yaml:30"),
    ]


def test_values_files_beside_a_chart_are_merged_over_its_values(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout(tmp_path, monkeypatch, Path(__file__).parent / "fixtures" / "gitops" / "repo")
    prod = Path("charts/vllm/values-prod.yaml")
    prod.write_text("vllm:\n  maxNumSeqs: 64\n  maxModelLen: 8192\n")
    result = run_line(["drift", "-f", str(prod), "--live", str(LOG), "--format", "json"])
    # The chart's values.yaml gives the image and the model; values-prod.yaml wins.
    assert _rows(result) == [
        (
            "drift/served-model-name",
            "served_model_name",
            None,
            "llama-3.1-8b",
            "charts/vllm/values.yaml:1",
        ),
        ("drift/unexpected-live", "data_parallel_size", None, 2, "charts/vllm/values.yaml:1"),
        ("drift/unexpected-live", "enable_prefix_caching", None, True, "charts/vllm/values.yaml:1"),
    ]


def test_drift_of_committed_files_imports_no_kubernetes_client() -> None:
    # Item 6: the default install has no Kubernetes client; only --kube imports one.
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from linter.cli import cli\n"
        f"args = ['drift', '-f', {str(COMMITTED / 'two-servers.yaml')!r}, '--live', {str(LOG)!r}]\n"
        "result = CliRunner().invoke(cli, args)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'urllib3'))\n"
        "print(result.exit_code, loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.stdout, done.stderr) == ("1 []\n", "")


def test_an_argo_cd_application_with_its_values_in_argo_order(
    run_line: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout(tmp_path, monkeypatch, Path(__file__).parent / "fixtures" / "gitops" / "repo")
    result = run_line(
        ["drift", "-f", "argo/application.yaml", "--live", str(LOG), "--format", "json"]
    )
    assert result.exit_code == 1
    # The parameter (line 24) wins over the values string (line 21 sets maxNumSeqs).
    assert [row for row in _rows(result) if row[0] == "drift/changed"] == [
        ("drift/changed", "max_num_seqs", 256, 64, "argo/application.yaml:21"),
        ("drift/changed", "max_model_len", 131072, 8192, "argo/application.yaml:24"),
    ]


def test_a_kustomize_overlay_is_compared_not_its_base(
    run_line: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(Path(__file__).parent / "fixtures" / "kustomize")
    args = ["drift", "-f", "overlays/prod/kustomization.yaml", "--live", str(LOG)]
    result = run_line([*args, "--format", "json"])
    report = json.loads(result.output)
    assert report["targets"][0]["compared_with"] == (
        "Deployment/llm/prod-vllm [Kustomization/overlays/prod] (Deployment, "
        "base/deployment.yaml:1)"
    )
    assert [(row[0], row[1]) for row in _rows(result)] == [
        ("drift/served-model-name", "served_model_name"),
        ("drift/unexpected-live", "data_parallel_size"),
        ("drift/unexpected-live", "enable_prefix_caching"),
        ("drift/unexpected-live", "max_model_len"),
        ("drift/unexpected-live", "max_num_seqs"),
    ]
