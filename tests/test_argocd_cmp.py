"""The Argo CD Config Management Plugin example: its own ``generate`` script, run as the
repo-server sidecar would run it, with the real helm and servelint on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "examples" / "argocd" / "cmp" / "plugin.yaml"
CHART = ROOT / "tests" / "fixtures" / "helm" / "chart" / "vllm"
FIX = ROOT / "tests" / "fixtures"
POLICIES = f"--no-builtin --policy-dir {FIX / 'helm' / 'policies'}"


@pytest.fixture
def app_dir(tmp_path: Path) -> Path:
    """The Application's source folder, as the repo-server checks it out."""
    target = tmp_path / "vllm"
    shutil.copytree(CHART, target)
    shutil.copy(FIX / "argocd" / "values-prod-latest.yaml", target / "values-prod-latest.yaml")
    return target


def plugin_command(phase: str) -> list[str]:
    spec = yaml.safe_load(PLUGIN.read_text(encoding="utf-8"))["spec"]
    command: list[str] = [*spec[phase]["command"], *spec[phase]["args"]]
    return command


def run_plugin(
    phase: str,
    app_dir: Path,
    helm: str,
    tmp_path: Path,
    values_files: str,
    servelint_args: str = POLICIES,
) -> subprocess.CompletedProcess[str]:
    shim = tmp_path / "bin" / "servelint"  # the sidecar's servelint, from this checkout
    shim.parent.mkdir(parents=True, exist_ok=True)
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m linter "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        "PATH": os.pathsep.join([str(Path(helm).parent), str(shim.parent), "/usr/bin", "/bin"]),
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path),
        "NO_COLOR": "1",
        "ARGOCD_APP_NAME": "llm-prod",
        "ARGOCD_APP_NAMESPACE": "llm",
        "ARGOCD_ENV_VALUES_FILES": values_files,
        "ARGOCD_ENV_SERVELINT_ARGS": servelint_args,
    }
    return subprocess.run(
        plugin_command(phase),
        env=env,
        cwd=app_dir,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_good_values_print_only_the_manifests(helm: str, app_dir: Path, tmp_path: Path) -> None:
    done = run_plugin("generate", app_dir, helm, tmp_path, "values-prod.yaml")
    expected = subprocess.run(
        [helm, "template", "llm-prod", ".", "--namespace", "llm", "--values", "values-prod.yaml"],
        cwd=app_dir,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (done.returncode, done.stderr) == (
        0,
        "coverage: 4 files, 2 workloads recognised (vllm 2)\n"
        "0 errors, 0 warnings, 0 info in 4 files\n",
    )
    assert done.stdout == expected
    kinds = [d["kind"] for d in yaml.safe_load_all(done.stdout) if d]
    assert kinds == ["Service", "Deployment"]


def test_bad_values_fail_generation_with_findings_on_stderr(
    helm: str, app_dir: Path, tmp_path: Path
) -> None:
    done = run_plugin(
        "generate", app_dir, helm, tmp_path, "values-prod.yaml,values-prod-latest.yaml"
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "values-prod-latest.yaml:3:3: error values-image/no-latest image.tag latest is not a "
        "release",
        "coverage: 5 files, 2 workloads recognised (vllm 2)",
        "1 error, 0 warnings, 0 info in 5 files",
    ]


def test_a_values_file_named_like_an_option_is_a_values_file(
    helm: str, app_dir: Path, tmp_path: Path
) -> None:
    (app_dir / "--baseline=x.json").write_text('{"image": {"tag": "latest"}}\n', encoding="utf-8")
    done = run_plugin("generate", app_dir, helm, tmp_path, "values-prod.yaml,--baseline=x.json")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "--baseline=x.json:1:12: error values-image/no-latest image.tag latest is not a release",
        "coverage: 5 files, 2 workloads recognised (vllm 2)",
        "1 error, 0 warnings, 0 info in 5 files",
    ]


def test_a_missing_values_file_fails_generation_before_rendering(
    helm: str, app_dir: Path, tmp_path: Path
) -> None:
    done = run_plugin("generate", app_dir, helm, tmp_path, "values-missing.yaml")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines()[-1] == (
        "Error: Invalid value for '-f' / '--values': File 'values-missing.yaml' does not exist."
    )


def test_generate_on_the_example_chart_with_the_team_config(helm: str, tmp_path: Path) -> None:
    """The example chart in a repository whose .servelint.yaml fails on warnings too."""
    repo = tmp_path / "inference"
    app = repo / "charts" / "vllm"
    shutil.copytree(ROOT / "examples" / "charts" / "vllm", app)
    (repo / ".git").mkdir()  # the checkout's root: where the configuration search stops
    (repo / ".servelint.yaml").write_text("failLevel: warning\n", encoding="utf-8")
    args = "--today=2026-12-01"  # the staging suppression runs until 2026-12-31
    staging = run_plugin("generate", app, helm, tmp_path, "values-staging.yaml", args)
    expected = subprocess.run(
        [
            helm,
            "template",
            "llm-prod",
            ".",
            "--namespace",
            "llm",
            "--values",
            "values-staging.yaml",
        ],
        cwd=app,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # The suppression comment in values-staging.yaml is read where it is written.
    assert (staging.returncode, staging.stderr.splitlines()[-1]) == (
        0,
        "0 errors, 0 warnings, 1 info, 1 suppressed in 4 files",
    )
    assert staging.stdout == expected
    prod = run_plugin("generate", app, helm, tmp_path, "values-prod.yaml", args)
    assert (prod.returncode, prod.stdout) == (1, "")
    assert prod.stderr.splitlines()[0].startswith(
        "values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit max_model_len 131072 "
    )
    expired = run_plugin(
        "generate", app, helm, tmp_path, "values-staging.yaml", "--today=2027-01-01"
    )
    # Past its date the suppression stops applying: a warning, which this team fails on.
    assert (expired.returncode, expired.stdout, expired.stderr.splitlines()[-1]) == (
        1,
        "",
        "0 errors, 2 warnings, 1 info in 4 files",
    )


def test_init_without_dependencies_does_nothing(helm: str, app_dir: Path, tmp_path: Path) -> None:
    done = run_plugin("init", app_dir, helm, tmp_path, "")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
