"""A Helm chart as releases would get it: the request of ``lint --chart``, its
environments, and what every reading of a release shares (``release.py`` lints them).

An *environment* is a list of values files layered on the chart's ``values.yaml``, as
``helm template -f a.yaml -f b.yaml`` layers them. ``--values`` files (and ``--set``) are
shared by every environment; ``--env NAME=FILE[,FILE]`` adds one environment each
(``--env prod`` alone means ``<chart>/values-prod.yaml``). Without ``--env`` there is a
single, unnamed release.

For each file as written, document policies run once. For each environment, the merged
values feed the serving model (workload policies), and the chart rendered by ``helm
template`` is linted like any manifest. A finding of named environments lists them in
``extra["environments"]`` (JSON ``"environments"``); one that several environments share
is reported once.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

from linter.coverage import gaps
from linter.coverage.model import Coverage, NotUnderstood
from linter.coverage.unrecognised import not_understood
from linter.errors import SourceError
from linter.findings import Finding, Severity, summarize
from linter.helm.render import find_helm
from linter.helm.values import MergedValues, ValuesError, values_document
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.model.records.workload import Workload
from linter.parsing import bounded
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, ParsedFile, parse_yaml
from linter.policy.model import Policy

VALUES_RULE = "helm-values"
ENVIRONMENTS_KEY = "environments"


@frozen
class Chart:
    directory: str  # as given, without a trailing slash
    name: str
    values: str | None  # the chart's values.yaml, when it has one


@frozen
class Environment:
    name: str | None  # None: the single release of --values / --set
    files: tuple[str, ...]
    # The file was found by its name (--env NAME: values-NAME.yaml), not given: it is read
    # only inside the repository (sources/repository.py).
    found: bool = False


@frozen
class ChartRequest:
    """Everything ``lint --chart`` was asked to do."""

    chart: Chart
    common_files: tuple[str, ...] = ()
    sets: tuple[str, ...] = ()
    environments: tuple[Environment, ...] = (Environment(None, ()),)
    helm: str | None = None  # path of the helm binary; None: do not render
    render_note: str = ""  # why rendering is skipped, said once
    # Rendering was wanted but helm is not on PATH: the templates are a gap of coverage
    # (``--fail-on-unchecked`` fails on it); --no-render is a choice, not a gap.
    helm_missing: bool = False


def load_chart(directory: str) -> Chart:
    """A chart directory; ``SourceError`` when it has no ``Chart.yaml``."""
    base = directory.rstrip("/") or "/"
    chart_file = Path(base, "Chart.yaml")
    if not chart_file.is_file():
        raise SourceError(f"{directory}: not a Helm chart (no Chart.yaml)")
    name = Path(base).resolve().name
    try:
        parsed = parse_yaml(str(chart_file), bounded.read_text(chart_file))
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{chart_file}: cannot read: {exc}") from exc
    if parsed.documents and isinstance(parsed.documents[0].data, dict):
        name = str(parsed.documents[0].data.get("name") or name)
    values = Path(base, "values.yaml")
    # Anything named values.yaml is the chart's values: a FIFO or a dangling link is
    # reported as unreadable, never ignored.
    present = values.exists() or values.is_symlink()
    return Chart(base, name, f"{base}/values.yaml" if present else None)


def parse_environment(spec: str, chart: Chart) -> Environment:
    """``NAME=FILE[,FILE]`` or ``NAME`` (meaning ``<chart>/values-NAME.yaml``)."""
    name, sep, files = spec.partition("=")
    name = name.strip()
    if not name:
        raise ValueError(f"'{spec}': give a name, as in prod=values-prod.yaml")
    if not sep:
        return Environment(name, (f"{chart.directory}/values-{name}.yaml",), found=True)
    paths = tuple(_in_chart(p.strip(), chart) for p in files.split(",") if p.strip())
    if not paths:
        raise ValueError(f"'{spec}': give at least one values file after '='")
    return Environment(name, paths)


def _in_chart(path: str, chart: Chart) -> str:
    """A relative ``--env`` file is found in the chart, as ``--env NAME`` finds
    ``values-NAME.yaml`` there; a path that exists only from the working directory (as
    ``-f`` reads it) is kept, so both spellings work."""
    if os.path.isabs(path):
        return path
    in_chart = f"{chart.directory.rstrip('/')}/{path}"
    if Path(in_chart).is_file() or not Path(path).is_file():
        return in_chart
    return path


def build_request(
    chart_dir: str,
    values: Sequence[str] = (),
    sets: Sequence[str] = (),
    environments: Sequence[str] = (),
    helm: str | None = None,
    no_render: bool = False,
) -> ChartRequest:
    """The request for ``lint --chart``; ValueError for an ``--env`` it cannot read."""
    chart = load_chart(chart_dir)
    envs = tuple(parse_environment(spec, chart) for spec in environments)
    names = [env.name for env in envs]
    duplicates = sorted({n for n in names if names.count(n) > 1 and n is not None})
    if duplicates:
        raise ValueError(f"environment {duplicates[0]!r} is given more than once")
    binary, note = helm_for(helm, no_render)
    return ChartRequest(
        chart,
        tuple(values),
        tuple(sets),
        envs or (Environment(None, ()),),
        binary,
        note,
        helm_missing=binary is None and not no_render,
    )


def helm_for(explicit: str | None, no_render: bool) -> tuple[str | None, str]:
    """The helm binary to render with, or None and the note that says why not."""
    if no_render:
        return None, "rendering skipped (--no-render): templates were not checked"
    helm = find_helm(explicit)
    if helm is None:
        return None, (
            "rendering skipped: helm is not on PATH (install it or pass --helm); "
            "templates were not checked"
        )
    return helm, ""


def unrendered(request: ChartRequest) -> Coverage:
    """The coverage gap of a chart that helm did not render because it is not there."""
    if not request.helm_missing:
        return Coverage()
    return Coverage(
        not_understood=(
            NotUnderstood(
                f"{request.chart.directory}/Chart.yaml",
                1,
                1,
                "chart templates",
                "not rendered: helm is not on PATH",
                "install helm, or give its path with --helm (or SERVELINT_HELM)",
            ),
        )
    )


def environment_notes(request: ChartRequest, findings: Sequence[Finding]) -> list[str]:
    """One summary line per named environment (after suppressions and baselines)."""
    notes = []
    for env in request.environments:
        if env.name is None:
            continue
        mine = [f for f in findings if env.name in f.extra.get(ENVIRONMENTS_KEY, ())]
        layers = [request.chart.values] if request.chart.values else []
        layers += [*request.common_files, *env.files]
        sets = f" + {len(request.sets)} --set" if request.sets else ""
        counts = summarize(mine)
        suppressed = f", {counts['suppressed']} suppressed" if counts["suppressed"] else ""
        notes.append(
            f"environment {env.name} ({' + '.join(layers)}{sets}): "
            f"{_count(counts['error'], 'error')}, "
            f"{_count(counts['warning'], 'warning')}, {counts['info']} info{suppressed}"
        )
    return notes


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'s' * (number != 1)}"


def by_environment(per_environment: Sequence[tuple[Environment, list[Finding]]]) -> list[Finding]:
    """Each finding once, naming every environment it occurs in (JSON ``environments``)."""
    merged: dict[tuple[str, int, int, int, str, str, str], tuple[Finding, list[str]]] = {}
    for env, findings in per_environment:
        for finding in findings:
            _, names = merged.setdefault(finding.sort_key(), (finding, []))
            if env.name is not None and env.name not in names:
                names.append(env.name)
    return [
        finding
        if not names
        else dataclasses.replace(finding, extra={**finding.extra, ENVIRONMENTS_KEY: names})
        for finding, names in merged.values()
    ]


def found_paths(request: ChartRequest) -> set[str]:
    """The values files servelint found rather than was given: the chart's own and
    those of ``--env NAME``."""
    found = {f for env in request.environments if env.found for f in env.files}
    return found | ({request.chart.values} if request.chart.values else set())


OUTSIDE_HINT = "give it with -f or --env NAME=FILE to use it"


def values_paths(request: ChartRequest) -> list[str]:
    paths = [request.chart.values] if request.chart.values else []
    paths += request.common_files
    for env in request.environments:
        paths += env.files
    return list(dict.fromkeys(paths))


def helm_document(parsed: ParsedFile, findings: list[Finding]) -> Document | None:
    """The values Helm reads from ``parsed``; None (and a finding) when it cannot."""
    if any(p.rule_id not in ADVISORY_PROBLEMS for p in parsed.problems):
        return None  # already reported as a syntax finding
    try:
        return values_document(parsed.source, parsed.documents)
    except ValuesError as exc:
        findings.append(values_finding(exc))
        return None


def values_coverage(
    env: Environment,
    files: Sequence[str],
    documents: dict[str, Document | None],
    workloads: Sequence[Workload],
    policies: Sequence[Policy],
) -> Coverage:
    """What the merged values of one release showed; its values files are not understood
    when they name a server and the model found no workload in them."""
    entries = tuple(gaps.entry(w, policies, env.name) for w in workloads)
    if workloads:
        return Coverage((), entries)
    layers = [d for d in documents.values() if d is not None and d.source in files]
    unknown = not_understood([ParsedFile(d.source, "", [d], []) for d in layers], set())
    return Coverage((), entries, tuple(unknown))


def values_workloads(merged: MergedValues, settings: ModelSettings) -> list[Workload]:
    """The serving model's workloads for a release's merged values, with their origins."""
    from linter.model.frontends.values import workloads_from_values

    return workloads_from_values(merged.data, merged.locate, merged.label, settings)


def clash_findings(merged: MergedValues) -> list[Finding]:
    return [
        Finding(
            VALUES_RULE,
            Severity.WARNING,
            clash.message,
            clash.user.source,
            clash.user.line,
            clash.user.column,
            clash.user.key or "",
            clash.user.doc_index,
        )
        for clash in merged.clashes
    ]


def values_finding(exc: ValuesError) -> Finding:
    origin = exc.origin
    message = str(exc)
    prefix = f"{origin.source}:{origin.line}:{origin.column}: "
    message = message.removeprefix(prefix)
    return Finding(
        VALUES_RULE,
        Severity.ERROR,
        message,
        origin.source,
        origin.line,
        origin.column,
        origin.key,
        origin.doc_index,
    )


def release_name(chart: Chart) -> str:
    name = "".join(c if c.isalnum() or c == "-" else "-" for c in chart.name.lower())
    return name.strip("-")[:53] or "release"


def environment_words(env: Environment) -> str:
    return f"environment {env.name}: " if env.name is not None else ""


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """Sorted, duplicates dropped (the first one, with its environments, is kept)."""
    unique: dict[tuple[str, int, int, int, str, str, str], Finding] = {}
    for finding in findings:
        unique.setdefault(finding.sort_key(), finding)
    return [unique[key] for key in sorted(unique)]
