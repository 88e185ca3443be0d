"""The command line's entry: the ``servelint`` command group, which imports a command's
module (``linter/commands/``) only when that command runs, turns what it returns into
the exit code, and reports a tool failure.

Exit codes (stable, documented in the README):
  0  nothing at or above the fail level
  1  findings at or above the fail level (syntax findings included)
  2  usage error
  3  tool failure: invalid policy or configuration, unreadable input, internal error
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import click

from linter import __version__
from linter.commands.common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE
from linter.commands.startup import OWN_PROCESS, loading
from linter.errors import LinterError

# Each command's module, as "module:attribute": imported only when the command is asked
# for, so that a pre-commit run of ``lint`` loads none of the others (nor drift's options).
_COMMANDS = {
    "drift": "linter.commands.drift:drift",
    "explain": "linter.commands.explain:explain",
    "lint": "linter.commands.lint:lint",
    "rules": "linter.commands.rules:rules",
    "show": "linter.commands.show:show",
    "test": "linter.commands.test:run_policy_tests",
}


class _Group(click.Group):
    """Loads a command's module when the command is asked for; turns a command's returned
    int into the exit code, and LinterError into exit 3."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None or cmd_name in self.commands:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = target.partition(":")
        with loading(ctx):
            command: click.Command = getattr(importlib.import_module(module), attribute)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            # click (8.4 and later) suggests the closest names among the commands already
            # loaded, which are none of these: it is given them all.
            unknown = getattr(exc, "command_name", None)
            if unknown is None:
                raise
            raise click.exceptions.NoSuchCommand(
                unknown, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None

    def invoke(self, ctx: click.Context) -> object:
        try:
            result = super().invoke(ctx)
        except LinterError as exc:
            _show_failure(exc, bool(ctx.params.get("traceback")))
            ctx.exit(exc.exit_code)
        if isinstance(result, int):
            ctx.exit(result)
        return result


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="servelint")
@click.option("--traceback", is_flag=True, help="Show the full traceback of a tool failure.")
def cli(traceback: bool) -> None:
    """Policy-as-code linter for LLM inference deployments kept in Git."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv``; None: this process's own, from the console script or
    ``python -m linter`` (``run``), which exit right after."""
    own = argv is None
    if own:
        # Objects here are freed by reference counting; the cyclic collector's default
        # threshold (700 allocations) has it walk the young objects some twenty times in
        # a pre-commit run for nothing (6 ms of about 300). A process of its own raises it,
        # as mypy does; cycles are still collected, later.
        gc.set_threshold(100_000, 50, 100)
    code = _main(list(sys.argv[1:] if argv is None else argv), own)
    if own:
        # The process ends now: everything it built is moved out of the collector's
        # sight, so that the interpreter's collections at exit do not walk it all again
        # (about 20 ms of a pre-commit run). Every file and report is written and closed
        # by now; the operating system takes the memory back either way.
        gc.freeze()
    return code


def run() -> NoReturn:
    """The console script and ``python -m linter``: ``main()`` on this process's command
    line, then the end of the process."""
    code = main()
    _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """End this process without the interpreter's teardown (freeing every module and
    object one by one: about 6 ms of a pre-commit run), once nothing is left for it to
    do: the output flushed, no exit handler registered, no other thread running. Else
    return, and the process exits the ordinary way."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:  # None: the descriptor was closed when Python started
                stream.flush()
    except (OSError, ValueError):  # a closed pipe: the ordinary exit reports it
        return
    handlers = getattr(atexit, "_ncallbacks", None)
    threading = sys.modules.get("threading")
    if handlers is None or handlers() != 0:
        return
    if threading is not None and threading.active_count() != 1:
        return
    os._exit(code)


def _main(args: list[str], own_process: bool) -> int:
    try:
        result = cli.main(
            args=args,
            prog_name="servelint",
            standalone_mode=False,
            obj=OWN_PROCESS if own_process else None,
        )
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.UsageError as exc:
        exc.show()
        return EXIT_USAGE
    except click.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return EXIT_FAILURE
    except Exception as exc:  # the one catch-all: a bug must still exit 3, not crash
        _show_failure(exc, "--traceback" in args)
        return EXIT_FAILURE
    return result if isinstance(result, int) else EXIT_OK


def _show_failure(exc: BaseException, show_traceback: bool) -> None:
    if show_traceback:
        import traceback  # only here: every run would pay for its imports

        traceback.print_exception(exc, file=sys.stderr)
        return
    from linter.reporters.escape import escape_text
    from linter.secrets.redact import message as redacted

    message = (
        exc.format_message()
        if isinstance(exc, LinterError)
        else f"internal error: {type(exc).__name__}: {exc} (run with --traceback for details)"
    )
    # Messages may quote inputs: no secret, no terminal escape reaches the log.
    click.echo(f"servelint: {escape_text(redacted(message), keep_newlines=True)}", err=True)
