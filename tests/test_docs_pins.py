"""What the documentation pins must exist (issue 31): the pre-commit ``rev`` of the README
is a commit of this repository whose CLI has every option and command the README
documents, and the images of the PreSync Job and the drift CronJob default to a tag that
the image workflow (docs/workflows/container-image.yml) publishes for ``main``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
IMAGE = "ghcr.io/servelint/servelint"
# Server flags the README quotes (vLLM, TGI): not servelint's options.
SERVER_FLAGS = frozenset({"--enforce-eager", "--api-key", "--hf-token"})
_COMMAND = re.compile(r"(?:^|[\s|(`$])servelint ([a-z][a-z-]*)\b(.*)")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def history() -> None:
    """The pins are checked against this repository's history: a git checkout, not shallow."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist): the pinned commit cannot be looked up")
    assert _git("rev-parse", "--is-shallow-repository").strip() == "false"


def readme_rev() -> str:
    [rev] = re.findall(r"^ {4}rev: ([0-9a-f]{40})\b", README.read_text(encoding="utf-8"), re.M)
    return rev


def documented_commands() -> dict[str, set[str]]:
    """``servelint COMMAND --option`` as the README writes them: in its shell examples
    (continuation lines joined) and in inline code; ``""`` for an option named alone
    (the flag tables, the prose)."""
    text = README.read_text(encoding="utf-8")
    found: dict[str, set[str]] = {"": set()}
    lines = re.sub(r"\\\n", " ", "\n".join(re.findall(r"```[a-z]*\n(.*?)```", text, re.S)))
    for line in [*lines.splitlines(), *re.findall(r"`([^`\n]+)`", text)]:
        match = _COMMAND.search(line)
        if match is not None:
            words = re.split(r"\s(?:#|\||>)", match[2])[0]
            found.setdefault(match[1], set()).update(_OPTION.findall(words))
    for span in re.findall(r"`(--[a-z][^`\n]*)`", text):
        found[""].update(_OPTION.findall(span))
    found[""] -= SERVER_FLAGS
    return found


