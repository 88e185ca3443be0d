"""docs/ci.md's pipeline that lints the files a change touches, run as written in a
repository where a pull request commits a file named ``--baseline=x.json`` beside a
baseline that hides its finding (issue 31): the name is linted, never obeyed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BAD_VALUES = ROOT / "tests" / "fixtures" / "precommit" / "values-bad.yaml"


def changed_files_snippet() -> str:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    [section] = re.findall(
        r"\*\*File names from the repository go after `--`\.\*\*.*?```sh\n(.*?)```", text, re.S
    )
    return section


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def test_the_changed_files_pipeline_lints_a_file_named_like_an_option(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "ci",
        "GIT_AUTHOR_EMAIL": "ci@example.invalid",
        "GIT_COMMITTER_NAME": "ci",
        "GIT_COMMITTER_EMAIL": "ci@example.invalid",
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "NO_COLOR": "1",
    }
    repo = tmp_path / "repo"
    (repo / "charts" / "vllm").mkdir(parents=True)
    _git(repo, env, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("inference\n", encoding="utf-8")
    _git(repo, env, "add", ".")
    _git(repo, env, "commit", "-q", "-m", "base")
    _git(repo, env, "update-ref", "refs/remotes/origin/main", "HEAD")
    shutil.copyfile(BAD_VALUES, repo / "charts" / "vllm" / "values-prod.yaml")
    written = subprocess.run(
        [sys.executable, "-m", "linter", "lint", "--write-baseline", "x.json", "--exit-zero",
         "charts/vllm/values-prod.yaml"],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    (repo / "--baseline=x.json").write_text('{"replicaCount": 1}\n', encoding="utf-8")
    _git(repo, env, "add", "--", ".")
    _git(repo, env, "commit", "-q", "-m", "hide the finding")
    done = subprocess.run(
        ["bash", "-c", changed_files_snippet()],
        cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    assert [line for line in done.stdout.splitlines() if line.startswith("::")] == [
        "::error file=charts/vllm/values-prod.yaml,line=3,col=1,title=duplicate-key::duplicate"
        " key 'nameOverride' (first at line 2); Helm and Kubernetes silently keep the last value"
    ]
    assert done.stdout.splitlines()[-1] == "1 error, 0 warnings, 0 info in 3 files"
