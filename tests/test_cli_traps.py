"""CLI traps of issue 31: ``-o`` given a format name, an empty input set, inputs that are
not configurations, summary counts that disagree."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunLine = Callable[..., Result]
CLEAN = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata: {a: b}\n"


@pytest.mark.parametrize(
    ("args", "fmt", "suffix"),
    [
        (["lint", "-o", "sarif", "x.yaml"], "sarif", "sarif"),
        (["lint", "--output", "JSON", "x.yaml"], "json", "json"),
        (["lint", "-o", "junitxml", "x.yaml"], "junit", "xml"),
        (["lint", "-o", "cli", "x.yaml"], "text", "txt"),
        (["drift", "-o", "prometheus", "--live", "x.yaml"], "prometheus", "prom"),
        (["test", "-o", "junit"], "junit", "xml"),
    ],
    ids=["sarif", "upper-case", "checkov-junitxml", "checkov-cli", "drift", "test"],
)
def test_a_format_name_given_to_o_is_a_usage_error(
    run_line: RunLine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    fmt: str,
    suffix: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text(CLEAN)
    result = run_line(args)
    word = args[args.index("-o") + 1] if "-o" in args else args[args.index("--output") + 1]
    assert result.exit_code == 2
    assert result.output.splitlines()[-1].endswith(
        f"'{word}' is a format name, not a file: give the format with --format {fmt} (and "
        f"a file with -o, e.g. --format {fmt} -o servelint.{suffix}); to write a file named "
        f"'{word}', write ./{word}"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.yaml"]


def test_a_path_that_looks_like_a_format_is_a_file(
    run_line: RunLine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.yaml").write_text(CLEAN)
    result = run_line(["lint", "--no-config", "-o", "./sarif", "x.yaml"])
    assert (result.exit_code, result.output) == (0, "")
    assert (tmp_path / "sarif").read_text() == "0 errors, 0 warnings, 0 info in 1 file\n"
