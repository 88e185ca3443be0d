"""Serialised CEL programs as the policy cache stores them: without what only the type
checker and error positions read.

``Expression.serialize()`` gives a ``google.protobuf.Any`` holding a ``cel.expr.
CheckedExpr``. Besides the expression and its ``reference_map`` (which overload each call
resolved to, what the runtime plans with), it carries the ``type_map`` (the type the
checker inferred for every node) and the ``source_info``'s ``positions`` and
``line_offsets`` (where each node was in the text). The runtime's planner reads neither:
cel-cpp's ``eval/compiler`` plans from the expression and the reference map, and the one
reader of the type map, ``extensions/select_optimization.cc``, is an opt-in rewrite of
field selections on protocol-buffer messages, which servelint's data (maps and lists)
never is. They are half of a stored program and of the time to deserialise it, which a
pre-commit hook pays for every policy that applies to its file. The source info's other
fields (its syntax version, location and the extensions the runtime must support) are
kept.

Only the protocol-buffer wire format is read (no descriptors: the CEL protos are not in
Python): a form that does not parse as expected is stored as it came.
"""

from __future__ import annotations

_LENGTH_DELIMITED = 2
_ANY_TYPE_URL = 1  # google.protobuf.Any.type_url
_ANY_VALUE = 2  # google.protobuf.Any.value
_TYPE_MAP = 3  # cel.expr.CheckedExpr.type_map
_SOURCE_INFO = 5  # cel.expr.CheckedExpr.source_info
_LINE_OFFSETS = 3  # cel.expr.SourceInfo.line_offsets
_POSITIONS = 4  # cel.expr.SourceInfo.positions
_CHECKED_EXPR_URL = b"type.googleapis.com/cel.expr.CheckedExpr"


class _NotAForm(Exception):
    """Bytes that are not the serialised CheckedExpr this module expects."""


def slimmed(form: bytes) -> bytes:
    """``form`` without its type map and source positions; unchanged when it is not a
    ``CheckedExpr`` in an ``Any``."""
    try:
        fields = _fields(form)
        if not any(
            number == _ANY_TYPE_URL and body == _CHECKED_EXPR_URL for number, _, body in fields
        ):
            raise _NotAForm
        out = bytearray()
        for number, raw, body in fields:
            if number == _ANY_VALUE and body is not None:
                _put(out, number, _checked_expr(body))
            else:
                out += raw
        return bytes(out)
    except _NotAForm:
        return form


def _checked_expr(data: bytes) -> bytes:
    out = bytearray()
    for number, raw, body in _fields(data):
        if number == _TYPE_MAP:
            continue
        if number == _SOURCE_INFO and body is not None:
            kept = b"".join(
                inner_raw
                for inner, inner_raw, _ in _fields(body)
                if inner not in (_LINE_OFFSETS, _POSITIONS)
            )
            _put(out, number, kept)
        else:
            out += raw
    return bytes(out)


def _fields(data: bytes) -> list[tuple[int, bytes, bytes | None]]:
    """Each top-level field: its number, its bytes as written (key included) and, for a
    length-delimited field, its contents."""
    out: list[tuple[int, bytes, bytes | None]] = []
    at = 0
    while at < len(data):
        start = at
        key, at = _varint(data, at)
        kind = key & 7
        body = None
        if kind == 0:
            _, at = _varint(data, at)
        elif kind == 1:
            at += 8
        elif kind == _LENGTH_DELIMITED:
            length, at = _varint(data, at)
            body = data[at : at + length]
            at += length
        elif kind == 5:
            at += 4
        else:  # groups (3, 4) are not in CEL's protos
            raise _NotAForm
        if at > len(data) or key >> 3 == 0:
            raise _NotAForm
        out.append((key >> 3, data[start:at], body))
    return out


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
    raise _NotAForm


def _put(out: bytearray, number: int, body: bytes) -> None:
    out += _encode((number << 3) | _LENGTH_DELIMITED)
    out += _encode(len(body))
    out += body


def _encode(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
