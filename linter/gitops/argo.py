"""Argo CD ``Application`` (``argoproj.io/v1alpha1``) as a release of its chart.

Each source of ``spec.source`` or ``spec.sources[]`` that is a chart is one release: the
chart at ``path`` in this repository, or a repository chart (``chart``) read with its
profile. Its values, lowest first, are the chart's ``values.yaml``, ``helm.valueFiles``
(relative to the chart; ``$ref/...`` in the source whose ``ref`` is ``ref``, taken to be
this repository), then ``helm.valuesObject`` or, without it, the ``helm.values`` string,
then ``helm.parameters`` (``--set``, ``--set-string`` with ``forceString``): Argo CD's
order, "parameters > valuesObject > values > valueFiles > helm repository values.yaml"
(https://argo-cd.readthedocs.io/en/stable/user-guide/helm/). Argo CD hands ``valuesObject``
to Helm instead of ``values`` when both are set (``ApplicationSourceHelm.ValuesYAML``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from linter.findings import Finding, Severity
from linter.gitops import inline, repo
from linter.gitops.flux import resolve_chart
from linter.gitops.model import ChartSource, Layer, WrappedRelease
from linter.helm.nodes import Node, unwrap
from linter.helm.strvals import SET_SOURCE, SetError, apply_set
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import Document, ParsedFile
from linter.positions import Origin, PathT, Span, parse_path

VALUES_RULE = "helm-values"


def applications(
    parsed: ParsedFile, document: Document, settings: ModelSettings, kind: str = "Application"
) -> list[WrappedRelease]:
    """One release per chart source of the Application in ``document``."""
    data = document.data
    spec = _map(data.get("spec"))
    name = str(_map(data.get("metadata")).get("name", ""))
    sources: list[tuple[PathT, dict[str, Any]]]
    if isinstance(spec.get("sources"), list):
        sources = [(("spec", "sources", i), _map(s)) for i, s in enumerate(spec["sources"])]
    else:
        sources = [(("spec", "source"), _map(spec.get("source")))]
    refs = {str(s["ref"]): s for _, s in sources if isinstance(s.get("ref"), str)}
    # A ref-only source, plain manifests or Kustomize: not a chart release. A path with
    # a Chart.yaml and no helm section is one all the same (Argo CD detects Helm by it).
    charts = [(p, s) for p, s in sources if _is_chart_source(parsed, s)]
    out = []
    for path, source in charts:
        label = name if len(charts) == 1 else f"{name}[{path[-1]}]"
        out.append(_release(parsed, document, settings, kind, label, path, source, refs))
    return out


def _is_chart_source(parsed: ParsedFile, source: dict[str, Any]) -> bool:
    if source.get("chart") or isinstance(source.get("helm"), dict):
        return True
    path = source.get("path")
    return (
        isinstance(path, str) and repo.chart_folder(repo.root_of(parsed.source), path) is not None
    )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _release(
    parsed: ParsedFile,
    document: Document,
    settings: ModelSettings,
    kind: str,
    name: str,
    path: PathT,
    source: dict[str, Any],
    refs: dict[str, dict[str, Any]],
) -> WrappedRelease:
    helm = _map(source.get("helm"))
    chart = _chart(parsed, source, settings)
    notes: list[str] = []
    findings: list[Finding] = []
    layers: list[Layer] = []
    reads: list[str] = []
    title = f"{kind} {name}"
    for number, entry in enumerate(helm.get("valueFiles") or []):
        at = f"{parsed.source}:{document.span((*path, 'helm', 'valueFiles', number)).line}"
        layer = _value_file(parsed, str(entry), chart, refs, findings)
        if isinstance(layer, str):
            if not helm.get("ignoreMissingValueFiles"):
                notes.append(f"{at}: {title}: {layer}")
        else:
            layers.append(layer)
            reads.append(layer.document.source)
    if isinstance(helm.get("valuesObject"), dict):
        where = (*path, "helm", "valuesObject")
        layers.append(
            Layer(f"{parsed.source} helm.valuesObject", inline.subdocument(document, where))
        )
    elif isinstance(helm.get("values"), str):
        values, problems = inline.string_document(
            document, parsed.text, (*path, "helm", "values"), helm["values"]
        )
        findings.extend(problems)
        if values is not None:
            layers.append(Layer(f"{parsed.source} helm.values", values))
    parameters = _parameters(document, path, helm, findings)
    if parameters is not None:
        layers.append(Layer(f"{parsed.source} helm.parameters", parameters))
    return WrappedRelease(
        kind,
        name,
        parsed.source,
        document.span(path).line,
        document.index,
        chart,
        tuple(layers),
        tuple(findings),
        tuple(notes),
        reads=tuple(dict.fromkeys(reads)),
        release_name=str(helm.get("releaseName", "")),
    )


def _chart(parsed: ParsedFile, source: dict[str, Any], settings: ModelSettings) -> ChartSource:
    version = str(source.get("targetRevision", ""))
    if source.get("chart"):
        repo_url = str(source.get("repoURL", ""))
        return resolve_chart(
            parsed, str(source["chart"]), version, "chart repository", repo_url, settings
        )
    path = str(source.get("path", ""))
    folder = repo.chart_folder(repo.root_of(parsed.source), path)
    words = f"path {path} ({source.get('repoURL', '')})"
    if folder is None:
        return ChartSource(f"{words}: no Chart.yaml at {path} in this repository")
    return ChartSource(words, directory=repo.shown(folder), chart=os.path.basename(folder))


def _value_file(
    parsed: ParsedFile,
    entry: str,
    chart: ChartSource,
    refs: dict[str, dict[str, Any]],
    findings: list[Finding],
) -> Layer | str:
    from linter.helm.chart import values_finding
    from linter.helm.values import ValuesError, load_values

    if entry.startswith("$"):
        ref, _, rest = entry[1:].partition("/")
        if ref not in refs:
            return f"valueFiles {entry}: no source has ref {ref}"
        target = repo.root_of(parsed.source) / rest
    elif chart.directory is not None:
        target = Path(chart.directory) / entry
    else:
        return f"valueFiles {entry}: the chart is not in this repository, nor is the file"
    shown = repo.shown(target)
    if not target.is_file():
        return f"valueFiles {entry}: {shown} is not in this repository; its values are not judged"
    try:
        return Layer(shown, load_values(shown))
    except ValuesError as exc:
        findings.append(values_finding(exc))
        return f"valueFiles {entry}: {shown} could not be read as a values file (see its finding)"


def _parameters(
    document: Document, path: PathT, helm: dict[str, Any], findings: list[Finding]
) -> Document | None:
    """``helm.parameters`` as ``--set`` (``--set-string`` with ``forceString``) writes
    them, each value at the line of its parameter."""
    entries = helm.get("parameters")
    if not isinstance(entries, list) or not entries:
        return None
    root = Node({}, Origin(document.source, 1, 1))
    spans: dict[int, Span] = {}
    for number, raw in enumerate(entries, start=1):
        entry = _map(raw)
        at = document.span((*path, "helm", "parameters", number - 1, "value"))
        spans[number] = at
        name, value = str(entry.get("name", "")), entry.get("value", "")
        text = (
            value
            if isinstance(value, str)
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )
        try:
            apply_set(root.value, f"{name}={text}", number)
        except SetError as exc:
            message = f"parameter {name}: {exc.args[0]}"
            findings.append(
                Finding(VALUES_RULE, Severity.ERROR, message, document.source, at.line, at.column)
            )
            continue
        if entry.get("forceString"):
            _force_string(root, name, text)
    data, origins = unwrap(root)
    start = document.span((*path, "helm", "parameters"))
    line_map = {
        p: spans.get(o.line, start) if o.source == SET_SOURCE else start for p, o in origins.items()
    }
    line_map[()] = start
    return Document(document.source, document.index, data, line_map)


def _force_string(root: Node, name: str, text: str) -> None:
    """``--set-string``: the value stays the string it was written as."""
    node: Node | None = root
    for key in parse_path(name):
        holder = node.value if node is not None else None
        if isinstance(holder, dict) and isinstance(key, str):
            node = holder.get(key)
        elif isinstance(holder, list) and isinstance(key, int) and key < len(holder):
            node = holder[key]
        else:
            return
    if node is not None and not node.is_map and not node.is_list:
        node.value = text
