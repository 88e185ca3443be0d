"""Command line: parse options, build the pieces, run, return an exit code.

Exit codes (stable, documented in the README):
  0  nothing at or above the fail level
  1  findings at or above the fail level (syntax findings included)
  2  usage error
  3  tool failure: invalid policy or configuration, unreadable input, internal error
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click

from linter import __version__
from linter.drift.options import drift_options
from linter.errors import LinterError
from linter.helm.options import chart_options, check_chart_usage

if TYPE_CHECKING:
    from linter.reporters.outputs import OutputSpec
    from linter.run.governance import ConfiguredRule
    from linter.run.lintplan import LintPlan

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3
_SEVERITIES = click.Choice(["error", "warning", "info"], case_sensitive=False)


def _use_color(stream: TextIO, mode: str = "auto") -> bool:
    """``--color``: ``auto`` colours a terminal unless NO_COLOR is set (https://no-color.org);
    ``always`` and ``never`` win over both, as a per-run flag should."""
    if mode != "auto":
        return mode == "always"
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


class _Group(click.Group):
    """Turns a command's returned int into the exit code, and LinterError into exit 3."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            result = super().invoke(ctx)
        except LinterError as exc:
            _show_failure(exc, bool(ctx.params.get("traceback")))
            ctx.exit(exc.exit_code)
        if isinstance(result, int):
            ctx.exit(result)
        return result


def _output_specs(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> list[OutputSpec]:
    """``--format FORMAT[:FILE]``, repeatable: several reports from one run."""
    from linter.reporters.outputs import parse_spec

    try:
        return [parse_spec(value) for value in values]
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None


def _governance_options(command: Callable[..., int]) -> Callable[..., int]:
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
    for option in reversed(options):
        command = option(command)
    return command


def _convention_options(command: Callable[..., int]) -> Callable[..., int]:
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
    for option in reversed(options):
        command = option(command)
    return command


def _limit_options(command: Callable[..., int]) -> Callable[..., int]:
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
    for option in reversed(options):
        command = option(command)
    return command


def _with_limits(
    plan: LintPlan, max_bytes: int | None, max_nodes: int | None, max_depth: int | None
) -> LintPlan:
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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="servelint")
@click.option("--traceback", is_flag=True, help="Show the full traceback of a tool failure.")
def cli(traceback: bool) -> None:
    """Policy-as-code linter for LLM inference deployments kept in Git."""


@cli.command()
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
    callback=_output_specs,
    help="Output format: text (default), json, sarif, junit or github, optionally "
    "written to FILE. Repeatable: --format text --format sarif:out.sarif.",
)
@click.option(
    "--fail-level",
    default=None,
    type=_SEVERITIES,
    help="Lowest severity that makes the exit code 1 (default: the configuration "
    "file's failLevel, else error).",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
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
@_governance_options
@_convention_options
@_limit_options
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
    with _start_up():
        from linter.findings import exit_code
        from linter.reporters.outputs import write_outputs
        from linter.run.governance import UnknownRuleError
        from linter.run.lintplan import LintOptions, build, execute, with_chart

        check_chart_usage(paths, chart, values_files, set_values, environments)
        if governance["baseline"] and governance["write_baseline"]:
            raise click.UsageError("--baseline and --write-baseline exclude each other")
        outputs = _plan_outputs(formats, output)
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
    plan = _with_limits(plan, max_bytes, max_nodes, max_depth)
    if chart is not None:
        try:
            plan = with_chart(plan, chart, values_files, set_values, environments, helm, no_render)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--env'") from None
    result = execute(plan)
    write_outputs(
        result,
        outputs,
        sys.stdout,
        color=_use_color(sys.stdout, color),
        quiet=quiet,
        verbose=verbose,
    )
    if result.read_failures:
        return EXIT_FAILURE
    if exit_zero:
        return EXIT_OK
    if plan.fail_on_unchecked and result.coverage.unchecked:
        return EXIT_FINDINGS
    return exit_code(result.findings, plan.fail_level)


# click's ``obj`` of a run of this process's own command line (``main`` without argv).
_OWN_PROCESS = object()


@contextlib.contextmanager
def _start_up() -> Iterator[None]:
    """Imports and the loaded policies: tens of thousands of objects that all live until
    the process ends, which the garbage collector would otherwise walk again at every
    collection while they are built. In servelint's own process it is paused for them,
    then told to leave them alone (about 6 ms of a pre-commit run), and collects the
    youngest objects every ``_YOUNG_OBJECTS`` allocations instead of 700; called from
    Python (tests, an embedding tool), nothing changes."""
    if click.get_current_context().find_root().obj is not _OWN_PROCESS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.set_threshold(_YOUNG_OBJECTS, *gc.get_threshold()[1:])
        gc.enable()


# A workload's serving model is a few hundred small objects (records and located values)
# that live until its policies have run; collecting every 700 allocations walked them again
# and again: 4 to 7 % of a 1,000-file run (benchmarks/README.md). Nearly all garbage
# is freed by reference counts; cycles wait a little longer (mypy's main does the same,
# with 200,000).
_YOUNG_OBJECTS = 50_000


def _plan_outputs(formats: Sequence[OutputSpec], output: str | None) -> list[OutputSpec]:
    from linter.reporters.outputs import plan_outputs

    try:
        return plan_outputs(formats, output)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--format'") from None


def _emit(reporter_cls: type, result: object, output: str | None) -> None:
    if output is None:
        reporter_cls(color=_use_color(sys.stdout)).report(result, sys.stdout)
        return
    from linter.atomic_write import atomic_text

    with atomic_text(output) as handle:
        reporter_cls(color=False).report(result, handle)


def _policy_source_options(command: Callable[..., int]) -> Callable[..., int]:
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
    for option in reversed(options):
        command = option(command)
    return command


def _configured_rules(
    policy_dirs: tuple[str, ...], no_builtin: bool, config: str | None, no_config: bool
) -> list[ConfiguredRule]:
    from linter.run.governance import configured_rules
    from linter.run.lintplan import configured_policies, read_config

    settings = read_config(config, no_config)
    return configured_rules(configured_policies(settings, policy_dirs, no_builtin), settings)


@cli.command()
@_policy_source_options
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
    if fmt == "markdown":
        from linter.policy import load_policies
        from linter.reporters.ruledocs import render_markdown

        # The reference documents the rules as shipped, not one team's configuration.
        policies = load_policies(policy_dirs, builtin=not no_builtin)
        click.echo(render_markdown(policies, builtin=not no_builtin), nl=False)
        return EXIT_OK
    from linter.reporters.ruledocs import render_json, render_line

    listed = _configured_rules(policy_dirs, no_builtin, config, no_config)
    if fmt == "json":
        click.echo(render_json(listed))
        return EXIT_OK
    for rule in listed:
        click.echo(render_line(rule))
    return EXIT_OK


@cli.command("test")
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


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--chart", type=click.Path(file_okay=False), help="A chart directory.")
@click.option(
    "-f",
    "--values",
    "values_files",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Values file merged over the chart's values.yaml (with --chart; repeatable).",
)
@click.option("--set", "set_values", multiple=True, help="KEY=VALUE as helm --set (with --chart).")
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
    type=click.Choice(["text", "yaml", "json"]),
)
@click.option("--config", type=click.Path(dir_okay=False), help="Configuration file.")
@click.option("--no-config", is_flag=True, help="Ignore any configuration file.")
def show(
    paths: tuple[str, ...],
    chart: str | None,
    values_files: tuple[str, ...],
    set_values: tuple[str, ...],
    live: str | None,
    fmt: str,
    config: str | None,
    no_config: bool,
) -> int:
    """Print the serving model servelint builds from the inputs: every setting with its
    value and origin, and what it could not tell."""
    from linter.policy import load_policies
    from linter.run.lintplan import read_config
    from linter.show import render_live_text, render_text, show_live, show_paths

    if live is not None:
        if paths or chart:
            raise click.UsageError("--live shows one live file; give no other inputs")
        shown = show_live(live, read_config(config, no_config).limits)
        text = render_live_text(shown) if fmt == "text" else None
    else:
        if not paths and chart is None:
            raise click.UsageError("give files or directories to show, or --chart DIR")
        if (values_files or set_values) and chart is None:
            raise click.UsageError("-f/--values and --set go with --chart")
        settings = read_config(config, no_config)
        shown = show_paths(
            paths,
            load_policies((), builtin=True),
            settings.model,
            settings.limits,
            chart=chart,
            values=values_files,
            sets=set_values,
        )
        text = render_text(shown) if fmt == "text" else None
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