def options_at(rev: str, tmp_path: Path) -> dict[str, set[str]]:
    """Each command's long options (``""``: the group's) in the CLI of commit ``rev``,
    imported from that commit's own ``linter`` package in a process of its own."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", rev, "linter"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tmp_path, filter="data")
    probe = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import click, linter\n"
        "assert linter.__file__.startswith(sys.argv[1]), linter.__file__\n"
        "from linter.cli import cli\n"
        "ctx = click.Context(cli)\n"
        "def longs(command): return sorted({o for p in command.params "
        "for o in [*p.opts, *p.secondary_opts] if o.startswith('--')})\n"
        "found = {name: longs(cli.get_command(ctx, name)) for name in cli.list_commands(ctx)}\n"
        "found[''] = longs(cli)\n"
        "print(json.dumps(found))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    return {name: set(opts) for name, opts in json.loads(done.stdout).items()}


def test_the_readme_documents_what_the_extraction_reads() -> None:
    # The extraction itself: it sees the examples, the flag tables and the prose.
    documented = documented_commands()
    assert {"--chart", "--env", "--set", "--baseline", "--write-baseline"} <= documented["lint"]
    assert {"--kube", "--live", "--context", "--selector", "--source"} <= documented["drift"]
    assert {"--chart", "--live", "--format"} <= documented["show"]
    assert {"--disable", "--enable", "--fail-on-unchecked", "--traceback"} <= documented[""]
    assert not SERVER_FLAGS & set().union(*documented.values())


def test_the_pinned_commit_has_every_documented_command_and_option(
    history: None, tmp_path: Path
) -> None:
    rev = readme_rev()
    # On the branch CI tests, so on main once merged: never a commit only a fork has.
    _git("merge-base", "--is-ancestor", rev, "HEAD")
    at_rev = options_at(rev, tmp_path)
    every = set().union(*at_rev.values())
    documented = documented_commands()
    missing = {
        command: sorted(options - at_rev.get(command, set()))
        for command, options in documented.items()
        if command
    }
    missing[""] = sorted(documented[""] - every)
    # A newly documented option: move the pin (README, docs/ci.md, .pre-commit-hooks.yaml)
    # to a commit of main that has it.
    assert {command: names for command, names in missing.items() if names} == {}
    assert set(documented) - {""} <= set(at_rev)


def test_the_pinned_commit_has_the_documented_hooks(history: None) -> None:
    rev = readme_rev()
    text = README.read_text(encoding="utf-8")
    documented = re.findall(r"^ {6}- id: ([\w-]+)", text, re.M)
    hooks = yaml.safe_load(_git("show", f"{rev}:.pre-commit-hooks.yaml"))
    assert documented == ["servelint", "servelint-policies", "servelint-policy-tests"]
    assert set(documented) <= {hook["id"] for hook in hooks}


def test_every_copy_of_the_pin_is_the_readmes() -> None:
    rev = readme_rev()
    names = [
        "README.md",
        ".pre-commit-hooks.yaml",
        *(p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "docs").rglob("*.md"))),
    ]
    pins = {
        name: re.findall(
            r"(?:rev: |servelint/servelint@)([0-9a-f]{7,40})\b",
            (ROOT / name).read_text(encoding="utf-8"),
        )
        for name in names
    }
    # The pre-commit block (README, docs/ci.md, the hooks file) and the pip pins of the
    # CI examples (docs/ci.md: GitHub Actions, GitLab).
    assert {name: found for name, found in pins.items() if found} == {
        "README.md": [rev],
        ".pre-commit-hooks.yaml": [rev],
        "docs/ci.md": [rev, rev, rev],
    }


def published_for_main() -> set[str]:
    """The tags the image workflow gives a push to main: the branch's name for each
    ``type=ref,event=branch`` rule (``type=sha`` adds ``sha-<commit>``, matched apart)."""
    workflow = yaml.safe_load(
        (ROOT / "docs" / "workflows" / "container-image.yml").read_text(encoding="utf-8")
    )
    triggers = workflow.get("on", workflow.get(True))
    [meta] = [
        step
        for step in workflow["jobs"]["image"]["steps"]
        if step.get("uses", "").startswith("docker/metadata-action@")
    ]
    rules = [line.strip() for line in meta["with"]["tags"].splitlines() if line.strip()]
    assert "main" in triggers["push"]["branches"]
    return {"main"} if "type=ref,event=branch" in rules else set()


def default_images() -> dict[str, tuple[str, str | None]]:
    """Where each manifest names the servelint image: (image, imagePullPolicy)."""
    cronjob = yaml.safe_load_all((ROOT / "deploy/drift-scan/cronjob.yaml").read_text())
    [job] = [doc for doc in cronjob if doc and doc["kind"] == "CronJob"]
    [scan] = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    presync = ROOT / "examples/argocd/presync"
    values = yaml.safe_load((presync / "values-servelint.yaml").read_text())["servelint"]
    template = (presync / "templates/servelint-presync.yaml").read_text()
    [default] = re.findall(r'get \$settings "image" \| default "([^"]+)"', template)
    [policy] = re.findall(r'get \$settings "imagePullPolicy" \| default "([^"]+)"', template)
    return {
        "deploy/drift-scan/cronjob.yaml": (scan["image"], scan.get("imagePullPolicy")),
        "presync values-servelint.yaml": (values["image"], values.get("imagePullPolicy")),
        "presync template default": (default, policy),
    }


def test_the_images_default_to_a_tag_the_workflow_publishes_for_main(history: None) -> None:
    tags = published_for_main()
    for where, (image, pull) in default_images().items():
        name, _, tag = image.rpartition(":")
        assert (where, name) == (where, IMAGE)
        sha = re.fullmatch(r"sha-([0-9a-f]{7,40})", tag)
        if sha is not None:  # a commit's image: that commit is on main
            _git("merge-base", "--is-ancestor", sha[1], "HEAD")
        else:
            assert (where, tag in tags) == (where, True)
            # A branch's tag moves: pull it again, or a node keeps the image it first saw.
            assert (where, pull) == (where, "Always")
