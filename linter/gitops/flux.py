"""Flux ``HelmRelease`` (``helm.toolkit.fluxcd.io`` v2, v2beta1, v2beta2) as a release.

Read: the chart of ``spec.chart.spec`` (``chart``, ``version``, ``sourceRef``) or of
``spec.chartRef``; ``spec.valuesFrom`` (ConfigMaps and Secrets of this repository, by
``valuesKey``, with ``targetPath``), then ``spec.values`` on top, as the helm-controller
merges them (https://fluxcd.io/flux/components/helm/helmreleases/#values-references);
``spec.postRenderers[].kustomize`` is kept for ``postrender.py``.
A chart in a ``GitRepository`` is looked for in this repository, relative to its root; a
chart from a ``HelmRepository`` or an OCI registry is read with the chart profile of
that chart name (``profiles/``), or by its values' layout when no profile names it.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import os
from collections.abc import Iterator
from typing import Any

from linter.findings import Finding
from linter.gitops import inline, repo
from linter.gitops.model import ChartSource, Layer, WrappedRelease
from linter.model.engine.settings import ModelSettings
from linter.model.frontends.profiles import chart_profile
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT, Span, parse_path

DEFAULT_VALUES_KEY = "values.yaml"


def helm_release(parsed: ParsedFile, document: Document, settings: ModelSettings) -> WrappedRelease:
    data = document.data
    meta = _map(data.get("metadata"))
    spec = _map(data.get("spec"))
    namespace = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    layers: list[Layer] = []
    findings: list[Finding] = []
    notes: list[str] = []
    secrets: set[str] = set()
    reads: list[str] = []
    title = f"HelmRelease {meta.get('name', '?')}"
    for number, entry in enumerate(_list(spec.get("valuesFrom"))):
        where = f"{parsed.source}:{document.span(('spec', 'valuesFrom', number)).line}"
        layer = _values_from(parsed, _map(entry), namespace, number, findings, secrets)
        if isinstance(layer, str):
            notes.append(f"{where}: {title}: {layer}")
        else:
            layers.append(layer)
            if layer.document.source != parsed.source:
                reads.append(layer.document.source)
    if isinstance(spec.get("values"), dict):
        layers.append(
            Layer(f"{parsed.source} spec.values", inline.subdocument(document, ("spec", "values")))
        )
    chart = _chart(parsed, spec, namespace, settings)
    if chart.by_name:
        notes.append(f"{parsed.source}:{document.span(()).line}: {title}: {chart.words}")
    post = [
        inline.subdocument(document, ("spec", "postRenderers", number, "kustomize"))
        for number, entry in enumerate(_list(spec.get("postRenderers")))
        if isinstance(_map(entry).get("kustomize"), dict)
    ]
    return WrappedRelease(
        "HelmRelease",
        str(meta.get("name", "")),
        parsed.source,
        document.span(()).line,
        document.index,
        chart,
        tuple(layers),
        tuple(findings),
        tuple(notes),
        frozenset(secrets),
        tuple(dict.fromkeys(reads)),
        post_renderers=tuple(post),
    )


def _map(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _chart(
    parsed: ParsedFile, spec: dict[str, Any], namespace: str | None, settings: ModelSettings
) -> ChartSource:
    template = _map(_map(spec.get("chart")).get("spec"))
    if template:
        ref = _map(template.get("sourceRef"))
        chart, version = str(template.get("chart", "")), str(template.get("version", ""))
        return resolve_chart(
            parsed, chart, version, str(ref.get("kind", "")), str(ref.get("name", "")), settings
        )
    ref = _map(spec.get("chartRef"))
    if ref:
        return _chart_ref(parsed, ref, namespace, settings)
    return ChartSource("no chart named (spec.chart.spec or spec.chartRef)")


def resolve_chart(
    parsed: ParsedFile, chart: str, version: str, kind: str, source: str, settings: ModelSettings
) -> ChartSource:
    """The chart ``chart`` of the source ``kind``/``source``: a folder of this repository
    for a Git source, else the chart profile that names it."""
    words = f"chart {chart}" + (f" {version}" if version else "") + f" ({kind} {source})"
    if kind == "GitRepository":
        folder = repo.chart_folder(repo.root_of(parsed.source), chart)
        if folder is not None:
            return ChartSource(words, directory=repo.shown(folder), chart=os.path.basename(folder))
        return ChartSource(f"{words}: no Chart.yaml at {chart} in this repository")
    return by_profile(words, chart.rstrip("/").rsplit("/", 1)[-1], version, settings)


def by_profile(words: str, name: str, version: str, settings: ModelSettings) -> ChartSource:
    """The chart ``name`` of a chart repository: the chart profile that names it and whose
    versions hold ``version``."""
    profile, uncovered = chart_profile(name, settings.profile_dirs, version)
    if profile is not None:
        return ChartSource(words, profile=profile.name, chart=name, version=version)
    why = uncovered or "no chart profile names it"
    return ChartSource(f"{words}: {why}", chart=name, version=version, uncovered=uncovered)


def _chart_ref(
    parsed: ParsedFile, ref: dict[str, Any], namespace: str | None, settings: ModelSettings
) -> ChartSource:
    kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
    found = repo.find_object(parsed, kind, name, _namespace(ref, namespace))
    if found is None and kind == "OCIRepository" and chart_profile(name, settings.profile_dirs)[0]:
        # Kept beside the cluster's sources, often in another repository: an
        # OCIRepository is named after the chart it serves (app-template, vllm-stack).
        words = f"chartRef {kind} {name} (not in this repository: taken as chart {name})"
        return dataclasses.replace(by_profile(words, name, "", settings), by_name=True)
    if found is None:
        return ChartSource(f"chartRef {kind} {name}: not found in this repository")
    spec = _map(_map(found.document.data).get("spec"))
    if kind == "OCIRepository":
        url = str(spec.get("url", ""))
        tag = str(_map(spec.get("ref")).get("tag", ""))
        return resolve_chart(parsed, url.rstrip("/").rsplit("/", 1)[-1], tag, kind, name, settings)
    source = _map(spec.get("sourceRef"))
    return resolve_chart(
        parsed,
        str(spec.get("chart", "")),
        str(spec.get("version", "")),
        str(source.get("kind", "")),
        str(source.get("name", "")),
        settings,
    )


def _namespace(ref: dict[str, Any], default: str | None) -> str | None:
    value = ref.get("namespace")
    return value if isinstance(value, str) else default


def _values_from(
    parsed: ParsedFile,
    entry: dict[str, Any],
    namespace: str | None,
    number: int,
    findings: list[Finding],
    secrets: set[str],
) -> Layer | str:
    """The values of one ``valuesFrom`` entry, or why they are not read."""
    kind, name = str(entry.get("kind", "")), str(entry.get("name", ""))
    key = str(entry.get("valuesKey") or DEFAULT_VALUES_KEY)
    if kind not in ("ConfigMap", "Secret"):
        return f"valuesFrom {kind} {name}: only ConfigMaps and Secrets are read"
    found = repo.find_object(parsed, kind, name, namespace)
    if found is None:
        return f"valuesFrom {kind} {name}: not found in this repository; its values are not judged"
    located = _data_value(found.document, key)
    if located is None:
        return f"valuesFrom {kind} {name}: has no key {key}; its values are not judged"
    path, text, exact = located
    # The key is not in the label: the secret scan masks a valuesKey's text in notes.
    label = f"{found.parsed.source} {kind}/{name} (valuesFrom[{number}])"
    target = entry.get("targetPath")
    if isinstance(target, str) and target:
        document = _at_target(found.document, path, target, text)
    else:
        source_text = found.parsed.text if exact else ""
        read, problems = inline.string_document(found.document, source_text, path, text)
        findings.extend(problems)
        if read is None:
            return f"valuesFrom {kind} {name}: {key} is not valid YAML (see its finding)"
        document = read
    if kind == "Secret":
        secrets.update(_scalars(document.data))
        secrets.add(text)
    return Layer(label, document)


def _data_value(document: Document, key: str) -> tuple[PathT, str, bool] | None:
    """The path, text and whether the text is written as-is in the file (``data`` of a
    ConfigMap, ``stringData`` of a Secret) for ``key``; a Secret's ``data`` is base64."""
    data = _map(document.data)
    for field in ("data", "stringData"):
        value = _map(data.get(field)).get(key)
        if isinstance(value, str) and (field == "data") == (data.get("kind") == "ConfigMap"):
            return (field, key), value, True
    value = _map(data.get("data")).get(key)
    if data.get("kind") == "Secret" and isinstance(value, str):
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        return ("data", key), decoded, False
    return None


def _at_target(document: Document, path: PathT, target: str, text: str) -> Document:
    """``targetPath``: the single value at that dotted path (typed as ``--set`` types it)."""
    from linter.helm.strvals import typed_value

    at = document.span(path)
    keys = parse_path(target)
    data: Any = typed_value(text)
    for key in reversed(keys):
        data = {key: data} if isinstance(key, str) else {str(key): data}
    line_map = {tuple(keys[:size]): Span(at.line, at.column) for size in range(len(keys) + 1)}
    return Document(document.source, document.index, data, line_map)


def _scalars(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for value in data.values():
            yield from _scalars(value)
    elif isinstance(data, list):
        for value in data:
            yield from _scalars(value)
    elif data is not None and not isinstance(data, bool):
        yield str(data)
