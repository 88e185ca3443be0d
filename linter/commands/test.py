"""``servelint test``: run the policy tests (``*_test.yaml`` files of kind PolicyTest)."""

from __future__ import annotations

import click

from linter.outputpath import output_file


@click.command("test")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmt",
    default="text",
    show_default=True,
    type=click.Choice(["text", "junit"]),
    help="Report format.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    callback=output_file,
    help="Write the report to this file instead of standard output.",
)
def run_policy_tests(paths: tuple[str, ...], fmt: str, output: str | None) -> int:
    """Run policy tests: *_test.yaml files of kind PolicyTest under PATHS (default: .).

    Exit 0 when every expectation holds, 1 when one fails, 3 when a test file is invalid.
    """
    from linter.policytest import report, run_paths

    outcome = run_paths(paths or (".",))
    rendered = report.junit(outcome) if fmt == "junit" else report.text(outcome)
    if output is None:
        click.echo(rendered, nl=False)
    else:
        from linter.atomic_write import write_text

        write_text(output, rendered)
    return outcome.exit_code
