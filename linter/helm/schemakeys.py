"""The values keys a chart's ``values.schema.json`` declares.

A key is declared when a ``properties`` entry names it, or when ``patternProperties`` or
an ``additionalProperties`` schema (or ``true``, written out) admits every key at that
level; ``items`` declares the items of a list. ``allOf``/``anyOf``/``oneOf``,
``if``/``then``/``else`` and local ``$ref`` (``#/definitions/x``, ``#/$defs/x``) are
followed. A schema that constrains a map without naming its keys, or a ``$ref`` to
another document, declares everything under it: the reading cannot tell.
"""

from __future__ import annotations

from typing import Any

from linter.helm.keytree import ANY, KeyTree

_MAX_DEPTH = 64
_COMBINERS = ("allOf", "anyOf", "oneOf", "then", "else")


def declare(schema: Any, tree: KeyTree, prefix: tuple[str, ...]) -> None:
    """Add what ``schema`` (the schema of the values at ``prefix``) declares to ``tree``."""
    if isinstance(schema, dict):
        _declare(schema, schema, tree, prefix, 0)


def _declare(
    node: Any, document: dict[str, Any], tree: KeyTree, path: tuple[str, ...], depth: int
) -> None:
    if not isinstance(node, dict) or depth > _MAX_DEPTH:
        return
    named = False
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = _resolve(ref, document)
        if target is None:
            tree.add(path, whole=True)
            return
        named = True
        _declare(target, document, tree, path, depth + 1)
    properties = node.get("properties")
    if isinstance(properties, dict):
        named = True
        for key, sub in properties.items():
            tree.add((*path, str(key)))
            _declare(sub, document, tree, (*path, str(key)), depth + 1)
    patterns = node.get("patternProperties")
    for sub in patterns.values() if isinstance(patterns, dict) else ():
        named = True
        tree.add((*path, ANY))
        _declare(sub, document, tree, (*path, ANY), depth + 1)
    extra = node.get("additionalProperties")
    if extra is True or isinstance(extra, dict):
        named = True
        tree.add((*path, ANY), whole=extra is True)
        _declare(extra, document, tree, (*path, ANY), depth + 1)
    items = node.get("items")
    if isinstance(items, dict):
        named = True
        tree.add((*path, ANY))
        _declare(items, document, tree, (*path, ANY), depth + 1)
    for combiner in _COMBINERS:
        parts = node.get(combiner)
        for part in parts if isinstance(parts, list) else [parts]:
            if isinstance(part, dict):
                named = True
                _declare(part, document, tree, path, depth + 1)
    if not named and path and extra is not False and _is_open_map(node):
        tree.add(path, whole=True)  # a map the schema does not spell out


def _is_open_map(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "object" in kinds or kind is None


def _resolve(ref: str, document: dict[str, Any]) -> Any:
    if not ref.startswith("#"):
        return None
    node: Any = document
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node
