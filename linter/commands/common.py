"""The commands' common ground: the exit codes (``linter/cli.py`` says what each means),
the ``--color`` decision, the ``--format`` and ``--output`` handling (``lint``'s and
``drift``'s reports) and the options that choose the rules (``rules``, ``explain``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

import click

from linter.optiongroup import apply_options

if TYPE_CHECKING:
    from linter.reporters.outputs import OutputSpec
    from linter.run.governance import ConfiguredRule

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3
SEVERITIES = click.Choice(["error", "warning", "info"], case_sensitive=False)


def use_color(stream: TextIO, mode: str = "auto") -> bool:
    """``--color``: ``auto`` colours a terminal unless NO_COLOR is set (https://no-color.org);
    ``always`` and ``never`` win over both, as a per-run flag should."""
    if mode != "auto":
        return mode == "always"
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def output_specs(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> list[OutputSpec]:
    """``--format FORMAT[:FILE]``, repeatable: several reports from one run."""
    from linter.reporters.outputs import parse_spec

    try:
        return [parse_spec(value) for value in values]
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def plan_outputs(formats: Sequence[OutputSpec], output: str | None) -> list[OutputSpec]:
    from linter.reporters.outputs import plan_outputs as planned

    try:
        return planned(formats, output)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--format'") from None


def emit(reporter_cls: type, result: object, output: str | None) -> None:
    if output is None:
        reporter_cls(color=use_color(sys.stdout)).report(result, sys.stdout)
        return
    from linter.atomic_write import atomic_text

    with atomic_text(output) as handle:
        reporter_cls(color=False).report(result, handle)


def policy_source_options(command: Callable[..., int]) -> Callable[..., int]:
    """What decides which rules exist, read as ``lint`` reads it (config's policyDirs)."""
    options = [
        click.option(
            "--policy-dir",
            "policy_dirs",
            multiple=True,
            type=click.Path(),
            help="Directory of your own policy files (repeatable; replaces policyDirs).",
        ),
        click.option("--no-builtin", is_flag=True, help="Only the policies from --policy-dir."),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            help="Configuration file (default: the one lint finds).",
        ),
        click.option("--no-config", is_flag=True, help="Ignore any configuration file."),
    ]
    return apply_options(options, command)


def configured_rules(
    policy_dirs: tuple[str, ...], no_builtin: bool, config: str | None, no_config: bool
) -> list[ConfiguredRule]:
    from linter.run.governance import configured_rules as configured
    from linter.run.lintplan import configured_policies, read_config

    settings = read_config(config, no_config)
    return configured(configured_policies(settings, policy_dirs, no_builtin), settings)
