"""The releases of the kustomizations among a run's inputs (``kustomize.py``): each
folder's build is an environment ``Kustomization/FOLDER``, and every folder it includes
is judged alone as well, so a finding an overlay brings is told from one of its base.

A finding an overlay brings on a base's line while the overlay changed a container's
image (``images``) names the overlay's line: the base's line is right, but its meaning
(a flag the new release no longer accepts) comes from the overlay.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from linter.coverage import gaps
from linter.coverage.model import Coverage, combine
from linter.evaluate.subjects import Batch, Contribution
from linter.findings import Finding
from linter.gitops.kustomize import KIND, Build, build
from linter.gitops.provider import GitOpsReleases, environment_of, one_each
from linter.helm.chart import Chart, ChartRequest, Environment, by_environment, environment_notes
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.manifests import workloads_from_manifest
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, Limits, ParsedFile
from linter.policy.model import Policy
from linter.sources.wrappers import is_kustomization


def builds_of(parsed: Sequence[ParsedFile], settings: ModelSettings) -> list[Build]:
    """The builds of the kustomizations among ``parsed`` and of every folder they include,
    each folder once, includers first."""
    out: list[Build] = []
    seen: set[str] = set()

    def add(one: Build) -> None:
        real = os.path.realpath(one.folder)
        if real in seen:
            return
        seen.add(real)
        out.append(one)
        for base in one.bases:
            add(base)

    for parsed_file in parsed:
        if is_kustomization(parsed_file.source):
            add(build(Path(parsed_file.source).parent, settings))
    return out


class KustomizeReleases:
    """A subject provider: the objects of each build, judged as an environment."""

    def __init__(
        self,
        policies: Sequence[Policy],
        parsed: Sequence[ParsedFile],
        settings: ModelSettings,
        limits: Limits,
    ) -> None:
        self.builds = builds_of(parsed, settings)
        self._policies = [p for p in policies if p.target == "workload"]
        self.envs = [_environment(b) for b in self.builds]
        self.workloads: list[list[Workload]] = [
            [
                workload
                for obj in b.objects
                for workload in workloads_from_manifest(
                    Document(b.file, 0, obj.data, {}), settings, None, obj.locate
                )
            ]
            for b in self.builds
        ]
        charts = {(w.source, w.line): w for b in self.builds for w in b.charts}
        self.charts = GitOpsReleases(policies, [], settings, limits, list(charts.values()))

    def shown(self) -> list[tuple[Workload, str | None]]:
        """Each build's workloads (and its charts'), tagged with the environment, for
        ``show``."""
        out: list[tuple[Workload, str | None]] = [
            (w, env.name)
            for env, workloads in zip(self.envs, self.workloads, strict=True)
            for w in workloads
        ]
        out.extend(
            (w, environment_of(release).name)
            for release, found in self.charts.workloads()
            for w in found
        )
        return out

    def batches(self) -> list[Batch]:
        own = [Batch(workloads=tuple(w)) for w in self.workloads]
        return [*own, *self.charts.batches()]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        count = len(self.builds)
        mine, theirs = found[:count], found[count:]
        keys = [{f.sort_key() for f in findings} for findings in mine]
        index = {os.path.realpath(b.folder): n for n, b in enumerate(self.builds)}
        findings: list[Finding] = []
        for number, (one, env) in enumerate(zip(self.builds, self.envs, strict=True)):
            inherited = set().union(*(keys[index[os.path.realpath(b.folder)]] for b in one.bases))
            own = [_named(f, one, inherited) for f in mine[number]]
            findings.extend(by_environment([(env, own)]))
        charts = self.charts.conclude(theirs)
        entries = tuple(
            gaps.entry(w, self._policies, env.name)
            for env, workloads in zip(self.envs, self.workloads, strict=True)
            for w in workloads
        )
        notes = list(dict.fromkeys(n for b in self.builds for n in b.notes))
        return Contribution(
            tuple(one_each([*findings, *charts.findings])),
            (*notes, *charts.notes),
            combine([Coverage((), entries), charts.coverage]),
            context=charts.context,
            secrets=charts.secrets,
        )

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        notes = [
            note
            for b, env in zip(self.builds, self.envs, strict=True)
            if b.objects or not b.charts  # a folder of charts alone: their releases say it
            for note in environment_notes(
                ChartRequest(Chart("", b.folder, None), environments=(env,)), findings
            )
        ]
        return [*notes, *self.charts.summary(findings)]


def _environment(one: Build) -> Environment:
    images = dict.fromkeys(f"images {i.image} ({i.where[0]}:{i.where[1]})" for i in one.images)
    return Environment(f"{KIND}/{one.folder}", (one.file, *images))


def _named(
    finding: Finding, one: Build, inherited: set[tuple[str, int, int, int, str, str, str]]
) -> Finding:
    """``finding`` naming the overlay lines that set an image, when the finding is on a
    line outside the overlay's folder and none of the folders it includes has it alone."""
    if not one.images or not one.bases or finding.sort_key() in inherited:
        return finding
    folder = os.path.realpath(one.folder) + os.sep
    if os.path.realpath(finding.file).startswith(folder):
        return finding  # on the overlay's own lines: the overlay set it
    setters = list(
        {(i.image, i.where): i for i in one.images if i.where[0] != finding.file}.values()
    )
    if not setters:
        return finding
    named = ", ".join(f"{i.image} by {i.where[0]}:{i.where[1]} ({i.field})" for i in setters)
    message = f"{finding.message} [the image is set by the overlay: {named}]"
    return dataclasses.replace(finding, message=message)
