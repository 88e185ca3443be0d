"""Validate servelint's own data files (configuration, policy tests) against their schemas.

Every message is ``line:col: where: what is wrong``. An unknown key points at the key
itself, not at the mapping that holds it: that is the line the user has to change.
jsonschema is imported here only, when such a file exists.
"""

from __future__ import annotations

import functools
from typing import Any

from linter._resources import load_schema
from linter.parsing.documents import Document
from linter.positions import PathT, format_path

_BASE = "https://servelint.dev/schemas/"


def schema_errors(document: Document, schema_name: str) -> list[str]:
    """Every violation of ``schema_name`` in ``document``, sorted by position."""
    import jsonschema

    validator_cls: Any = jsonschema.Draft202012Validator
    validator = validator_cls(load_schema(schema_name), registry=_registry())
    messages: set[tuple[int, int, str]] = set()
    for error in validator.iter_errors(document.data):
        for path, text in _explain(error):
            span = document.span(path)
            messages.add((span.line, span.column, f"{format_path(path) or '(top level)'}: {text}"))
    return [f"{line}:{col}: {text}" for line, col, text in sorted(messages)]


def _explain(error: Any) -> list[tuple[PathT, str]]:
    path: PathT = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        unknown = [key for key in error.instance if key not in allowed]
        hint = f" (known keys: {', '.join(sorted(allowed))})" if allowed else ""
        return [((*path, key), f"unknown key '{key}'{hint}") for key in unknown]
    if error.validator == "oneOf" and not any("required" in o for o in error.schema["oneOf"]):
        return [
            (
                path,
                f"{_shown(error.instance)} is not valid: {error.schema.get('description', '')}".rstrip(
                    ": "
                ),
            )
        ]
    if error.validator == "oneOf":
        options = [" or ".join(o.get("required", [])) for o in error.schema["oneOf"]]
        return [(path, f"needs exactly one of: {', '.join(options)}")]
    if error.validator == "not" and "description" in error.schema:
        return [(path, str(error.schema["description"]))]
    if error.validator == "pattern" and error.schema.get("pattern") == "\\S":
        return [(path, "must not be empty")]
    if error.validator == "pattern" and "description" in error.schema:
        return [(path, f"{_shown(error.instance)} is not valid: {error.schema['description']}")]
    message = str(error.message)
    # jsonschema's message often starts with the instance's repr: a whole mapping, with
    # whatever secrets it holds. A short description takes its place.
    quoted = repr(error.instance)
    if message.startswith(quoted):
        message = _shown(error.instance) + message[len(quoted) :]
    return [(path, message)]


_MAX_SHOWN = 80


def _shown(instance: Any) -> str:
    """A short description of a value for a message: never a whole mapping or list."""
    if isinstance(instance, (dict, list)) and not instance:
        return repr(instance)
    if isinstance(instance, dict):
        return f"a mapping of {len(instance)} key{'s' * (len(instance) != 1)}"
    if isinstance(instance, list):
        return f"a list of {len(instance)} item{'s' * (len(instance) != 1)}"
    text = repr(instance)
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "…"


@functools.cache
def _registry() -> Any:
    """Our schemas by name, so one can ``$ref`` another (policy tests reuse ``model``)."""
    from referencing import Registry, Resource

    resources = [
        (f"{_BASE}{name}", Resource.from_contents(load_schema(name)))
        for name in (
            "config.schema.json",
            "policy.schema.json",
            "policytest.schema.json",
            "models.schema.json",
            "gpus.schema.json",
        )
    ]
    return Registry().with_resources(resources)
