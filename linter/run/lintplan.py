"""Turn ``servelint lint`` options and the configuration file into one run.

Command-line flags win over the configuration file; a list given on the command line
(``--policy-dir``) replaces the file's list rather than adding to it.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from linter.evaluate.result import RunResult
from linter.findings import Severity, sort_findings
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import Limits
from linter.policy import load_policies
from linter.policy.model import Policy
from linter.run import pipeline
from linter.run.config import EMPTY, Config, find_config, in_repository, load_config
from linter.run.globs import matches_any, relative_to
from linter.run.governance import (
    Governance,
    config_notes,
    known_rules,
    select_policies,
    with_command_line,
)
from linter.sources.files import STDIN_NAME, Input, expand, not_a_configuration

if TYPE_CHECKING:
    from linter.helm.chart import ChartRequest
    from linter.helm.context import ChartContext


@frozen
class LintOptions:
    paths: tuple[str, ...]
    policy_dirs: tuple[str, ...] = ()
    no_builtin: bool = False
    fail_level: str | None = None
    config: str | None = None
    no_config: bool = False
    baseline: str | None = None
    write_baseline: str | None = None
    today: datetime.date | None = None
    # Values files beside a Chart.yaml are linted merged with the chart's values.yaml.
    chart_context: bool = True
    # --disable / --enable: rule ids, policy ids or patterns, on top of the file's disable.
    disable: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    # None: as the configuration file says (default off).
    fail_on_unchecked: bool | None = None


@frozen
class LintPlan:
    policies: tuple[Policy, ...]
    inputs: tuple[Input, ...]
    limits: Limits
    settings: ModelSettings
    governance: Governance
    fail_level: Severity
    write_baseline: Path | None
    notes: tuple[str, ...]
    context: ChartContext | None = None
    # Coverage gaps fail the run (docs/coverage.md).
    fail_on_unchecked: bool = False
    # lint --chart: the chart's releases, linted in the same run.
    chart: ChartRequest | None = None
    # The inputs as given, before what re-judges them was added (run/dependents.py).
    given: tuple[Input, ...] = ()


def read_config(path: str | None, no_config: bool) -> Config:
    if no_config:
        return EMPTY
    found = Path(path) if path is not None else find_config(Path.cwd())
    return EMPTY if found is None else load_config(found)


def configured_policies(
    config: Config, policy_dirs: Sequence[str], no_builtin: bool
) -> list[Policy]:
    """The policies a run loads: ``--policy-dir`` else the file's ``policyDirs``, and the
    built-in set unless ``--no-builtin`` or ``builtin: false``. ``lint``, ``rules`` and
    ``explain`` all load through here, so they agree on which rules exist."""
    dirs = tuple(policy_dirs) or tuple(
        _relative(in_repository(config, ("policyDirs", i), d, "--policy-dir"))
        for i, d in enumerate(config.policy_dirs)
    )
    builtin = not no_builtin and config.builtin is not False
    return load_policies(dirs, builtin=builtin)


def build(options: LintOptions) -> LintPlan:
    file_config = read_config(options.config, options.no_config)
    loaded = configured_policies(file_config, options.policy_dirs, options.no_builtin)
    known = known_rules(loaded)
    config = with_command_line(file_config, options.disable, options.enable, known)
    baseline_file = options.baseline or (
        _relative(in_repository(config, ("baseline",), config.baseline, "--baseline"))
        if config.baseline
        else None
    )
    own_files = {f for f in (config.source, baseline_file, options.write_baseline) if f}
    refused: list[str] = []
    inputs, skipped = _select_inputs(expand(options.paths, refused), config, own_files)
    given = tuple(inputs)
    if options.chart_context:
        from linter.run.dependents import with_dependents

        inputs = with_dependents(inputs, config.model)
    notes = config_notes(file_config, known) + refused
    if skipped:
        notes.append(
            f"{config.source}: {skipped} input{'s' * (skipped != 1)} skipped by include/exclude"
        )
    inputs = _configurations(inputs, notes)
    if options.paths and not inputs:
        # Exit 0 (README, "Exit codes"): pre-commit and a folder of other files are fine,
        # but the report says that nothing was checked.
        notes.append("no files to lint")
    loaded_baseline = None
    if baseline_file is not None and options.write_baseline is None:
        from linter.run.baseline import load as load_baseline  # only with a baseline

        loaded_baseline = load_baseline(Path(baseline_file))
    governance = Governance(config, options.today or datetime.date.today(), loaded_baseline, known)
    level = options.fail_level or (config.fail_level.label if config.fail_level else "error")
    return LintPlan(
        tuple(select_policies(loaded, config)),
        tuple(inputs),
        config.limits,
        config.model,
        governance,
        Severity.parse(level),
        Path(options.write_baseline) if options.write_baseline else None,
        tuple(notes),
        _chart_context(inputs) if options.chart_context else None,
        _choose(options.fail_on_unchecked, config.fail_on_unchecked),
        given=given,
    )


def _choose(flag: bool | None, configured: bool | None) -> bool:
    """The command line wins; then the configuration file; off by default."""
    return bool(flag if flag is not None else configured)


def with_chart(
    plan: LintPlan,
    chart: str,
    values: Sequence[str],
    sets: Sequence[str],
    environments: Sequence[str],
    helm: str | None,
    no_render: bool,
) -> LintPlan:
    """``plan`` with ``lint --chart`` and its options; ValueError for an ``--env`` it
    cannot read, SourceError for a folder that is not a chart."""
    from linter.helm.chart import build_request

    request = build_request(chart, values, sets, environments, helm, no_render)
    # --chart names the releases to judge: a values.yaml among the inputs is not widened
    # to its chart's folder (the wrappers a file brings in stay).
    inputs = _without_widened_charts(plan)
    context = _chart_context(inputs) if plan.context is not None else None
    # The environments --chart lints are its own, not the context's (a values file given as
    # input and with --chart is linted once).
    context = context.without(request) if context is not None else None
    return dataclasses.replace(plan, chart=request, inputs=inputs, context=context)


def _without_widened_charts(plan: LintPlan) -> tuple[Input, ...]:
    given = {i.name for i in plan.given}
    widened = {
        os.path.dirname(name)
        for name in given
        if os.path.basename(name) in ("values.yaml", "Chart.yaml")
    }
    return tuple(
        i for i in plan.inputs if i.name in given or os.path.dirname(i.name) not in widened
    )


def execute(plan: LintPlan) -> RunResult:
    providers = pipeline.providers_for(
        plan.policies,
        plan.inputs,
        plan.limits,
        plan.settings,
        context=plan.context,
        chart=plan.chart,
    )
    result = pipeline.run(
        plan.policies,
        providers,
        governance=plan.governance,
        write_baseline=plan.write_baseline,
        notes=plan.notes,
    )
    if not plan.fail_on_unchecked or not result.coverage.unchecked:
        return result
    from linter.coverage.gate import unchecked_findings

    gated = sort_findings([*result.findings, *unchecked_findings(result.coverage)])
    return dataclasses.replace(result, findings=gated)


def _chart_context(inputs: Sequence[Input]) -> ChartContext | None:
    from linter.sources.chartlayout import chart_of

    # The chart machinery is imported only when an input sits in a chart: start-up time.
    if not any(
        i.path is not None and i.error is None and chart_of(i.name) is not None for i in inputs
    ):
        return None
    from linter.helm.context import plan_context

    return plan_context(inputs)


def _select_inputs(
    inputs: Sequence[Input], config: Config, own_files: set[str]
) -> tuple[list[Input], int]:
    # servelint's own configuration and baseline are not deployment inputs.
    own = {os.path.abspath(f) for f in own_files}
    inputs = [i for i in inputs if i.path is None or os.path.abspath(i.path) not in own]
    if not config.include and not config.exclude:
        return inputs, 0
    kept = [i for i in inputs if i.name == STDIN_NAME or _wanted(config, i.name)]
    return kept, len(inputs) - len(kept)


def _configurations(inputs: Sequence[Input], notes: list[str]) -> list[Input]:
    """The inputs that are configurations; a note for each one that is not."""
    kept = []
    for item in inputs:
        why = not_a_configuration(item)
        if why is None:
            kept.append(item)
        else:
            notes.append(why)
    return kept


def _wanted(config: Config, name: str) -> bool:
    relative = relative_to(config.root, name)
    if config.include and not matches_any(config.include, relative):
        return False
    return not matches_any(config.exclude, relative)


def _relative(joined: Path) -> str:
    """``joined`` spelled relative to the working directory when below it."""
    path = Path(os.path.abspath(joined))
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
