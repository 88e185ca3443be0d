"""Info answers as people save them: JSON, JSON lines, a Python print, PHP ``print_r``.

An answer is often kept the way a client printed it: ``huggingface_hub`` returns TGI's
``/info`` as a dict (printed with single quotes and ``None``), PHP clients ``print_r`` it
(``Array ( [model_id] => ... )``), vLLM writes its usage records one JSON object a line.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

from linter.drift.live import literal

_PRINT_R_OPEN = re.compile(r"^Array\s*\(")
_PRINT_R_ROW = re.compile(r"^\s*\[(?P<key>[^\]]+)\] => ?(?P<value>.*)$")


def read(text: str) -> tuple[Any, str] | None:
    """The document and the form it was written in, or None when it is none of these."""
    stripped = text.strip()
    if not stripped:
        return None
    if stripped[0] in "{[":
        try:
            return json.loads(stripped), "JSON"
        except ValueError:
            pass
        records = _json_lines(stripped)
        if records is not None:
            return records, "JSON lines"
        if stripped[-1] not in "}]":
            return None  # a log that starts with "[2025-..." (SGLang), not a printed dict
        try:
            value = literal.parse(textwrap.dedent(stripped))
        except literal.LiteralError:
            return None
        return (value, "Python repr") if isinstance(value, dict | list) else None
    if _PRINT_R_OPEN.match(re.sub(r"\s+", " ", stripped[:12]).replace(" ", "")):
        return _print_r(stripped.split("\n")), "PHP print_r"
    return None


def _json_lines(text: str) -> list[Any] | None:
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < 2:
        return None
    try:
        return [json.loads(line) for line in lines]
    except ValueError:
        return None


def _print_r(lines: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for line in lines[1:]:
        match = _PRINT_R_ROW.match(line)
        if match:
            value = match["value"].strip()
            out[match["key"]] = _scalar(value) if value else None  # print_r shows null as ""
    return out


def _scalar(text: str) -> Any:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return text
