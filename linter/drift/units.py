"""Units of settings, and parsing of the spellings a value can take.

Units belong to the setting, not to the spelling: vLLM's ``swap_space`` is
GiB, Kubernetes ``memory`` is bytes, Triton's gRPC flags are milliseconds. A setting that
is known is parsed in its own unit; plain quantity and duration parsing is only for keys
this table does not know.

Every parser returns an exact ``Decimal`` (so ``0.1s`` and ``100ms`` are equal) or
``None`` when the text is not in that unit.
"""

from __future__ import annotations

import enum
import math
import re
from decimal import Decimal

from linter.model.facts.quantities import parse_quantity


class Unit(enum.Enum):
    BYTES = "bytes"  # Kubernetes quantity; a bare number is bytes
    CPU = "cpu"  # Kubernetes quantity in cores (500m = 0.5)
    GIB = "GiB"  # a bare number is GiB; a quantity is converted (vLLM swap_space)
    MILLISECONDS = "ms"  # a bare number is ms; a duration string is converted
    SECONDS = "s"
    MICROSECONDS = "us"
    TOKENS = "tokens"  # vLLM human_readable_int: 32k = 32000, 32K = 32768
    NUMBER = "number"  # a plain number, no suffixes (gpu_memory_utilization)
    COUNT = "count"  # a whole number, or a plain quantity (nvidia.com/gpu: "1")
    BOOL = "bool"


_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_DURATION = re.compile(r"^(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|ms|s|m|h|d))+$")
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h|d)")
_DURATION_SECONDS = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),
    "ms": Decimal("1e-3"),
    "s": Decimal(1),
    "m": Decimal(60),
    "h": Decimal(3600),
    "d": Decimal(86400),
}
_HUMAN_INT = re.compile(r"^(\d+(?:\.\d+)?)([kKmMgGtT])$")
_HUMAN = {
    "k": Decimal(10**3),
    "m": Decimal(10**6),
    "g": Decimal(10**9),
    "t": Decimal(10**12),
    "K": Decimal(2**10),
    "M": Decimal(2**20),
    "G": Decimal(2**30),
    "T": Decimal(2**40),
}
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_GIB = Decimal(2**30)


def number(value: object) -> Decimal | None:
    """An int, float or numeric string (``"4096"``, ``"0.9"``) as an exact Decimal."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return Decimal(value.strip())
    return None


def quantity(value: object) -> Decimal | None:
    """A Kubernetes quantity: ``8Gi`` = 8589934592, ``500m`` = 0.5, ``1e3`` = 1000."""
    return parse_quantity(value)


def duration_seconds(value: object) -> Decimal | None:
    """A Go-style duration string (``30s``, ``5m``, ``1h30m``, ``250ms``) in seconds."""
    if not isinstance(value, str) or not _DURATION.match(value.strip()):
        return None
    return sum(
        (Decimal(n) * _DURATION_SECONDS[u] for n, u in _DURATION_PART.findall(value)), Decimal(0)
    )


def boolean(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def parse(value: object, unit: Unit) -> Decimal | bool | None:
    """``value`` in the canonical form of ``unit`` (seconds for every duration unit)."""
    if unit is Unit.BOOL:
        return boolean(value)
    if unit in (Unit.BYTES, Unit.CPU, Unit.COUNT):
        return quantity(value)
    if unit is Unit.NUMBER:
        return number(value)
    if unit is Unit.GIB:
        plain = number(value)
        if plain is not None:
            return plain
        parsed = quantity(value)
        return None if parsed is None else parsed / _GIB
    if unit is Unit.TOKENS:
        plain = number(value)
        if plain is not None or not isinstance(value, str):
            return plain
        match = _HUMAN_INT.match(value.strip())
        return None if match is None else Decimal(match[1]) * _HUMAN[match[2]]
    scale = {
        Unit.MILLISECONDS: Decimal("1e-3"),
        Unit.SECONDS: Decimal(1),
        Unit.MICROSECONDS: Decimal("1e-6"),
    }[unit]
    plain = number(value)
    return plain * scale if plain is not None else duration_seconds(value)
