"""``lint --chart`` inside a lint run: governance and baselines cover the chart too."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from linter.evaluate.result import RunResult
from linter.findings import Finding
from linter.helm.chart import ChartRequest, build_request, environment_notes, lint_chart, ordered
from linter.run import baseline as baselines

if TYPE_CHECKING:
    from linter.run.lintplan import LintPlan


def run_chart(plan: LintPlan, plain: RunResult, request: ChartRequest) -> RunResult:
    """``plain`` (the paths linted as usual) combined with the chart's environments."""
    run = lint_chart(plan.policies, request, plan.settings, plan.limits)
    chart = plan.governance.apply(run.result, run.parsed)
    findings = ordered([*plain.findings, *chart.findings])
    notes = [*plain.notes, *chart.notes]
    if plan.write_baseline is not None:
        findings, notes = _rewrite_baseline(
            plan.write_baseline, findings, notes, [p.source for p in run.parsed]
        )
    notes += environment_notes(request, findings)
    return RunResult(
        findings,
        plain.files_checked + chart.files_checked,
        plain.read_failures + chart.read_failures,
        notes,
        tuple(dict.fromkeys([*plain.policies, *chart.policies])),
        coverage=plain.coverage.merged(chart.coverage),
    )


def _rewrite_baseline(
    path: Path, findings: list[Finding], notes: list[str], linted: list[str]
) -> tuple[list[Finding], list[str]]:
    # The plain run already wrote the baseline from its own findings; the chart's belong
    # in it too, so it is written again from everything.
    written = baselines.write(path, findings)
    findings, _ = baselines.apply(findings, written, linted)
    findings = ordered(findings)
    prefix = f"baseline {path}: recorded "
    notes = [n for n in notes if not n.startswith(prefix)]
    count = len(written.entries)
    notes.append(f"{prefix}{count} finding{'s' * (count != 1)}")
    return findings, notes


def lint_with_chart(
    plan: LintPlan,
    result: RunResult,
    chart: str,
    values: Sequence[str],
    sets: Sequence[str],
    environments: Sequence[str],
    helm: str | None,
    no_render: bool,
) -> RunResult:
    """``result`` (the plain paths) combined with the chart's environments."""
    try:
        request = build_request(chart, values, sets, environments, helm, no_render)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--env'") from None
    return run_chart(plan, result, request)
