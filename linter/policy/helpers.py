"""The helper functions policies call in CEL: sizes, durations and number formatting.

Python computes quantities (bytes, tokens, seconds); these functions let a policy state
its thresholds in readable units (``gib(1)``, ``seconds('30s')``) and print quantities
in its messages (``human_bytes(n)``, ``fixed(x, 2)``). They are plain functions of their
arguments, documented in docs/writing-policies.md ("Helper functions"). A bad argument
raises ValueError, which the CEL runtime turns into an error value: the engine reports
it as a finding that names the rule ("cannot evaluate rule: ..."), never a traceback.

``linter/policy/expr.py`` declares them to the CEL runtime from ``SIGNATURES``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from linter.model.facts.quantities import duration_ms, memory_bytes, parse_quantity

_UNITS = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_HUMAN_UNITS = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
_INT64 = 2**63
_MAX_DIGITS = 6


def _finite(name: str, value: float) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{name}(): {value} is not a finite number")
    return value


def _int64(name: str, value: int) -> int:
    if not -_INT64 <= value < _INT64:
        raise ValueError(f"{name}(): {value} is outside the 64-bit integer range")
    return value


def _to_bytes(unit: str) -> Callable[[float], int]:
    size = _UNITS[unit]

    def convert(amount: float) -> int:
        """``amount`` units in bytes; a fractional amount is rounded to the nearest byte."""
        if isinstance(amount, int):
            return _int64(unit, amount * size)
        return _int64(unit, round(_finite(unit, amount) * size))

    return convert


def _in_unit(unit: str) -> Callable[[float], float]:
    size = _UNITS[unit]

    def convert(count: float) -> float:
        """``count`` bytes in this unit, as a double."""
        return _finite(f"in_{unit}", float(count)) / size

    return convert


def quantity_bytes(quantity: Any) -> int:
    """A Kubernetes quantity (``16Gi``, ``500M``, ``1e9``, a number) in bytes, rounded up
    as Kubernetes does."""
    if isinstance(quantity, float):
        _finite("quantity_bytes", quantity)
    try:
        parsed = parse_quantity(quantity)
    except ArithmeticError:  # an exponent beyond Decimal's range
        parsed = None
    if parsed is None:
        raise ValueError(f"quantity_bytes(): {quantity!r} is not a Kubernetes quantity")
    # Checked before converting: 1e999999 is a valid quantity whose integer takes minutes.
    if abs(parsed) >= _INT64:
        raise ValueError(f"quantity_bytes(): {quantity!r} is outside the 64-bit integer range")
    found = memory_bytes(quantity)
    assert found is not None  # parse_quantity read it
    return found


def human_bytes(count: float) -> str:
    """Bytes in the largest binary unit they reach: ``16 GiB`` when exact, else one
    decimal (``15.9 GiB``); below 1 KiB whole bytes (``512 B``)."""
    value = _finite("human_bytes", float(count))
    for name, size in _HUMAN_UNITS:
        if abs(value) >= size:
            if isinstance(count, int) and count % size == 0:
                return f"{count // size} {name}"
            return f"{value / size:.1f} {name}"
    if isinstance(count, int):
        return f"{count} B"
    return f"{value:.1f} B" if not value.is_integer() else f"{int(value)} B"


def seconds(duration: Any) -> float:
    """A duration in seconds: Go style text (``30s``, ``1m30s``, ``500ms``, ``2h``) or a
    CEL duration. A bare number is an error: its unit is the setting's, not ours."""
    if isinstance(duration, timedelta):
        return duration.total_seconds()
    if not isinstance(duration, str) or not duration.strip():
        raise ValueError(f"seconds(): {duration!r} is not a duration")
    text = duration.strip()
    if text.lstrip("+-").replace(".", "", 1).isdigit():
        raise ValueError(f"seconds(): {text!r} has no unit (write {text}s or {text}ms)")
    milliseconds = duration_ms(text)
    if milliseconds is None:
        raise ValueError(f"seconds(): {text!r} is not a duration such as 30s, 1m30s or 500ms")
    return float(milliseconds) / 1000.0


def human_seconds(count: float) -> str:
    """Seconds as a short duration: ``2h``, ``1m30s``, ``45s``, ``1.5s``, ``500ms``."""
    value = _finite("human_seconds", float(count))
    sign, value = ("-", -value) if value < 0 else ("", value)
    if value < 1 and value != 0:
        milliseconds = round(value * 1000, 3)
        return f"{sign}{milliseconds:g}ms"
    if not value.is_integer():
        return f"{sign}{value:g}s"
    whole = int(value)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else ""]
    parts.append(f"{secs}s" if secs or whole == 0 else "")
    return sign + "".join(parts)


def fixed(number: float, digits: int) -> str:
    """``number`` with exactly ``digits`` decimals (0 to 6), rounded half to even."""
    if not 0 <= digits <= _MAX_DIGITS:
        raise ValueError(f"fixed(): digits must be 0 to {_MAX_DIGITS}, not {digits}")
    return f"{_finite('fixed', float(number)):.{digits}f}"


# name -> overloads as (parameter types, return type, implementation); the types are the
# names of cel.Type members, so that this module does not import the CEL runtime.
Overloads = tuple[tuple[tuple[str, ...], str, Callable[..., Any]], ...]


def _numeric(result: str, impl: Callable[..., Any]) -> Overloads:
    return ((("INT",), result, impl), (("DOUBLE",), result, impl), (("UINT",), result, impl))


SIGNATURES: dict[str, Overloads] = {
    **{unit: _numeric("INT", _to_bytes(unit)) for unit in _UNITS},
    **{f"in_{unit}": _numeric("DOUBLE", _in_unit(unit)) for unit in _UNITS},
    "quantity_bytes": (
        (("STRING",), "INT", quantity_bytes),
        (("INT",), "INT", quantity_bytes),
        (("DOUBLE",), "INT", quantity_bytes),
    ),
    "human_bytes": _numeric("STRING", human_bytes),
    "seconds": ((("STRING",), "DOUBLE", seconds), (("DURATION",), "DOUBLE", seconds)),
    "human_seconds": _numeric("STRING", human_seconds),
    "fixed": (
        (("DOUBLE", "INT"), "STRING", fixed),
        (("INT", "INT"), "STRING", fixed),
    ),
}


def declarations() -> str:
    """Every helper's name and overload types: compiled expressions are checked against
    them, so the policy cache keys on this text (policy/cache.py)."""
    return ";".join(
        f"{name}({','.join(parameters)})->{result}"
        for name, overloads in sorted(SIGNATURES.items())
        for parameters, result, _ in overloads
    )
