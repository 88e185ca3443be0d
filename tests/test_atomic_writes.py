"""Reports and baselines are written whole, through a unique temporary file created
exclusively: no planted link is followed, no reader sees half a file, and two runs
writing the same report leave one of them, whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from linter.atomic_write import atomic_text, write_text
from linter.cli import cli

FINDING = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"


def _inputs(folder: Path, count: int) -> list[str]:
    names = []
    for index in range(count):
        name = f"in{index}.yaml"
        (folder / name).write_text("a: 1\na: 2\n")  # one duplicate-key finding each
        names.append(name)
    return names


def test_a_planted_fixed_name_link_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "x.yaml").write_text("a: 1\na: 2\n")
    # What the former code wrote through: BASELINE.tmp, planted as a link.
    (repo / "baseline.json.tmp").symlink_to(outside)
    previous = Path.cwd()
    os.chdir(repo)
    try:
        result = CliRunner().invoke(
            cli,
            ["lint", "--no-config", "--write-baseline", "baseline.json", "x.yaml"],
            catch_exceptions=False,
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 0, result.output
    assert outside.read_text() == "precious\n"
    stored = json.loads((repo / "baseline.json").read_text())
    assert [f["rule"] for f in stored["findings"]] == ["duplicate-key"]
    assert sorted(p.name for p in repo.iterdir()) == [
        "baseline.json",
        "baseline.json.tmp",
        "x.yaml",
    ]


def test_a_linked_report_is_replaced_not_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    report = tmp_path / "report.json"
    report.symlink_to(outside)
    write_text(report, "{}\n")
    assert outside.read_text() == "precious\n"
    assert not report.is_symlink() and report.read_text() == "{}\n"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old\n")
    report.chmod(0o640)
    try:
        with atomic_text(report) as handle:
            handle.write("half")
            raise RuntimeError("reporter failed")
    except RuntimeError:
        pass
    assert report.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]
    write_text(report, "new\n")
    assert report.read_text() == "new\n" and (report.stat().st_mode & 0o777) == 0o640


def test_a_special_destination_is_written_directly(tmp_path: Path) -> None:
    write_text("/dev/null", "discarded\n")
    assert Path("/dev/null").is_char_device()


def test_two_runs_writing_one_report_leave_one_whole_report(tmp_path: Path) -> None:
    names = _inputs(tmp_path, 300)
    command = [sys.executable, "-m", "linter", "lint", "--no-config", "--format", "json"]
    runs = [
        subprocess.Popen(
            [*command, "-o", "report.json", *names],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 1, err
    report = json.loads((tmp_path / "report.json").read_text())
    assert len(report["findings"]) == 300
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
