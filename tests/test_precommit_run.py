"""The hooks under the real pre-commit, installed from this repository as a package.

A throw-away repository points its .pre-commit-config.yaml at this repository's HEAD
commit and commits through the installed git hook. pre-commit clones that commit and
pip-installs it into its own virtualenv, as it does for users, so the built-in data
(linter/_data) must come from the wheel, and every file the package needs must be in
Git. The install (~20 s) happens once per session. Commit a change to a hook before
running these tests: they see HEAD, not the working tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "precommit"
DUPLICATE = (
    "charts/vllm/values-prod.yaml:3:1: error duplicate-key duplicate key 'nameOverride'"
    " (first at line 2); Helm and Kubernetes silently keep the last value"
)
BAD_POLICY = (
    "servelint: policies/team.yaml:9:7: spec.rules[0].severity: 'fatal' is not one"
    " of ['error', 'warning', 'info']"
)


class HookRepo(NamedTuple):
    path: Path
    rev: str
    env: dict[str, str]


def _git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _isolated_env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GIT_") and not k.startswith("PRE_COMMIT")
    }
    env.update(
        {
            "PRE_COMMIT_HOME": str(home / "pre-commit-cache"),
            "PRE_COMMIT_COLOR": "never",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "servelint tests",
            "GIT_AUTHOR_EMAIL": "tests@servelint.invalid",
            "GIT_COMMITTER_NAME": "servelint tests",
            "GIT_COMMITTER_EMAIL": "tests@servelint.invalid",
        }
    )
    return env


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> HookRepo:
    """This repository at its HEAD commit, with a pre-commit cache for the session."""
    env = _isolated_env(tmp_path_factory.mktemp("precommit"))
    return HookRepo(ROOT, _git(["rev-parse", "HEAD"], ROOT, env), env)


Run = Callable[[list[str]], tuple[int, list[str]]]


@pytest.fixture
def consumer(hook_repo: HookRepo, tmp_path: Path) -> tuple[Path, Run]:
    """A repository using the three hooks, with pre-commit installed as its git hook."""
    repo = tmp_path / "fleet"
    repo.mkdir()
    _git(["init", "-q", "-b", "main"], repo, hook_repo.env)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hook_repo.path}\n    rev: {hook_repo.rev}\n    hooks:\n"
        "      - id: servelint\n      - id: servelint-policies\n"
        "      - id: servelint-policy-tests\n",
        encoding="utf-8",
    )
    _git(["add", ".pre-commit-config.yaml"], repo, hook_repo.env)

    def run(args: list[str]) -> tuple[int, list[str]]:
        done = subprocess.run(
            args,
            cwd=repo,
            env=hook_repo.env,
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        lines = (done.stdout + done.stderr).splitlines()
        # pre-commit's one-time "[INFO] Installing environment" lines depend on test order.
        return done.returncode, [line for line in lines if not line.startswith("[INFO]")]

    code, output = run([sys.executable, "-m", "pre_commit", "install"])
    assert (code, output) == (0, "pre-commit installed at .git/hooks/pre-commit".splitlines())
    return repo, run


def _commits(repo: Path, env: dict[str, str]) -> int:
    done = subprocess.run(
        ["git", "rev-list", "--count", "--all"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return int(done.stdout.strip() or 0)


def _stage(repo: Path, env: dict[str, str], name: str, fixture: Path) -> None:
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(fixture, target)
    _git(["add", name], repo, env)


def test_bad_values_file_stops_the_commit_then_the_fix_goes_through(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    repo, run = consumer
    _stage(repo, hook_repo.env, "charts/vllm/values-prod.yaml", FIXTURES / "values-bad.yaml")
    code, output = run(["git", "commit", "-q", "-m", "raise the context"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Failed",
            "- hook id: servelint",
            "- exit code: 1",
            "",
            DUPLICATE,
            "1 error, 0 warnings, 0 info in 2 files",  # .pre-commit-config.yaml is staged too
            "",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        0,
    )

    _stage(repo, hook_repo.env, "charts/vllm/values-prod.yaml", FIXTURES / "values-good.yaml")
    code, output = run(["git", "commit", "-q", "-m", "raise the context"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        0,
        [
            "servelint................................................................Passed",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        1,
    )


def test_policy_hooks_validate_and_test_the_repository_policies(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    repo, run = consumer
    tests = FIXTURES / "policies" / "tests"
    for name in ("team_test.yaml", "inputs/owned.yaml", "inputs/unowned.yaml"):
        _stage(repo, hook_repo.env, f"policies/tests/{name}", tests / name)
    _stage(repo, hook_repo.env, "policies/team.yaml", FIXTURES / "bad-policies" / "team.yaml")
    code, output = run(["git", "commit", "-q", "-m", "team policy"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Passed",
            "servelint policies.......................................................Failed",
            "- hook id: servelint-policies",
            "- exit code: 3",
            "",
            BAD_POLICY,
            "",
            "servelint policy tests...................................................Failed",
            "- hook id: servelint-policy-tests",
            "- exit code: 3",
            "",
            f"INVALID policies/tests/team_test.yaml:6:3: {BAD_POLICY.removeprefix('servelint: ')}",
            "0 passed, 0 failed, 1 invalid test file",
            "",
        ],
        0,
    )

    _stage(repo, hook_repo.env, "policies/team.yaml", FIXTURES / "policies" / "team.yaml")
    code, output = run(["git", "commit", "-q", "-m", "team policy"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        0,
        [
            "servelint................................................................Passed",
            "servelint policies.......................................................Passed",
            "servelint policy tests...................................................Passed",
        ],
        1,
    )


def test_hook_environment_holds_the_packaged_data(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    _, run = consumer
    code, _ = run([sys.executable, "-m", "pre_commit", "install-hooks"])
    cache = Path(hook_repo.env["PRE_COMMIT_HOME"])
    packages = sorted(cache.glob("repo*/py_env-*/lib/python3*/site-packages/linter"))
    assert (code, len(packages)) == (0, 1)
    data = packages[0] / "_data"
    assert (
        (data / "schemas" / "policy.schema.json").is_file(),
        (data / "policies").is_dir(),
        (packages[0] / "cli.py").is_file(),
    ) == (True, True, True)


def test_staged_values_file_is_linted_with_its_charts_values(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    """Scenario 1: only values-prod.yaml is staged; the model and GPU are in values.yaml."""
    repo, run = consumer
    chart = FIXTURES.parent / "helm" / "context" / "charts" / "vllm"
    (repo / ".servelint.yaml").write_text(
        "builtin: false\npolicyDirs: [lint-policies]\n", encoding="utf-8"
    )
    _git(["add", ".servelint.yaml"], repo, hook_repo.env)
    _stage(
        repo,
        hook_repo.env,
        "lint-policies/context-kv.yaml",
        FIXTURES.parent / "helm" / "context-policies" / "context-kv.yaml",
    )
    for name in ("Chart.yaml", "values.yaml", "templates/deployment.yaml"):
        _stage(repo, hook_repo.env, f"charts/vllm/{name}", chart / name)
    prod = repo / "charts" / "vllm" / "values-prod.yaml"
    prod.write_text(
        (chart / "values-prod.yaml").read_text(encoding="utf-8").replace("131072", "32768"),
        encoding="utf-8",
    )
    _git(["add", "charts/vllm/values-prod.yaml"], repo, hook_repo.env)
    code, output = run(["git", "commit", "-q", "-m", "vllm chart"])
    assert (code, output[0], _commits(repo, hook_repo.env)) == (
        0,
        "servelint................................................................Passed",
        1,
    )

    _stage(repo, hook_repo.env, "charts/vllm/values-prod.yaml", chart / "values-prod.yaml")
    code, output = run(["git", "commit", "-q", "-m", "full context in prod"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Failed",
            "- hook id: servelint",
            "- exit code: 1",
            "",
            "charts/vllm/values-prod.yaml:4:3: error context-kv/long-context max_model_len 131072 "
            "for meta-llama/Llama-3.1-8B-Instruct on NVIDIA-L4",
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "1 error, 0 warnings, 0 info in 1 file",
            "",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        1,
    )

    # Six staged files: pre-commit would split them over parallel runs; the hook is serial,
    # so the chart's three values files are its environments in one report.
    values = repo / "charts" / "vllm" / "values.yaml"
    values.write_text(values.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    _git(["add", "charts/vllm/values.yaml"], repo, hook_repo.env)
    _stage(repo, hook_repo.env, "charts/vllm/values-staging.yaml", chart / "values-staging.yaml")
    for name in ("a", "b", "c"):
        (repo / "manifests").mkdir(exist_ok=True)
        (repo / "manifests" / f"{name}.yaml").write_text(
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n", encoding="utf-8"
        )
        _git(["add", f"manifests/{name}.yaml"], repo, hook_repo.env)
    code, output = run(["git", "commit", "-q", "-m", "staging too"])
    assert (code, output[4:11]) == (
        1,
        [
            "note: environment default (charts/vllm/values.yaml): 0 errors, 1 warning, 0 info",
            "note: environment prod (charts/vllm/values.yaml + charts/vllm/values-prod.yaml): "
            "1 error, 0 warnings, 0 info",
            "note: environment staging (charts/vllm/values.yaml + charts/vllm/values-staging.yaml): "
            "0 errors, 1 warning, 0 info",
            "charts/vllm/values-prod.yaml:4:3: error context-kv/long-context max_model_len 131072 "
            "for meta-llama/Llama-3.1-8B-Instruct on NVIDIA-L4 [prod]",
            "charts/vllm/values.yaml:10:3: warning context-kv/many-sequences max_num_seqs 512 is "
            "above 256 [default, staging]",
            "coverage: 6 files, 3 workloads recognised (vllm 3)",
            "1 error, 1 warning, 0 info in 6 files",
        ],
    )


def test_scenario_1_the_built_in_kv_rule_stops_the_prod_commit(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    """The bundled example chart as charts/vllm, with the built-in policies, as Priya has it."""
    repo, run = consumer
    example = ROOT / "examples" / "charts" / "vllm"
    for name in (
        "Chart.yaml",
        "values.yaml",
        "templates/_helpers.tpl",
        "templates/deployment.yaml",
        "templates/service.yaml",
    ):
        _stage(repo, hook_repo.env, f"charts/vllm/{name}", example / name)
    prod = repo / "charts" / "vllm" / "values-prod.yaml"
    prod.write_text(
        (example / "values-prod.yaml").read_text(encoding="utf-8").replace("131072", "16384"),
        encoding="utf-8",
    )
    _git(["add", "charts/vllm/values-prod.yaml"], repo, hook_repo.env)
    code, output = run(["git", "commit", "-q", "-m", "vllm chart"])
    assert (code, output[0], _commits(repo, hook_repo.env)) == (
        0,
        "servelint................................................................Passed",
        1,
    )

    _stage(repo, hook_repo.env, "charts/vllm/values-prod.yaml", example / "values-prod.yaml")
    code, output = run(["git", "commit", "-q", "-m", "use the model's full context in prod"])
    assert (code, output[:4], output[5:], _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Failed",
            "- hook id: servelint",
            "- exit code: 1",
            "",
        ],
        [
            "coverage: 1 file, 1 workload recognised (vllm 1)",
            "1 error, 0 warnings, 0 info in 1 file",
            "",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        1,
    )
    assert output[4].startswith(
        "charts/vllm/values-prod.yaml:42:7: error vllm-kv/one-sequence-does-not-fit "
        "max_model_len 131072 needs 16 GiB of KV cache (128 KiB per token); about 5.3 GiB are "
        "left after the weights (Llama-3.1-8B-Instruct, TP=1, NVIDIA L4, "
        "gpu_memory_utilization 0.90)"
    )


def test_hook_environment_leaves_the_kubernetes_client_out(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    """Only drift --kube needs the client (the kube extra): the hook does not install it."""
    _, run = consumer
    code, _ = run([sys.executable, "-m", "pre_commit", "install-hooks"])
    cache = Path(hook_repo.env["PRE_COMMIT_HOME"])
    site = sorted(cache.glob("repo*/py_env-*/lib/python3*/site-packages"))
    assert (code, len(site)) == (0, 1)
    assert (
        (site[0] / "linter").is_dir(),
        (site[0] / "kubernetes").exists(),
        sorted(p.name for p in site[0].glob("kubernetes-*.dist-info")),
    ) == (True, False, [])


def _readme_precommit_config() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("```yaml\n# .pre-commit-config.yaml\n") + len("```yaml\n")
    return text[start : text.index("```", start)]


def test_the_readme_pins_a_commit_and_autoupdate_freeze_moves_the_pin(
    hook_repo: HookRepo, tmp_path: Path
) -> None:
    import re

    import yaml

    config = yaml.safe_load(_readme_precommit_config())
    rev = config["repos"][0]["rev"]
    assert re.fullmatch(r"[0-9a-f]{40}", rev), rev  # a commit, not a tag that does not exist
    shallow = _git(["rev-parse", "--is-shallow-repository"], ROOT, hook_repo.env)
    if shallow == "false":  # the pinned commit is in this repository's history
        assert _git(["cat-file", "-t", rev], ROOT, hook_repo.env) == "commit"
    # The documented way to move the pin, run on the README's block with this repository
    # standing in for GitHub: with no release tag, pre-commit pins the HEAD commit.
    repo = tmp_path / "consumer"
    repo.mkdir()
    _git(["init", "-q", "-b", "main"], repo, hook_repo.env)
    block = _readme_precommit_config().replace(
        "https://github.com/servelint/servelint", str(hook_repo.path)
    )
    (repo / ".pre-commit-config.yaml").write_text(block, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--freeze"],
        cwd=repo,
        env=hook_repo.env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    updated = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    head = _git(["rev-parse", "HEAD"], hook_repo.path, hook_repo.env)
    if _has_tags(hook_repo):  # a release exists: --freeze pins its tag's commit
        assert re.fullmatch(r"[0-9a-f]{40}", updated["repos"][0]["rev"])
    else:
        assert updated["repos"][0]["rev"] == head


def _has_tags(hook_repo: HookRepo) -> bool:
    return bool(_git(["tag", "--list"], hook_repo.path, hook_repo.env))


def test_the_hook_fails_a_chart_as_lint_chart_does(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    # The hook does not render, but the chart's templates prove that nothing mounts
    # /dev/shm: the error lint --chart reports (tests/test_helm_parity.py), at the same line.
    repo, run = consumer
    chart = Path(__file__).parent / "fixtures" / "helm" / "parity" / "no-shm"
    for name in ("Chart.yaml", "values.yaml", "templates/deployment.yaml"):
        _stage(repo, hook_repo.env, f"charts/llm/{name}", chart / name)
    code, output = run(["git", "commit", "-q", "-m", "tensor parallel on L4"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Failed",
            "- hook id: servelint",
            "- exit code: 1",
            "",
            "charts/llm/values.yaml:9:3: error shm/nccl-shm-transport-without-dev-shm "
            "tensor_parallel_size 2 on NVIDIA-L4 GPUs (no peer-to-peer) sends NCCL traffic "
            "through /dev/shm (vLLM 0.10.1.1 sets NCCL_CUMEM_ENABLE=0), and nothing is mounted "
            "there: the container has the runtime's 64 MiB and NCCL fails while vLLM starts "
            "(failed to extend /dev/shm/nccl-…); mount an emptyDir with medium: Memory and a "
            "sizeLimit (e.g. 2Gi) at /dev/shm",
            "coverage: 3 files, 1 workload recognised (vllm 1)",
            "1 error, 0 warnings, 0 info in 3 files",
            "",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        0,
    )


def test_a_file_named_like_an_option_is_linted_not_obeyed(
    hook_repo: HookRepo, consumer: tuple[Path, Run]
) -> None:
    """A pull request that commits ``--baseline=x.json`` beside a baseline hiding its own
    finding: pre-commit passes the name first (it sorts before the others), and without
    the hook's ``--`` servelint read it as ``--baseline x.json`` and passed the commit."""
    repo, run = consumer
    _stage(repo, hook_repo.env, "charts/vllm/values-prod.yaml", FIXTURES / "values-bad.yaml")
    written = subprocess.run(
        [sys.executable, "-m", "linter", "lint", "--write-baseline", "x.json", "--exit-zero",
         "charts/vllm/values-prod.yaml"],
        cwd=repo, env=hook_repo.env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    _git(["add", "x.json"], repo, hook_repo.env)
    (repo / "--baseline=x.json").write_text('{"replicaCount": 1}\n', encoding="utf-8")
    _git(["add", "--", "--baseline=x.json"], repo, hook_repo.env)
    code, output = run(["git", "commit", "-q", "-m", "hide the finding"])
    assert (code, output, _commits(repo, hook_repo.env)) == (
        1,
        [
            "servelint................................................................Failed",
            "- hook id: servelint",
            "- exit code: 1",
            "",
            DUPLICATE,
            "1 error, 0 warnings, 0 info in 4 files",
            "",
            "servelint policies...................................(no files to check)Skipped",
            "servelint policy tests...............................(no files to check)Skipped",
        ],
        0,
    )
