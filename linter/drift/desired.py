"""The committed side of a drift run, built by lint's front ends (``linter/committed.py``).

Values files given together are layered as Helm layers ``-f`` files (later files win,
``--set`` last), over their chart's ``values.yaml`` when they sit beside a ``Chart.yaml``,
exactly as ``servelint show --chart DIR -f ... --set ...`` merges them. Any other committed
file (manifests of every kind, Flux HelmReleases, Argo CD Applications, Kustomize overlays,
Triton configurations) is read as ``servelint lint`` reads it. Either way the result is the
serving model's workloads: drift compares their settings, never the documents.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from linter.errors import SourceError
from linter.evaluate.parsers import format_for
from linter.helm.values import MergedValues, load_values, merge_values
from linter.lightclass import frozen
from linter.model.records.workload import Workload
from linter.parsing.documents import ADVISORY_PROBLEMS, DEFAULT_LIMITS, Limits, ParsedFile

if TYPE_CHECKING:  # the policies (and CEL) are loaded only when workloads are built
    from linter.policy.model import Policy


@frozen
class Desired:
    """The workloads of the committed files (each with its environment), and the merged
    values when the files are values files (for ``--values-path`` and for a server
    configuration kept in Git as it is)."""

    workloads: Sequence[tuple[Workload, str | None]]
    merged: MergedValues | None
    files: tuple[str, ...]
    hidden: frozenset[str] = frozenset()  # values read from Secrets: never shown


def read_desired(
    files: Sequence[str],
    sets: Sequence[str] = (),
    limits: Limits = DEFAULT_LIMITS,
    workloads: bool = True,
) -> Desired:
    """``SourceError`` or ``ValuesError`` (exit 3) when a file cannot be read. Without
    ``workloads`` (``--values-path`` compares a subtree of the values, not the serving
    model's workloads) values files are only merged."""
    from linter.evaluate.inputs import read_inputs
    from linter.sources.files import Input

    parsed, failures = read_inputs([Input(f, Path(f)) for f in files], limits)
    if failures:
        first = failures[0]
        raise SourceError(f"{first.file}: cannot read committed file: {first.message}")
    if all(_values_file(p) for p in parsed):
        return _layered(files, sets, limits, workloads)
    if sets:
        raise SourceError(
            "--set applies to values files; "
            f"{', '.join(p.source for p in parsed if not _values_file(p))} "
            "is not one (change the committed file, or give the values file)"
        )
    return _as_linted(files, parsed, limits)


def _values_file(parsed: ParsedFile) -> bool:
    """A Helm values file: YAML or JSON whose first document is a map and no Kubernetes
    object (nor a kustomization, nor a Triton configuration)."""
    from linter.sources.wrappers import is_kustomization

    if is_kustomization(parsed.source) or format_for(parsed.source, parsed.text) == "pbtxt":
        return False
    if any(p.rule_id not in ADVISORY_PROBLEMS for p in parsed.problems):
        return True  # Helm's own reading says what is wrong, at its line
    first = parsed.documents[0].data if parsed.documents else {}
    return isinstance(first, dict) and not ("apiVersion" in first and "kind" in first)


def _policies() -> list[Policy]:
    # The front ends build the serving model only for a run that has workload policies.
    from linter.policy import load_policies

    return load_policies((), builtin=True)


def _layered(files: Sequence[str], sets: Sequence[str], limits: Limits, workloads: bool) -> Desired:
    from linter.sources.chartlayout import chart_of

    charts = {chart_of(f) if os.path.exists(f) else None for f in files}
    folder = charts.pop() if len(charts) == 1 else None
    if folder is not None:
        return _in_chart(folder, files, sets, limits)
    merged = merge_values(None, [load_values(path) for path in files], sets)
    if not workloads:
        return Desired([], merged, tuple(files))
    from linter.helm.chart import values_workloads
    from linter.model.engine.settings import DEFAULT_SETTINGS

    found = values_workloads(merged, DEFAULT_SETTINGS)
    return Desired([(w, None) for w in found], merged, tuple(files))


def _in_chart(folder: str, files: Sequence[str], sets: Sequence[str], limits: Limits) -> Desired:
    """The values layered over the chart's ``values.yaml``, as ``show --chart`` merges them
    (nothing rendered: the values say what the chart is given)."""
    from linter.helm.chart import build_request
    from linter.helm.release import ChartReleases
    from linter.model.engine.settings import DEFAULT_SETTINGS

    request = build_request(folder, files, sets, no_render=True)
    releases = ChartReleases(_policies(), request, DEFAULT_SETTINGS, limits)
    (release,) = releases.releases
    if release.merged is None:
        problems = [f"{f.file}:{f.line}:{f.column}: {f.message}" for f in release.findings]
        raise SourceError("; ".join([*release.notes, *problems]) or f"{folder}: not merged")
    workloads = [(w, None) for w in release.workloads]
    return Desired(workloads, release.merged, tuple(files))


def _as_linted(files: Sequence[str], parsed: list[ParsedFile], limits: Limits) -> Desired:
    from linter.committed import committed_workloads
    from linter.model.engine.settings import DEFAULT_SETTINGS

    found = committed_workloads(files, _policies(), DEFAULT_SETTINGS, limits)
    if found.errors and not found.workloads:
        raise SourceError("; ".join(found.errors))
    return Desired(_overlays_given(found.workloads, files), None, tuple(files), found.hidden)


_KUSTOMIZATION = "Kustomization/"


def _overlays_given(
    workloads: Sequence[tuple[Workload, str | None]], files: Sequence[str]
) -> list[tuple[Workload, str | None]]:
    """Lint reads a kustomization's bases as releases of their own; what is deployed is
    the kustomization given, so its bases' workloads are not candidates."""
    from linter.sources.wrappers import is_kustomization

    given = {os.path.normpath(os.path.dirname(f) or ".") for f in files if is_kustomization(f)}
    if not given:
        return list(workloads)
    return [
        (workload, environment)
        for workload, environment in workloads
        if not (environment or "").startswith(_KUSTOMIZATION)
        or os.path.normpath((environment or "").removeprefix(_KUSTOMIZATION)) in given
    ]