@cli.command()
@click.argument("rule_id")
@_policy_source_options
def explain(
    rule_id: str,
    policy_dirs: tuple[str, ...],
    no_builtin: bool,
    config: str | None,
    no_config: bool,
) -> int:
    """Explain a rule: why it exists, where it comes from, how to fix it."""
    from linter.reporters.ruledocs import render_explanation

    for rule in _configured_rules(policy_dirs, no_builtin, config, no_config):
        if rule.meta.id == rule_id:
            click.echo(render_explanation(rule.meta, rule))
            return EXIT_OK
    raise click.BadParameter(f"no rule '{rule_id}' (see 'servelint rules')", param_hint="RULE_ID")


@cli.command()
@drift_options
def drift(**options: Any) -> int:
    """Compare committed values with the configuration that pods (or files) really loaded."""
    from linter.drift.options import build_plan, build_request, check_usage
    from linter.drift.reporters import DRIFT_REPORTERS
    from linter.drift.scan import run_files, run_kube

    check_usage(options)
    plan = build_plan(options)
    if options["kube"]:
        progress = _PodProgress()
        try:
            result = run_kube(plan, build_request(options), progress)
        finally:
            progress.close()
    else:
        result = run_files(plan, options["live"])
    from linter.drift.result import redacted

    result = redacted(result)  # no format shows the runner's environment or a token
    _emit(DRIFT_REPORTERS[options["fmt"]], result, options["output"])
    return result.exit_code(options["exit_zero"])


class _PodProgress:
    """A progress bar on stderr while many pods are read, only when stderr is a terminal."""

    MIN_PODS = 20

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total < self.MIN_PODS or not sys.stderr.isatty():
                return
            self.bar = click.progressbar(length=total, label="reading pods", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv``; None: this process's own, from the console script or
    ``python -m linter`` (``run``), which exit right after."""
    own = argv is None
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
            obj=_OWN_PROCESS if own_process else None,
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
