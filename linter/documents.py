"""Parse inputs into plain data plus a line map, in one pass over PyYAML's events.

The lint hot path parses YAML with libyaml (``CSafeLoader``) and builds JSON-compatible
data itself, so that every value knows its line and column without a second parse.
ruamel.yaml is deliberately not used here: it is ~30x slower.

Inputs may be hostile (issue 9): every cost is bounded by ``Limits`` before it is paid,
and a limit that is hit becomes an ``input-limit`` finding, never a hang or a crash.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any, NamedTuple

import yaml

from linter.findings import Finding, Severity
from linter.positions import PathT, Span, format_path

try:  # pragma: no branch - libyaml is present in every PyYAML wheel we support
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python fallback only when libyaml is missing
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = _TAG + "merge"
_LIBYAML_MAX_DEPTH = 1000  # libyaml's own nesting limit (yaml_parser_increase_*_level)
_MAX_TEXT_FINDINGS = 20  # per file and kind: enough to act on, bounded on hostile input


@dataclasses.dataclass(frozen=True)
class Limits:
    """Bounds that keep a hostile input from exhausting time or memory."""

    max_bytes: int = 50 * 1024 * 1024
    max_nodes: int = 500_000
    max_depth: int = 200


DEFAULT_LIMITS = Limits()


@dataclasses.dataclass(frozen=True)
class Document:
    """One parsed document: plain data and where each path sits in its file."""

    source: str
    index: int
    data: Any
    line_map: dict[PathT, Span]
    fmt: str = "yaml"

    def span(self, path: PathT) -> Span:
        """Span of ``path`` or of its closest ancestor; the document start otherwise."""
        for end in range(len(path), -1, -1):
            found = self.line_map.get(path[:end])
            if found is not None:
                return found
        return Span(1, 1)


@dataclasses.dataclass
class ParsedFile:
    """Everything read from one input: its text, documents and parse problems."""

    source: str
    text: str
    documents: list[Document]
    problems: list[Finding]


class _LimitExceeded(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.span = span


class _Anchor(NamedTuple):
    """A finished anchored node: what an alias to it expands to, and what that costs."""

    data: Any
    size: int  # nodes it expands to (keys included), so an alias is charged in O(1)
    height: int  # levels below it
    spans: tuple[tuple[PathT, Span], ...]  # its line map, relative to the anchored node


class _Frame:
    """An open mapping or sequence while its events stream past."""

    __slots__ = (
        "anchor",
        "container",
        "depth",
        "height",
        "key",
        "key_span",
        "merge_into",
        "merged",
        "nodes_at_start",
        "order_at_start",
        "path",
        "record",
        "seen",
        "span",
    )

    def __init__(self, container: dict[str, Any] | list[Any], path: PathT, depth: int,
                 span: Span, record: bool) -> None:
        self.container = container
        self.path = path
        self.depth = depth
        self.span = span
        self.record = record  # false inside a complex key: it has no path of its own
        self.height = 0
        self.key: str | None = None  # a mapping's pending key (None: a key comes next)
        self.key_span = span
        self.seen: dict[str, Span] = {}
        self.merged: dict[str, Any] = {}
        self.merge_into: _Frame | None = None  # set on the value of a '<<' merge key
        self.anchor: str | None = None
        self.nodes_at_start = 0
        self.order_at_start = 0


_new_span = tuple.__new__  # Span(line, column) without NamedTuple's Python-level __new__
_NOT_CACHED = object()
_PLAIN_CACHE_SIZE = 10_000
_MERGE = object()  # the pending "key" of a mapping whose '<<' value is being read


class _Builder:
    """Builds plain data and a line map straight from the parser's events.

    Working on events rather than a composed node graph keeps every cost bounded before
    it is paid: the node limit stops a huge document after ``max_nodes`` events (the
    composer would first build the whole graph), an alias is charged the size of its
    anchor without being expanded, and no recursion is involved at any depth.
    """

    _constructor = yaml.constructor.SafeConstructor()

    def __init__(self, source: str, limits: Limits, loader: Any, track_anchors: bool) -> None:
        self.source = source
        self.limits = limits
        self.loader = loader
        self.track_anchors = track_anchors
        self.nodes = 0
        self.problems: list[Finding] = []
        self.doc_index = 0
        self.line_map: dict[PathT, Span] = {}
        # Paths in the order they entered the line map, kept only when the text has
        # anchors: an anchored node's own entries are then a slice of it.
        self.order: list[PathT] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: set[str] = set()
        self.plain_values: dict[str, Any] = {}

    # -- documents ---------------------------------------------------------------------

    def documents(self) -> Iterator[tuple[int, Any, dict[PathT, Span]]]:
        """Yield (index, data, line map) for each document; problems go to ``problems``."""
        loader = self.loader
        index = -1
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, yaml.DocumentStartEvent):
                index += 1
                self.doc_index = index
                self.line_map = {}
                self.order = []
                self.anchors = {}
                self.open_anchors = set()
                yield index, self._document(), self.line_map

    def _document(self) -> Any:
        loader = self.loader
        stack: list[_Frame] = []
        root: list[Any] = []
        while True:
            event = loader.get_event()
            kind = type(event)
            if kind is yaml.DocumentEndEvent:
                return root[0] if root else None
            if kind is yaml.ScalarEvent:
                self._scalar(event, stack, root)
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                stack.append(self._open(event, stack, kind is yaml.MappingStartEvent))
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                self._close(stack.pop(), stack, root)
            elif kind is yaml.AliasEvent:
                self._alias(event, stack, root)

    # -- nodes -------------------------------------------------------------------------

    def _count(self, count: int, span: Span) -> None:
        self.nodes += count
        if self.nodes > self.limits.max_nodes:
            raise _LimitExceeded(
                f"more than {self.limits.max_nodes} nodes (alias expansion or a very large "
                "document); raise --max-nodes (limits.maxNodes) if this input is genuine",
                span)

    def _depth_error(self, span: Span) -> _LimitExceeded:
        return _LimitExceeded(f"nesting deeper than {self.limits.max_depth} levels", span)

    def _place(self, stack: list[_Frame], span: Span) -> tuple[PathT, int, bool]:
        """Path, depth and whether to record a node that starts now under ``stack[-1]``."""
        if not stack:
            return (), 0, True
        parent = stack[-1]
        depth = parent.depth + 1
        if isinstance(parent.container, list):
            if parent.merge_into is not None:  # an entry of a '<<' list merges in place
                return parent.path, depth, parent.record
            return (*parent.path, len(parent.container)), depth, parent.record
        if parent.key is None:  # this node is a key: a complex one, it has no path
            return parent.path, depth, False
        if parent.key is _MERGE:
            return parent.path, depth, parent.record
        return (*parent.path, parent.key), depth, parent.record

    def _record(self, path: PathT, span: Span) -> None:
        if path not in self.line_map:
            self.line_map[path] = span
            if self.track_anchors:
                self.order.append(path)

    def _scalar(self, event: Any, stack: list[_Frame], root: list[Any]) -> None:
        # The hot path of every parse: kept flat on purpose (no helper calls for the
        # common cases of a key, a mapping value or a list item).
        mark = event.start_mark
        span = _new_span(Span, (mark.line + 1, mark.column + 1))
        self.nodes += 1
        if self.nodes > self.limits.max_nodes:
            self._count(0, span)
        if stack:
            parent = stack[-1]
            key = parent.key
            container = parent.container
            if container.__class__ is dict:
                if key is None:
                    text = event.value
                    merge = text == "<<" and event.tag is None and event.implicit[0]
                    self._key(parent, text, merge, span)
                    return
                if key is not _MERGE and event.anchor is None:
                    if parent.depth >= self.limits.max_depth:
                        raise self._depth_error(span)
                    value = self._value(event)
                    if parent.record:
                        path = (*parent.path, key)
                        if path not in self.line_map:
                            self.line_map[path] = span
                            if self.track_anchors:
                                self.order.append(path)
                    container[key] = value
                    parent.key = None
                    return
        value = self._value(event)
        path, depth, record = self._place(stack, span)
        if depth > self.limits.max_depth:
            raise self._depth_error(span)
        if record and path not in self.line_map:
            self.line_map[path] = span
            if self.track_anchors:
                self.order.append(path)
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(value, 1, 0, (((), span),))
        self._attach(value, stack, root)

    def _value(self, event: Any) -> Any:
        tag = event.tag
        text = event.value
        if tag is None or tag == "!":
            if not event.implicit[0]:
                return text  # quoted: always a string
            cached = self.plain_values.get(text, _NOT_CACHED)
            if cached is not _NOT_CACHED:
                return cached
            tag = self.loader.resolve(yaml.ScalarNode, text, event.implicit)
            value = _scalar_value(self._constructor, tag, text)
            if len(self.plain_values) < _PLAIN_CACHE_SIZE:
                self.plain_values[text] = value  # scalars are immutable: safe to share
            return value
        return _scalar_value(self._constructor, tag, text)

    def _open(self, event: Any, stack: list[_Frame], mapping: bool) -> _Frame:
        span = Span(event.start_mark.line + 1, event.start_mark.column + 1)
        self._count(1, span)
        path, depth, record = self._place(stack, span)
        if depth > self.limits.max_depth:
            raise self._depth_error(span)
        if record:
            self._record(path, span)
        frame = _Frame({} if mapping else [], path, depth, span, record)
        if stack:
            parent = stack[-1]
            if isinstance(parent.container, dict) and parent.key is _MERGE:
                frame.merge_into = parent
            elif isinstance(parent.container, list) and parent.merge_into is not None:
                frame.merge_into = parent.merge_into
        if event.anchor is not None:
            frame.anchor = event.anchor
            frame.nodes_at_start = self.nodes
            frame.order_at_start = len(self.order)
            self.open_anchors.add(event.anchor)
        return frame

    def _close(self, frame: _Frame, stack: list[_Frame], root: list[Any]) -> None:
        container = frame.container
        if isinstance(container, dict) and frame.merged:
            container = {**{k: v for k, v in frame.merged.items() if k not in container},
                         **container}
        if stack:
            stack[-1].height = max(stack[-1].height, frame.height + 1)
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
            spans: tuple[tuple[PathT, Span], ...] = (((), frame.span),)
            if frame.record:
                size = len(frame.path)
                spans += tuple((p[size:], self.line_map[p])
                               for p in self.order[frame.order_at_start:]
                               if len(p) > size and p[:size] == frame.path)
            self.anchors[frame.anchor] = _Anchor(
                container, self.nodes - frame.nodes_at_start + 1, frame.height, spans)
        self._attach(container, stack, root)

    def _alias(self, event: Any, stack: list[_Frame], root: list[Any]) -> None:
        span = Span(event.start_mark.line + 1, event.start_mark.column + 1)
        name = event.anchor
        anchor = self.anchors.get(name)
        if anchor is None:
            problem = "recursive alias" if name in self.open_anchors else "undefined alias"
            raise yaml.composer.ComposerError(
                None, None, f"found {problem} '{name}'", event.start_mark)
        # Charged before anything is copied: a "billion laughs" stops here at once.
        self._count(anchor.size, span)
        if stack and isinstance(stack[-1].container, dict) and stack[-1].key is None:
            key = yaml.dump(anchor.data, default_flow_style=True).strip()
            self._key(stack[-1], key, False, span)
            return
        path, depth, record = self._place(stack, span)
        if depth + anchor.height > self.limits.max_depth:
            raise self._depth_error(span)
        if record:
            for relative, where in anchor.spans:
                self._record((*path, *relative), where)
            self._record(path, span)
        if stack:
            stack[-1].height = max(stack[-1].height, anchor.height + 1)
        self._attach(_copy(anchor.data), stack, root)

    def _key(self, frame: _Frame, key: str, merge: bool, span: Span) -> None:
        if merge:
            frame.key = _MERGE  # type: ignore[assignment]
            return
        seen = frame.seen
        if frame.record and key in seen:
            self._problem(
                "duplicate-key", Severity.ERROR,
                f"duplicate key '{_short(key)}' (first at line {seen[key].line}); Helm and "
                "Kubernetes silently keep the last value", span, (*frame.path, key))
        seen[key] = span
        frame.key = key
        frame.key_span = span
        if frame.record:
            child = (*frame.path, key)
            if child not in self.line_map and self.track_anchors:
                self.order.append(child)
            self.line_map[child] = span  # an explicit key wins over a merged one

    def _attach(self, value: Any, stack: list[_Frame], root: list[Any]) -> None:
        if not stack:
            root.append(value)
            return
        parent = stack[-1]
        container = parent.container
        if isinstance(container, list):
            if parent.merge_into is not None:
                # Earlier entries of a merge list win (YAML merge-key spec).
                if isinstance(value, dict):
                    parent.merge_into.merged = {**value, **parent.merge_into.merged}
                return
            container.append(value)
            return
        key = parent.key
        parent.key = None
        if key is None:  # a complex key (a mapping or list used as a key) just closed
            parent.key = yaml.dump(value, default_flow_style=True).strip()
            self._key(parent, parent.key, False, parent.span)
            return
        if key is _MERGE:
            if isinstance(value, dict):
                parent.merged = {**parent.merged, **value}
            elif isinstance(value, list):
                pass  # a list of aliases was merged entry by entry as it was read
            return
        container[key] = value

    def _problem(self, rule: str, severity: Severity, message: str, span: Span, path: PathT
                 ) -> None:
        self.problems.append(
            Finding(rule, severity, message, self.source, span.line, span.column,
                    format_path(path), self.doc_index)
        )


def _scalar_value(constructor: Any, tag: str, value: str) -> Any:
    if not tag.startswith(_TAG):
        return value  # custom tags (!Ref, !!python/...) are kept as plain text, never run
    kind = tag[len(_TAG):]
    if kind == "null":
        return None
    if kind not in ("int", "float", "bool"):
        return value
    node = yaml.ScalarNode(tag, value)
    try:
        if kind == "int":
            return constructor.construct_yaml_int(node)
        if kind == "float":
            return constructor.construct_yaml_float(node)
        return constructor.construct_yaml_bool(node)
    except (ValueError, yaml.constructor.ConstructorError):
        return value


def _copy(value: Any) -> Any:
    """A fresh copy of aliased data, so that no two paths share one mutable object."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def syntax_finding(source: str, message: str, line: int, column: int, doc_index: int = 0
                   ) -> Finding:
    return Finding("syntax", Severity.ERROR, message, source, max(line, 1), max(column, 1),
                   "", doc_index)


