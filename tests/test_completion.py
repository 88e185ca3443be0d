"""Shell completion through click (README, "Shell completion"): the console script writes
the completion script of bash, zsh and fish, and answers a completion request the way
those scripts ask it, through ``_SERVELINT_COMPLETE``, ``COMP_WORDS`` and ``COMP_CWORD``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "servelint"


def servelint(**env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("shell", "registration"),
    [
        ("bash", "complete -o nosort -F _servelint_completion servelint"),
        ("zsh", "compdef _servelint_completion servelint"),
        ("fish", 'complete --no-files --command servelint --arguments "(_servelint_completion)"'),
    ],
)
def test_each_shell_gets_its_completion_script(shell: str, registration: str) -> None:
    done = servelint(_SERVELINT_COMPLETE=f"{shell}_source")
    assert (done.returncode, done.stderr) == (0, "")
    assert registration in done.stdout
    assert f"_SERVELINT_COMPLETE={shell}_complete" in done.stdout


def test_bash_completes_a_command_an_option_and_a_choice() -> None:
    def complete(words: str, index: int) -> list[str]:
        done = servelint(
            _SERVELINT_COMPLETE="bash_complete", COMP_WORDS=words, COMP_CWORD=str(index)
        )
        assert (done.returncode, done.stderr) == (0, "")
        return done.stdout.splitlines()

    assert complete("servelint li", 1) == ["plain,lint"]
    assert complete("servelint lint --form", 2) == ["plain,--format"]
    assert complete("servelint show --format ", 3) == [
        "plain,text",
        "plain,yaml",
        "plain,json",
        "plain,html",
    ]


def test_zsh_and_fish_complete_a_command_with_its_help() -> None:
    zsh = servelint(_SERVELINT_COMPLETE="zsh_complete", COMP_WORDS="servelint li", COMP_CWORD="1")
    assert zsh.stdout.splitlines() == [
        "plain",
        "lint",
        "Lint Helm values, manifests and server...",
    ]
    fish = servelint(
        _SERVELINT_COMPLETE="fish_complete", COMP_WORDS="servelint li", COMP_CWORD="li"
    )
    assert fish.stdout.splitlines() == ["plain,lint\tLint Helm values, manifests and server..."]
