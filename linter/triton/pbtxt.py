"""Parse a Triton ``config.pbtxt`` into a Document whose data is the config's JSON form.

The text is parsed by protobuf's own ``text_format`` against Triton's ``ModelConfig``
definition (see ``descriptor``), so what it accepts and rejects is what Triton's parser
does. The data is ``MessageToDict(preserving_proto_field_name=True)`` with Triton's
64-bit fix-ups (``jsonform``); the line map comes from ``textproto``.

protobuf is imported only here, inside ``parse_pbtxt``: a run without ``.pbtxt`` inputs
never loads it.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from linter.findings import Finding, Severity, limit_finding
from linter.parsing.documents import DEFAULT_LIMITS, Document, Limits, ParsedFile, syntax_finding
from linter.positions import PathT, Span, format_path
from linter.triton.detect import is_model_config_name, looks_like_model_config

FORMAT = "pbtxt"
_POSITION_PREFIX = re.compile(r"^\d+:\d+ : ")
_QUOTED_LINE = re.compile(r"^'([^\n]*?)': ")
# A string literal on a line (or its unterminated rest): what the message must not quote.
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"?|\'((?:[^\'\\\n]|\\.)*)\'?')
_MIN_HIDDEN = 4


def parse_pbtxt(source: str, text: str, limits: Limits = DEFAULT_LIMITS) -> ParsedFile:
    """Parse one ``config.pbtxt``; problems become findings, never exceptions. The node
    and depth limits are checked by the position walk, before protobuf parses."""
    if not is_model_config_name(source) and not looks_like_model_config(text):
        # Other tools use .pbtxt too (TensorFlow graphs, saved_model.pbtxt): not ours.
        return ParsedFile(source, text, [], [])
    from google.protobuf import json_format, text_format

    from linter.triton import descriptor, jsonform, textproto

    message_class = descriptor.model_config_class()
    try:
        walked = textproto.walk(text, message_class.DESCRIPTOR, limits.max_nodes, limits.max_depth)
    except textproto.TooLarge as exc:
        return ParsedFile(
            source, text, [], [limit_finding(source, str(exc), exc.span.line, exc.span.column)]
        )
    problems = [_placeholder_finding(source, p) for p in walked.placeholders]
    message = message_class()
    try:
        text_format.Parse(textproto.substitute(text, walked.placeholders), message)
    except RecursionError:
        return ParsedFile(
            source,
            text,
            [],
            [limit_finding(source, f"nesting deeper than {limits.max_depth} levels", 1, 1)],
        )
    except text_format.ParseError as exc:
        detail = _POSITION_PREFIX.sub("", str(exc))
        # protobuf may quote the offending line first; the position already says where.
        quoted = _QUOTED_LINE.match(detail)
        if quoted:
            detail = ("" if quoted.group(1) else "unexpected end of file: ") + detail[
                quoted.end() :
            ]
        detail = _without_literals(detail, text, exc.GetLine() or 1)
        problems.append(
            syntax_finding(
                source,
                f"invalid Triton model configuration: {detail}",
                exc.GetLine() or 1,
                exc.GetColumn() or 1,
            )
        )
        return ParsedFile(source, text, [], problems)
    data: dict[str, Any] = json_format.MessageToDict(message, preserving_proto_field_name=True)
    jsonform.normalize(data)
    for item in walked.placeholders:
        _put(data, item.path, "${" + item.name + "}")
    data = _in_file_order(data, (), walked.line_map)
    return ParsedFile(source, text, [Document(source, 0, data, walked.line_map, FORMAT)], problems)


def _without_literals(detail: str, text: str, line: int) -> str:
    """protobuf's message without the string literals of the line it stopped at: an
    unterminated or misplaced value (``string_value: "hf_...``) may be a secret, and the
    line and column already say where it is."""
    lines = text.split("\n", line)
    if line > len(lines):
        return detail
    for match in _LITERAL.finditer(lines[line - 1]):
        literal = match.group(1) if match.group(1) is not None else match.group(2) or ""
        for shown in sorted({literal, match.group(0)}, key=len, reverse=True):
            if len(shown) >= _MIN_HIDDEN and shown in detail:
                detail = detail.replace(shown, "(a string on that line)")
    return detail


def _in_file_order(value: Any, path: PathT, line_map: dict[PathT, Span]) -> Any:
    # protobuf's JSON printer orders fields by number and map entries arbitrarily; keep
    # the order the user wrote, so lists of findings and messages follow the file.
    if isinstance(value, list):
        return [_in_file_order(v, (*path, i), line_map) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    end = Span(sys.maxsize, 0)
    keys = sorted(value, key=lambda k: line_map.get((*path, k), end))
    return {k: _in_file_order(value[k], (*path, k), line_map) for k in keys}


def _placeholder_finding(source: str, item: Any) -> Finding:
    field = format_path(item.path) or "value"
    message = (
        f"unfilled template placeholder ${{{item.name}}} in {field}, where Triton expects "
        f"{item.expected}: Triton cannot read the file (failed to read text proto) and the "
        f"model does not load; fill it with TensorRT-LLM's tools/fill_template.py "
        f"({item.name}:<value>) or write the value"
    )
    return Finding(
        "syntax",
        Severity.ERROR,
        message,
        source,
        item.span.line,
        item.span.column,
        format_path(item.path),
    )


def _put(data: dict[str, Any], path: PathT, value: str) -> None:
    # The neutral value parsed in its place may be absent from the JSON form (proto3
    # omits zero values), so create the containers on the way.
    holder: Any = data
    for part, following in zip(path, (*path[1:], None), strict=True):
        if following is None:
            _assign(holder, part, value)
            return
        child = _get(holder, part)
        if not isinstance(child, (dict, list)):
            child = [] if isinstance(following, int) else {}
            _assign(holder, part, child)
        holder = child


def _get(holder: Any, part: str | int) -> Any:
    if isinstance(holder, dict):
        return holder.get(part)
    if isinstance(holder, list) and isinstance(part, int) and part < len(holder):
        return holder[part]
    return None


def _assign(holder: Any, part: str | int, value: Any) -> None:
    if isinstance(holder, dict):
        holder[part] = value
    elif isinstance(holder, list) and isinstance(part, int):
        holder.extend([None] * (part + 1 - len(holder)))
        holder[part] = value
