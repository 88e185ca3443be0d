"""The Argo CD PreSync example, rendered by the real helm inside a vLLM chart.

The rendered hook objects are linted by servelint itself, and the Job's own command is run
against the ConfigMap it would mount, as the cluster would run it (scenario 5).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from linter import __version__

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "argocd" / "presync" / "templates" / "servelint-presync.yaml"
CHART = ROOT / "tests" / "fixtures" / "helm" / "chart" / "vllm"
FIX = ROOT / "tests" / "fixtures"
TEST_POLICY = FIX / "helm" / "policies" / "values-image.yaml"
HOOK_POLICIES = ["--no-builtin", "--policy-dir", str(FIX / "argocd" / "policies")]
MOUNT = "/etc/servelint"


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    """The vLLM test chart (tests/fixtures/helm/chart/vllm) with the PreSync template added."""
    target = tmp_path / "vllm"
    shutil.copytree(CHART, target)
    shutil.copy(EXAMPLE, target / "templates" / EXAMPLE.name)
    return target


def show_only(helm: str, chart: Path, *args: str) -> str:
    command = [
        helm,
        "template",
        "llm",
        str(chart),
        "--show-only",
        f"templates/{EXAMPLE.name}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=60).stdout


def render(helm: str, chart: Path, *args: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(show_only(helm, chart, *args)) if d]


def with_test_policy(*values: str) -> list[str]:
    """helm arguments: values files, our test policy in the hook, built-ins off."""
    args = [arg for path in values for arg in ("-f", path)]
    return [
        *args,
        "--set",
        "servelint.builtin=false",
        "--set-file",
        f"servelint.policies.values-image\\.yaml={TEST_POLICY}",
    ]


def test_hook_objects(helm: str, chart: Path) -> None:
    config_map, job = render(helm, chart, "-f", str(chart / "values-prod.yaml"))
    assert (config_map["kind"], job["kind"]) == ("ConfigMap", "Job")
    assert config_map["metadata"]["annotations"] == {
        "argocd.argoproj.io/hook": "PreSync",
        "argocd.argoproj.io/sync-wave": "-2",
        "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation",
        "helm.sh/hook": "pre-install,pre-upgrade",
        "helm.sh/hook-weight": "-2",
        "helm.sh/hook-delete-policy": "before-hook-creation",
    }
    assert job["metadata"]["annotations"] == {
        "argocd.argoproj.io/hook": "PreSync",
        "argocd.argoproj.io/sync-wave": "-1",
        "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation,HookSucceeded",
        "helm.sh/hook": "pre-install,pre-upgrade",
        "helm.sh/hook-weight": "-1",
        "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
    }
    pod = job["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert job["spec"]["backoffLimit"] == 0
    assert pod["restartPolicy"] == "Never"
    assert container["image"] == f"ghcr.io/servelint/servelint:{__version__}"
    assert container["args"] == [
        "lint",
        "--no-config",
        "--format=text",
        "--fail-level=error",
        f"{MOUNT}/values.yaml",
    ]
    # The ConfigMap carries the release's merged values: chart defaults plus values-prod.
    merged = yaml.safe_load(config_map["data"]["values.yaml"])
    assert (merged["replicaCount"], merged["vllm"]["maxModelLen"]) == (3, 32768)
    assert merged["vllm"]["model"] == "meta-llama/Llama-3.1-8B-Instruct"


def test_settings_policies_and_omitted_keys(helm: str, chart: Path) -> None:
    config_map, job = render(
        helm,
        chart,
        *with_test_policy(),
        "--set",
        "servelint.omitKeys={hfTokenSecret,probes}",
        "--set",
        "servelint.failLevel=warning",
    )
    assert sorted(config_map["data"]) == ["policy.values-image.yaml", "values.yaml"]
    merged = yaml.safe_load(config_map["data"]["values.yaml"])
    assert sorted(merged)[:3] == ["image", "nodeSelector", "replicaCount"]
    assert "hfTokenSecret" not in merged and "probes" not in merged
    assert "servelint" not in merged
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == [
        "lint",
        "--no-config",
        "--format=text",
        "--fail-level=warning",
        "--no-builtin",
        f"--policy-dir={MOUNT}/policies",
        f"{MOUNT}/values.yaml",
    ]
    assert job["spec"]["template"]["spec"]["volumes"][0]["configMap"]["items"] == [
        {"key": "values.yaml", "path": "values.yaml"},
        {"key": "policy.values-image.yaml", "path": "policies/values-image.yaml"},
    ]


def test_disabled_renders_nothing(helm: str, chart: Path) -> None:
    done = subprocess.run(
        [helm, "template", "llm", str(chart), "--set", "servelint.enabled=false"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    kinds = [d["kind"] for d in yaml.safe_load_all(done.stdout) if d]
    assert kinds == ["Service", "Deployment"]


def test_servelint_lints_the_rendered_hook_objects(run_line: Any, helm: str, chart: Path) -> None:
    result = run_line(
        [
            "lint",
            "--chart",
            str(chart),
            "-f",
            str(chart / "values-prod.yaml"),
            "--helm",
            helm,
            *HOOK_POLICIES,
        ]
    )
    assert result.output == "0 errors, 0 warnings, 0 info in 5 files\n"
    assert result.exit_code == 0


def test_the_hook_policy_catches_a_broken_hook(run_line: Any, helm: str, chart: Path) -> None:
    template = chart / "templates" / EXAMPLE.name
    text = template.read_text(encoding="utf-8")
    text = text.replace("backoffLimit: 0", "backoffLimit: 3")
    text = text.replace('argocd.argoproj.io/sync-wave: "-1"', 'argocd.argoproj.io/sync-wave: "-3"')
    template.write_text(text, encoding="utf-8")
    result = run_line(["lint", "--chart", str(chart), "--helm", helm, *HOOK_POLICIES])
    rendered = f"{chart}/templates/{EXAMPLE.name} (rendered)"
    # Lines are those of `helm template --show-only templates/servelint-presync.yaml`.
    shown = show_only(helm, chart).splitlines()
    annotations = [i + 1 for i, line in enumerate(shown) if line == "  annotations:"][1]
    backoff = shown.index("  backoffLimit: 3") + 1
    # Findings on the rendered hook are placed on the template's own lines (its values
    # do not set these fields); the rendered position stays in the message.
    written = text.splitlines()
    in_template = [i + 1 for i, line in enumerate(written) if line == "  annotations:"][1]
    backoff_line = written.index("  backoffLimit: 3") + 1
    where = f"rendered templates/{EXAMPLE.name}"
    assert rendered not in result.output
    assert result.output.splitlines() == [
        f"{template}:{in_template}:3: error presync-hooks/configmap-first Job must be in wave "
        f"-1 under Argo CD and Helm ({where}:{annotations}:3)",
        f"{template}:{backoff_line}:3: error presync-hooks/no-retries a failed check must fail "
        f"the sync at once (backoffLimit 0) ({where}:{backoff}:3)",
        "2 errors, 0 warnings, 0 info in 4 files",
    ]
    assert result.exit_code == 1


def run_job(documents: list[dict[str, Any]], tmp_path: Path) -> tuple[int, str, str]:
    """Run the Job's container command on the files its ConfigMap volume would hold."""
    config_map, job = documents
    pod = job["spec"]["template"]["spec"]
    mount = tmp_path / "mount"
    for item in pod["volumes"][0]["configMap"]["items"]:
        path = mount / item["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config_map["data"][item["key"]], encoding="utf-8")
    shim = tmp_path / "bin" / "servelint"  # the image's entry point, from this checkout
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m linter "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    container = pod["containers"][0]
    argv = [*container["command"], *(a.replace(MOUNT, str(mount)) for a in container["args"])]
    termination = tmp_path / "termination-log"
    env = {
        "PATH": f"{shim.parent}:/usr/bin:/bin",
        "TMPDIR": str(tmp_path),
        "TERMINATION_MESSAGE_PATH": str(termination),
        "NO_COLOR": "1",
    }
    done = subprocess.run(
        argv, env=env, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.stderr == ""
    message = termination.read_text(encoding="utf-8")
    return (
        done.returncode,
        done.stdout.replace(str(mount), MOUNT),
        message.replace(str(mount), MOUNT),
    )


def test_job_passes_good_values(helm: str, chart: Path, tmp_path: Path) -> None:
    documents = render(helm, chart, *with_test_policy(str(chart / "values-prod.yaml")))
    assert run_job(documents, tmp_path) == (
        0,
        "0 errors, 0 warnings, 0 info in 1 file\n",
        "0 errors, 0 warnings, 0 info in 1 file\n",
    )


def test_job_fails_the_sync_with_the_findings_seen_locally(
    run_line: Any, helm: str, chart: Path, tmp_path: Path
) -> None:
    bad = str(FIX / "argocd" / "values-prod-latest.yaml")
    documents = render(helm, chart, *with_test_policy(str(chart / "values-prod.yaml"), bad))
    mounted = documents[0]["data"]["values.yaml"].splitlines()
    line = mounted.index("  tag: latest") + 1  # toYaml sorts keys: image.tag after hfTokenSecret
    finding = (
        f"{MOUNT}/values.yaml:{line}:3: error values-image/no-latest image.tag latest "
        "is not a release"
    )
    assert run_job(documents, tmp_path) == (
        1,
        f"{finding}\n1 error, 0 warnings, 0 info in 1 file\n",
        f"1 error, 0 warnings, 0 info in 1 file; first: {finding}\n",
    )
    local = run_line(
        [
            "lint",
            "--chart",
            str(chart),
            "-f",
            str(chart / "values-prod.yaml"),
            "-f",
            bad,
            "--no-render",
            "--no-builtin",
            "--policy-dir",
            str(TEST_POLICY),
        ]
    )
    assert local.output.splitlines()[1] == (
        f"{bad}:3:3: error values-image/no-latest image.tag latest is not a release"
    )
    assert local.exit_code == 1


def test_end_to_end_builtin_policies_leave_the_hook_objects_alone(
    run_line: Any, helm: str, chart: Path
) -> None:
    """End-to-end walk with the built-in policies: whatever they find in the chart, the
    servelint hook objects themselves are not inference workloads and draw no finding."""
    result = run_line(
        ["lint", "--chart", str(chart), "--env", "prod", "--helm", helm, "--format", "json"]
    )
    files = {f["file"] for f in json.loads(result.output)["findings"]}
    assert f"{chart}/templates/{EXAMPLE.name} (rendered)" not in files
