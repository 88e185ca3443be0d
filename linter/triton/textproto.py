"""Positions and template placeholders of a ``config.pbtxt``, read with protobuf's tokenizer.

protobuf's text parser builds the message but keeps no positions, so this module walks
the same tokens (``text_format.Tokenizer``, which skips comments exactly as the parser
does) alongside the message definition and records where each field was written, as a
data path of the JSON form: ``('dynamic_batching', 'preferred_batch_size', 0)``,
``('parameters', 'gpt_model_type', 'string_value')`` (map entries are keyed by their
``key``, as in JSON).

It also finds TensorRT-LLM template placeholders (``${triton_max_batch_size}``) where a
number, boolean, enum or message is expected. Triton cannot read such a file; here each
placeholder is replaced by a neutral value of the field's type so that the rest of the
file can still be parsed and linted, and is reported on its own.

The walk is tolerant: it stops at the first construct it does not follow (the parser
then reports the real problem), keeping the positions found so far.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

from google.protobuf import text_format
from google.protobuf.descriptor import FieldDescriptor

from linter.positions import PathT, Span

_STRING_TYPES = (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


class Placeholder(NamedTuple):
    """``${name}`` written where the field's type is not a string."""

    name: str
    path: PathT
    span: Span
    end_column: int  # 1-based column just after the closing brace
    expected: str  # "a number", "true or false", "an enum value such as TYPE_FP32", ...
    neutral: str  # what replaces it for parsing


class Walk(NamedTuple):
    line_map: dict[PathT, Span]
    placeholders: list[Placeholder]
    first: Span


class _Stop(Exception):
    """The walk met something it does not follow; the parser will say what."""


