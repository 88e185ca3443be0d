"""The releases GitOps wrappers make, as subject providers (``evaluate/subjects.py``).

Each wrapper release is one environment, named ``Kind/name``: with a chart of this
repository its layers are merged over the chart's ``values.yaml`` exactly as a values
file of that chart is (``helm/release.py`` ``ReleaseSubjects``), so a finding is the one
the same values written as a values file would give, on the wrapper's line; with a
chart known by its profile (or by nothing) the layers are merged alone and read with
that profile (or by their layout). Nothing is rendered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from linter.coverage import gaps
from linter.coverage.model import Coverage, NotUnderstood, combine
from linter.coverage.unrecognised import describe
from linter.evaluate.inputs import read_inputs
from linter.evaluate.subjects import Batch, Contribution, conclude_each
from linter.findings import Finding
from linter.gitops.model import WrappedRelease
from linter.gitops.read import wrapped_releases
from linter.helm.chart import (
    ENVIRONMENTS_KEY,
    Chart,
    ChartRequest,
    Environment,
    by_environment,
    environment_notes,
    helm_document,
    load_chart,
    values_finding,
)
from linter.helm.release import ReleaseSubjects
from linter.helm.unread import unread_in_release
from linter.helm.values import MergedValues, ValuesError, merge_values
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.profiles import profile_named
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, Limits, ParsedFile
from linter.policy.model import Policy
from linter.secrets import redact
from linter.sources.files import Input

if TYPE_CHECKING:
    from linter.gitops.postrender import PostRenderer


class GitOpsReleases:
    """Every release the wrappers among ``parsed`` make."""

    def __init__(
        self,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
        wrapped: Sequence[WrappedRelease] = (),
    ) -> None:
        # ``wrapped``: releases made elsewhere (a kustomization's helmCharts).
        self.wrapped: list[WrappedRelease] = list(wrapped)
        self.unexpanded: list[NotUnderstood] = []
        for parsed_file in parsed:
            releases, unexpanded = wrapped_releases(parsed_file, settings)
            self.wrapped.extend(releases)
            self.unexpanded.extend(unexpanded)
        self.parts: list[_ChartPart | _ValuesPart] = [
            _part(policies, w, settings, limits) for w in self.wrapped
        ]

    def batches(self) -> list[Batch]:
        return [b for part in self.parts for b in part.batches()]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        parts = conclude_each(self.parts, found)
        context = tuple(p for part in self.parts for p in part.context)
        secrets = frozenset(s for w in self.wrapped for s in w.secrets)
        return Contribution(
            tuple(one_each(f for part in parts for f in part.findings)),
            tuple(n for part in parts for n in part.notes),
            combine([*(part.coverage for part in parts), Coverage((), (), tuple(self.unexpanded))]),
            context=context,
            secrets=secrets | redact.collect(context),
        )

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return [note for part in self.parts for note in part.summary(findings)]

    def workloads(self) -> list[tuple[WrappedRelease, list[Workload]]]:
        """Each release with its serving model, for ``show``."""
        return [(part.wrapped, part.workloads) for part in self.parts]


def environment_of(wrapped: WrappedRelease) -> Environment:
    return Environment(f"{wrapped.kind}/{wrapped.name}", tuple(x.label for x in wrapped.layers))


def _part(
    policies: Sequence[Policy], wrapped: WrappedRelease, settings: ModelSettings, limits: Limits
) -> _ChartPart | _ValuesPart:
    if wrapped.chart.directory is not None:
        return _ChartPart(policies, wrapped, settings, limits)
    return _ValuesPart(policies, wrapped, settings)


class _ChartPart:
    """A release of a chart of this repository: its ``values.yaml`` under the layers."""

    def __init__(
        self,
        policies: Sequence[Policy],
        wrapped: WrappedRelease,
        settings: ModelSettings,
        limits: Limits,
    ) -> None:
        assert wrapped.chart.directory is not None
        self.wrapped = wrapped
        chart = load_chart(wrapped.chart.directory)
        self.env = environment_of(wrapped)
        self.request = ChartRequest(chart, environments=(self.env,))
        self.findings: list[Finding] = list(wrapped.findings)
        self.context: list[ParsedFile] = []
        documents: dict[str, Document | None] = {x.label: x.document for x in wrapped.layers}
        if chart.values is not None:
            read, _ = read_inputs([Input(chart.values, Path(chart.values))], limits)
            self.context = read
            documents[chart.values] = helm_document(read[0], []) if read else None
        self.release = ReleaseSubjects(policies, self.request, self.env, documents, settings)
        self._settings = settings
        # Keys no template of the chart reads, in the wrapper's layers as in a values file.
        self._unread = (policies, chart.directory, documents, [x.label for x in wrapped.layers])

    @property
    def workloads(self) -> list[Workload]:
        return self.release.workloads

    def batches(self) -> list[Batch]:
        return self.release.batches()

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        outcome = self.release.conclude(found)
        unread = unread_in_release(*self._unread)
        findings = [*by_environment([(self.env, [*self.findings, *outcome.findings])])]
        findings.extend(unread.findings)
        coverage = outcome.coverage
        if not self.release.workloads:
            coverage = coverage.merged(_not_understood(self.wrapped))
        post = _post_renderer(self.wrapped, self._settings)
        if post is not None:
            post.not_applied(
                "the Kustomize patches and images apply to the chart's rendered manifests, "
                "which are not rendered here (the values are read as the chart's values)"
            )
            coverage = coverage.merged(Coverage((), (), tuple(post.found)))
        notes = (*self.wrapped.notes, *outcome.notes, *unread.notes)
        return Contribution(tuple(findings), notes, coverage)

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return environment_notes(self.request, findings)


class _ValuesPart:
    """A release of a chart not in this repository: the layers alone, read with the
    chart's profile when one names the chart."""

    def __init__(
        self, policies: Sequence[Policy], wrapped: WrappedRelease, settings: ModelSettings
    ) -> None:
        from linter.model.frontends.values import workloads_from_values

        self.wrapped = wrapped
        self.env = environment_of(wrapped)
        self.context: list[ParsedFile] = []
        self.findings: list[Finding] = list(wrapped.findings)
        self.workloads: list[Workload] = []
        self.merged: MergedValues | None = None
        self.post_gaps: tuple[NotUnderstood, ...] = ()
        self._policies = [p for p in policies if p.target == "workload"]
        label = f"{wrapped.kind.lower()}:{wrapped.source}@{wrapped.name}"
        try:
            self.merged = merge_values(None, [x.document for x in wrapped.layers], label=label)
        except ValuesError as exc:
            self.findings.append(values_finding(exc))
            return
        if self._policies and wrapped.layers:
            profile = (
                profile_named(wrapped.chart.profile, settings.profile_dirs)
                if wrapped.chart.profile
                else None
            )
            if profile is not None:
                # Its conditions of chartVersions read the release's version.
                profile = profile._replace(release=wrapped.chart.version)
            post = _post_renderer(wrapped, settings)
            if post is not None and profile is None:
                post.not_applied(
                    "the Kustomize patches and images apply to the rendered manifests; no "
                    "chart profile reads this chart, so they are not applied"
                )
            merged = self.merged
            self.workloads = workloads_from_values(
                merged.data,
                merged.locate,
                merged.label,
                settings,
                profile=profile,
                patch=post if profile is not None else None,
            )
            if post is not None:
                from linter.model.frontends.value_flags import mark_reaching

                mark_reaching(self.workloads, post.written)
                self.post_gaps = tuple(post.found)

    def batches(self) -> list[Batch]:
        return [Batch(workloads=tuple(self.workloads))]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        findings = by_environment([(self.env, [*self.findings, *found[0]])])
        entries = tuple(gaps.entry(w, self._policies, self.env.name) for w in self.workloads)
        coverage = Coverage((), entries, self.post_gaps)
        if self.wrapped.chart.uncovered:
            coverage = coverage.merged(_uncovered(self.wrapped))
        elif not self.workloads and self._policies:
            coverage = coverage.merged(_not_understood(self.wrapped))
        notes = list(self.wrapped.notes)
        if not self.wrapped.chart.profile:
            notes.append(
                f"{self.wrapped.where}: {self.wrapped.title}: {self.wrapped.chart.words}; "
                "its values are read by their layout alone"
            )
        return Contribution(tuple(findings), tuple(notes), coverage)

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        # No chart folder: the summary names the layers alone.
        chart = Chart("", self.wrapped.chart.chart, None)
        return environment_notes(ChartRequest(chart, environments=(self.env,)), findings)


