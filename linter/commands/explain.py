"""``servelint explain``: why a rule exists, where it comes from, how to fix it."""

from __future__ import annotations

import click

from linter.commands.common import EXIT_OK, configured_rules, policy_source_options


@click.command()
@click.argument("rule_id")
@policy_source_options
def explain(
    rule_id: str,
    policy_dirs: tuple[str, ...],
    no_builtin: bool,
    config: str | None,
    no_config: bool,
) -> int:
    """Explain a rule: why it exists, where it comes from, how to fix it."""
    from linter.reporters.ruledocs import render_explanation
    from linter.secrets.masking import masker

    for rule in configured_rules(policy_dirs, no_builtin, config, no_config):
        if rule.meta.id == rule_id:
            # A repository's policy may quote anything in its description or fix.
            click.echo(masker().text(render_explanation(rule.meta, rule)))
            return EXIT_OK
    raise click.BadParameter(f"no rule '{rule_id}' (see 'servelint rules')", param_hint="RULE_ID")
