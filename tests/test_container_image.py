"""The Dockerfile, checked as text (no container engine runs here), and its build context.

The build-context test builds the wheel from exactly the files `docker build` would
send, so a .dockerignore that drops a data folder (or a data folder missing from
force-include) fails here rather than in someone's image build.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    pairs = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            pairs.append((keyword.upper(), " ".join(rest.split())))
    return pairs


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


SYSTEM_CACHE_RUN = (
    "XDG_CACHE_HOME=/opt/servelint/system-cache servelint rules > /dev/null "
    "&& chmod -R a+rX,go-w /opt/servelint/system-cache"
)


def image_env() -> dict[str, str]:
    """The final stage's ENV, as NAME=VALUE pairs (no quoting or spaces in the values)."""
    pairs = [args for keyword, args in final_stage() if keyword == "ENV"]
    return dict(word.split("=", 1) for args in pairs for word in args.split())


def test_every_stage_uses_a_slim_python_base() -> None:
    bases = [args.split()[0] for keyword, args in instructions() if keyword == "FROM"]
    assert bases == ["python:3.11-slim-bookworm", "python:3.11-slim-bookworm"]


def test_final_stage_runs_servelint_as_a_numeric_non_root_user() -> None:
    stage = final_stage()
    users = [args for keyword, args in stage if keyword == "USER"]
    entry = [json.loads(args) for keyword, args in stage if keyword == "ENTRYPOINT"]
    user_index = max(i for i, (keyword, _) in enumerate(stage) if keyword == "USER")
    assert (users, entry) == (["10001:10001"], [["servelint"]])
    # Nothing runs after USER, and the user is created before it is used. The built-in
    # policies are compiled as root into the read-only system cache (any user reads it);
    # the user's own cache folder is its own.
    assert [k for k, _ in stage[user_index:]] == ["USER", "WORKDIR", "ENTRYPOINT", "CMD"]
    assert stage[user_index - 1] == ("RUN", SYSTEM_CACHE_RUN)
    assert any("useradd --system --uid 10001" in args for k, args in stage if k == "RUN")
    assert any(
        "install -d -o 10001 -g 10001 -m 0700 /opt/servelint/cache" in args
        for k, args in stage[:user_index]
        if k == "RUN"
    )
    assert image_env()["XDG_CACHE_HOME"] == "/opt/servelint/cache"
    assert image_env()["SERVELINT_SYSTEM_CACHE"] == "/opt/servelint/system-cache"


def test_final_stage_installs_the_wheel_offline() -> None:
    runs = [args for keyword, args in final_stage() if keyword == "RUN"]
    assert len(runs) == 2
    assert runs[0].startswith(
        "pip install --no-cache-dir --disable-pip-version-check "
        "--no-index --find-links=/wheels 'servelint[kube]' && rm -rf /wheels"
    )
    # The image runs drift --kube (the drift-scan CronJob): the kube extra is built too.
    builds = [args for keyword, args in instructions() if keyword == "RUN" and "pip wheel" in args]
    assert builds == [
        "pip wheel --no-cache-dir --disable-pip-version-check --wheel-dir /wheels '.[kube]'"
    ]
    assert not [args for keyword, args in instructions() if keyword == "ADD"]


def test_entry_point_is_the_console_script() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"] == {"servelint": "linter.console:run"}


def _ignored(name: str, patterns: list[str]) -> bool:
    """A simplified .dockerignore match: a pattern excludes a path or any of its parents."""
    parts = name.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        if pattern.startswith("**/"):
            if any(fnmatch.fnmatchcase(part, pattern[3:]) for part in parts):
                return True
        elif any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes):
            return True
    return False


def _dockerignore() -> list[str]:
    text = (ROOT / ".dockerignore").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_dockerignore_keeps_what_the_wheel_needs() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = project["tool"]["hatch"]["build"]["targets"]["wheel"]
    needed = [
        "pyproject.toml",
        project["project"]["readme"],
        *wheel["packages"],
        *wheel["force-include"],
    ]
    patterns = _dockerignore()
    assert [name for name in needed if _ignored(name, patterns)] == []
    assert [
        name
        for name in (".git", ".venv", "tests", "linter/__pycache__/x.pyc")
        if not _ignored(name, patterns)
    ] == []


def test_build_context_makes_a_wheel_with_the_data(tmp_path: Path) -> None:
    context = tmp_path / "context"
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    patterns = _dockerignore()
    for name in filter(None, listing.split("\0")):
        if (ROOT / name).is_file() and not _ignored(name, patterns):
            (context / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, context / name)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "--wheel-dir",
            str(tmp_path / "wheels"),
            str(context),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (built.returncode, built.stderr) == (0, "")
    [wheel] = (tmp_path / "wheels").glob("servelint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(
            archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt")
        )
    assert {
        "linter/cli.py",
        "linter/commands/lint.py",
        "linter/_data/policies/README.md",
        "linter/_data/schemas/policy.schema.json",
        "linter/_data/catalogue/models.yaml",
        "linter/_data/catalogue/gpus.yaml",
        "linter/_data/schemas/models.schema.json",
    } <= names
    assert "servelint = linter.console:run" in entry_points.splitlines()
    assert not [n for n in names if n.startswith(("tests/", "linter/_data/tests"))]
    # Installed, the wheel's record is where the policy cache finds it (_resources.record_of):
    # the dist-info named with linter.__version__ as written, beside the package.
    from linter import __version__, _resources

    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    record = _resources.record_of(site / "linter", __version__)
    assert record is not None and b"linter/_data/policies/" in record


