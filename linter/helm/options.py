"""The ``lint`` options for Helm charts. Imports only click, so ``commands.lint`` stays light."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from linter.optiongroup import apply_options

F = TypeVar("F", bound=Callable[..., Any])


def check_sets(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[str, ...]:
    if not values:
        return values  # the parser and its node types cost every run 20 ms to import
    from linter.helm.strvals import SetError, check_set

    for value in values:
        try:
            check_set(value)
        except SetError as exc:
            raise click.BadParameter(str(exc), ctx, param) from None
    return values


def chart_options(func: F) -> F:
    """Add ``--chart``, ``-f/--values``, ``--set``, ``--env``, ``--helm``, ``--no-render``,
    ``--no-chart-context``."""
    options = [
        click.option(
            "--chart",
            "chart",
            type=click.Path(exists=True, file_okay=False),
            help="Lint a Helm chart as a release would get it: its values.yaml "
            "merged with -f files and --set as Helm merges them, and the "
            "chart rendered with helm template.",
        ),
        click.option(
            "-f",
            "--values",
            "values_files",
            multiple=True,
            type=click.Path(exists=True, dir_okay=False),
            metavar="FILE",
            help="Values file layered on the chart's values.yaml, as with helm "
            "(repeatable; later files win). Shared by every --env.",
        ),
        click.option(
            "--set",
            "set_values",
            multiple=True,
            metavar="PATH=VALUE",
            callback=check_sets,
            help="Set a value with Helm's --set syntax (repeatable; applied last).",
        ),
        click.option(
            "--env",
            "environments",
            multiple=True,
            metavar="NAME[=FILE[,FILE]]",
            help="Lint one more environment of the chart: its values files, "
            "layered after -f (NAME alone: <chart>/values-NAME.yaml). "
            "Repeatable; each environment is reported on its own.",
        ),
        click.option(
            "--helm",
            "helm",
            envvar="SERVELINT_HELM",
            metavar="PATH",
            help="The helm binary used to render the chart (default: helm on PATH).",
        ),
        click.option(
            "--no-render",
            is_flag=True,
            help="Do not render the chart with helm; lint its values only.",
        ),
        click.option(
            "--no-chart-context",
            is_flag=True,
            help="Lint a values file beside a Chart.yaml on its own, not merged "
            "with the chart's values.yaml.",
        ),
    ]
    return apply_options(options, func)


def check_chart_usage(
    paths: Sequence[str],
    chart: str | None,
    values: Sequence[str],
    sets: Sequence[str],
    environments: Sequence[str],
) -> None:
    if chart is not None:
        return
    if values or sets or environments:
        raise click.UsageError("-f/--values, --set and --env need --chart DIR")
    if not paths:
        raise click.UsageError(
            "give at least one file or directory (or - for stdin), or --chart DIR"
        )
