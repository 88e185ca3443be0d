"""The workloads of committed files, built by lint's front ends.

``servelint show`` and ``servelint drift`` see the same serving model that ``servelint
lint`` evaluates: manifests of every kind, values files in their chart's context, Flux
HelmReleases, Argo CD Applications, Kustomize overlays and Triton configurations
(``evaluate/providers.py``, ``helm/``, ``gitops/``). One place reads committed files into
workloads; each command words them its own way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from linter.coverage.model import NotUnderstood
from linter.evaluate.inputs import read_inputs
from linter.evaluate.providers import StandaloneWorkloads
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.model.records.workload import Workload
from linter.parsing.documents import Limits, ParsedFile
from linter.policy.model import Policy
from linter.sources.chartlayout import chart_of, environment_name
from linter.sources.files import expand


@frozen
class Committed:
    """What the committed files describe: each workload with its environment (None for a
    file read alone), the files as parsed, what could not be read, what names a server but
    gave no workload, and the values read from Secrets (never shown)."""

    workloads: list[tuple[Workload, str | None]]
    parsed: list[ParsedFile]
    errors: list[str]
    not_understood: list[NotUnderstood]
    hidden: frozenset[str] = frozenset()


def committed_workloads(
    paths: Sequence[str],
    policies: Sequence[Policy],
    settings: ModelSettings,
    limits: Limits,
    *,
    chart_context: bool = True,
) -> Committed:
    """The workloads of ``paths`` as ``servelint lint`` builds them."""
    refused: list[str] = []
    inputs = expand(paths, refused)
    parsed, failures = read_inputs(inputs, limits)
    errors = [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in failures] + refused
    for parsed_file in parsed:
        errors.extend(
            f"{p.file}:{p.line}:{p.column}: {p.message}"
            for p in parsed_file.problems
            if p.rule_id != "duplicate-key"
        )
    workloads: list[tuple[Workload, str | None]] = []
    standalone: list[ParsedFile] = []
    for parsed_file in parsed:
        in_chart = _in_chart(parsed_file, policies, settings, limits) if chart_context else None
        if in_chart is None:
            standalone.append(parsed_file)
        else:
            workloads.extend((w, environment_name(parsed_file.source)) for w in in_chart)
    alone = StandaloneWorkloads(standalone, policies, settings)
    workloads.extend((w, None) for w in alone.workloads)
    wrapped, hidden, unexpanded = _wrapped(parsed, policies, settings, limits)
    workloads.extend(wrapped)
    return Committed(workloads, parsed, errors, [*alone.not_understood(), *unexpanded], hidden)


def _wrapped(
    parsed: Sequence[ParsedFile],
    policies: Sequence[Policy],
    settings: ModelSettings,
    limits: Limits,
) -> tuple[list[tuple[Workload, str | None]], frozenset[str], list[NotUnderstood]]:
    """The workloads of the GitOps wrappers among ``parsed`` (``linter/gitops/``), each
    tagged with its release; the values read from Secrets, which are never shown."""
    from linter.sources.wrappers import any_wrapper, is_kustomization

    out: list[tuple[Workload, str | None]] = []
    if any(is_kustomization(p.source) for p in parsed):
        from linter.gitops.kustomize_releases import KustomizeReleases

        out.extend(KustomizeReleases(policies, parsed, settings, limits).shown())
    if not any_wrapper(d.data for p in parsed for d in p.documents):
        return out, frozenset(), []
    from linter.gitops.provider import GitOpsReleases, environment_of

    releases = GitOpsReleases(policies, parsed, settings, limits)
    for release, found in releases.workloads():
        out.extend((w, environment_of(release).name) for w in found)
    hidden = frozenset(v for w in releases.wrapped for v in w.secrets)
    return out, hidden, releases.unexpanded


def _in_chart(
    parsed_file: ParsedFile, policies: Sequence[Policy], settings: ModelSettings, limits: Limits
) -> list[Workload] | None:
    """The workloads of a values file beside a ``Chart.yaml``, merged over the chart's
    ``values.yaml`` as ``lint`` merges it (``helm/context.py``); None when the file is not
    read in its chart (not a values file, or a layer that cannot be read as values)."""
    source = parsed_file.source
    folder = chart_of(source) if os.path.exists(source) else None
    if folder is None:
        return None
    from linter.helm.context import ChartContext, request_for

    context = ChartContext((request_for(folder, [source]),))
    subjects = context.provider(policies, [parsed_file], settings, limits)
    if source not in subjects.claimed:
        return None
    releases = subjects.releases()
    if not releases or any(release.merged is None for release in releases):
        return None
    return [w for release in releases for w in release.workloads]
