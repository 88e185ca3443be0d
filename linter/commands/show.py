"""``servelint show``: print the serving model built from the inputs, or what a running
server reported (the printing itself is ``linter/show.py``'s)."""

from __future__ import annotations

import click

from linter.commands.common import EXIT_OK
from linter.helm.options import chart_options


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--live",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Show what a running server reported instead: a start-up log, an info answer, a "
    "usage record or a config, as drift --live reads it ('-' for standard input).",
)
@click.option(
    "--format",
    "fmt",
    default="text",
    show_default=True,
    type=click.Choice(["text", "yaml", "json", "html"]),
)
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration file.")
@click.option("--no-config", is_flag=True, help="Ignore any configuration file.")
# The chart options of ``lint`` (``helm/options.py``): what lint --chart reads, show shows.
@chart_options
def show(
    paths: tuple[str, ...],
    live: str | None,
    fmt: str,
    config: str | None,
    no_config: bool,
    chart: str | None = None,
    values_files: tuple[str, ...] = (),
    set_values: tuple[str, ...] = (),
    environments: tuple[str, ...] = (),
    helm: str | None = None,
    no_render: bool = False,
    no_chart_context: bool = False,
) -> int:
    """Print the serving model servelint builds from the inputs: every setting with its
    value and origin, and what it could not tell."""
    from linter.policy import load_policies
    from linter.run.lintplan import read_config
    from linter.show import ChartShow, render_live_text, render_text, show_live, show_paths

    if live is not None:
        if paths or chart:
            raise click.UsageError("--live shows one live file; give no other inputs")
        shown = show_live(live, read_config(config, no_config).limits)
        text = render_live_text(shown) if fmt == "text" else None
    else:
        if not paths and chart is None:
            raise click.UsageError("give files or directories to show, or --chart DIR")
        if (values_files or set_values or environments) and chart is None:
            raise click.UsageError("-f/--values, --set and --env go with --chart")
        settings = read_config(config, no_config)
        asked = (
            None
            if chart is None
            else ChartShow(chart, values_files, set_values, environments, helm, no_render)
        )
        try:
            shown = show_paths(
                paths,
                load_policies((), builtin=True),
                settings.model,
                settings.limits,
                chart=asked,
                chart_context=not no_chart_context,
            )
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--env'") from None
        text = render_text(shown) if fmt == "text" else None
    if fmt == "html":
        from linter.reporters.html import show_page

        text = show_page(shown)
    if text is None:
        import json

        import yaml

        text = (
            json.dumps(shown, indent=2) + "\n"
            if fmt == "json"
            else yaml.safe_dump(shown, sort_keys=False)
        )
    click.echo(text, nl=False)
    return EXIT_OK
