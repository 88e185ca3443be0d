"""New YAML text for a fix's values, in the block or flow style of the place it goes."""

from __future__ import annotations

import json
import re
from typing import Any

# A string written plain only when YAML (1.1 or 1.2) reads it back as that same string:
# no indicator, no number, date, boolean or null look-alike. ``8Gi`` and ``/health`` are.
_PLAIN = re.compile(r"^[A-Za-z0-9/_][A-Za-z0-9/._-]*$")
_NOT_PLAIN = re.compile(
    r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|0[xXoObB][0-9a-fA-F_]+"
    r"|\.(?:inf|nan)|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$"
)
_NOT_STRINGS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


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
    return (
        bool(_PLAIN.match(text)) and not _NOT_PLAIN.match(text) and text.lower() not in _NOT_STRINGS
    )


# A fix's map comes from CEL, which keeps no key order: keys are written in the order
# Kubernetes documents them, then alphabetically, so that a fix is the same on every run.
_FIRST = (
    "name",
    "key",
    "medium",
    "sizeLimit",
    "secretKeyRef",
    "httpGet",
    "tcpSocket",
    "grpc",
    "exec",
    "path",
    "port",
    "initialDelaySeconds",
    "periodSeconds",
    "timeoutSeconds",
    "failureThreshold",
)


def ordered(entries: dict[str, Any]) -> list[tuple[str, Any]]:
    rank = {key: index for index, key in enumerate(_FIRST)}
    return sorted(entries.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0]))


def block(entries: dict[str, Any], indent: str, step: str = "  ") -> list[str]:
    """``entries`` as block mapping lines, each starting with ``indent``."""
    lines: list[str] = []
    for key, value in ordered(entries):
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{key}:")
            lines.extend(block(value, indent + step, step))
        else:
            lines.append(f"{indent}{key}: {flow(value)}")
    return lines


def flow(value: Any) -> str:
    """``value`` in flow style: ``{path: /health, port: 8000}``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in ordered(value)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)
