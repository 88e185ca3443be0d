"""Globs of the configuration file, and line numbers inside pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.parsing.documents import ParsedFile
from linter.parsing.tomlpos import line_map
from linter.positions import Span
from linter.run.globs import matches, relative_to
from linter.run.suppress import inline


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.yaml", "values.yaml", True),
        ("*.yaml", "charts/vllm/values.yaml", True),  # no slash: any depth
        ("templates", "charts/vllm/templates/deploy.yaml", True),  # a folder covers its files
        ("templates/", "charts/vllm/templates/deploy.yaml", True),
        ("charts/*/values.yaml", "charts/vllm/values.yaml", True),
        ("charts/*/values.yaml", "charts/a/b/values.yaml", False),  # * stays in one folder
        ("charts/**/values.yaml", "charts/a/b/values.yaml", True),
        ("charts/**/values.yaml", "charts/values.yaml", True),
        ("/values.yaml", "charts/values.yaml", False),  # leading / anchors at the root
        ("deploy/staging/**", "deploy/staging/a/b.yaml", True),
        ("deploy/staging/**", "deploy/prod/b.yaml", False),
        ("values-[ps]*.yaml", "values-prod.yaml", True),
        ("values-[!ps]*.yaml", "values-prod.yaml", False),
        ("values-?.yaml", "values-1.yaml", True),
        ("a.b.yaml", "aXb.yaml", False),  # dots are literal
    ],
)
def test_globs(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_paths_are_relative_to_the_config_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert relative_to(tmp_path / "repo", "repo/deploy/a.yaml") == "deploy/a.yaml"
    assert relative_to(tmp_path / "repo", str(tmp_path / "repo" / "a.yaml")) == "a.yaml"
    assert relative_to(tmp_path / "repo", "other/a.yaml") == "other/a.yaml"
    assert relative_to(tmp_path / "repo", "repository/a.yaml") == "repository/a.yaml"


def test_toml_line_map() -> None:
    text = (
        "[project]\nname = 'x'\n\n"
        "[tool.servelint]\n"
        "failLevel = 'info'\n"
        "  'quoted.key' = 1\n"
        "model.gpuProduct = 'L4'\n"
        "[tool.servelint.severity]\n"
        '"vllm/enforce-eager" = "info"\n'
        "[[tool.servelint.suppressions]]\n"
        "rules = ['a/b']\n"
        "[[tool.servelint.suppressions]]\n"
        "reason = 'x'\n"
    )
    assert line_map(text, ("tool", "servelint")) == {
        (): Span(4, 1),
        ("failLevel",): Span(5, 1),
        ("quoted.key",): Span(6, 3),
        ("model", "gpuProduct"): Span(7, 1),
        ("severity",): Span(8, 1),
        ("severity", "vllm/enforce-eager"): Span(9, 1),
        ("suppressions", 0): Span(10, 1),
        ("suppressions", 0, "rules"): Span(11, 1),
        ("suppressions", 1): Span(12, 1),
        ("suppressions", 1, "reason"): Span(13, 1),
    }


def test_suppression_comments_in_triton_configs() -> None:
    text = (
        'name: "m"\n'
        '# servelint: ignore[triton/max-batch-size-negative] reason="legacy model"\n'
        "max_batch_size: -1\n"
    )
    [directive], problems = inline.scan(ParsedFile("m/config.pbtxt", text, [], []))
    assert (directive.rule, directive.reason, directive.line, problems) == (
        "triton/max-batch-size-negative",
        "legacy model",
        2,
        [],
    )
