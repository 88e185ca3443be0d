"""``servelint rules``: every rule with its id, severity and title, or the rule reference."""

from __future__ import annotations

import click

from linter.commands.common import EXIT_OK, configured_rules, policy_source_options


@click.command()
@policy_source_options
@click.option(
    "--format",
    "fmt",
    default="text",
    show_default=True,
    type=click.Choice(["text", "json", "markdown"]),
    help="text: one line per rule; json: every rule's metadata; markdown: the rule "
    "reference (docs/rules.md).",
)
def rules(
    policy_dirs: tuple[str, ...], no_builtin: bool, config: str | None, no_config: bool, fmt: str
) -> int:
    """List every rule: id, severity and title (severities and disable as configured)."""
    from linter.secrets.masking import masker

    # A repository's policy may quote anything in its title or references.
    masked = masker()
    if fmt == "markdown":
        from linter.policy import load_policies
        from linter.reporters.ruledocs import render_markdown

        # The reference documents the rules as shipped, not one team's configuration.
        policies = load_policies(policy_dirs, builtin=not no_builtin)
        click.echo(masked.text(render_markdown(policies, builtin=not no_builtin)), nl=False)
        return EXIT_OK
    from linter.reporters.ruledocs import render_json, render_line

    listed = configured_rules(policy_dirs, no_builtin, config, no_config)
    if fmt == "json":
        click.echo(masked.text(render_json(listed)))
        return EXIT_OK
    for rule in listed:
        click.echo(masked.text(render_line(rule)))
    return EXIT_OK
