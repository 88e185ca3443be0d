"""Groups of ``servelint lint``'s options, defined apart from the command: governance
(configuration, baseline, date), the flags peer linters (ruff, yamllint, checkov)
share, and the input limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from linter.optiongroup import apply_options

if TYPE_CHECKING:
    from linter.run.lintplan import LintPlan


def governance_options(command: Callable[..., int]) -> Callable[..., int]:
    """Configuration, baseline and date options of ``lint`` (README, "Configuration")."""
    options = [
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            help="Configuration file (default: .servelint.yaml or [tool.servelint] "
            "in pyproject.toml, searched upward to the git root).",
        ),
        click.option("--no-config", is_flag=True, help="Ignore any configuration file."),
        click.option(
            "--baseline",
            type=click.Path(dir_okay=False),
            help="Known findings (from --write-baseline): shown as suppressed, "
            "only new findings count.",
        ),
        click.option(
            "--write-baseline",
            type=click.Path(dir_okay=False),
            help="Record the current findings in this baseline file.",
        ),
        click.option(
            "--today",
            type=click.DateTime(["%Y-%m-%d"]),
            callback=lambda ctx, param, value: value.date() if value else None,
            help="Judge suppression end dates as of this day (YYYY-MM-DD).",
        ),
    ]
    return apply_options(options, command)


def convention_options(command: Callable[..., int]) -> Callable[..., int]:
    """Flags with the names and meaning peer linters (ruff, yamllint, checkov) give them."""
    options = [
        click.option(
            "--disable",
            "disable",
            multiple=True,
            metavar="RULE",
            help="Switch a rule off for this run: a rule id, a policy id (all its rules) "
            "or a pattern such as 'vllm/*' (repeatable; added to the file's disable).",
        ),
        click.option(
            "--enable",
            "enable",
            multiple=True,
            metavar="RULE",
            help="Keep a rule on although disable (file or --disable) names it or its "
            "policy (repeatable).",
        ),
        click.option(
            "--exit-zero",
            is_flag=True,
            help="Exit 0 even when findings reach the fail level (a tool failure still exits 3).",
        ),
        click.option(
            "-q",
            "--quiet",
            is_flag=True,
            help="Text output shows only the findings that count: no notes, no "
            "suppressed findings, no summary.",
        ),
        click.option(
            "--color",
            "color",
            type=click.Choice(["auto", "always", "never"]),
            default="auto",
            show_default=True,
            help="Colour the text output; auto: only on a terminal and when NO_COLOR is not set.",
        ),
    ]
    return apply_options(options, command)


def limit_options(command: Callable[..., int]) -> Callable[..., int]:
    """Input limits of ``lint`` (README "Limits"); they win over the configuration file."""
    positive = click.IntRange(min=1)
    options = [
        click.option(
            "--max-bytes",
            type=positive,
            default=None,
            help="Largest input file, in bytes (default 52428800).",
        ),
        click.option(
            "--max-nodes",
            type=positive,
            default=None,
            help="Most YAML/JSON nodes per file, aliases expanded (default 500000).",
        ),
        click.option(
            "--max-depth",
            type=positive,
            default=None,
            help="Deepest nesting of mappings and lists (default 200).",
        ),
    ]
    return apply_options(options, command)


def with_limits(
    plan: LintPlan, max_bytes: int | None, max_nodes: int | None, max_depth: int | None
) -> LintPlan:
    """The plan with the limits given on the command line over the configuration's."""
    import dataclasses

    given = {
        name: value
        for name, value in (
            ("max_bytes", max_bytes),
            ("max_nodes", max_nodes),
            ("max_depth", max_depth),
        )
        if value is not None
    }
    if not given:
        return plan
    return dataclasses.replace(plan, limits=dataclasses.replace(plan.limits, **given))