def test_the_workflow_in_docs_builds_and_publishes_this_dockerfile() -> None:
    workflow = yaml.safe_load(
        (ROOT / "docs" / "workflows" / "container-image.yml").read_text(encoding="utf-8")
    )
    steps = workflow["jobs"]["image"]["steps"]
    uses = [step["uses"] for step in steps if "uses" in step]
    # Every action pinned to a release, none to a branch.
    assert all(re.fullmatch(r"[\w-]+/[\w-]+@v\d+", action) for action in uses), uses
    [build] = [s for s in steps if s.get("uses", "").startswith("docker/build-push-action@")]
    [meta] = [s for s in steps if s.get("uses", "").startswith("docker/metadata-action@")]
    assert (build["with"]["context"], build["with"]["file"]) == (".", "Dockerfile")
    assert (ROOT / build["with"]["file"]).is_file()
    assert build["with"]["push"] == "${{ github.event_name != 'pull_request' }}"
    assert meta["with"]["images"] == "ghcr.io/${{ github.repository_owner }}/servelint"
    assert workflow["permissions"] == {"contents": "read", "packages": "write"}
    # `on:` is read by PyYAML as True (YAML 1.1); the triggers are still there.
    triggers = workflow.get("on", workflow.get(True))
    assert sorted(triggers) == ["pull_request", "push", "workflow_dispatch"]
    assert triggers["push"] == {"branches": ["main"], "tags": ["v*"]}


# Run servelint as the user whose id is the first argument, as far as servelint can tell
# (os.geteuid, which every trust decision of the cache folder asks): the test process is
# root, so the files it hands to a user (chown) are really that user's.
_AS_USER = (
    "import os, sys; uid = int(sys.argv.pop(1)); os.geteuid = lambda: uid; "
    "sys.argv[0] = 'servelint'; from linter.console import run; run()"
)


def _as_user(uid: int, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _AS_USER, str(uid), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _compiled(folder: Path) -> list[str]:
    """The policy sets a user's runs compiled and stored in its own cache folder."""
    return sorted(p.name for p in (folder / "servelint").glob("policies-*.entry"))


@pytest.mark.skipif(os.geteuid() != 0, reason="hands files to other users: needs root")
def test_every_user_of_the_image_reads_the_precompiled_policies(tmp_path: Path) -> None:
    """The image's layout (its ENV, its cache folders and their owners), built by the
    Dockerfile's own commands, then a lint as the image's user (10001) and as Argo CD's
    plugin sidecar (999, with its own cache on /tmp as repo-server-patch.yaml sets it):
    both load the built-in policies from the system cache instead of compiling them."""
    image = tmp_path / "image"
    root = str(image / "opt" / "servelint")
    env_vars = {k: v.replace("/opt/servelint", root) for k, v in image_env().items()}
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SERVELINT_"))},
        **env_vars,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
    }
    [made] = [a for k, a in final_stage() if k == "RUN" and "install -d -o 10001" in a]
    own = re.search(r"install -d -o 10001 -g 10001 -m 0700 \S+", made)
    assert own is not None
    for command in (own[0], SYSTEM_CACHE_RUN):
        built = subprocess.run(
            ["sh", "-c", command.replace("/opt/servelint", root)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (built.returncode, built.stderr) == (0, "")
    system = Path(env_vars["SERVELINT_SYSTEM_CACHE"]) / "servelint"
    entries = sorted(system.glob("policies-*.entry"))
    modes = {oct(os.stat(p).st_mode & 0o777) for p in [system, *entries]}
    assert (len(entries), modes) == (1, {"0o755", "0o644"})
    assert os.stat(env_vars["XDG_CACHE_HOME"]).st_uid == 10001

    sidecar_cache = tmp_path / "cmp-tmp" / "servelint-cache"
    # The folder each user's first run makes in its cache (made here, since the test
    # process is root): a policy set a run compiled is stored there, and seen.
    for uid, home in [(10001, Path(env_vars["XDG_CACHE_HOME"])), (999, sidecar_cache)]:
        (home / "servelint").mkdir(parents=True, mode=0o700)
        os.chown(home / "servelint", uid, uid)
    lint = ["lint", "--today=2026-12-01", "examples/charts/vllm"]
    users = [
        (10001, env),
        (999, {**env, "XDG_CACHE_HOME": str(sidecar_cache)}),  # repo-server-patch.yaml
    ]
    for uid, user_env in users:
        done = _as_user(uid, user_env, *lint)
        assert (uid, done.returncode, done.stderr) == (uid, 1, "")
        assert (
            done.stdout.splitlines()[-1] == "1 error, 0 warnings, 1 info, 1 suppressed in 4 files"
        )
        assert (uid, _compiled(Path(user_env["XDG_CACHE_HOME"]))) == (uid, [])

    # Without the system cache (the image before issue 31), 999 compiles them every run.
    old_image = {**users[1][1], "SERVELINT_SYSTEM_CACHE": ""}
    done = _as_user(999, old_image, *lint)
    assert (done.returncode, len(_compiled(sidecar_cache))) == (1, 1)
