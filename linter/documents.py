"""Parse inputs into plain data plus a line map, in one walk over PyYAML's node graph.

The lint hot path composes YAML with libyaml (``CSafeLoader``) and builds
JSON-compatible data itself, so that every value knows its line and column without a
second parse. ruamel.yaml is deliberately not used here: it is ~30x slower.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import yaml

from linter.findings import Finding, Severity
from linter.positions import PathT, Span, format_path

try:  # pragma: no branch - libyaml is present in every PyYAML wheel we support
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python fallback only when libyaml is missing
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_TAG = "tag:yaml.org,2002:"
_MERGE_TAG = _TAG + "merge"


@dataclasses.dataclass(frozen=True)
class Limits:
    """Bounds that keep a hostile input from exhausting time or memory."""

    max_bytes: int = 50 * 1024 * 1024
    max_nodes: int = 1_000_000
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


class _Builder:
    """Turns a composed node tree into data and a line map; reports duplicate keys."""

    _constructor = yaml.constructor.SafeConstructor()

    def __init__(self, source: str, limits: Limits) -> None:
        self.source = source
        self.limits = limits
        self.nodes = 0
        self.line_map: dict[PathT, Span] = {}
        self.problems: list[Finding] = []
        self.doc_index = 0

    def build(self, node: yaml.Node, path: PathT, depth: int) -> Any:
        self.nodes += 1
        span = _span(node)
        if self.nodes > self.limits.max_nodes:
            raise _LimitExceeded(
                f"more than {self.limits.max_nodes} nodes (alias expansion or a very large "
                "document); raise limits.max_nodes if this input is genuine",
                span,
            )
        if depth > self.limits.max_depth:
            raise _LimitExceeded(
                f"nesting deeper than {self.limits.max_depth} levels", span
            )
        self.line_map.setdefault(path, span)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        return self._scalar(node)

    def _mapping(self, node: yaml.MappingNode, path: PathT, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        seen: dict[str, Span] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.update(self._merge_sources(value_node, path, depth))
                continue
            key = self._key(key_node)
            key_span = _span(key_node)
            if key in seen:
                first = seen[key]
                self._problem(
                    "duplicate-key",
                    Severity.ERROR,
                    f"duplicate key '{key}' (first at line {first.line}); Helm and "
                    "Kubernetes silently keep the last value",
                    key_span,
                    (*path, key),
                )
            seen[key] = key_span
            child_path = (*path, key)
            self.line_map[child_path] = key_span
            out[key] = self.build(value_node, child_path, depth + 1)
        return {**{k: v for k, v in merged.items() if k not in out}, **out}

    def _merge_sources(self, node: yaml.Node, path: PathT, depth: int) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        # Earlier entries in a merge list win (YAML merge-key spec), so apply in reverse.
        for source in reversed(sources):
            value = self.build(source, path, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
        return merged

    def _key(self, node: yaml.Node) -> str:
        if isinstance(node, yaml.ScalarNode):
            return str(node.value)
        # Complex keys are legal YAML but never meaningful in Kubernetes or Helm values.
        return yaml.dump(self._scalar_or_tree(node), default_flow_style=True).strip()

    def _scalar_or_tree(self, node: yaml.Node) -> Any:
        return _Builder(self.source, self.limits).build(node, (), 0)

    def _scalar(self, node: yaml.ScalarNode) -> Any:
        tag = node.tag
        if not tag.startswith(_TAG):
            return node.value  # custom tags (!Ref, !!python/...) are kept as plain text
        kind = tag[len(_TAG) :]
        try:
            if kind == "int":
                return self._constructor.construct_yaml_int(node)
            if kind == "float":
                return self._constructor.construct_yaml_float(node)
            if kind == "bool":
                return self._constructor.construct_yaml_bool(node)
            if kind == "null":
                return None
        except (ValueError, yaml.constructor.ConstructorError):
            return node.value
        return node.value

    def _problem(self, rule: str, severity: Severity, message: str, span: Span, path: PathT
                 ) -> None:
        self.problems.append(
            Finding(rule, severity, message, self.source, span.line, span.column,
                    format_path(path), self.doc_index)
        )


def _span(node: yaml.Node) -> Span:
    mark = node.start_mark
    return Span(mark.line + 1, mark.column + 1)


def syntax_finding(source: str, message: str, line: int, column: int, doc_index: int = 0
                   ) -> Finding:
    return Finding("syntax", Severity.ERROR, message, source, max(line, 1), max(column, 1),
                   "", doc_index)


def parse_yaml(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """Parse a (multi-document) YAML or JSON stream; problems become findings."""
    parsed = ParsedFile(source, text, [], [])
    builder = _Builder(source, limits)
    try:
        for index, node in enumerate(_compose_all(text)):
            builder.doc_index = index
            builder.line_map = {}
            if node is None:
                continue
            data = builder.build(node, (), 0)
            if data is None:
                continue  # an empty document ("---" with nothing after it)
            parsed.documents.append(Document(source, index, data, builder.line_map))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or str(exc)
        context = f" {exc.context}" if exc.context else ""
        started = exc.context_mark
        if started is not None and mark is not None and started.line != mark.line:
            context += f" started at line {started.line + 1}, column {started.column + 1}"
        parsed.problems.append(
            syntax_finding(source, f"invalid YAML: {problem}{context}", line, col,
                           builder.doc_index)
        )
    except yaml.YAMLError as exc:
        parsed.problems.append(syntax_finding(source, f"invalid YAML: {exc}", 1, 1))
    except _LimitExceeded as exc:
        parsed.problems.append(
            Finding("input-limit", Severity.ERROR, str(exc), source, exc.span.line,
                    exc.span.column, "", builder.doc_index)
        )
    except RecursionError:
        parsed.problems.append(
            Finding("input-limit", Severity.ERROR,
                    f"nesting deeper than {limits.max_depth} levels", source, 1, 1)
        )
    parsed.problems.extend(builder.problems)
    return parsed


def _compose_all(text: str) -> Iterator[yaml.Node | None]:
    loader = _Loader(text)
    try:
        while loader.check_node():
            yield loader.get_node()
    finally:
        loader.dispose()


def parse_json(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """JSON goes through the YAML composer for positions; strict JSON decides validity."""
    try:
        json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return ParsedFile(source, text, [],
                          [syntax_finding(source, f"invalid JSON: {exc.msg}", exc.lineno,
                                          exc.colno)])
    except ValueError as exc:
        line, col = _position_of(text, str(exc).split(": ")[1].split(" ")[0])
        return ParsedFile(source, text, [], [syntax_finding(source, str(exc), line, col)])
    parsed = parse_yaml(source, text, limits)
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