def _limit_finding(source: str, message: str, line: int, column: int, doc_index: int = 0
                   ) -> Finding:
    return Finding("input-limit", Severity.ERROR, message, source, max(line, 1),
                   max(column, 1), "", doc_index)


def parse_yaml(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """Parse a (multi-document) YAML stream; problems become findings."""
    return _parse(source, text, limits, scan_text=True)


def _parse(source: str, text: str, limits: Limits, *, scan_text: bool) -> ParsedFile:
    parsed = ParsedFile(source, text, [], [])
    loader = _Loader(text)
    # Anchors are rare; only a text that could hold one pays for tracking them.
    builder = _Builder(source, limits, loader, "&" in text)
    try:
        for index, data, line_map in builder.documents():
            if data is not None:  # None: an empty document ("---" with nothing after it)
                parsed.documents.append(Document(source, index, data, line_map))
    except yaml.MarkedYAMLError as exc:
        parsed.problems.append(_yaml_error(source, text, exc, builder.doc_index, limits))
    except yaml.YAMLError as exc:
        parsed.problems.append(syntax_finding(source, f"invalid YAML: {exc}", 1, 1))
    except _LimitExceeded as exc:
        parsed.problems.append(_limit_finding(source, str(exc), exc.span.line, exc.span.column,
                                              builder.doc_index))
    except RecursionError:
        # Only reachable with a depth limit raised far above the default (copying or
        # dumping very deep aliased data); the parse itself never recurses.
        parsed.problems.append(_limit_finding(
            source, f"nesting too deep to process (limit {limits.max_depth} levels)", 1, 1))
    finally:
        loader.dispose()
    parsed.problems.extend(builder.problems)
    if scan_text:
        _explain_text_problems(parsed)
    return parsed


def _yaml_error(source: str, text: str, exc: yaml.MarkedYAMLError, doc_index: int,
                limits: Limits) -> Finding:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    last = text.count("\n") + 1  # the empty line after a final newline is a position too
    if line > last:  # libyaml can put "end of stream" past a file without a final newline
        line, col = last, len(_line(text, last)) + 1
    problem = exc.problem or str(exc)
    if "maximum nesting depth" in problem:
        # libyaml stops at 1000 levels on its own, and its scanner can look that far ahead
        # of the events that our depth check sees.
        most = min(limits.max_depth, _LIBYAML_MAX_DEPTH)
        return _limit_finding(source, f"nesting deeper than {most} levels", line, col,
                              doc_index)
    tab = _tab_in_indentation(text, line)
    if tab:
        return syntax_finding(source, "invalid YAML: tab character in indentation; YAML "
                              "indents with spaces only", line, tab, doc_index)
    context = f" {exc.context}" if exc.context else ""
    started = exc.context_mark
    if started is not None and mark is not None and started.line != mark.line:
        context += f" started at line {started.line + 1}, column {started.column + 1}"
    return syntax_finding(source, f"invalid YAML: {problem}{context}", line, col, doc_index)


def _line(text: str, number: int) -> str:
    """Line ``number`` (1-based) of ``text``, found without splitting the whole text."""
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _tab_in_indentation(text: str, line: int) -> int:
    """1-based column of a tab in the indentation of ``line`` (or the line before), or 0."""
    for number in (line, line - 1):
        if number < 1:
            continue
        content = _line(text, number)
        indent = content[: len(content) - len(content.lstrip(" \t"))]
        if "\t" in indent:
            return indent.index("\t") + 1
    return 0


# Helm template actions where YAML would read them as data: a whole line (``{{- if }}``)
# or an unquoted value (``tag: {{ .Values.tag }}``). A quoted "{{ ... }}" is plain text
# that charts often pass through ``tpl``, and is left alone.
_TEMPLATE = re.compile(r"^[ \t]*(?:-[ \t]+)*(?:[^\s#'\"{][^#\n]*?:[ \t]+)?(\{\{)", re.M)
_CONFLICT = re.compile(r"^(?:<{7}|>{7}|\|{7})(?:[ \t].*)?$|^={7}$", re.M)


def _explain_text_problems(parsed: ParsedFile) -> None:
    """Name two common causes of broken YAML: Helm templates and git conflict markers.

    Either one is the real problem whenever it is present, so the generic parser error
    that it causes is replaced by the specific finding.
    """
    text = parsed.text
    found: list[Finding] = []
    if "{{" in text:
        found.extend(_template_findings(parsed.source, text))
    if "<<<<<<<" in text or ">>>>>>>" in text:
        found.extend(_conflict_findings(parsed.source, text))
    if found:
        parsed.problems[:] = [p for p in parsed.problems if p.rule_id != "syntax"] + found


def _template_findings(source: str, text: str) -> list[Finding]:
    in_chart = "templates" in PurePath(source).parts[:-1]
    message = (
        "Helm template syntax in a chart template: lint the rendered output "
        "(helm template CHART | servelint lint -) or the chart's values files"
        if in_chart else
        "Helm template syntax in a values file: values files are not templates; quote the "
        "text if it is meant literally (for tpl)"
    )
    findings: list[Finding] = []
    for match in _TEMPLATE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1) + 1
        findings.append(syntax_finding(source, message, line, column))
        if len(findings) >= _MAX_TEXT_FINDINGS:
            break
    return findings


