"""The command group names its six commands and imports each one's module only when asked
for it (linter/cli.py); the help lists them all, and an unknown name is click's usage error,
with the closest command suggested, as when every command was defined in one module."""

from __future__ import annotations

from importlib.metadata import version

import click
import pytest

from linter.cli import cli, main

COMMANDS = ["drift", "explain", "lint", "rules", "show", "test"]
UNKNOWN = "Usage: servelint [OPTIONS] COMMAND [ARGS]...\nTry 'servelint --help' for help.\n\n"


def test_every_registered_command_loads_under_its_own_name() -> None:
    ctx = click.Context(cli)
    assert cli.list_commands(ctx) == COMMANDS
    loaded = [cli.get_command(ctx, name) for name in COMMANDS]
    assert [command.name if command else None for command in loaded] == COMMANDS
    assert cli.get_command(ctx, "nosuch") is None


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nosuch"]) == 2
    assert capsys.readouterr() == ("", f"{UNKNOWN}Error: No such command 'nosuch'.\n")


# click suggests close command names from 8.4 on; an older click (pyproject allows 8.1)
# reports the unknown name alone, as test_an_unknown_command_is_a_usage_error checks.
@pytest.mark.skipif(
    tuple(int(part) for part in version("click").split(".")[:2]) < (8, 4),
    reason="click suggests command names from 8.4 on",
)
@pytest.mark.parametrize(("typed", "meant"), [("lnt", "lint"), ("rule", "rules")])
def test_a_near_miss_names_the_command_meant(
    capsys: pytest.CaptureFixture[str], typed: str, meant: str
) -> None:
    assert main([typed]) == 2
    assert capsys.readouterr() == (
        "",
        f"{UNKNOWN}Error: No such command '{typed}'. Did you mean '{meant}'?\n",
    )
