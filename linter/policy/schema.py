"""Validate policy (and other servelint) files against their packaged JSON Schemas.

jsonschema is imported here only, and only when a user-supplied file needs validating:
its import costs more than a whole hook run over built-in policies.
"""

from __future__ import annotations

from typing import Any

from linter._resources import load_schema
from linter.parsing.documents import Document
from linter.positions import format_path


def schema_errors(document: Document, schema_name: str) -> list[str]:
    """``line:col: what is wrong`` for every violation, sorted by position."""
    import jsonschema

    validator_cls: Any = jsonschema.Draft202012Validator
    validator = validator_cls(load_schema(schema_name))
    messages: list[tuple[int, int, str]] = []
    for error in validator.iter_errors(document.data):
        path = tuple(error.absolute_path)
        span = document.span(path)
        where = format_path(path) or "(top level)"
        messages.append((span.line, span.column, f"{where}: {_describe(error)}"))
    return [f"{line}:{col}: {text}" for line, col, text in sorted(messages)]


def _describe(error: Any) -> str:
    if error.validator == "oneOf" and error.schema.get("oneOf"):
        required = [" or ".join(option.get("required", [])) for option in error.schema["oneOf"]]
        return f"needs exactly one of: {', '.join(required)}"
    if error.validator == "additionalProperties":
        return str(error.message).replace("Additional properties are not allowed", "unknown key")
    return str(error.message)
