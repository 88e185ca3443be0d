"""Scenario 3, a rule of her own: docs/writing-policies.md, run step by step.

Every ``# file:`` block of the walk-through is written into a fresh repository and every
``$ servelint ...`` line of its console blocks is run, in order; the output and exit codes
must be exactly those the page shows.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import Result

DOC = Path(__file__).parent.parent / "docs" / "writing-policies.md"
_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_FILE = re.compile(r"# file: (\S+)\n")


def _steps() -> Iterator[tuple[str, str, str]]:
    for language, body in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        match = _FILE.match(body)
        if language == "yaml" and match:
            yield "file", match.group(1), body[match.end() :]
        elif language == "console":
            yield "console", "", body


def _commands(console: str) -> Iterator[tuple[str, str]]:
    """``(command, expected output)`` pairs of one console block."""
    command: str | None = None
    output: list[str] = []
    for line in console.splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, "".join(f"{o}\n" for o in output)
            command, output = line[2:], []
        else:
            output.append(line)
    if command is not None:
        yield command, "".join(f"{o}\n" for o in output)


def test_the_walkthrough_does_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_line: Callable[..., Result]
) -> None:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    last_exit: int | None = None
    commands_run = 0
    for kind, name, body in _steps():
        if kind == "file":
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(body, encoding="utf-8")
            continue
        for command, expected in _commands(body):
            if command == "echo $?":
                assert f"{last_exit}\n" == expected, f"exit code of the command before {expected}"
            elif command.startswith("rm "):
                (tmp_path / command[3:]).unlink()
            else:
                args = shlex.split(command)
                assert args[0] == "servelint", command
                result = run_line(args[1:])
                assert result.output == expected, f"$ {command}"
                last_exit = result.exit_code
                commands_run += 1
    assert commands_run == 9
