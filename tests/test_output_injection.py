"""Text from the inputs cannot drive a terminal or a CI log: control characters are shown
as escapes and no input starts a line with ``::`` (a GitHub Actions workflow command) in
any human-readable format."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from linter.cli import cli
from linter.reporters.escape import escape_text

ESC = "\x1b"
POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: team-echo}
spec:
  target: document
  rules:
    - id: echo
      severity: warning
      expression: "!has(doc.note)"
      messageExpression: "'note says ' + doc.note"
"""


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "echo.yaml").write_text(POLICY)
    # A file name that starts a workflow command and carries a terminal escape.
    (tmp_path / f"::error title=owned::{ESC}[2Jx.yaml").write_text("note: x\n")
    # A key with an escape (duplicated: its finding quotes it) and a value that tries
    # to start a line of its own.
    (tmp_path / "values.yaml").write_text(
        'k: 1\n"\\e[31mred": 1\n"\\e[31mred": 2\nnote: "ok\\r\\n::error file=a.py::owned \\e]0;t\\a"\n'
    )
    return tmp_path


def _run(folder: Path, *args: str) -> tuple[int, str]:
    previous = Path.cwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(
            cli,
            ["lint", "--no-config", "--no-builtin", "--policy-dir", "policies", *args],
            catch_exceptions=False,
            env={"NO_COLOR": "1"},
        )
    finally:
        os.chdir(previous)
    return result.exit_code, result.output


def _assert_inert(text: str, own_commands: bool = False) -> None:
    assert ESC not in text and "\r" not in text and "\x07" not in text
    for line in text.splitlines():
        if line.startswith("::"):
            assert own_commands and line.startswith(("::error file=", "::warning file="))
            assert "::error file=a.py" not in line.split("::", 2)[1]


def test_text_output_is_inert(hostile: Path) -> None:
    code, output = _run(hostile, ".")
    assert code == 1
    _assert_inert(output)
    assert output.splitlines() == [
        "\\x3a:error title=owned::\\x1b[2Jx.yaml:1:1: warning team-echo/echo note says x",
        "values.yaml:1:1: warning team-echo/echo note says ok\\x0d\\x0a::error file=a.py::owned "
        "\\x1b]0;t\\x07",
        "values.yaml:3:1: error duplicate-key duplicate key '\\x1b[31mred' (first at line 2); "
        "Helm and Kubernetes silently keep the last value",
        "1 error, 2 warnings, 0 info in 3 files",
    ]


def test_github_annotations_are_inert(hostile: Path) -> None:
    code, output = _run(hostile, "--format", "github", ".")
    assert code == 1
    _assert_inert(output, own_commands=True)
    # three annotations and the summary: nothing injected
    assert output.splitlines() == [
        "::warning file=%3A%3Aerror title=owned%3A%3A\\x1b[2Jx.yaml,line=1,col=1,"
        "title=team-echo/echo::note says x",
        "::warning file=values.yaml,line=1,col=1,title=team-echo/echo::note says ok%0D%0A"
        "::error file=a.py::owned \\x1b]0;t\\x07",
        "::error file=values.yaml,line=3,col=1,title=duplicate-key::duplicate key "
        "'\\x1b[31mred' (first at line 2); Helm and Kubernetes silently keep the last value",
        "1 error, 2 warnings, 0 info in 3 files",
    ]


def test_junit_and_files_are_inert(hostile: Path, tmp_path: Path) -> None:
    code, _ = _run(hostile, "--format", f"junit:{tmp_path / 'junit.xml'}", ".")
    assert code == 1
    assert ESC not in (tmp_path / "junit.xml").read_text()


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\x1b[31mb", "a\\x1b[31mb"),
        ("::error::x", "\\x3a:error::x"),
        ("ok\n::warning::x", "ok\\x0a::warning::x"),
        ("bidi \u202e txt", "bidi \\u202e txt"),
        ("tab\tkept", "tab\tkept"),
        ("del\x7f c1\x9b", "del\\x7f c1\\x9b"),
        # The runner trims white space before it looks for "::" (ActionCommand.TryParseV2).
        ("  ::error::x", "  \\x3a:error::x"),
        ("\t\u00a0::error::x", "\t\u00a0\\x3a:error::x"),
        ("a ::error::x", "a ::error::x"),
    ],
)
def test_escape_text(raw: str, shown: str) -> None:
    assert escape_text(raw) == shown


