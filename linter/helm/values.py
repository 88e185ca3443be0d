"""Merge a chart's values the way Helm does, keeping where every value came from.

``merge_values(chart_values, files, sets)`` is the one entry point (used by ``lint
--chart`` and by drift). It follows Helm 3/4 exactly:

1. the ``-f`` files are deep-merged in order (``pkg/cli/values`` ``mergeMaps``): maps merge
   key by key, anything else (lists, scalars, ``null``) replaces what was there;
2. ``--set`` arguments are applied on top, in order (``pkg/strvals``, see ``strvals.py``);
3. the result is coalesced with the chart's ``values.yaml`` (``chartutil.CoalesceValues``):
   user values win, maps merge, and a user ``null`` deletes the chart's default.

Where a map meets a non-map Helm keeps the user's value and prints a warning; those
clashes are returned as ``MergedValues.clashes`` so the linter can report them.
Subcharts' own ``values.yaml`` files and ``global`` propagation are not merged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from linter.errors import LinterError
from linter.helm.nodes import Node, unwrap, where, wrap_document
from linter.helm.strvals import SET_SOURCE, SetError, apply_set
from linter.lightclass import frozen
from linter.parsing import bounded
from linter.parsing.documents import ADVISORY_PROBLEMS, Document, parse_yaml
from linter.positions import Origin, PathT, Span, format_path, nearest


class ValuesError(LinterError):
    """A values file or ``--set`` argument Helm would reject (message names the place)."""

    def __init__(self, message: str, origin: Origin) -> None:
        super().__init__(message)
        self.origin = origin


@frozen
class Clash:
    """A user value that replaced a map with a non-map, or the reverse (Helm warns)."""

    path: PathT
    user: Origin
    chart: Origin
    message: str


@frozen
class MergedValues:
    """The values a release gets, and where each of them was written.

    ``data`` is plain JSON-compatible data; ``origins`` maps every path in it to the
    file (or ``<--set>`` argument), line and column that set it.
    """

    label: str
    data: dict[str, Any]
    origins: Mapping[PathT, Origin]
    anchor: Origin
    clashes: tuple[Clash, ...] = ()

    def locate(self, path: PathT) -> Origin:
        """Origin of ``path`` or of its nearest ancestor; the first values file otherwise."""
        return nearest(self.origins, path, self.anchor, shortest=1)


def load_values(path: str | Path, name: str | None = None) -> Document:
    """Read and parse one values file; ``ValuesError`` when Helm could not use it."""
    source = name if name is not None else str(path)
    start = Origin(source, 1, 1)
    try:
        text = bounded.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ValuesError(f"{source}: cannot read values file: {exc}", start) from exc
    parsed = parse_yaml(source, text.replace("\r\n", "\n"))
    syntax = [p for p in parsed.problems if p.rule_id not in ADVISORY_PROBLEMS]
    if syntax:
        problem = syntax[0]
        raise ValuesError(
            f"{source}:{problem.line}:{problem.column}: {problem.message}",
            Origin(source, problem.line, problem.column),
        )
    return values_document(source, parsed.documents)


def values_document(source: str, documents: Sequence[Document]) -> Document:
    """The document Helm reads from a values file: the first one, which must be a map."""
    if not documents:
        return Document(source, 0, {}, {(): Span(1, 1)})
    first = documents[0]
    if not isinstance(first.data, dict):
        span = first.span(())
        kind = "a list" if isinstance(first.data, list) else "a single value"
        raise ValuesError(
            f"{source}:{span.line}:{span.column}: a values file must be a map "
            f"of keys to values, not {kind}",
            Origin(source, span.line, span.column, first.index),
        )
    return first


def merge_values(
    chart_values: Document | None,
    files: Sequence[Document] = (),
    sets: Sequence[str] = (),
    *,
    label: str = "values",
) -> MergedValues:
    """Merge chart defaults, ``-f`` files (in order) and ``--set`` arguments as Helm does.

    ``chart_values`` is the chart's own ``values.yaml`` (None when it has none); each
    document's ``data`` must be a map (``values_document`` checks this). A ``--set``
    argument Helm would reject raises ``ValuesError`` pointing at ``<--set>``.
    """
    user = Node({}, Origin("<values>", 1, 1))
    for document in files:
        _merge_maps(user, wrap_document(_checked(document)))
    for number, argument in enumerate(sets, start=1):
        try:
            apply_set(user.value, argument, number)
        except SetError as exc:
            raise ValuesError(str(exc), Origin("<--set>", number, exc.column)) from exc
    clashes: list[Clash] = []
    if chart_values is not None:
        _coalesce_top(user.value, wrap_document(_checked(chart_values)).value, clashes)
    anchor = _anchor(chart_values, files)
    user.origin = anchor
    data, origins = unwrap(user)
    return MergedValues(label, data, origins, anchor, tuple(clashes))


def _checked(document: Document) -> Document:
    if not isinstance(document.data, dict):
        return values_document(document.source, [document])
    return document


def _anchor(chart_values: Document | None, files: Sequence[Document]) -> Origin:
    first = chart_values if chart_values is not None else (files[0] if files else None)
    return Origin(first.source if first is not None else "<values>", 1, 1)


def _merge_maps(dst: Node, src: Node) -> None:
    """Helm's ``mergeMaps``: later files win; only map-into-map merges."""
    for key, node in src.value.items():
        current = dst.value.get(key)
        if node.is_map and current is not None and current.is_map:
            _merge_maps(current, node)
            current.origin = node.origin
        else:
            dst.value[key] = node


def _coalesce_top(user: dict[str, Node], chart: dict[str, Node], clashes: list[Clash]) -> None:
    """Helm's ``coalesceValues`` for the top-level chart."""
    for key, default in chart.items():
        value = user.get(key)
        if value is None:
            user[key] = default
        elif value.value is None:
            del user[key]  # a user null deletes the chart's default
        elif value.is_map and default.is_map:
            _keep_written_origin(value, default)
            _coalesce_tables(value.value, default.value, (key,), clashes)
        else:
            _note_clash(value, default, (key,), clashes)


def _coalesce_tables(
    user: dict[str, Node], chart: dict[str, Node], path: PathT, clashes: list[Clash]
) -> None:
    """Helm's ``coalesceTablesFullKey`` (coalescing, not merging)."""
    for key, default in chart.items():
        value = user.get(key)
        if value is None:
            user[key] = default
        elif value.value is None:
            if default.value is not None:
                del user[key]
        elif value.is_map and default.is_map:
            _keep_written_origin(value, default)
            _coalesce_tables(value.value, default.value, (*path, key), clashes)
        else:
            _note_clash(value, default, (*path, key), clashes)


def _keep_written_origin(value: Node, default: Node) -> None:
    # `--set a.b=1` writes a.b, not the map a: a finding on a points at the chart's line.
    if value.origin.source == SET_SOURCE:
        value.origin = default.origin


def _note_clash(value: Node, default: Node, path: PathT, clashes: list[Clash]) -> None:
    if value.is_map == default.is_map or default.value is None:
        return
    name = format_path(path)
    message = (
        f"{name} is {value.kind()} here but {default.kind()} in the chart's values "
        f"({where(default.origin)}); Helm keeps this value and warns"
    )
    clashes.append(Clash(path, value.origin, default.origin, message))
