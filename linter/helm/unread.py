"""Values keys that no template of the chart reads: Helm ignores them without a word.

A values file sets ``probes:`` while the chart reads ``livenessProbe``/``readinessProbe``/
``startupProbe``, or puts ``extraArgs`` one level too high: ``helm install`` succeeds and
the setting never reaches the server. For every key a values file sets, the chart's
templates (``reads.py``) and its ``values.schema.json`` (``schemakeys.py``) are asked;
a key neither reads nor declares is reported at its line, with the nearest key the chart
does read at that level, or where the chart reads a key of that name.

A chart is read once per process, and its reading is kept in the user's cache folder
(``readcache.py``) until one of its files changes: this runs in the pre-commit hook.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.findings import Finding, Severity
from linter.lightclass import frozen, mutable

if TYPE_CHECKING:
    from linter.helm.chartreads import ChartReads
from linter.helm import readcache
from linter.helm.keytree import ANY, KeyTree, any_whole, step_all
from linter.helm.readcache import ChartSummary, Stamp, signature
from linter.helm.schemakeys import declare
from linter.helm.strvals import SET_SOURCE
from linter.helm.unreadmeta import RULE_ID
from linter.parsing.documents import Document
from linter.policy.model import Policy
from linter.positions import PathT, Span, format_path

_CUTOFF = 0.6  # difflib's own default


@mutable
class ChartKeys:
    """What a chart reads and declares (read once, or loaded from the cache)."""

    directory: str
    real: str
    stamp: Stamp
    summary: ChartSummary
    _reads: ChartReads | None = None  # the full reading, for values strings only
    _by_name: dict[str, list[tuple[str, ...]]] | None = None

    def read_at(self, key: str) -> list[tuple[str, ...]]:
        """Paths where the chart reads a key called ``key``, shortest first."""
        if self._by_name is None:
            self._by_name = {}
            for path in self.summary.reads.paths():
                self._by_name.setdefault(path[-1], []).append(path)
        return sorted(self._by_name.get(key, []), key=len)

    def value_template_reads(self, texts: Sequence[str]) -> KeyTree:
        """Reads of values strings the chart renders with ``tpl`` (cached by the strings:
        the cache keeps no parsed templates, so a miss reads the chart again)."""
        if not texts or not self.summary.renders_values:
            return KeyTree()
        key = tuple(sorted(set(texts)))
        stored = readcache.load_value_reads(self.real, self.stamp, key)
        if stored is not None:
            return stored
        if self._reads is None:
            from linter.helm.chartfiles import load_chart_files
            from linter.helm.chartreads import read_chart

            self._reads = read_chart(load_chart_files(self.directory))
        tree = self._reads.read_value_templates(key)
        readcache.store_value_reads(self.real, self.stamp, key, tree)
        return tree


_CACHE: dict[str, tuple[Stamp, ChartKeys]] = {}


def chart_keys(directory: str) -> ChartKeys:
    real = os.path.realpath(directory or ".")
    stamp = signature(real)
    cached = _CACHE.get(real)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    summary = readcache.load(real, stamp)
    keys = (
        ChartKeys(directory, real, stamp, summary)
        if summary is not None
        else _read(directory, real, stamp)
    )
    if summary is None:
        readcache.store(real, stamp, keys.summary)
    _CACHE[real] = (stamp, keys)
    return keys


def _read(directory: str, real: str, stamp: Stamp) -> ChartKeys:
    # Imported here: a run that finds the reading in the cache never parses a template.
    from linter.helm.chartfiles import load_chart_files
    from linter.helm.chartreads import read_chart

    files = load_chart_files(directory)
    reads = read_chart(files)
    declared = KeyTree()
    for chart in files.walk():
        if chart.schema is not None:
            declare(chart.schema, declared, chart.key)
    summary = ChartSummary(
        reads.name,
        reads.tree,
        declared,
        files.schema is not None,
        any(chart.templates for chart in files.walk()),
        reads.reader.renders_values,
        reads.notes,
    )
    return ChartKeys(directory, real, stamp, summary, reads)


@frozen
class UnreadResult:
    findings: list[Finding]
    notes: list[str]


def unread_keys(
    directory: str, checked: Sequence[Document], context: Sequence[Document] = ()
) -> UnreadResult:
    """Findings for the keys of ``checked`` (values files of the chart in ``directory``)
    that the chart never reads; ``context`` are the other values of the release (their
    ``tpl``-rendered strings may read keys too)."""
    keys = chart_keys(directory)
    if not keys.summary.renders:
        return UnreadResult([], [])  # no templates at all: nothing to compare with
    templated = [s for d in [*checked, *context] for s in _strings(d.data) if "{{" in s]
    reads = [keys.summary.reads, keys.value_template_reads(templated)]
    findings: list[Finding] = []
    for document in checked:
        if isinstance(document.data, dict) and not any_whole(reads):
            _walk(document, document.data, (), reads, [keys.summary.declared], keys, findings)
    notes = [f"{directory or '.'}: {note}" for note in keys.summary.notes] if checked else []
    return UnreadResult(findings, notes)


def _walk(
    document: Document,
    mapping: dict[str, Any],
    path: PathT,
    reads: list[KeyTree],
    declared: list[KeyTree],
    keys: ChartKeys,
    out: list[Finding],
) -> None:
    for key, value in mapping.items():
        here = (*path, key)
        found = step_all(reads, key)
        if value is None or any_whole(found):
            continue  # null deletes a default; a map read whole reads its keys
        schema = step_all(declared, key)
        if not found:
            if not schema:
                out.append(_finding(document, here, reads, declared, keys))
            continue
        if any_whole(schema):
            continue
        if isinstance(value, dict):
            _walk(document, value, here, found, schema, keys, out)
        elif isinstance(value, list):
            _items(document, value, here, found, schema, keys, out)


def _items(
    document: Document,
    items: list[Any],
    path: PathT,
    reads: list[KeyTree],
    declared: list[KeyTree],
    keys: ChartKeys,
    out: list[Finding],
) -> None:
    found = step_all(reads, 0)
    if not found or any_whole(found):
        return  # the list is read, but not item by item: its items cannot be judged
    schema = step_all(declared, 0)
    for index, item in enumerate(items):
        if isinstance(item, dict):
            _walk(document, item, (*path, index), found, schema, keys, out)


def _finding(
    document: Document,
    path: PathT,
    reads: list[KeyTree],
    declared: list[KeyTree],
    keys: ChartKeys,
) -> Finding:
    span = document.span(path)
    schema = " and its values.schema.json does not declare it" if keys.summary.has_schema else ""
    message = (
        f"{format_path(path)} is set but no template of chart {keys.summary.name} reads it"
        f"{schema}, so Helm ignores it{_hint(path, reads, declared, keys)}"
    )
    return Finding(
        RULE_ID,
        Severity.WARNING,
        message,
        document.source,
        span.line,
        span.column,
        format_path(path),
        document.index,
    )


def _hint(path: PathT, reads: list[KeyTree], declared: list[KeyTree], keys: ChartKeys) -> str:
    """The key the user probably meant: the nearest the chart reads below the same parent
    (same name, a name containing it, or one that looks like it), else the same name
    where the chart reads it elsewhere under the same top-level key."""
    key = str(path[-1])
    parent = path[:-1]
    best: tuple[float, int, tuple[str, ...]] | None = None
    candidates = [*_below(reads, (), _HINT_DEPTH), *((k,) for n in declared for k in n.names())]
    for relative in candidates:
        score = _likeness(key, relative[-1], sibling=len(relative) == 1)
        if score and (best is None or (score, -len(relative)) > (best[0], best[1])):
            best = (score, -len(relative), relative)
    if best is not None:
        if len(best[2]) == 1:
            return f"; did you mean {best[2][0]}?"
        return f"; the chart reads {best[2][-1]} at {_shown((*parent, *best[2]))}"
    elsewhere = [p for p in keys.read_at(key) if not parent or p[0] == str(parent[0])]
    if elsewhere:
        return f"; the chart reads {key} at {_shown(min(elsewhere, key=len))}"
    return ""


_HINT_DEPTH = 4


def _below(nodes: list[KeyTree], prefix: tuple[str, ...], depth: int) -> Iterator[tuple[str, ...]]:
    for node in nodes:
        for name, child in node.children.items():
            path = (*prefix, name)
            if name != ANY:
                yield path
            if depth > 1:
                yield from _below([child], path, depth - 1)


def _likeness(wanted: str, candidate: str, *, sibling: bool) -> float:
    """3 for the same name, 2+ for a name containing it, difflib's ratio from 0.6 (for a
    sibling only: deeper down, look-alike names are mostly noise)."""
    if candidate == ANY:
        return 0.0
    if candidate == wanted:
        return 3.0
    lowered, other = wanted.lower(), candidate.lower()
    ratio = difflib.SequenceMatcher(None, lowered, other).ratio()
    if lowered == other:
        return 2.9
    stem = lowered.rstrip("s")
    if stem and stem in other:
        return 2.0 + ratio
    return ratio if sibling and ratio >= _CUTOFF else 0.0


def _shown(path: PathT) -> str:
    """``a.b[*].c``: a read path, ``[*]`` for every item or key at that level."""
    text = ""
    for key in path:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            text += "[*]" if key == ANY else (f".{key}" if text else key)
    return text


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def unread_in_release(
    policies: Sequence[Policy],
    directory: str,
    documents: Mapping[str, Document | None],
    linted: Collection[str],
    sets: Sequence[str] = (),
) -> UnreadResult:
    """The check on the values files ``linted`` of the chart in ``directory`` (and the
    ``--set`` arguments); like the other Python checks it runs with the built-in policies
    (not with ``--no-builtin``)."""
    if not any(p.builtin for p in policies):
        return UnreadResult([], [])
    checked = [d for name, d in documents.items() if d is not None and name in linted]
    context = [d for name, d in documents.items() if d is not None and name not in linted]
    given = _set_document(sets)
    return unread_keys(directory, [*checked, *([given] if given else [])], context)


def _set_document(sets: Sequence[str]) -> Document | None:
    """The keys ``--set`` writes, at ``<--set>:N:COL``; None when there are none (or an
    argument Helm would reject, which its own finding reports)."""
    if not sets:
        return None
    from linter.helm.values import ValuesError, merge_values

    try:
        merged = merge_values(None, (), sets, label=SET_SOURCE)
    except ValuesError:
        return None
    spans = {
        path: Span(origin.line, origin.column)
        for path, origin in merged.origins.items()
        if origin.source == SET_SOURCE
    }
    return Document(SET_SOURCE, 0, merged.data, spans)
