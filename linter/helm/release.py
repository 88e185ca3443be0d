"""A chart's releases as subjects for the engine (``evaluate/subjects.py``).

``ReleaseSubjects`` is one environment: its values files merged as Helm merges them,
read by the serving model (the workloads, with the chart's templates' own pod facts),
and, when helm is there, the manifests it renders, linted like any file. After the
engine ran it puts each rendered finding on the values line that caused it and keeps one
finding per problem the two readings share (``readings.py``).

``ChartReleases`` is the provider of ``lint --chart`` and ``show --chart``: the values
files as written (document policies), then every environment of the request. The chart
context of values files among the inputs (``context.py``) uses ``ReleaseSubjects`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from linter.coverage.model import Coverage, combine, judged_flags
from linter.evaluate.inputs import read_inputs
from linter.evaluate.providers import StandaloneWorkloads, file_providers
from linter.evaluate.subjects import Batch, Contribution, SubjectProvider, conclude_each
from linter.findings import Finding, sort_findings
from linter.helm.chart import (
    OUTSIDE_HINT,
    ChartRequest,
    Environment,
    by_environment,
    clash_findings,
    environment_notes,
    environment_words,
    found_paths,
    helm_document,
    ordered,
    release_name,
    unrendered,
    values_coverage,
    values_finding,
    values_paths,
    values_workloads,
)
from linter.helm.podfacts import add_chart_pod
from linter.helm.provenance import Release, place_rendered
from linter.helm.readings import one_per_problem
from linter.helm.render import Rendered, render
from linter.helm.unread import unread_in_release
from linter.helm.valueflags import judge_chart_flags
from linter.helm.values import MergedValues, ValuesError, merge_values
from linter.lightclass import frozen
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.records.workload import Workload
from linter.parsing.documents import DEFAULT_LIMITS, Document, Limits, ParsedFile
from linter.policy.model import Policy
from linter.secrets import redact
from linter.sources.files import Input, found_input


@frozen
class ReleaseOutcome:
    """What one environment found once its findings came back from the engine."""

    findings: list[Finding]
    notes: list[str]
    rendered: list[ParsedFile]
    coverage: Coverage
    secrets: frozenset[str] = frozenset()


class ReleaseSubjects:
    """One environment of ``request``: the merged values of its layers (``documents``,
    each file's Helm reading, None when it has none) and, with ``request.helm``, its
    rendered chart."""

    def __init__(
        self,
        policies: Sequence[Policy],
        request: ChartRequest,
        env: Environment,
        documents: dict[str, Document | None],
        settings: ModelSettings,
    ) -> None:
        self.policies = policies
        self.request = request
        self.env = env
        self.findings: list[Finding] = []
        self.notes: list[str] = []
        self.merged: MergedValues | None = None
        self.workloads: list[Workload] = []
        self.coverage = Coverage()
        self._rendered: Rendered | None = None
        self._rendered_providers: list[SubjectProvider] = []
        self._batches: list[Batch] | None = None
        files = [*request.common_files, *env.files]
        layers = [request.chart.values] if request.chart.values else []
        broken = [f for f in [*layers, *files] if documents.get(f) is None]
        if broken:
            self.notes.append(
                f"{environment_words(env)}values not merged: {', '.join(broken)} could not "
                "be read as a values file (see its finding)"
            )
            return
        label = f"helm:{request.chart.directory}" + (f"@{env.name}" if env.name else "")
        chart_doc = documents[request.chart.values] if request.chart.values else None
        try:
            self.merged = merge_values(
                chart_doc, [d for f in files if (d := documents[f])], request.sets, label=label
            )
        except ValuesError as exc:
            self.findings.append(values_finding(exc))
            return
        self.findings.extend(clash_findings(self.merged))
        workload_policies = [p for p in policies if p.target == "workload"]
        if workload_policies:
            self.workloads = values_workloads(self.merged, settings)
            add_chart_pod(self.workloads, request.chart.directory, self.merged)
            judge_chart_flags(self.workloads, request.chart.directory, self.merged)
            self.coverage = values_coverage(
                env, [*layers, *files], documents, self.workloads, workload_policies
            )
        if request.helm is not None:
            self._rendered = render(
                request.helm,
                request.chart.directory,
                request.chart.name,
                files,
                request.sets,
                release_name(request.chart),
            )
            self.findings.extend(self._rendered.problems)
            self._rendered_providers = file_providers(
                policies, self._rendered.files, settings=settings
            )

    @property
    def rendered_workloads(self) -> list[Workload]:
        """The workloads of the rendered manifests (none without helm), for ``show``."""
        return [
            w
            for provider in self._rendered_providers
            if isinstance(provider, StandaloneWorkloads)
            for w in provider.workloads
        ]

    def batches(self) -> list[Batch]:
        """The merged values' workloads, then the rendered files' subjects."""
        if self.merged is None:
            return []
        if self._batches is None:
            own = Batch(workloads=tuple(self.workloads))
            self._batches = [own, *(b for p in self._rendered_providers for b in p.batches())]
        return self._batches

    def conclude(self, found: Sequence[list[Finding]]) -> ReleaseOutcome:
        findings = [*self.findings, *(found[0] if found else [])]
        if self._rendered is None or self.merged is None:
            return ReleaseOutcome(findings, self.notes, [], self.coverage)
        parts = conclude_each(self._rendered_providers, found[1:])
        rendered = self._rendered
        request = self.request
        on_manifests = place_rendered(
            sort_findings(f for part in parts for f in part.findings),
            rendered.files,
            self.merged,
            Release(
                request.helm or "",
                request.chart.directory,
                request.chart.name,
                release_name(request.chart),
            ),
        )
        workload_rules = {r.id for p in self.policies if p.target == "workload" for r in p.rules}
        findings = one_per_problem(findings, on_manifests, workload_rules)
        notes = [f"{environment_words(self.env)}helm: {line}" for line in rendered.warnings]
        rendered_coverage = combine([part.coverage for part in parts])
        coverage = self.coverage
        # The rendered objects are the truth of what the chart deploys: a values layout
        # the model could not read is understood once rendered.
        if rendered_coverage.workloads:
            coverage = Coverage(coverage.files, judged_flags(coverage.workloads))
        secrets = frozenset(v for part in parts for v in part.secrets)
        return ReleaseOutcome(
            findings, notes, rendered.files, coverage.merged(rendered_coverage), secrets
        )


class ChartReleases:
    """``lint --chart``: every values file of ``request`` as written, then each of its
    environments; ``show --chart`` takes the workloads of the same releases."""

    def __init__(
        self,
        policies: Sequence[Policy],
        request: ChartRequest,
        settings: ModelSettings = DEFAULT_SETTINGS,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.policies = policies
        self.request = request
        found = found_paths(request)
        inputs = [
            found_input(path, OUTSIDE_HINT) if path in found else Input(path, Path(path))
            for path in values_paths(request)
        ]
        self.as_written, failures = read_inputs(inputs, limits)
        self.failures = failures
        self.findings: list[Finding] = list(failures)
        documents: dict[str, Document | None] = {f.file: None for f in failures}
        for parsed_file in self.as_written:
            self.findings.extend(parsed_file.problems)
            documents[parsed_file.source] = helm_document(parsed_file, self.findings)
        self._documents = documents
        self.releases = [
            ReleaseSubjects(policies, request, env, documents, settings)
            for env in request.environments
        ]

    def batches(self) -> list[Batch]:
        documents = Batch(documents=tuple(d for f in self.as_written for d in f.documents))
        return [documents, *(b for release in self.releases for b in release.batches())]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        request = self.request
        # Keys no template reads: looked for here, not when ``show`` builds the releases.
        documents = self._documents
        unread = unread_in_release(
            self.policies, request.chart.directory, documents, documents, request.sets
        )
        findings = [*self.findings, *unread.findings, *found[0]]
        notes = [request.render_note] if request.render_note else []
        notes.extend(unread.notes)
        rendered: list[ParsedFile] = []
        coverages = [
            Coverage((*(p.source for p in self.as_written), *(f.file for f in self.failures))),
            unrendered(request),
        ]
        secrets = redact.collect(self.as_written)
        per_environment: list[tuple[Environment, list[Finding]]] = []
        for release, outcome in zip(
            self.releases, conclude_each(self.releases, found[1:]), strict=True
        ):
            per_environment.append((release.env, outcome.findings))
            rendered.extend(outcome.rendered)
            notes.extend(outcome.notes)
            coverages.append(outcome.coverage)
            secrets |= outcome.secrets
        findings.extend(by_environment(per_environment))
        linted = [*self.as_written, *rendered]
        return Contribution(
            tuple(ordered(findings)),
            tuple(notes),
            combine(coverages),
            linted=tuple(linted),
            secrets=secrets,
            read_failures=len(self.failures),
        )

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return environment_notes(self.request, findings)

    def workloads(self) -> list[Workload]:
        """The serving model of every environment, for ``show --chart``."""
        return [w for release in self.releases for w in release.workloads]