class TooLarge(Exception):
    """More fields and values than the node limit, or deeper than the depth limit."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.span = span


def walk(text: str, descriptor: Any, max_nodes: int = 500_000, max_depth: int = 200) -> Walk:
    """Positions and placeholders of ``text``; ``TooLarge`` beyond the limits (checked
    as the walk goes, before protobuf's parser is given the text)."""
    walker = _Walker(text, max_nodes, max_depth)
    first = walker.span()
    # RecursionError: absurdly deep nesting; the parser reports it as an error of its own.
    with contextlib.suppress(_Stop, text_format.ParseError, RecursionError):
        walker.message(descriptor, (), None)
    line_map: dict[PathT, Span] = {(): first}
    for path, span in walker.entries:
        line_map.setdefault(path, span)
    return Walk(line_map, walker.placeholders, first)


def substitute(text: str, placeholders: list[Placeholder]) -> str:
    """The text with every placeholder replaced by its neutral value, padded in place."""
    lines = text.split("\n")
    for item in sorted(placeholders, key=lambda p: (p.span.line, -p.span.column)):
        line = lines[item.span.line - 1]
        start, end = item.span.column - 1, item.end_column - 1
        lines[item.span.line - 1] = line[:start] + item.neutral.ljust(end - start) + line[end:]
    return "\n".join(lines)


class _Walker:
    def __init__(self, text: str, max_nodes: int, max_depth: int) -> None:
        self.tok = text_format.Tokenizer(text.split("\n"))
        self.entries: list[tuple[PathT, Span]] = []
        self.placeholders: list[Placeholder] = []
        self.keys: list[str | None] = []
        self.max_nodes = max_nodes
        self.max_depth = max_depth

    def span(self) -> Span:
        # The tokenizer keeps its position private. Its 0-based ``_line`` and ``_column``
        # are read when present; the ParseError it builds for the current token carries
        # the same position through public getters, but copies the whole current line
        # (quadratic on a file of one long line), so it is only the fallback.
        line, column = getattr(self.tok, "_line", None), getattr(self.tok, "_column", None)
        if isinstance(line, int) and isinstance(column, int):
            return Span(line + 1, column + 1)
        error = self.tok.ParseError("")
        return Span(error.GetLine() or 1, error.GetColumn() or 1)

    def message(self, descriptor: Any, path: PathT, closing: str | None) -> None:
        if len(path) > self.max_depth:
            raise TooLarge(f"nesting deeper than {self.max_depth} levels", self.span())
        counts: dict[str, int] = {}
        while True:
            if closing is None and self.tok.AtEnd():
                return
            if closing is not None and self.tok.TryConsume(closing):
                return
            if self.tok.AtEnd():
                raise _Stop
            self.field(descriptor, path, counts)
            if not self.tok.TryConsume(","):
                self.tok.TryConsume(";")

    def _count(self, span: Span) -> None:
        if len(self.entries) > self.max_nodes:
            raise TooLarge(
                f"more than {self.max_nodes} fields and values; raise --max-nodes "
                "(limits.maxNodes) if this input is genuine",
                span,
            )

    def field(self, descriptor: Any, path: PathT, counts: dict[str, int]) -> None:
        span = self.span()
        self._count(span)
        name = self.tok.token
        field = descriptor.fields_by_name.get(name)
        if field is None:
            raise _Stop  # unknown field, extension or Any: the parser reports it
        self.tok.NextToken()
        self.tok.TryConsume(":")
        field_path = (*path, name)
        self.entries.append((field_path, span))
        if self.tok.TryConsume("["):
            while not self.tok.TryConsume("]"):
                self.element(field, field_path, counts, self.span())
                if not self.tok.TryConsume(","):
                    self.tok.Consume("]")
                    break
        else:
            self.element(field, field_path, counts, span)

    def element(self, field: Any, field_path: PathT, counts: dict[str, int], span: Span) -> None:
        if _is_map(field):
            self.map_entry(field, field_path, span)
            return
        path = field_path
        if _is_repeated(field):
            index = counts.get(field.name, 0)
            counts[field.name] = index + 1
            path = (*field_path, index)
            self.entries.append((path, span))
            self._count(span)
        if field.message_type is not None:
            self.submessage(field, path)
        else:
            self.scalar(field, path)

    def submessage(self, field: Any, path: PathT) -> None:
        if self.tok.token == "$":
            self.placeholder(field, path)
            return
        if self.tok.TryConsume("{"):
            self.message(field.message_type, path, "}")
        else:
            self.tok.Consume("<")
            self.message(field.message_type, path, ">")

    def scalar(self, field: Any, path: PathT) -> None:
        if self.tok.token == "$":
            self.placeholder(field, path)
            return
        capture = (
            bool(self.keys) and field.name == "key" and field.containing_type.GetOptions().map_entry
        )
        if field.type in _STRING_TYPES and self.tok.token[:1] in ("'", '"'):
            value = self.tok.ConsumeString()  # joins adjacent literals, decodes escapes
        else:
            if self.tok.token == "-":
                self.tok.NextToken()
            value = self.tok.token
            self.tok.NextToken()
        if capture:
            self.keys[-1] = str(value)

    def map_entry(self, field: Any, field_path: PathT, span: Span) -> None:
        # Stands for the entry's key until the entry has been read; NUL never appears in
        # a key that the parser accepts.
        pending = f"\0{len(self.entries)}"
        first_entry, first_placeholder = len(self.entries), len(self.placeholders)
        self.entries.append(((*field_path, pending), span))
        self.keys.append(None)
        self.submessage(field, (*field_path, pending))
        key = self.keys.pop()
        if key is None:  # no key written: protobuf uses the key type's zero value
            key_type = field.message_type.fields_by_name["key"].type
            key = "" if key_type in _STRING_TYPES else "0"
        self.entries[first_entry:] = [
            (rebased, s)
            for p, s in self.entries[first_entry:]
            if (rebased := _rebase(p, pending, key)) is not None
        ]
        self.placeholders[first_placeholder:] = [
            item._replace(path=rebased)
            for item in self.placeholders[first_placeholder:]
            if (rebased := _rebase(item.path, pending, key)) is not None
        ]

    def placeholder(self, field: Any, path: PathT) -> None:
        span = self.span()
        self.tok.Consume("$")
        self.tok.Consume("{")
        parts: list[str] = []
        while self.tok.token != "}":
            if self.tok.AtEnd():
                raise _Stop
            parts.append(self.tok.token)
            self.tok.NextToken()
        end = self.span()
        self.tok.NextToken()
        if end.line != span.line:
            raise _Stop
        expected, neutral = _expectation(field)
        self.placeholders.append(
            Placeholder("".join(parts), path, span, end.column + 1, expected, neutral)
        )


def _rebase(path: PathT, pending: str, key: str) -> PathT | None:
    for index, part in enumerate(path):
        if part == pending:
            rest = path[index + 1 :]
            if rest[:1] == ("key",):
                return None
            return (*path[:index], key, *rest[1:])
    return path


def _expectation(field: Any) -> tuple[str, str]:
    if field.message_type is not None:
        return f"a {field.message_type.name} block", "{}"
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "true or false", "false"
    if field.type == FieldDescriptor.TYPE_ENUM:
        values = [v.name for v in field.enum_type.values]
        example = values[1] if len(values) > 1 else values[0]
        return f"a {field.enum_type.name} name such as {example}", values[0]
    if field.type in _STRING_TYPES:
        return "a quoted string", '""'
    return "a number", "0"


def _is_map(field: Any) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def _is_repeated(field: Any) -> bool:
    return bool(field.is_repeated)
