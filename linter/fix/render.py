"""New YAML text for a fix's values, in the block or flow style of the place it goes."""

from __future__ import annotations

import json
import re
from typing import Any

# A string written plain only when YAML reads it back as that same string: no
# indicator, no number, boolean or null look-alike.
_PLAIN = re.compile(r"^[A-Za-z/_][A-Za-z0-9/._-]*$")
_NOT_STRINGS = frozenset(
    {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
)


def scalar(value: Any, style: str | None = None) -> str:
    """``value`` as a YAML scalar; ``style`` is the quote of the scalar it replaces (a
    quoted number stays a quoted string)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float)):
        text = str(value)
    else:
        text = str(value)
        if style is None and not _plain_string(text):
            return json.dumps(text)
    if style == '"':
        return json.dumps(text)
    if style == "'":
        return "'" + text.replace("'", "''") + "'"
    return text


def _plain_string(text: str) -> bool:
    return bool(_PLAIN.match(text)) and text.lower() not in _NOT_STRINGS


def block(entries: dict[str, Any], indent: str, step: str = "  ") -> list[str]:
    """``entries`` as block mapping lines, each starting with ``indent``."""
    lines: list[str] = []
    for key, value in entries.items():
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{key}:")
            lines.extend(block(value, indent + step, step))
        else:
            lines.append(f"{indent}{key}: {flow(value)}")
    return lines


def flow(value: Any) -> str:
    """``value`` in flow style: ``{path: /health, port: 8000}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)