def _not_understood(wrapped: WrappedRelease) -> Coverage:
    """The layers that name an inference server although no workload came of them."""
    found = [n for x in wrapped.layers if (n := describe(x.document)) is not None]
    return Coverage((), (), tuple(found))


def _post_renderer(wrapped: WrappedRelease, settings: ModelSettings) -> PostRenderer | None:
    if not wrapped.post_renderers:
        return None
    from linter.gitops.postrender import PostRenderer  # only for a release that has one

    return PostRenderer(wrapped, settings)


def _uncovered(wrapped: WrappedRelease) -> Coverage:
    """A release of a profiled chart whose version no profile describes."""
    chart = wrapped.chart
    found = NotUnderstood(
        wrapped.source,
        wrapped.line,
        1,
        f"chart {chart.chart} {chart.version} ({wrapped.title})",
        chart.uncovered,
        "describe this chart version with a chart profile (metadata.chartVersions, "
        "docs/gitops.md), or lint the chart with --chart so the rendered manifests are read",
    )
    return Coverage((), (), (found,))


def one_each(findings: Iterable[Finding]) -> list[Finding]:
    """A finding several releases share (on a chart's values.yaml) once, naming them all."""
    kept: dict[tuple[str, int, int, int, str, str, str], Finding] = {}
    for finding in findings:
        key = finding.sort_key()
        first = kept.get(key)
        if first is None:
            kept[key] = finding
            continue
        names = [*first.extra.get(ENVIRONMENTS_KEY, ())]
        names += [n for n in finding.extra.get(ENVIRONMENTS_KEY, ()) if n not in names]
        kept[key] = dataclasses.replace(first, extra={**first.extra, ENVIRONMENTS_KEY: names})
    return list(kept.values())
