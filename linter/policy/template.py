"""Message templates: a rule's ``message`` with ``{{ CEL }}`` placeholders.

``message: "max_model_len {{ workload.engine.max_model_len }} needs {{
human_bytes(workload.capacity.kv_bytes_requested) }}"`` reads as the sentence it prints.
Each placeholder is an ordinary CEL expression (same variables, ``variables``, ``item``,
``index`` and helper functions as the rule's ``expression``), compiled and checked when
the policy loads. Its value is inserted as text and never read as a template again.

- ``{{`` starts a placeholder, which runs to the first ``}}`` outside a CEL string
  literal; a literal ``{{`` in the text is written ``{{ '{{' }}``.
- Scalars print as CEL's ``string()`` prints them (``0.9``, ``2`` for 2.0, ``1e+20``;
  ``fixed(x, 2)`` rounds), null ``null``, lists their items joined by ``, ``, durations
  as ``human_seconds`` prints them.
- A placeholder that cannot be evaluated (a missing field not guarded with ``has()``)
  prints ``<error: WHAT>`` in its place: the rule failed, so its finding is reported,
  with its location and severity, whatever the message says.

The syntax is documented in docs/writing-policies.md ("Message templates").
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from linter.errors import ExpressionError
from linter.lightclass import frozen
from linter.policy.expr import Bindings, CompiledExpr
from linter.policy.helpers import human_seconds

OPEN, CLOSE = "{{", "}}"


class TemplateError(ValueError):
    """A template that cannot be parsed; ``offset`` is where in the text (0-based)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


@frozen(slots=True)
class Placeholder:
    text: str  # the CEL expression between the braces
    offset: int  # where the expression starts in the template


def has_placeholders(text: str) -> bool:
    return OPEN in text


def parse(text: str) -> tuple[str | Placeholder, ...]:
    """The literal texts and placeholders of ``text``, in order."""
    parts: list[str | Placeholder] = []
    position = 0
    while True:
        start = text.find(OPEN, position)
        if start < 0:
            if position < len(text):
                parts.append(text[position:])
            return tuple(parts)
        if start > position:
            parts.append(text[position:start])
        body = start + len(OPEN)
        end = _closing(text, body)
        if end is None:
            raise TemplateError("'{{' is not closed by '}}' (a literal '{{' is {{ '{{' }})", start)
        expression = text[body:end]
        if not expression.strip():
            raise TemplateError("empty placeholder '{{}}'", start)
        parts.append(Placeholder(expression, body))
        position = end + len(CLOSE)


def _closing(text: str, position: int) -> int | None:
    """Where the ``}}`` that ends a placeholder starting at ``position`` is, skipping CEL
    string literals (``'...'``, ``"..."``, with backslash escapes)."""
    quote: str | None = None
    index = position
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = None
                continue
        elif text.startswith(('"""', "'''"), index):
            quote = text[index : index + 3]
            index += 3
            continue
        elif char in "'\"":
            quote = char
        elif text.startswith(CLOSE, index):
            return index
        index += 1
    return None


@frozen
class MessageTemplate:
    """A parsed template whose placeholders are compiled CEL expressions."""

    parts: tuple[str | CompiledExpr, ...]

    @property
    def expressions(self) -> tuple[CompiledExpr, ...]:
        return tuple(p for p in self.parts if isinstance(p, CompiledExpr))

    def render(self, bound: Any, bindings: Bindings | None) -> str:
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            try:
                out.append(text_of(part.evaluate(bound, bindings)))
            except ExpressionError as exc:
                out.append(f"<error: {exc}>")
        return "".join(out)


def text_of(value: Any) -> str:
    """A placeholder's value as message text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return double_text(value)
    if isinstance(value, list | tuple):
        return ", ".join(text_of(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{text_of(k)}: {text_of(v)}" for k, v in value.items()) + "}"
    if isinstance(value, timedelta):
        return human_seconds(value.total_seconds())
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def double_text(value: float) -> str:
    """A double as CEL's ``string()`` writes it: the shortest digits that read back as the
    same double, in fixed notation for exponents from -4 to 5, else as ``1.5e+07``."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    digits, exponent = _shortest_digits(abs(value))
    sign = "-" if value < 0 else ""
    if -4 <= exponent < 6:
        return f"{sign}{abs(value):.{max(0, len(digits) - 1 - exponent)}f}"
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The significant digits of ``repr(value)`` (positive) and its decimal exponent."""
    mantissa, _, exponent_text = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    fraction = "" if fraction == "0" else fraction
    joined = whole + fraction
    leading = len(joined) - len(joined.lstrip("0"))
    exponent = len(whole) - 1 - leading + (int(exponent_text) if exponent_text else 0)
    return joined.strip("0") or "0", exponent