# What must be escaped: C0 controls but tab (newline unless kept), DEL, C1 controls, the
# line and paragraph separators and the bidirectional controls.
def _escaped(code: int, keep_newlines: bool) -> bool:
    return (
        (code < 0x20 and code != 0x09 and not (keep_newlines and code == 0x0A))
        or 0x7F <= code <= 0x9F
        or code in (0x2028, 0x2029)
        or 0x202A <= code <= 0x202E
        or 0x2066 <= code <= 0x2069
    )


@pytest.mark.parametrize("keep_newlines", [False, True])
def test_every_character_is_escaped_exactly_when_it_must_be(keep_newlines: bool) -> None:
    for code in [*range(0x10000), 0x1F600, 0xE0001, 0x10FFFF]:
        char = chr(code)
        shown = (
            (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
            if _escaped(code, keep_newlines)
            else char
        )
        assert escape_text(f"a{char}b", keep_newlines=keep_newlines) == f"a{shown}b"
        assert escape_text(f"::{char}", keep_newlines=keep_newlines) == f"\\x3a:{shown}"


def test_policy_test_output_is_inert() -> None:
    from linter.policytest.model import CaseResult
    from linter.policytest.report import format_case

    result = CaseResult(
        "t_test.yaml", "s", f"case {ESC}[2J", ("expected x to say 'a\n::error::owned'",)
    )
    assert format_case(result) == (
        "FAIL t_test.yaml: case \\x1b[2J\n     expected x to say 'a\\x0a::error::owned'"
    )


RULE_POLICY = """\
apiVersion: servelint/v1
kind: Policy
metadata: {name: team}
spec:
  target: document
  rules:
    - id: r
      severity: warning
      title: "Title\\r\\n::error file=x::owned \\e[2J"
      description: "why\\n::error::owned"
      fix: "do\\n::warning::owned"
      references: ["https://example.com/a\\n::error::owned"]
      expression: "true"
      message: m
"""


def test_rules_and_explain_show_a_policy_text_inert(tmp_path: Path) -> None:
    # Issue 31: a repository's policy wrote raw CR/LF into ``rules`` and ``explain``, so
    # that a line of the CI log (the servelint-policies hook runs ``rules``) began with
    # "::error". Every piece is escaped; the one-line pieces stay on one line.
    (tmp_path / "team.yaml").write_text(RULE_POLICY)
    own = ["--no-config", "--no-builtin", "--policy-dir", str(tmp_path)]
    runner = CliRunner()
    listed = runner.invoke(cli, ["rules", *own], catch_exceptions=False)
    assert listed.exit_code == 0
    # The rules built into servelint come first; the policy's rule is the last line.
    assert listed.output.splitlines()[-1] == (
        f"{'team/r':<48} warning  Title\\x0d\\x0a::error file=x::owned \\x1b[2J"
    )
    _assert_inert(listed.output)
    explained = runner.invoke(cli, ["explain", "team/r", *own], catch_exceptions=False)
    assert explained.exit_code == 0
    assert explained.output.splitlines() == [
        "team/r (warning)",
        "",
        "Title\\x0d\\x0a::error file=x::owned \\x1b[2J",
        "",
        "why",
        "\\x3a:error::owned",
        "",
        "Fix:",
        "  do",
        "  \\x3a:warning::owned",
        "",
        "Sources:",
        "  https://example.com/a\\x0a::error::owned",
        "",
        f"Defined in {tmp_path}/team.yaml",
    ]
    markdown = runner.invoke(cli, ["rules", "--format", "markdown", *own], catch_exceptions=False)
    assert markdown.exit_code == 0
    _assert_inert(markdown.output)
    assert "\\x3a:error::owned" in markdown.output.splitlines()
