"""Values files linted in the context of their chart (``servelint lint FILE|DIR``).

A values file beside a ``Chart.yaml`` (``sources/chartlayout.py``) is one release of that chart: the
serving model reads the chart's ``values.yaml`` overlaid with the file, exactly as
``helm install -f FILE`` merges them, so a finding points at the line of the file that
set the value, or at ``values.yaml`` when the default is the culprit. The merged values
replace the file's standalone reading, so a workload finding is reported once.

Several values files of one chart are its environments (``chart.py``): a finding they
share is shown once with their names, and the chart's own ``values.yaml`` is the
``default`` environment. A lone file is an unnamed release, as with ``lint --chart DIR
-f FILE``. Nothing is rendered: this runs in the pre-commit hook on every commit and
``helm template`` costs hundreds of milliseconds; ``lint --chart`` renders. Document
policies still see every file as written (``evaluate/stages.py``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from linter.coverage.model import combine
from linter.evaluate.result import ContextRun
from linter.evaluate.stages import read_inputs
from linter.findings import Finding
from linter.helm.chart import (
    Chart,
    ChartRequest,
    Environment,
    by_environment,
    environment_notes,
    helm_document,
    lint_environment,
)
from linter.helm.unread import unread_in_release
from linter.model.settings import ModelSettings
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, Limits, ParsedFile
from linter.policy.model import Policy
from linter.sources.chartlayout import CHART_VALUES, chart_of, chart_values_name, environment_name
from linter.sources.files import Input


@dataclasses.dataclass(frozen=True)
class ChartContext:
    """The charts of a run's values files, each with its environments."""

    requests: tuple[ChartRequest, ...]

    def lint(
        self,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> ContextRun:
        given = {p.source: p for p in parsed}
        runs = [
            _lint_chart(policies, request, given, settings, limits) for request in self.requests
        ]
        return ContextRun(
            frozenset(name for run in runs for name in run.claimed),
            tuple(f for run in runs for f in run.findings),
            tuple(n for run in runs for n in run.notes),
            tuple(p for run in runs for p in run.files),
            combine([run.coverage for run in runs]),
        )

    def notes(self, findings: Sequence[Finding]) -> list[str]:
        """One summary per named environment, after suppressions (as ``lint --chart``)."""
        return [note for request in self.requests for note in environment_notes(request, findings)]


def plan_context(inputs: Sequence[Input]) -> ChartContext | None:
    """The chart of every input that is a chart's values file; None when there is none."""
    groups: dict[str, tuple[str, list[str]]] = {}
    for item in inputs:
        chart = chart_of(item.name) if item.path is not None and item.error is None else None
        if chart is not None:
            key = os.path.realpath(chart or ".")
            groups.setdefault(key, (chart, []))[1].append(item.name)
    if not groups:
        return None
    return ChartContext(tuple(_request(chart, names) for chart, names in groups.values()))


def _request(directory: str, names: list[str]) -> ChartRequest:
    own = next((n for n in names if os.path.basename(n) == CHART_VALUES), None)
    values = own or chart_values_name(directory)
    chart = Chart(
        directory or ".",
        os.path.basename(os.path.realpath(directory or ".")),
        values if os.path.isfile(values) else None,
    )
    return ChartRequest(chart, environments=_environments(names, own))


def _environments(names: list[str], own: str | None) -> tuple[Environment, ...]:
    if len(names) == 1:
        return (Environment(None, () if names[0] == own else (names[0],)),)
    taken: set[str] = set()
    envs = []
    # The chart's defaults first: the environments that override them follow.
    for name in sorted(names, key=lambda n: n != own):
        label = environment_name(name)
        if label in taken:  # values-prod.yaml and values-prod.yml: tell them apart
            label = os.path.basename(name)
        taken.add(label)
        envs.append(Environment(label, () if name == own else (name,)))
    return tuple(envs)


def _lint_chart(
    policies: Sequence[Policy],
    request: ChartRequest,
    given: dict[str, ParsedFile],
    settings: ModelSettings,
    limits: Limits,
) -> ContextRun:
    chart_values = request.chart.values
    own_file = given.get(chart_values) if chart_values else None
    context_files: list[ParsedFile] = []
    if chart_values is not None and own_file is None:
        read, _ = read_inputs([Input(chart_values, Path(chart_values))], limits)
        context_files = read
        own_file = read[0] if read else None
    documents: dict[str, Document | None] = {}
    findings: list[Finding] = []
    if chart_values is not None:
        # A values.yaml that is only context has its problems reported when it is linted.
        sink = findings if chart_values in given else []
        documents[chart_values] = helm_document(own_file, sink) if own_file else None
        if documents[chart_values] is None:
            return ContextRun(findings=tuple(findings), notes=_unmerged(request))
    claimed, envs = _claim(request, given, documents, findings)
    unread = unread_in_release(policies, request.chart.directory, documents, claimed)
    findings.extend(unread.findings)
    runs = [(env, lint_environment(policies, request, env, documents, settings)) for env in envs]
    findings.extend(by_environment([(env, run[0]) for env, run in runs]))
    coverage = combine([run[3] for _, run in runs])
    return ContextRun(
        frozenset(claimed), tuple(findings), tuple(unread.notes), tuple(context_files), coverage
    )


def _claim(
    request: ChartRequest,
    given: dict[str, ParsedFile],
    documents: dict[str, Document | None],
    findings: list[Finding],
) -> tuple[list[str], list[Environment]]:
    """The environments whose file reads as values, and the files read that way."""
    claimed = [request.chart.values] if request.chart.values in given else []
    envs: list[Environment] = []
    for env in request.environments:
        if not env.files:
            envs.append(env)
            continue
        parsed = given.get(env.files[0])
        if parsed is None or not _values_like(parsed):
            continue  # unreadable, unparsable or a manifest: linted as the file alone
        claimed.append(parsed.source)
        documents[parsed.source] = helm_document(parsed, findings)
        if documents[parsed.source] is not None:
            envs.append(env)
    return claimed, envs


def _values_like(parsed: ParsedFile) -> bool:
    if any(p.rule_id not in ADVISORY_PROBLEMS for p in parsed.problems):
        return False  # its syntax finding says it all; Helm could not read it either
    first = parsed.documents[0].data if parsed.documents else {}
    return not (isinstance(first, dict) and "apiVersion" in first and "kind" in first)


def _unmerged(request: ChartRequest) -> tuple[str, ...]:
    files = [f for env in request.environments for f in env.files]
    if not files:
        return ()  # the chart's values.yaml alone: its own finding says it all
    return (
        f"{', '.join(files)}: linted without the chart's values: {request.chart.values} "
        "could not be read as a values file",
    )