def _conflict_findings(source: str, text: str) -> list[Finding]:
    markers = [(text.count("\n", 0, m.start()) + 1, m.group(0)[:7])
               for m in itertools.islice(_CONFLICT.finditer(text), 3 * _MAX_TEXT_FINDINGS)]
    if not any(marker[0] in "<>" for _, marker in markers):
        return []  # a lone "=======" is a Markdown underline in a block scalar, not a conflict
    findings: list[Finding] = []
    group: list[tuple[int, str]] = []
    for line, marker in markers:
        if marker.startswith("<") and group:
            findings.append(_conflict(source, group))
            group = []
        group.append((line, marker))
        if marker.startswith(">"):
            findings.append(_conflict(source, group))
            group = []
    if group:
        findings.append(_conflict(source, group))
    return findings


def _conflict(source: str, group: list[tuple[int, str]]) -> Finding:
    where = ", ".join(f"'{marker}' at line {line}" for line, marker in group)
    return syntax_finding(source, f"unresolved git merge conflict: {where}; resolve the "
                          "conflict and remove the markers", group[0][0], 1)


def parse_json(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """JSON goes through the YAML parser for positions; strict JSON decides validity.

    The bounded YAML pass runs first, so that the strict pass (recursive, and without a
    node limit) only ever sees input within the limits.
    """
    parsed = _parse(source, text, limits, scan_text=False)
    if any(p.rule_id == "input-limit" for p in parsed.problems):
        return ParsedFile(source, text, [], [p for p in parsed.problems
                                             if p.rule_id == "input-limit"])
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return ParsedFile(source, text, [],
                          [syntax_finding(source, f"invalid JSON: {exc.msg}", exc.lineno,
                                          exc.colno)])
    except ValueError as exc:
        line, col = _position_of(text, str(exc).split(": ")[1].split(" ")[0])
        return ParsedFile(source, text, [], [syntax_finding(source, str(exc), line, col)])
    except RecursionError:
        return ParsedFile(source, text, [], [_limit_finding(
            source, f"nesting too deep to process (limit {limits.max_depth} levels)", 1, 1)])
    if parsed.problems and not parsed.documents:
        # Valid JSON that YAML 1.1 cannot read (rare escapes): keep the data, lose positions.
        data = json.loads(text)
        parsed = ParsedFile(source, text, [Document(source, 0, data, {(): Span(1, 1)}, "json")],
                            [p for p in parsed.problems if p.rule_id == "duplicate-key"])
    return ParsedFile(
        source, text,
        [dataclasses.replace(d, fmt="json") for d in parsed.documents], parsed.problems,
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON: {name} is not a JSON number")


def _position_of(text: str, token: str) -> tuple[int, int]:
    offset = text.find(token)
    if offset < 0:
        return 1, 1
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
