"""The Argo CD PreSync example, rendered by the real helm inside the example chart.

The hook Job checks out the commit being synced and lints the repository's own files: its
init container's script runs against a real git repository, and its servelint container's
command runs on that checkout, as the cluster would run them (scenario 5). The rendered
hook objects are linted by servelint itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from report_lines import report_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "argocd" / "presync" / "templates" / "servelint-presync.yaml"
EXAMPLE_CHART = ROOT / "examples" / "charts" / "vllm"
FIX = ROOT / "tests" / "fixtures"
HOOK_POLICIES = ["--no-builtin", "--policy-dir", str(FIX / "argocd" / "policies")]
# The example's staging suppression runs until 2026-12-31: judge it on a fixed day.
TODAY = "--today=2026-12-01"
KV_ERROR = (
    "charts/vllm/values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit max_model_len "
    "131072 needs 16 GiB of KV cache (128 KiB per token)"
)


def _git(repo: Path, *args: str) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "platform",
        "GIT_AUTHOR_EMAIL": "platform@example.invalid",
        "GIT_COMMITTER_NAME": "platform",
        "GIT_COMMITTER_EMAIL": "platform@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A platform repository: the example chart with the hook, and the team's config,
    which fails on warnings too."""
    root = tmp_path / "inference"
    chart = root / "charts" / "vllm"
    shutil.copytree(EXAMPLE_CHART, chart)
    shutil.copy(EXAMPLE, chart / "templates" / EXAMPLE.name)
    (root / ".servelint.yaml").write_text("failLevel: warning\n", encoding="utf-8")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "vLLM chart with its PreSync gate")
    return root


def show_only(helm: str, chart: Path, *args: str) -> str:
    command = [helm, "template", "llm", str(chart), "--show-only", f"templates/{EXAMPLE.name}"]
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def settings(url: str, revision: str, *value_files: str) -> list[str]:
    """What the Application passes (application.yaml), as helm --set arguments."""
    args = [
        "--set",
        f"servelint.repository.url={url}",
        "--set",
        f"servelint.repository.revision={revision}",
        "--set",
        "servelint.repository.path=charts/vllm",
        "--set",
        f"servelint.extraArgs={{{TODAY}}}",
    ]
    for index, name in enumerate(value_files):
        args += ["--set", f"servelint.valueFiles[{index}]={name}"]
    return args


def render_job(helm: str, chart: Path, *args: str) -> dict[str, Any]:
    [job] = [d for d in yaml.safe_load_all(show_only(helm, chart, *args)) if d]
    return job


def test_hook_job(helm: str, repo: Path) -> None:
    chart = repo / "charts" / "vllm"
    job = render_job(
        helm, chart, *settings("https://git.example.com/p.git", "f00d", "values-prod.yaml")
    )
    assert job["kind"] == "Job"
    assert job["metadata"]["annotations"] == {
        "argocd.argoproj.io/hook": "PreSync",
        "argocd.argoproj.io/sync-wave": "-1",
        "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation,HookSucceeded",
        "helm.sh/hook": "pre-install,pre-upgrade",
        "helm.sh/hook-weight": "-1",
        "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded",
    }
    pod = job["spec"]["template"]["spec"]
    [checkout] = pod["initContainers"]
    [container] = pod["containers"]
    assert (job["spec"]["backoffLimit"], pod["restartPolicy"]) == (0, "Never")
    # The tag the image workflow publishes for main (tests/test_docs_pins.py), pulled again.
    assert (container["image"], container["imagePullPolicy"]) == (
        "ghcr.io/servelint/servelint:main",
        "Always",
    )
    assert {e["name"]: e.get("value") for e in checkout["env"]} == {
        "CHECKOUT": "/repo",
        "REPO_URL": "https://git.example.com/p.git",
        "REVISION": "f00d",
        "HOME": "/tmp",
    }
    assert (container["workingDir"], container["args"]) == (
        "/repo",
        [
            "lint",
            "--chart=charts/vllm",
            "--values=charts/vllm/values-prod.yaml",
            "--no-render",
            "--format=text",
            TODAY,
        ],
    )
    assert [m["readOnly"] for m in container["volumeMounts"] if m["name"] == "repo"] == [True]


def test_each_setting_is_one_argument(helm: str, repo: Path) -> None:
    # A values file named like an option stays a values file, and the fail level one
    # argument (issue 31: settings were inserted unquoted).
    args = [*settings("https://git.example.com/p.git", "f00d", "--baseline=x.json")]
    job = render_job(helm, repo / "charts" / "vllm", *args, "--set", "servelint.failLevel=info #x")
    [container] = job["spec"]["template"]["spec"]["containers"]
    assert container["args"] == [
        "lint",
        "--chart=charts/vllm",
        "--values=charts/vllm/--baseline=x.json",
        "--no-render",
        "--format=text",
        "--fail-level=info #x",
        TODAY,
    ]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("valueFiles", ["values-prod.yaml\n- --baseline=x.json"]),
        ("repository.path", "charts/vllm\n- --baseline=x.json"),
        ("repository.revision", "f00d\r"),
    ],
    ids=["value-file", "path", "revision"],
)
def test_a_line_break_in_a_setting_fails_the_render(
    helm: str, repo: Path, key: str, value: object
) -> None:
    repository = {"url": "https://git.example.com/p.git", "revision": "f00d", "path": "."}
    chosen: dict[str, Any] = {"repository": repository}
    if key == "valueFiles":
        chosen["valueFiles"] = value
    else:
        repository[key.split(".")[1]] = value
    args = ["--set-json", f"servelint={json.dumps(chosen)}"]
    command = [helm, "template", "llm", str(repo / "charts" / "vllm"), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=60)
    shown = json.dumps(value if isinstance(value, str) else value[0])
    assert (done.returncode, done.stdout) == (1, "")
    assert (
        f"servelint.{key} holds a line break or another control character: {shown}" in done.stderr
    )


