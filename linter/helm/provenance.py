"""Put findings on rendered manifests where the fix goes: the values key, else the template.

``helm template`` output is not a file in the repository, so a finding located in it
cannot be placed by code scanning or fixed by its reader. For each such finding:

1. **The values key that produced the value.** The release is rendered a second time
   with *marked* values: every string, integer and float of the merged values replaced by
   a marker of the same type (``slmk12z``, ``60012``, ``0.600012``; booleans keep their
   value, so no ``if`` changes its branch). The field the finding names is read in the
   marked output; the marker found there names the values key, and the key's origin
   (values file, line, column) is where the finding goes. The match is accepted only when
   putting the original values back into the marked field gives the field of the real
   render, so a template that branches on a value cannot mislead it.
2. **Else the template and the line of the field in it**: the template file helm names in
   its ``# Source:`` comment, at the line where the field's key is written.

Either way the rendered position stays in the message (``rendered
templates/deployment.yaml:42:15``) and in ``extra["rendered"]``, where suppressions
written in the template (comments, ``servelint.io/ignore``) still find it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from linter.findings import RENDERED_KEY, Finding
from linter.helm.render import RENDERED_SUFFIX, render
from linter.helm.values import MergedValues
from linter.lightclass import frozen
from linter.parsing import bounded
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT, parse_path

_INT_BASE = 60000  # small enough for a template's `until` loop, rare in manifests
_MARKER = re.compile(r"slmk(\d+)z|\b(6\d{4})\b|\b0\.60(\d{4})\b")


@frozen
class Release:
    """How one environment was rendered, to render it again with marked values."""

    helm: str
    chart_dir: str
    chart_name: str
    release: str


@frozen
class Marks:
    data: dict[str, Any]
    paths: dict[int, PathT]  # marker number -> values path
    originals: dict[int, Any]


def place_rendered(
    findings: Sequence[Finding], rendered: Sequence[ParsedFile], merged: MergedValues, how: Release
) -> list[Finding]:
    """``findings`` with every finding on a rendered manifest moved to its source."""
    if not any(f.file.endswith(RENDERED_SUFFIX) for f in findings):
        return list(findings)
    marks = mark(merged.data)
    marked = _render_marked(marks, how)
    real = {p.source: p for p in rendered}
    return [
        _place(f, real.get(f.file), marked.get(f.file), marks, merged)
        if f.file.endswith(RENDERED_SUFFIX)
        else f
        for f in findings
    ]


def mark(values: dict[str, Any]) -> Marks:
    """``values`` with every string, integer and float replaced by a numbered marker."""
    paths: dict[int, PathT] = {}
    originals: dict[int, Any] = {}

    def walk(value: Any, path: PathT) -> Any:
        if isinstance(value, dict):
            return {key: walk(item, (*path, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, (*path, index)) for index, item in enumerate(value)]
        if isinstance(value, bool) or value is None:
            return value
        number = len(paths)
        if number >= 10000:  # markers have four digits; leave the rest as they are
            return value
        paths[number], originals[number] = path, value
        if isinstance(value, int):
            return _INT_BASE + number
        if isinstance(value, float):
            return float(f"0.60{number:04d}")
        return f"slmk{number}z"

    return Marks(walk(values, ()), paths, originals)


def _render_marked(marks: Marks, how: Release) -> dict[str, ParsedFile]:
    handle, name = tempfile.mkstemp(prefix="servelint-marked-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(marks.data, stream)
        result = render(how.helm, how.chart_dir, how.chart_name, [name], [], how.release)
    finally:
        os.unlink(name)
    # A chart that validates its values may refuse markers: then every finding falls
    # back to its template line.
    return {} if result.problems else {p.source: p for p in result.files}


def _place(
    finding: Finding,
    real: ParsedFile | None,
    marked: ParsedFile | None,
    marks: Marks,
    merged: MergedValues,
) -> Finding:
    template = finding.file.removesuffix(RENDERED_SUFFIX)
    rendered_at = {
        "file": finding.file,
        "line": finding.line,
        "column": finding.column,
        "doc_index": finding.doc_index,
    }
    extra = {**finding.extra, RENDERED_KEY: rendered_at}
    message = f"{finding.message} (rendered {_short(template)}:{finding.line}:{finding.column})"
    path = parse_path(finding.path) if finding.path else ()
    key = _values_key(finding, path, real, marked, marks)
    # A value written by --set is placed on that argument (``<--set>:N:C``, the N-th
    # --set) as a values key is: the fix goes there, and the values reading of the same
    # problem is found there too (``readings.py``), so the problem is one finding.
    origin = merged.locate(key) if key is not None else None
    if origin is not None:
        return dataclasses.replace(
            finding,
            file=origin.source,
            line=origin.line,
            column=origin.column,
            doc_index=origin.doc_index,
            message=message,
            extra=extra,
        )
    line, column = _template_position(template, path, finding.doc_index)
    if not Path(template).is_file():
        template, line, column = str(Path(template).parent / "Chart.yaml"), 1, 1
    return dataclasses.replace(
        finding, file=template, line=line, column=column, message=message, extra=extra
    )


def _values_key(
    finding: Finding,
    path: PathT,
    real: ParsedFile | None,
    marked: ParsedFile | None,
    marks: Marks,
) -> PathT | None:
    if real is None or marked is None or not path:
        return None
    documents = _same_object(real, marked, finding.doc_index)
    if documents is None:
        return None
    real_value, marked_value = (_lookup(d.data, path) for d in documents)
    if not _scalar(real_value) or not _scalar(marked_value):
        return None
    text = str(marked_value)
    found = [n for n in _markers(text) if n in marks.paths]
    if not found or _unmarked(text, marks) != str(real_value):
        return None
    # Several values in one field ("repository:tag"): the one the message quotes.
    quoted = [n for n in found if str(marks.originals[n]) in finding.message]
    return marks.paths[(quoted or found)[-1]]


def _same_object(
    real: ParsedFile, marked: ParsedFile, index: int
) -> tuple[Document, Document] | None:
    if index >= len(real.documents) or index >= len(marked.documents):
        return None
    first, second = real.documents[index], marked.documents[index]
    kind = (_lookup(first.data, ("kind",)), _lookup(second.data, ("kind",)))
    return (first, second) if kind[0] == kind[1] else None


def _lookup(data: Any, path: PathT) -> Any:
    for part in path:
        if isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
            continue
        if isinstance(data, dict) and part in data:
            data = data[part]
            continue
        return None
    return data


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _markers(text: str) -> Iterator[int]:
    for match in _MARKER.finditer(text):
        if match.group(1) is not None:
            yield int(match.group(1))
        elif match.group(2) is not None:
            yield int(match.group(2)) - _INT_BASE
        else:
            yield int(match.group(3))


def _unmarked(text: str, marks: Marks) -> str:
    def original(match: re.Match[str]) -> str:
        number = next(_markers(match.group(0)))
        value = marks.originals.get(number)
        if value is None:
            return match.group(0)
        return _go_format(value)

    return _MARKER.sub(original, text)


def _go_format(value: Any) -> str:
    """A value as Go's %v (and YAML) print it: 0.9, not 0.90; 8192, not 8192.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _template_position(template: str, path: PathT, doc_index: int) -> tuple[int, int]:
    """The line and column of the deepest key of ``path`` written in the template, searched
    from the ``doc_index``-th YAML document of the file (``---`` separates them)."""
    try:
        # Regular files only: the chart's own template, which could be a FIFO (issue 31).
        lines = bounded.read_text(template, encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1, 1
    starts = [0] + [i + 1 for i, text in enumerate(lines) if text.rstrip() == "---"]
    start = starts[doc_index] if doc_index < len(starts) else 0
    line, column = start + 1, 1
    for key in (part for part in path if isinstance(part, str)):
        quoted = rf"""(?:{re.escape(key)}|"{re.escape(key)}"|'{re.escape(key)}')"""
        pattern = re.compile(rf"^(\s*(?:-\s+)?){quoted}\s*:")
        found = next(
            ((i, m) for i in range(start, len(lines)) if (m := pattern.match(lines[i]))), None
        )
        if found is None:
            break
        index, match = found
        line, column, start = index + 1, len(match.group(1)) + 1, index + 1
    return line, column


def _short(template: str) -> str:
    """``charts/vllm/templates/x.yaml`` → ``templates/x.yaml``, as helm's ``--show-only``."""
    marker = "/templates/"
    position = template.rfind(marker)
    return template[position + 1 :] if position >= 0 else template


def rendered_origin(finding: Finding) -> Mapping[str, Any] | None:
    """Where a placed finding sat in the rendered manifest, if it came from one."""
    value = finding.extra.get(RENDERED_KEY)
    return value if isinstance(value, Mapping) else None
