"""The GitOps tests' repository: a fixture folder copied into a temporary git repository
(a `.git` folder marks its root) that the test runs in, and the findings of a JSON report
as (file, line, column, rule, environments)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result


def checkout(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: Path,
    *extra: tuple[Path, str],
) -> Path:
    """``source`` as a repository under ``tmp_path``, with each ``(folder, place)`` of
    ``extra`` copied to ``place`` inside it; the working directory is its root."""
    root = tmp_path / "repo"
    shutil.copytree(source, root)
    for folder, place in extra:
        shutil.copytree(folder, root / place)
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def findings(result: Result) -> list[tuple[Any, ...]]:
    return [
        (f["file"], f["line"], f["column"], f["rule"], f.get("environments", []))
        for f in json.loads(result.output)["findings"]
    ]
