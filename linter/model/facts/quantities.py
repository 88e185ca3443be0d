"""Parsing of the units that deployment files use: Kubernetes quantities, durations, sizes.

Every parser returns ``None`` for text it cannot read, never raises: a value that does not
parse is reported by the policies that need it, not by the extractor.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from linter.lazyregex import lazy_compile

# Kubernetes resource.Quantity suffixes (k8s.io/apimachinery/pkg/api/resource/suffix.go).
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_QUANTITY = lazy_compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$"
)
_DURATION_PART = lazy_compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h|d)")
_DURATION_MS = {
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "ms": 1.0,
    "s": 1e3,
    "m": 6e4,
    "h": 3.6e6,
    "d": 8.64e7,
}
# vLLM's human_readable_int: k/m/g/t are powers of 10, K/M/G/T powers of 2
# (vllm/utils/argparse_utils.py human_readable_int).
_HUMAN_INT = lazy_compile(r"^(\d+(?:\.\d+)?)([kKmMgGtT])$")
_HUMAN_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_MAX_DIGITS = 4300  # sys.get_int_max_str_digits() by default
_HUMAN_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_TRUE = frozenset({"true", "1", "yes", "y", "on"})
_FALSE = frozenset({"false", "0", "no", "n", "off"})


def parse_quantity(value: object) -> Decimal | None:
    """A Kubernetes quantity (``500m``, ``16Gi``, ``1e3``, ``2``) as an exact Decimal."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    number, exponent, suffix = match.groups()
    try:
        base = Decimal(number)
        if exponent:
            return base * (Decimal(10) ** int(exponent[1:]))
    except (InvalidOperation, ValueError):
        return None
    if suffix in _BINARY:
        return base * _BINARY[suffix]
    return base * _DECIMAL[suffix or ""]


def cpu_cores(value: object) -> float | None:
    quantity = parse_quantity(value)
    return None if quantity is None else float(quantity)


def memory_bytes(value: object) -> int | None:
    """Bytes, rounded up as Kubernetes does (``Quantity.Value``)."""
    quantity = parse_quantity(value)
    return None if quantity is None else int(quantity.to_integral_value(rounding="ROUND_CEILING"))


def plain_number(value: Decimal) -> int | float:
    """An int when the quantity is whole, else a float (extended resources, GPU counts)."""
    return int(value) if value == value.to_integral_value() else float(value)


def duration_ms(value: object, bare_unit_ms: float = 1.0) -> int | float | None:
    """A duration in milliseconds: Go style (``1h30m``, ``30s``, ``500ms``) or a bare number.

    A bare number (``30``, ``"30"``) is taken in the unit the setting defines:
    ``bare_unit_ms`` is 1 for millisecond settings and 1000 for second settings.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return _whole(value * bare_unit_ms)
    if not isinstance(value, str):
        return None
    text = value.strip()
    number = to_number(text)
    if number is not None:
        return _whole(number * bare_unit_ms)
    total = 0.0
    position = 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != position:
            return None
        total += float(match.group(1)) * _DURATION_MS[match.group(2)]
        position = match.end()
    if position != len(text) or position == 0:
        return None
    return _whole(total)


def human_int(value: object) -> int | None:
    """vLLM's integer syntax: ``32768``, ``32k`` (32 000) or ``32K`` (32 768)."""
    if not isinstance(value, str):
        return to_int(value)
    text = value.strip()
    match = _HUMAN_INT.match(text)
    if match is None:
        return to_int(text)
    number, suffix = match.groups()
    if len(number) > _MAX_DIGITS:
        return None
    if suffix in _HUMAN_DECIMAL:
        scaled = float(number) * _HUMAN_DECIMAL[suffix]
        return int(scaled) if math.isfinite(scaled) else None
    if "." in number:  # vLLM rejects decimals with binary suffixes
        return None
    return int(number) * _HUMAN_BINARY[suffix]


def to_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            # Python refuses longer digit strings; no setting is an integer that long.
            return int(text) if len(text) <= _MAX_DIGITS else None
        number = to_number(text)
        if isinstance(number, float) and number.is_integer() and "." in text:
            return int(number)
    return None


def to_number(value: object) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value if not isinstance(value, float) or math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return float(text)
    return None


def to_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def _whole(number: float) -> int | float:
    return int(number) if float(number).is_integer() else float(number)
