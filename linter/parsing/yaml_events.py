"""Plain data and a line map, built straight from libyaml's parser events.

Working on events rather than a composed node graph keeps every cost bounded before it is
paid (docs/security.md): the node limit stops a huge document after ``max_nodes`` events, an alias
is charged the size of its anchor without being expanded, and nothing recurses.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

from linter.findings import Finding, Severity
from linter.positions import PathT, Span, format_path

if TYPE_CHECKING:
    from linter.parsing.documents import Limits

_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = _TAG + "merge"
NUMBER_RULE = "number-range"
# The end of the message of an integer too long for any number type: kept as its text.
NUMBER_AS_TEXT = "far beyond any 64-bit setting; read as text"
_INT64 = 2**63
# Python refuses to turn longer digit strings into ints (sys.get_int_max_str_digits).
_MAX_DIGITS = 4300
_FLOAT_MAX = int(sys.float_info.max)
# YAML 1.1 reads ``1:00:00`` as a base-60 number; each part multiplies a growing integer,
# so a long one costs quadratic time. Kubernetes and Helm (YAML 1.2 rules) read it as a
# string anyway: longer ones are kept as text.
_MAX_SEXAGESIMAL = 32
# An alias or complex key is shown as YAML text; a large one is only described.
_MAX_KEY_NODES = 64
_MAX_KEY_BYTES = 1024


class LimitExceeded(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.span = span


class _Anchor(NamedTuple):
    """A finished anchored node: what an alias to it expands to, and what that costs."""

    data: Any
    size: int  # nodes it expands to (keys included), so an alias is charged in O(1)
    height: int  # levels below it
    spans: tuple[tuple[PathT, Span], ...]  # its line map, relative to the anchored node
    text_bytes: int  # characters of the scalars it expands to (what a reader pays)


class _Frame:
    """An open mapping or sequence while its events stream past."""

    __slots__ = (
        "anchor",
        "bytes_at_start",
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

    def __init__(
        self,
        container: dict[str, Any] | list[Any],
        path: PathT,
        depth: int,
        span: Span,
        record: bool,
    ) -> None:
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
        self.bytes_at_start = 0
        self.order_at_start = 0


_new_span = tuple.__new__  # Span(line, column) without NamedTuple's Python-level __new__
_NOT_CACHED = object()
_PLAIN_CACHE_SIZE = 10_000
_MERGE = object()  # the pending "key" of a mapping whose '<<' value is being read


class EventBuilder:
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
        # Characters of scalar text, aliases expanded: an alias to a long string is cheap
        # for the parser but paid again by every reader of the data (secret scan, CEL).
        self.text_bytes = 0
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
            raise LimitExceeded(
                f"more than {self.limits.max_nodes} nodes (alias expansion or a very large "
                "document); raise --max-nodes (limits.maxNodes) if this input is genuine",
                span,
            )

    def _depth_error(self, span: Span) -> LimitExceeded:
        return LimitExceeded(f"nesting deeper than {self.limits.max_depth} levels", span)

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
        self.text_bytes += len(event.value)
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
                    if value.__class__ in _NUMBERS or len(event.value) > _MAX_DIGITS:
                        value = self._number(value, event.value, span, (*parent.path, key))
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
        if (value.__class__ in _NUMBERS or len(event.value) > _MAX_DIGITS) and (
            record or not stack
        ):
            value = self._number(value, event.value, span, path)
        if depth > self.limits.max_depth:
            raise self._depth_error(span)
        if record and path not in self.line_map:
            self.line_map[path] = span
            if self.track_anchors:
                self.order.append(path)
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(value, 1, 0, (((), span),), len(event.value))
        self._attach(value, stack, root)

    def _number(self, value: Any, text: str, span: Span, path: PathT) -> Any:
        """``value`` as the data holds it; a number out of range is reported at its line.

        An integer beyond 64 bits is read as the inexact float Helm makes of it (and
        Kubernetes refuses in an integer field); infinity and NaN have no JSON form, so
        no manifest can carry them; more digits than Python converts stay text.
        """
        if value.__class__ is int:
            if -_INT64 <= value < _INT64:
                return value
            if not -_FLOAT_MAX <= value <= _FLOAT_MAX:  # beyond a float too: kept as text
                return self._digits_problem(text, span, path)
            self._problem(
                NUMBER_RULE,
                Severity.WARNING,
                f"integer {_short(text, 40)} does not fit in 64 bits: Helm reads it as the "
                f"float {float(value):g} and Kubernetes rejects it in an integer field",
                span,
                path,
            )
            return float(value)
        if value.__class__ is float:
            if math.isfinite(value):
                return value
            self._problem(
                NUMBER_RULE,
                Severity.WARNING,
                f"{_short(text, 40)} is not a finite number: JSON, and so the Kubernetes "
                "API and Helm's toJson, cannot represent it",
                span,
                path,
            )
            return value
        digits = text.lstrip("+-").replace("_", "")
        if value.__class__ is str and len(digits) > _MAX_DIGITS and digits.isdigit():
            return self._digits_problem(text, span, path)
        return value

    def _digits_problem(self, text: str, span: Span, path: PathT) -> str:
        digits = text.lstrip("+-").replace("_", "")
        self._problem(
            NUMBER_RULE,
            Severity.WARNING,
            f"integer of {len(digits)} digits: {NUMBER_AS_TEXT}",
            span,
            path,
        )
        return text

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
            frame.bytes_at_start = self.text_bytes
            frame.order_at_start = len(self.order)
            self.open_anchors.add(event.anchor)
        return frame

    def _close(self, frame: _Frame, stack: list[_Frame], root: list[Any]) -> None:
        container = frame.container
        if isinstance(container, dict) and frame.merged:
            container = {
                **{k: v for k, v in frame.merged.items() if k not in container},
                **container,
            }
        if stack:
            stack[-1].height = max(stack[-1].height, frame.height + 1)
        if frame.anchor is not None:
            self.open_anchors.discard(frame.anchor)
            spans: tuple[tuple[PathT, Span], ...] = (((), frame.span),)
            if frame.record:
                size = len(frame.path)
                spans += tuple(
                    (p[size:], self.line_map[p])
                    for p in self.order[frame.order_at_start :]
                    if len(p) > size and p[:size] == frame.path
                )
            self.anchors[frame.anchor] = _Anchor(
                container,
                self.nodes - frame.nodes_at_start + 1,
                frame.height,
                spans,
                self.text_bytes - frame.bytes_at_start,
            )
        self._attach(container, stack, root)

    def _alias(self, event: Any, stack: list[_Frame], root: list[Any]) -> None:
        span = Span(event.start_mark.line + 1, event.start_mark.column + 1)
        name = event.anchor
        anchor = self.anchors.get(name)
        if anchor is None:
            problem = "recursive alias" if name in self.open_anchors else "undefined alias"
            raise yaml.composer.ComposerError(
                None, None, f"found {problem} '{name}'", event.start_mark
            )
        # Charged before anything is copied: a "billion laughs" stops here at once.
        self._count(anchor.size, span)
        self.text_bytes += anchor.text_bytes
        if self.text_bytes > self.limits.max_bytes:
            raise LimitExceeded(
                f"aliases expand to more than {self.limits.max_bytes} bytes of text; raise "
                "--max-bytes (limits.maxBytes) if this input is genuine",
                span,
            )
        if stack and isinstance(stack[-1].container, dict) and stack[-1].key is None:
            key = _key_text(anchor.data, anchor.size, anchor.text_bytes)
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
                "duplicate-key",
                Severity.ERROR,
                f"duplicate key '{_short(key)}' (first at line {seen[key].line}); Helm and "
                "Kubernetes silently keep the last value",
                span,
                (*frame.path, key),
            )
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
            parent.key = _key_text(value, _MAX_KEY_NODES, _MAX_KEY_BYTES)
            self._key(parent, parent.key, False, parent.span)
            return
        if key is _MERGE:
            if isinstance(value, dict):
                parent.merged = {**parent.merged, **value}
            elif isinstance(value, list):
                pass  # a list of aliases was merged entry by entry as it was read
            return
        container[key] = value

    def _problem(
        self, rule: str, severity: Severity, message: str, span: Span, path: PathT
    ) -> None:
        self.problems.append(
            Finding(
                rule,
                severity,
                message,
                self.source,
                span.line,
                span.column,
                format_path(path),
                self.doc_index,
            )
        )


_NUMBERS = frozenset({int, float})


def _key_text(data: Any, nodes: int, text_bytes: int) -> str:
    """A mapping key made of an alias or a collection, as flow YAML (``{a: 1}``); a
    scalar alias is its text, and a large collection is described, not dumped (dumping
    a megabyte-sized key is slow and helps nobody)."""
    if isinstance(data, str):
        return data
    if not isinstance(data, (dict, list)):
        return yaml.dump(data, default_flow_style=True).strip().removesuffix("\n...").strip()
    if nodes > _MAX_KEY_NODES or text_bytes > _MAX_KEY_BYTES or not _small(data):
        kind = "mapping" if isinstance(data, dict) else "list"
        return f"<a {kind} of {len(data)} entries used as a key>"
    return yaml.dump(data, default_flow_style=True).strip()


def _small(data: Any) -> bool:
    """Whether ``data`` holds at most ``_MAX_KEY_NODES`` nodes and ``_MAX_KEY_BYTES``
    characters (walked without recursion, and stopped as soon as it is not)."""
    stack, nodes, size = [data], 0, 0
    while stack:
        item = stack.pop()
        nodes += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            size += len(str(item)) if isinstance(item, str) else 8
        if nodes > _MAX_KEY_NODES or size > _MAX_KEY_BYTES:
            return False
    return True


def _scalar_value(constructor: Any, tag: str, value: str) -> Any:
    if not tag.startswith(_TAG):
        return value  # custom tags (!Ref, !!python/...) are kept as plain text, never run
    kind = tag[len(_TAG) :]
    if kind == "null":
        return None
    if kind not in ("int", "float", "bool"):
        return value
    if kind != "bool" and ":" in value and len(value) > _MAX_SEXAGESIMAL:
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