def test_credentials_come_from_a_secret(helm: str, repo: Path) -> None:
    job = render_job(
        helm,
        repo / "charts" / "vllm",
        *settings("https://git.example.com/p.git", "f00d"),
        "--set",
        "servelint.repository.secretName=git-read",
    )
    env = job["spec"]["template"]["spec"]["initContainers"][0]["env"]
    assert [e for e in env if "valueFrom" in e] == [
        {
            "name": "GIT_USERNAME",
            "valueFrom": {
                "secretKeyRef": {"name": "git-read", "key": "username", "optional": True}
            },
        },
        {
            "name": "GIT_PASSWORD",
            "valueFrom": {"secretKeyRef": {"name": "git-read", "key": "password"}},
        },
    ]


def test_disabled_renders_nothing(helm: str, repo: Path) -> None:
    done = subprocess.run(
        [
            helm,
            "template",
            "llm",
            str(repo / "charts" / "vllm"),
            "--set",
            "servelint.enabled=false",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    kinds = [d["kind"] for d in yaml.safe_load_all(done.stdout) if d]
    assert kinds == ["Service", "Deployment"]


def run_job(job: dict[str, Any], tmp_path: Path) -> tuple[int, str, str, str]:
    """Run the init container's script, then the servelint container's command, on a
    local checkout folder standing for the pod's /repo volume."""
    pod = job["spec"]["template"]["spec"]
    checkout_dir = tmp_path / "checkout"
    checkout_dir.mkdir(parents=True)
    init = pod["initContainers"][0]
    env = {e["name"]: e["value"] for e in init["env"] if "value" in e}
    env.update(
        {
            "CHECKOUT": str(checkout_dir),
            "HOME": str(tmp_path),
            "PATH": "/usr/bin:/bin",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )
    fetched = subprocess.run(
        [*init["command"]], env=env, capture_output=True, text=True, check=False, timeout=120
    )
    if fetched.returncode != 0:
        return fetched.returncode, fetched.stdout, fetched.stderr, ""
    shim = tmp_path / "bin" / "servelint"  # the image's entry point, from this checkout
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m linter "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    container = pod["containers"][0]
    termination = tmp_path / "termination-log"
    done = subprocess.run(
        [*container["command"], *container["args"]],
        env={
            "PATH": f"{shim.parent}:/usr/bin:/bin",
            "TMPDIR": str(tmp_path),
            "TERMINATION_MESSAGE_PATH": str(termination),
            "NO_COLOR": "1",
        },
        cwd=checkout_dir,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.stderr == ""
    return done.returncode, fetched.stdout, done.stdout, termination.read_text(encoding="utf-8")


def test_job_lints_the_synced_commit_with_its_comments_and_the_team_config(
    helm: str, repo: Path, tmp_path: Path
) -> None:
    good = _git(repo, "rev-parse", "HEAD")
    staging = repo / "charts" / "vllm" / "values-staging.yaml"
    # A later commit drops the suppression comment: the same values, without their reason.
    staging.write_text(
        "".join(line for line in staging.read_text().splitlines(True) if "servelint:" not in line)
    )
    _git(repo, "commit", "-q", "-am", "staging: no reason for eager mode")
    bad = _git(repo, "rev-parse", "HEAD")
    chart = repo / "charts" / "vllm"
    code, fetched, output, message = run_job(
        render_job(helm, chart, *settings(str(repo), good, "values-staging.yaml")), tmp_path / "a"
    )
    # The comment is read where it is written, so the warning is suppressed; with toYaml'd
    # values it would count, and the team's failLevel: warning would fail the sync.
    assert (code, fetched, report_lines(output)[-1], message) == (
        0,
        f"checked out {good}\n",
        "0 errors, 0 warnings, 1 info, 1 suppressed in 2 files",
        "0 errors, 0 warnings, 1 info, 1 suppressed in 2 files\n",
    )
    code, fetched, output, message = run_job(
        render_job(helm, chart, *settings(str(repo), bad, "values-staging.yaml")), tmp_path / "b"
    )
    eager = (
        "charts/vllm/values-staging.yaml:5:7: warning vllm/enforce-eager --enforce-eager "
        "switches CUDA graphs off"
    )
    assert (code, fetched, report_lines(output)[-1], message) == (
        1,
        f"checked out {bad}\n",
        "0 errors, 1 warning, 1 info in 2 files",
        "0 errors, 1 warning, 1 info in 2 files\n",
    )
    assert [line for line in output.splitlines() if line.startswith(eager)] != []


def test_job_fails_the_sync_with_the_findings_seen_locally(
    run_line: Any, helm: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = _git(repo, "rev-parse", "HEAD")
    job = render_job(
        helm, repo / "charts" / "vllm", *settings(str(repo), revision, "values-prod.yaml")
    )
    code, _, output, message = run_job(job, tmp_path)
    assert code == 1
    [finding] = [line for line in output.splitlines() if ": error " in line]
    assert finding.startswith(KV_ERROR)
    assert message == f"1 error, 0 warnings, 0 info in 2 files; first: {finding}\n"
    monkeypatch.chdir(repo)  # what the platform engineer sees on a laptop
    local = run_line(
        [
            "lint",
            "--chart=charts/vllm",
            "--values=charts/vllm/values-prod.yaml",
            "--no-render",
            TODAY,
        ]
    )
    assert (local.exit_code, local.output) == (1, output)


def test_job_without_a_repository_fails_and_says_why(helm: str, repo: Path, tmp_path: Path) -> None:
    job = render_job(helm, repo / "charts" / "vllm")
    code, _, stderr, _ = run_job(job, tmp_path)
    assert (code, stderr) == (
        2,
        "servelint: set servelint.repository.url and servelint.repository.revision (in Argo CD: "
        "Helm parameters from ARGOCD_APP_SOURCE_REPO_URL and ARGOCD_APP_REVISION)\n",
    )


def test_the_application_passes_the_build_environment() -> None:
    application = yaml.safe_load(
        (ROOT / "examples" / "argocd" / "presync" / "application.yaml").read_text()
    )
    helm = application["spec"]["source"]["helm"]
    assert {p["name"]: p["value"] for p in helm["parameters"]} == {
        "servelint.repository.url": "$ARGOCD_APP_SOURCE_REPO_URL",
        "servelint.repository.revision": "$ARGOCD_APP_REVISION",
        "servelint.repository.path": "$ARGOCD_APP_SOURCE_PATH",
        "servelint.valueFiles[0]": "values-prod.yaml",
    }
    assert helm["valueFiles"] == ["values-prod.yaml"]


def test_servelint_lints_the_rendered_hook_objects(run_line: Any, helm: str, repo: Path) -> None:
    chart = repo / "charts" / "vllm"
    result = run_line(
        [
            "lint",
            "--chart",
            str(chart),
            *settings("https://git.example.com/p.git", "f00d"),
            "--helm",
            helm,
            *HOOK_POLICIES,
        ]
    )
    assert (result.exit_code, result.output) == (0, "0 errors, 0 warnings, 0 info in 4 files\n")


def test_the_hook_policy_catches_a_broken_hook(run_line: Any, helm: str, repo: Path) -> None:
    chart = repo / "charts" / "vllm"
    template = chart / "templates" / EXAMPLE.name
    text = template.read_text(encoding="utf-8")
    text = text.replace("backoffLimit: 0", "backoffLimit: 3")
    text = text.replace('argocd.argoproj.io/sync-wave: "-1"', 'argocd.argoproj.io/sync-wave: "-3"')
    template.write_text(text, encoding="utf-8")
    result = run_line(["lint", "--chart", str(chart), "--helm", helm, *HOOK_POLICIES])
    # Lines are those of `helm template --show-only templates/servelint-presync.yaml`.
    shown = show_only(helm, chart).splitlines()
    annotations = shown.index("  annotations:") + 1
    backoff = shown.index("  backoffLimit: 3") + 1
    # Findings on the rendered hook are placed on the template's own lines (its values
    # do not set these fields); the rendered position stays in the message.
    written = text.splitlines()
    in_template = written.index("  annotations:") + 1
    backoff_line = written.index("  backoffLimit: 3") + 1
    where = f"rendered templates/{EXAMPLE.name}"
    assert result.output.splitlines() == [
        f"{template}:{in_template}:3: error presync-hooks/configmap-first Job must be in wave "
        f"-1 under Argo CD and Helm ({where}:{annotations}:3)",
        f"{template}:{backoff_line}:3: error presync-hooks/no-retries a failed check must fail "
        f"the sync at once (backoffLimit 0) ({where}:{backoff}:3)",
        "2 errors, 0 warnings, 0 info in 4 files",
    ]
    assert result.exit_code == 1


def test_end_to_end_builtin_policies_leave_the_hook_objects_alone(
    run_line: Any, helm: str, repo: Path
) -> None:
    """With the built-in policies, the hook Job is not an inference workload: whatever
    they find in the chart, nothing lands on the hook template."""
    chart = repo / "charts" / "vllm"
    result = run_line(
        [
            "lint",
            "--no-config",
            "--chart",
            str(chart),
            "--env",
            "prod",
            "--helm",
            helm,
            "--format",
            "json",
        ]
    )
    files = {f["file"] for f in json.loads(result.output)["findings"]}
    assert files == {f"{chart}/values-prod.yaml"}
