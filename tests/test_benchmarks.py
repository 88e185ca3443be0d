"""The benchmark scripts' inputs (benchmarks/README.md): seeded, realistic, and lintable.
Only what they generate is tested here; timings are measured by the scripts, never by
tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from linter.cli import main
from linter.evaluate.parsers import parse
from linter.model.extract import extract_workloads

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import harness
import inputs


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_the_hook_input_is_a_400_line_production_stack_values_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = inputs.hook_input(tmp_path / "a")
    again = inputs.hook_input(tmp_path / "b")
    assert path.read_bytes() == again.read_bytes()
    assert 380 <= len(path.read_text(encoding="utf-8").splitlines()) <= 420
    assert main(["lint", "--no-config", "--format", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    parsed = parse(str(path), path.read_text(encoding="utf-8"))
    workloads = extract_workloads([parsed])
    assert [w.data["engine"]["name"] for w in workloads] == ["vllm"] * 6


def test_bulk_inputs_are_seeded_and_varied(tmp_path: Path) -> None:
    first = inputs.bulk_inputs(tmp_path / "a", 60)
    inputs.bulk_inputs(tmp_path / "b", 60)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert len(first) == 60
    assert {p.name.split("-")[0] for p in first} == {"values", "deploy", "server"}


def test_the_table_lines_up() -> None:
    assert harness.table([["a", "bb"], ["ccc", "d"]]).splitlines() == [
        "a    bb",
        "---  --",
        "ccc  d",
    ]
