"""lint, test and drift only read: every input, policy and configuration file keeps its
bytes and its modification time."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from click.testing import CliRunner

from linter.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"
BUILTIN_POLICIES = Path(__file__).parent.parent / "policies"


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_commands_never_write_to_what_they_read(tmp_path: Path) -> None:
    tree = tmp_path / "repo"
    shutil.copytree(FIXTURES / "core", tree / "core")
    shutil.copytree(FIXTURES / "secrets", tree / "secrets")
    shutil.copytree(BUILTIN_POLICIES, tree / "policies")
    (tree / "values.yaml").write_text("maxModelLen: 4096\nhfToken: hf_AbCdEfGhIjKlMnOpQrStUv\n")
    (tree / "live.json").write_text('{"max_model_len": 8192}\n')
    (tree / ".servelint.yaml").write_text("failLevel: warning\nlimits: {maxDepth: 100}\n")
    # Old timestamps: a rewrite with the same bytes would still show.
    for path in tree.rglob("*"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000), follow_symlinks=False)
    before = _snapshot(tree)
    reports = tmp_path / "reports"
    reports.mkdir()
    previous = Path.cwd()
    os.chdir(tree)
    try:
        runner = CliRunner()
        runs = [
            ["lint", "."],
            [
                "lint",
                "--policy-dir",
                "secrets/policies",
                "--format",
                "text",
                "--format",
                f"json:{reports / 'r.json'}",
                "--format",
                f"sarif:{reports / 'r.sarif'}",
                "--format",
                f"junit:{reports / 'r.xml'}",
                "--format",
                f"github:{reports / 'r.txt'}",
                "core",
                "secrets",
                "values.yaml",
            ],
            ["lint", "--write-baseline", str(reports / "baseline.json"), "core"],
            ["test", "policies/tests"],
            ["drift", "-f", "values.yaml", "--live", "live.json"],
        ]
        codes = [runner.invoke(cli, args, catch_exceptions=False).exit_code for args in runs]
    finally:
        os.chdir(previous)
    assert codes == [1, 1, 1, 0, 1], codes
    assert _snapshot(tree) == before
