"""The lint pipeline: inputs → documents → workloads → policies → findings, in this
process or in worker processes, with a workload context and governance."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from linter.evaluate.result import ContextRun, RunResult, WorkloadContext
from linter.evaluate.stages import lint_parsed, make_result, read_inputs
from linter.findings import sort_findings
from linter.model.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing.documents import DEFAULT_LIMITS, Limits
from linter.policy.model import Policy
from linter.run import parallel
from linter.secrets import redact
from linter.sources import files as file_sources

if TYPE_CHECKING:
    from linter.run.governance import Governance


def lint(
    policies: Sequence[Policy],
    inputs: Sequence[file_sources.Input],
    limits: Limits = DEFAULT_LIMITS,
    *,
    settings: ModelSettings = DEFAULT_SETTINGS,
    governance: Governance | None = None,
    context: WorkloadContext | None = None,
) -> RunResult:
    workers = parallel.workers_for(policies, inputs, context is not None)
    if workers:
        collected = parallel.collect(policies, inputs, limits, settings, workers)
        parsed, extra = collected.parsed, ContextRun()
        result = make_result(
            policies,
            collected.findings,
            parsed,
            collected.failures,
            collected.secrets,
            collected.coverage,
        )
    else:
        parsed, failures = read_inputs(inputs, limits)
        extra = (
            ContextRun() if context is None else context.lint(policies, parsed, settings, limits)
        )
        result = lint_parsed(
            policies,
            parsed,
            failures,
            settings=settings,
            builtin_checks=any(p.builtin for p in policies),
            claimed=extra.claimed,
        )
        result = _with_context(result, extra)
    # Suppressions, baseline and severity overrides apply after evaluation (governance.py).
    return result if governance is None else governance.apply(result, parsed, extra.files)


def _with_context(result: RunResult, extra: ContextRun) -> RunResult:
    result = dataclasses.replace(result, coverage=result.coverage.merged(extra.coverage))
    if not (extra.findings or extra.notes or extra.files):
        return result
    secret_values = result.secrets | redact.collect(extra.files)
    findings = redact.findings([*result.findings, *extra.findings], secret_values)
    return dataclasses.replace(
        result,
        findings=sort_findings(findings),
        notes=[*result.notes, *extra.notes],
        secrets=secret_values,
    )
