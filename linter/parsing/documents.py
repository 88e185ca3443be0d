"""Parse inputs into plain data plus a line map, in one pass over PyYAML's events.

The lint hot path parses YAML with libyaml (``CSafeLoader``) and builds JSON-compatible
data itself, so that every value knows its line and column without a second parse.
ruamel.yaml is deliberately not used here: it is ~30x slower.

Inputs may be hostile (docs/security.md): every cost is bounded by ``Limits`` before it is paid,
and a limit that is hit becomes an ``input-limit`` finding, never a hang or a crash.
"""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import yaml

from linter.findings import Finding, Severity, limit_finding, syntax_finding
from linter.lazyregex import lazy_compile
from linter.lightclass import frozen, mutable
from linter.parsing.text_problems import explain_text_problems, line_text, tab_in_indentation
from linter.parsing.yaml_events import NUMBER_RULE, EventBuilder, LimitExceeded
from linter.positions import PathT, Span, nearest

try:  # pragma: no branch - libyaml is present in every PyYAML wheel we support
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - pure-Python fallback only when libyaml is missing
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

_LIBYAML_MAX_DEPTH = 1000  # libyaml's own nesting limit (yaml_parser_increase_*_level)
_MAX_DIGITS = 4300  # sys.get_int_max_str_digits() by default
# Problems of a file whose data is still complete and usable: the others (syntax, limits)
# mean the data is missing or partial.
ADVISORY_PROBLEMS = ("duplicate-key", NUMBER_RULE)


@frozen
class Limits:
    """Bounds that keep a hostile input from exhausting time or memory."""

    max_bytes: int = 50 * 1024 * 1024
    max_nodes: int = 500_000
    max_depth: int = 200


DEFAULT_LIMITS = Limits()


_START = Span(1, 1)  # a path the document does not hold: its beginning


@frozen
class Document:
    """One parsed document: plain data and where each path sits in its file."""

    source: str
    index: int
    data: Any
    line_map: dict[PathT, Span]
    fmt: str = "yaml"

    def span(self, path: PathT) -> Span:
        """Span of ``path`` or of its closest ancestor; the document start otherwise."""
        return nearest(self.line_map, path, _START)


@mutable
class ParsedFile:
    """Everything read from one input: its text, documents and parse problems."""

    source: str
    text: str
    documents: list[Document]
    problems: list[Finding]


