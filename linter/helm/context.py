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
policies still see every file as written (``evaluate/providers.py``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from linter.coverage.model import combine
from linter.evaluate.inputs import read_inputs
from linter.evaluate.subjects import Batch, Contribution, conclude_each
from linter.findings import Finding
from linter.helm.chart import (
    OUTSIDE_HINT,
    Chart,
    ChartRequest,
    Environment,
    by_environment,
    environment_notes,
    helm_document,
)
from linter.helm.release import ReleaseSubjects
from linter.helm.unread import unread_in_release
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, Limits, ParsedFile
from linter.policy.model import Policy
from linter.secrets import redact
from linter.sources.chartlayout import CHART_VALUES, chart_of, chart_values_name, environment_name
from linter.sources.files import Input, found_input


@frozen
class ChartContext:
    """The charts of a run's values files, each with its environments."""

    requests: tuple[ChartRequest, ...]
    # Input values files whose release ``lint --chart`` lints (``without``): not read
    # alone, not an environment of the context either.
    handed_over: frozenset[str] = frozenset()

    def without(self, linted: ChartRequest) -> ChartContext | None:
        """The context without the environments ``linted`` (``lint --chart``) lints too:
        a release linted twice gave its notes and findings twice (issue 31)."""
        covered = {_release_key(linted, env.files) for env in linted.environments}
        requests: list[ChartRequest] = []
        handed = set(self.handed_over)
        for request in self.requests:
            kept = []
            for env in request.environments:
                if _release_key(request, env.files, common=False) in covered:
                    handed.update(env.files)
                else:
                    kept.append(env)
            if len(kept) == len(request.environments):
                requests.append(request)
                continue
            if request.chart.values is not None:
                handed.add(request.chart.values)  # --chart lints it as written
            if kept:
                requests.append(dataclasses.replace(request, environments=tuple(kept)))
        if not requests:
            return None if not handed else ChartContext((), frozenset(handed))
        return ChartContext(tuple(requests), frozenset(handed))

    def provider(
        self,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> ChartContextSubjects:
        """The subjects of the charts, given the run's input files as read."""
        return ChartContextSubjects(self, policies, parsed, settings, limits)


class ChartContextSubjects:
    """Each chart's environments as subjects; the values files read that way are
    ``claimed``, so that their workloads are not read from the file alone as well."""

    def __init__(
        self,
        context: ChartContext,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> None:
        given = {p.source: p for p in parsed}
        self.requests = context.requests
        self.charts = [
            _ChartInContext(policies, request, given, settings, limits) for request in self.requests
        ]
        self.claimed = frozenset(name for chart in self.charts for name in chart.claimed) | (
            context.handed_over & given.keys()
        )

    def batches(self) -> list[Batch]:
        return [b for chart in self.charts for b in chart.batches()]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        parts = conclude_each(self.charts, found)
        context_files = tuple(p for part in parts for p in part.context)
        return Contribution(
            tuple(f for part in parts for f in part.findings),
            tuple(n for part in parts for n in part.notes),
            combine([part.coverage for part in parts]),
            context=context_files,
            secrets=redact.collect(context_files),
        )

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        """One summary per named environment, after suppressions (as ``lint --chart``)."""
        return [note for request in self.requests for note in environment_notes(request, findings)]

    def releases(self) -> list[ReleaseSubjects]:
        """Each environment with its serving model, for ``show``."""
        return [release for chart in self.charts for release in chart.releases]


def _release_key(
    request: ChartRequest, files: Sequence[str], *, common: bool = True
) -> tuple[str, ...]:
    """A release as the files it layers, wherever they are spelled from: the chart, then
    its values files (``lint --chart``'s ``-f`` files first)."""
    layers = [*request.common_files, *files] if common else list(files)
    return tuple(os.path.realpath(p) for p in [request.chart.directory or ".", *layers])


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
    return ChartContext(tuple(request_for(chart, names) for chart, names in groups.values()))


def request_for(directory: str, names: list[str]) -> ChartRequest:
    """The release of ``names``, values files of the chart in ``directory``: one unnamed
    release for a lone file, else one environment each."""
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


class _ChartInContext:
    """One chart: its ``values.yaml`` (read for the context when not an input) and the
    environments of the values files that read as values."""

    def __init__(
        self,
        policies: Sequence[Policy],
        request: ChartRequest,
        given: dict[str, ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> None:
        self.findings: list[Finding] = []
        self.notes: tuple[str, ...] = ()
        self.context_files: list[ParsedFile] = []
        self.claimed: list[str] = []
        self.releases: list[ReleaseSubjects] = []
        # Keys no template reads: looked for when concluding (``show`` never asks).
        self._unread: tuple[Sequence[Policy], str, dict[str, Document | None]] | None = None
        chart_values = request.chart.values
        own_file = given.get(chart_values) if chart_values else None
        if chart_values is not None and own_file is None:
            read, failed = read_inputs([found_input(chart_values, OUTSIDE_HINT)], limits)
            self.context_files = read
            own_file = read[0] if read else None
            refused = [f"{chart_values}: {f.message}" for f in failed]
        documents: dict[str, Document | None] = {}
        if chart_values is not None:
            # A values.yaml that is only context has its problems reported when it is linted.
            sink = self.findings if chart_values in given else []
            documents[chart_values] = helm_document(own_file, sink) if own_file else None
            if documents[chart_values] is None:
                self.notes, self.context_files = (*refused, *_unmerged(request)), []
                return
        self.claimed, envs = _claim(request, given, documents, self.findings)
        self.releases = [
            ReleaseSubjects(policies, request, env, documents, settings) for env in envs
        ]
        self._unread = (policies, request.chart.directory, documents)

    def batches(self) -> list[Batch]:
        return [b for release in self.releases for b in release.batches()]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        outcomes = list(zip(self.releases, conclude_each(self.releases, found), strict=True))
        findings = list(self.findings)
        notes = self.notes
        if self._unread is not None:
            unread = unread_in_release(*self._unread, self.claimed)
            findings.extend(unread.findings)
            notes = tuple(unread.notes)
        findings.extend(by_environment([(r.env, o.findings) for r, o in outcomes]))
        # Notes of an environment (values not merged) are left to the values files' own
        # findings here; ``lint --chart`` prints them.
        return Contribution(
            tuple(findings),
            notes,
            combine([o.coverage for _, o in outcomes]),
            context=tuple(self.context_files),
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
