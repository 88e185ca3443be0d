"""``servelint lint``: lint Helm values, manifests and server configs, report, and return
the exit code (its governance, convention and input-limit options are defined in
``lint_options.py``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from linter.commands.common import (
    EXIT_FAILURE,
    EXIT_OK,
    SEVERITIES,
    output_specs,
    plan_outputs,
    use_color,
)
from linter.commands.lint_options import (
    convention_options,
    governance_options,
    limit_options,
    with_limits,
)
from linter.commands.startup import start_up
from linter.helm.options import chart_options, check_chart_usage
from linter.outputpath import output_file

if TYPE_CHECKING:
    from linter.reporters.outputs import OutputSpec


@click.command()
# readable=False: an unreadable input is a read-error finding (exit 3) with the other
# inputs still linted, not a usage error that lints nothing.
@click.argument("paths", nargs=-1, type=click.Path(readable=False))
@click.option(
    "--policy-dir",
    "policy_dirs",
    multiple=True,
    type=click.Path(),
    help="Directory of your own policy files (repeatable).",
)
@click.option("--no-builtin", is_flag=True, help="Use only the policies from --policy-dir.")
@click.option(
    "--format",
    "formats",
    multiple=True,
    metavar="FORMAT[:FILE]",
    callback=output_specs,
    help="Output format: text (default), json, sarif, junit, github or html, optionally "
    "written to FILE. Repeatable: --format text --format sarif:out.sarif.",
)
@click.option(
    "--fail-level",
    default=None,
    type=SEVERITIES,
    help="Lowest severity that makes the exit code 1 (default: the configuration "
    "file's failLevel, else error).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    callback=output_file,
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--fail-on-unchecked/--no-fail-on-unchecked",
    default=None,
    help="Exit 1 when an input that names an inference server was not understood, or "
    "error-level rules were skipped for a missing fact (default: the configuration "
    "file's failOnUnchecked, else off).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Name every input not understood and every fact missing, with its fix.",
)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the fixes of rules with one safe, unique fix to the files where the values "
    "are written, then lint again and report what remains (docs/fix.md).",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes --fix would make as a unified diff, and write nothing.",
)
@governance_options
@convention_options
@limit_options
@chart_options
def lint(
    paths: tuple[str, ...],
    policy_dirs: tuple[str, ...],
    no_builtin: bool,
    formats: list[OutputSpec],
    fail_level: str | None,
    output: str | None,
    fail_on_unchecked: bool | None = None,
    verbose: bool = False,
    fix: bool = False,
    show_diff: bool = False,
    chart: str | None = None,
    values_files: tuple[str, ...] = (),
    set_values: tuple[str, ...] = (),
    environments: tuple[str, ...] = (),
    helm: str | None = None,
    no_render: bool = False,
    no_chart_context: bool = False,
    max_bytes: int | None = None,
    max_nodes: int | None = None,
    max_depth: int | None = None,
    disable: tuple[str, ...] = (),
    enable: tuple[str, ...] = (),
    exit_zero: bool = False,
    quiet: bool = False,
    color: str = "auto",
    **governance: Any,
) -> int:
    """Lint Helm values, manifests and server configs (files, directories, - for stdin)."""
    with start_up():
        from linter.findings import exit_code
        from linter.reporters.outputs import write_outputs
        from linter.run.governance import UnknownRuleError
        from linter.run.lintplan import LintOptions, build, execute, with_chart

        check_chart_usage(paths, chart, values_files, set_values, environments)
        if governance["baseline"] and governance["write_baseline"]:
            raise click.UsageError("--baseline and --write-baseline exclude each other")
        if fix and show_diff:
            raise click.UsageError("--fix writes the fixes and --diff only shows them: give one")
        outputs = plan_outputs(formats, output)
        options = LintOptions(
            paths,
            policy_dirs,
            no_builtin,
            fail_level,
            **governance,
            chart_context=not no_chart_context,
            disable=disable,
            enable=enable,
            fail_on_unchecked=fail_on_unchecked,
        )
        try:
            plan = build(options)
        except UnknownRuleError as exc:
            raise click.UsageError(str(exc)) from None
    plan = with_limits(plan, max_bytes, max_nodes, max_depth)
    if chart is not None:
        try:
            plan = with_chart(plan, chart, values_files, set_values, environments, helm, no_render)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--env'") from None
    result = execute(plan)
    fixed: list[str] = []
    if fix or show_diff:
        from linter.commands.fixing import fix_run

        named = (*paths, *values_files, *((chart,) if chart else ()))
        result, fixed = fix_run(plan, result, named, execute, write=fix)
    if not show_diff:  # the diff is the output (to pipe into git apply)
        write_outputs(
            result,
            outputs,
            sys.stdout,
            color=use_color(sys.stdout, color),
            quiet=quiet,
            verbose=verbose,
        )
    if fixed:
        from linter.commands.fixing import echo_summary

        echo_summary(fixed, result.secrets)
    if result.read_failures:
        return EXIT_FAILURE
    if exit_zero:
        return EXIT_OK
    # With --fail-on-unchecked, each gap is an error finding (coverage/gate.py).
    return exit_code(result.findings, plan.fail_level)
