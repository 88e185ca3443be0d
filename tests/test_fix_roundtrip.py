"""``servelint lint --fix`` over copies of every YAML file this project owns
(tests/fixtures and examples/): a file no fix applies to keeps every byte, and a file
fixed differs only in the lines of its fixes (a changed line per value, or lines added)."""

from __future__ import annotations

import difflib
import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

ROOT = Path(__file__).parent.parent

_FIXED = re.compile(r"^(?P<file>.+?):\d+:\d+: fixed ")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and ".git" not in p.parts
    }


def changed_lines(before: bytes, after: bytes) -> tuple[int, int]:
    """(original lines replaced, original lines deleted) between two versions."""
    old = before.decode("utf-8").splitlines(keepends=True)
    new = after.decode("utf-8").splitlines(keepends=True)
    replaced = deleted = 0
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace":
            replaced += i2 - i1
        elif tag == "delete":
            deleted += i2 - i1
    return replaced, deleted


def test_fix_changes_only_the_lines_of_its_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    (tmp_path / ".git").mkdir()
    for folder in ("tests/fixtures", "examples"):
        shutil.copytree(ROOT / folder, tmp_path / folder, symlinks=True)
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    result = run_line(["lint", "--no-config", "--fix", "tests/fixtures", "examples"])
    after = _snapshot(tmp_path)
    fixes = Counter(
        m.group("file") for line in result.stderr.splitlines() if (m := _FIXED.match(line))
    )
    assert sorted(after) == sorted(before)  # no file added, none removed
    changed = {name for name in before if before[name] != after[name]}
    assert changed == set(fixes)
    for name in changed:
        replaced, deleted = changed_lines(before[name], after[name])
        assert deleted == 0, name
        assert replaced <= fixes[name], name
    # The fixtures exercise every fix many times over.
    assert sum(fixes.values()) >= 150
    assert len(changed) >= 100
