"""The GitHub Action (``action.yml``): its composite steps run here as the runner runs
them, each ``run:`` script with its ``${{ }}`` expressions filled in, through ``bash
--noprofile --norc -eo pipefail``, with ``GITHUB_OUTPUT`` read back between steps. Steps
that ``uses:`` another action are checked, not run: setup-python is this test's Python,
and the SARIF upload is what code scanning does."""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import venv
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).parent.parent
ACTION = ROOT / "action.yml"
HTML = Path(__file__).parent / "fixtures" / "html"
MANIFESTS = Path(__file__).parent / "fixtures" / "vllm" / "manifests"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
COMPARISON = re.compile(r"^([\w.-]+) (==|!=) '([^']*)'$")


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


class Job:
    """One use of the action in a workflow: its inputs, the step outputs so far, and the
    runner's environment for the scripts."""

    def __init__(self, workspace: Path, bin_dir: Path, inputs: Mapping[str, str]) -> None:
        defaults = {name: spec.get("default", "") for name, spec in action()["inputs"].items()}
        unknown = set(inputs) - set(defaults)
        assert not unknown, f"not inputs of the action: {unknown}"
        self.context: dict[str, Any] = {
            "inputs": {**defaults, **inputs},
            "github": {"action_path": str(ROOT), "workspace": str(workspace)},
            "steps": {},
        }
        self.workspace = workspace
        self.bin_dir = bin_dir
        self.ran: list[str] = []
        self.failed: int | None = None
        self.log = ""

    def value(self, expression: str) -> str:
        found: Any = self.context
        for part in expression.split("."):
            found = found.get(part, "") if isinstance(found, dict) else ""
        return str(found)

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), text)

    def condition(self, text: str | None) -> bool:
        """The ``if:`` forms the action uses: ``always()`` and string comparisons joined
        by ``&&``; anything else is a failure of this test, not a guess. Without
        ``always()`` a step runs only while every step before it succeeded."""
        if text is None:
            return self.failed is None
        inner = EXPRESSION.fullmatch(text.strip())
        terms = [t.strip() for t in (inner.group(1) if inner else text).split("&&")]
        if "always()" not in terms and self.failed is not None:
            return False
        for term in terms:
            if term == "always()":
                continue
            match = COMPARISON.match(term)
            assert match, f"an if: term this test cannot evaluate: {term!r}"
            name, operator, literal = match.groups()
            if (self.value(name) == literal) != (operator == "=="):
                return False
        return True

    def run(self, *, skip: tuple[str, ...] = ()) -> None:
        for step in action()["runs"]["steps"]:
            if step["name"] in skip or not self.condition(step.get("if")):
                continue
            self.ran.append(step["name"])
            if "uses" in step:
                continue
            self._script(step)

    def _script(self, step: Mapping[str, Any]) -> None:
        assert step["shell"] == "bash"
        outputs = self.workspace.parent / "github-output"
        outputs.write_text("")
        script = self.workspace.parent / "step.sh"
        script.write_text(self.expand(step["run"]))
        env = {
            "PATH": f"{self.bin_dir}{os.pathsep}{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(self.workspace)),
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(self.workspace),
            "RUNNER_TEMP": str(self.workspace.parent),
            "NO_COLOR": "1",
            # The install step's pip: offline, building with the hatchling of this test
            # environment (``installed`` below).
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **{key: self.expand(str(value)) for key, value in step.get("env", {}).items()},
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        self.log += done.stdout + done.stderr
        found = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
        if "id" in step:
            self.context["steps"][step["id"]] = {"outputs": found}
        if done.returncode != 0:
            self.failed = done.returncode


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's install step, run for real into a fresh environment whose Python
    sees this test environment's packages (servelint's dependencies, pip, hatchling), so
    that it installs servelint from the action's checkout without a network."""
    home = tmp_path_factory.mktemp("runner")
    environment = home / "python"
    venv.create(environment, with_pip=False)
    [packages] = list((environment / "lib").glob("python3*/site-packages"))
    (packages / "test-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    workspace = home / "workspace"
    workspace.mkdir()
    job = Job(workspace, environment / "bin", {})
    [install] = [s for s in action()["runs"]["steps"] if s["name"] == "Install servelint"]
    assert install["run"] == 'python -m pip install --quiet "${{ github.action_path }}"'
    job._script(install)
    assert job.failed is None, job.log
    assert (environment / "bin" / "servelint").exists()
    return environment / "bin"


def run_job(tmp_path: Path, bin_dir: Path, files: Mapping[str, Path], **inputs: str) -> Job:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for name, source in files.items():
        shutil.copy(source, workspace / name)
    job = Job(workspace, bin_dir, inputs)
    job.run(skip=("Set up Python", "Install servelint"))
    return job


def sarif_rules(job: Job, name: str = "servelint.sarif") -> list[str]:
    log = json.loads((job.workspace / name).read_text())
    return [result["ruleId"] for result in log["runs"][0]["results"]]


def test_the_action_is_composite_and_pins_what_it_uses() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite"
    uses = [step["uses"] for step in spec["runs"]["steps"] if "uses" in step]
    assert uses == ["actions/setup-python@v5", "github/codeql-action/upload-sarif@v3"]
    # No input is pasted into a script: they reach the scripts through env.
    for step in spec["runs"]["steps"]:
        assert "inputs." not in step.get("run", "")


def test_warnings_below_fail_on_pass_and_the_sarif_is_uploaded(
    installed: Path, tmp_path: Path
) -> None:
    job = run_job(tmp_path, installed, {"deploy.yaml": HTML / "deploy.yaml"}, paths="deploy.yaml")
    assert job.context["steps"]["lint"]["outputs"] == {"exit-code": "0", "sarif": "true"}
    assert sarif_rules(job) == [
        "readiness/missing",
        "hub/gated-model-without-token",
        "vllm-kv/max-num-seqs-exceeds-kv-cache",
        "kubernetes-qos/gpu-pod-best-effort",
        "readiness/missing",
        "sglang/running-requests-above-cuda-graph-bs",
        "kubernetes-qos/gpu-pod-best-effort",
    ]
    assert job.ran == ["Run servelint", "Upload SARIF to code scanning"]
    assert job.failed is None
    [upload] = [s for s in action()["runs"]["steps"] if s["name"].startswith("Upload")]
    assert {k: job.expand(v) for k, v in upload["with"].items()} == {
        "sarif_file": "servelint.sarif",
        "category": "servelint",
    }


def test_the_exit_code_fails_the_job_after_the_upload(installed: Path, tmp_path: Path) -> None:
    job = run_job(
        tmp_path,
        installed,
        {"deploy.yaml": HTML / "deploy.yaml"},
        paths="deploy.yaml",
        **{"fail-on": "warning", "sarif-file": "out.sarif"},
    )
    assert job.context["steps"]["lint"]["outputs"] == {"exit-code": "1", "sarif": "true"}
    assert len(sarif_rules(job, "out.sarif")) == 7
    assert job.ran == [
        "Run servelint",
        "Upload SARIF to code scanning",
        "Fail on servelint's exit code",
    ]
    assert job.failed == 1
    assert "servelint exited 1" in job.log


def test_config_args_and_never(installed: Path, tmp_path: Path) -> None:
    config = tmp_path / "servelint.yaml"
    config.write_text("disable: [readiness/missing]\n")
    job = run_job(
        tmp_path,
        installed,
        {"errors.yaml": MANIFESTS / "sglang-memory.yaml", "deploy.yaml": HTML / "deploy.yaml"},
        paths="errors.yaml\ndeploy.yaml",
        config=str(config),
        args="--disable 'kubernetes-qos/*'",
        upload="false",
        **{"fail-on": "never"},
    )
    assert job.context["steps"]["lint"]["outputs"] == {"exit-code": "0", "sarif": "true"}
    rules = sarif_rules(job)
    assert "readiness/missing" not in rules
    assert "kubernetes-qos/gpu-pod-best-effort" not in rules
    assert rules.count("sglang-kv/weights-exceed-mem-fraction-static") == 2
    assert job.ran == ["Run servelint"]  # no upload, nothing to fail on
    assert job.failed is None


def test_an_input_is_never_run_as_a_command(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "paths").mkdir()
    job = run_job(
        tmp_path / "paths", installed, {}, paths="'$(touch pwned)' `touch pwned2`", upload="false"
    )
    assert not list(job.workspace.glob("pwned*"))
    # Three file names that do not exist: read errors, a tool failure (exit 3).
    assert job.context["steps"]["lint"]["outputs"]["exit-code"] == "3"
    assert "$(touch pwned): " in job.log
    assert job.failed == 3
    (tmp_path / "args").mkdir()
    job = run_job(tmp_path / "args", installed, {}, args="--fail-level=error; touch pwned3")
    assert not list(job.workspace.glob("pwned*"))
    # The option's value is 'error;', which servelint refuses: a usage error.
    assert job.context["steps"]["lint"]["outputs"] == {"exit-code": "2"}
    assert job.failed == 2


def test_a_bad_fail_on_is_a_usage_error(installed: Path, tmp_path: Path) -> None:
    job = run_job(tmp_path, installed, {}, upload="false", **{"fail-on": "sometimes"})
    assert job.context["steps"]["lint"]["outputs"] == {"exit-code": "2"}
    assert "::error::fail-on must be error, warning, info or never, not 'sometimes'" in job.log
    assert job.failed == 2


def test_readme_names_the_action_inputs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The GitHub Action", 1)[1].split("\n## ", 1)[0]
    for name in action()["inputs"]:
        assert f"`{name}`" in section, name