def parse_yaml(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """Parse a (multi-document) YAML stream; problems become findings."""
    return _parse(source, text, limits, scan_text=True)


def _parse(source: str, text: str, limits: Limits, *, scan_text: bool) -> ParsedFile:
    parsed = ParsedFile(source, text, [], [])
    loader = _Loader(text)
    # Anchors are rare; only a text that could hold one pays for tracking them.
    builder = EventBuilder(source, limits, loader, "&" in text)
    try:
        for index, data, line_map in builder.documents():
            if data is not None:  # None: an empty document ("---" with nothing after it)
                parsed.documents.append(Document(source, index, data, line_map))
    except yaml.MarkedYAMLError as exc:
        parsed.problems.append(_yaml_error(source, text, exc, builder.doc_index, limits))
    except yaml.reader.ReaderError as exc:
        # A character YAML does not allow (a raw ESC, say): at its line and column.
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        character = exc.character if isinstance(exc.character, str) else chr(exc.character)
        parsed.problems.append(
            syntax_finding(
                source,
                f"invalid YAML: control character U+{ord(character):04X} is not allowed "
                "(write it as an escape in a double-quoted string)",
                line,
                column,
                builder.doc_index,
            )
        )
    except yaml.YAMLError as exc:
        parsed.problems.append(syntax_finding(source, f"invalid YAML: {exc}", 1, 1))
    except LimitExceeded as exc:
        parsed.problems.append(
            limit_finding(source, str(exc), exc.span.line, exc.span.column, builder.doc_index)
        )
    except RecursionError:
        # Only reachable with a depth limit raised far above the default (copying or
        # dumping very deep aliased data); the parse itself never recurses.
        parsed.problems.append(
            limit_finding(
                source, f"nesting too deep to process (limit {limits.max_depth} levels)", 1, 1
            )
        )
    finally:
        loader.dispose()
    parsed.problems.extend(builder.problems)
    if scan_text:
        explain_text_problems(parsed)
    return parsed


def _yaml_error(
    source: str, text: str, exc: yaml.MarkedYAMLError, doc_index: int, limits: Limits
) -> Finding:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    last = text.count("\n") + 1  # the empty line after a final newline is a position too
    if line > last:  # libyaml can put "end of stream" past a file without a final newline
        line, col = last, len(line_text(text, last)) + 1
    problem = exc.problem or str(exc)
    if "maximum nesting depth" in problem:
        # libyaml stops at 1000 levels on its own, and its scanner can look that far ahead
        # of the events that our depth check sees.
        most = min(limits.max_depth, _LIBYAML_MAX_DEPTH)
        return limit_finding(source, f"nesting deeper than {most} levels", line, col, doc_index)
    tab = tab_in_indentation(text, line)
    if tab:
        return syntax_finding(
            source,
            "invalid YAML: tab character in indentation; YAML indents with spaces only",
            line,
            tab,
            doc_index,
        )
    context = f" {exc.context}" if exc.context else ""
    started = exc.context_mark
    if started is not None and mark is not None and started.line != mark.line:
        context += f" started at line {started.line + 1}, column {started.column + 1}"
    return syntax_finding(source, f"invalid YAML: {problem}{context}", line, col, doc_index)


def parse_json(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """JSON goes through the YAML parser for positions; strict JSON decides validity.

    The bounded YAML pass runs first, so that the strict pass (recursive, and without a
    node limit) only ever sees input within the limits.
    """
    parsed = _parse(source, text, limits, scan_text=False)
    if any(p.rule_id == "input-limit" for p in parsed.problems):
        return ParsedFile(
            source, text, [], [p for p in parsed.problems if p.rule_id == "input-limit"]
        )
    strict = _StrictJson()
    try:
        json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=strict.integer,
            parse_float=strict.number,
            object_pairs_hook=strict.mapping,
        )
    except json.JSONDecodeError as exc:
        return ParsedFile(
            source,
            text,
            [],
            [syntax_finding(source, f"invalid JSON: {exc.msg}", exc.lineno, exc.colno)],
        )
    except ValueError as exc:
        line, col = _position_of(text, str(exc).split(": ")[1].split(" ")[0])
        return ParsedFile(source, text, [], [syntax_finding(source, str(exc), line, col)])
    except RecursionError:
        return ParsedFile(
            source,
            text,
            [],
            [
                limit_finding(
                    source, f"nesting too deep to process (limit {limits.max_depth} levels)", 1, 1
                )
            ],
        )
    if parsed.problems and not parsed.documents:
        # Valid JSON that YAML 1.1 cannot read (a lone surrogate escape): keep the data,
        # lose positions, and still report repeated keys and numbers out of range.
        data = json.loads(text, parse_int=strict.integer)
        problems = [p for p in parsed.problems if p.rule_id in ADVISORY_PROBLEMS]
        # A lone surrogate is not a character: CEL cannot hold it and no report can encode
        # it, so it is read as U+FFFD, as a UTF-8 reader reads a broken byte (issue 31).
        data = _without_surrogates(data)
        for key in strict.repeated:
            line, col = _position_of(text, json.dumps(key), last=True)
            problems.append(
                Finding(
                    "duplicate-key",
                    Severity.ERROR,
                    f"duplicate key '{key[:80]}'; Helm and Kubernetes silently keep the last value",
                    source,
                    line,
                    col,
                )
            )
        parsed = ParsedFile(
            source, text, [Document(source, 0, data, {(): Span(1, 1)}, "json")], problems
        )
    for token in strict.infinite:
        line, col = _position_of(text, token)
        parsed.problems.append(
            Finding(
                NUMBER_RULE,
                Severity.WARNING,
                f"{token[:40]} is beyond the range of a 64-bit float: JSON readers make it "
                "infinity, which no manifest can carry",
                source,
                line,
                col,
            )
        )
    return ParsedFile(
        source,
        text,
        [dataclasses.replace(d, fmt="json") for d in parsed.documents],
        parsed.problems,
    )


class _StrictJson:
    """Hooks of the strict JSON pass: repeated keys, and numbers no reader can hold."""

    def __init__(self) -> None:
        self.repeated: list[str] = []
        self.infinite: list[str] = []

    def integer(self, text: str) -> int | str:
        # More digits than Python converts: the YAML pass reports it; not an error here.
        return int(text) if len(text) <= _MAX_DIGITS else text

    def number(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            self.infinite.append(text)
        return value

    def mapping(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                self.repeated.append(key)
            seen.add(key)
        return dict(pairs)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid JSON: {name} is not a JSON number")


_SURROGATE = lazy_compile("[\ud800-\udfff]")  # JSON with lone surrogates only


def _without_surrogates(data: Any) -> Any:
    """``data`` with every lone surrogate (a JSON ``\\ud800`` escape without its pair)
    made U+FFFD."""
    root: list[Any] = [data]
    pending: list[tuple[Any, Any]] = [(root, 0)]
    while pending:  # not recursive: the strict pass accepted any depth Python can parse
        container, key = pending.pop()
        value = container[key]
        if isinstance(value, str):
            container[key] = _SURROGATE.sub("\ufffd", value)
        elif isinstance(value, list):
            pending.extend((value, index) for index in range(len(value)))
        elif isinstance(value, dict):
            items = [(_SURROGATE.sub("\ufffd", k), v) for k, v in value.items()]
            value.clear()
            value.update(items)
            pending.extend((value, k) for k, _ in items)
    return root[0]


def _position_of(text: str, token: str, *, last: bool = False) -> tuple[int, int]:
    offset = text.rfind(token) if last else text.find(token)
    if offset < 0:
        return 1, 1
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
