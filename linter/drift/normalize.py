"""Normalisation: both sides of a drift comparison in one canonical form.

Equal settings must never show as drift. The canonical form is:

- keys in snake_case, unit suffixes removed (``timeoutSeconds`` → ``timeout``);
- numbers (and numeric strings) as exact ``Decimal``; durations in seconds; known settings
  parsed in their own unit (:mod:`linter.drift.units`); ``"true"``/``"false"`` as booleans;
- empty values (``null``, ``""``, ``{}``, ``[]``) dropped: absent and empty are the same;
- lists of objects with a unique ``name`` (env, containers, ports) keyed by that name;
- command-line argument lists as a map of flags (``--max-model-len 4096`` →
  ``max_model_len: 4096``), so that args compare with config files;
- a list of one scalar as that scalar (``['m']`` is ``m``);
- set-like lists (``served_model_name``, ``--unordered`` paths) keyed by their values;
- other lists keyed by position, so that a comparison is symmetric.

Every canonical path remembers the original path and value, for locating and display.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from linter.drift import units
from linter.drift.keys import DEVICE_MAPS, SET_KEYS, canonical_key, is_time_key, split_unit
from linter.drift.units import Unit
from linter.lightclass import frozen, mutable
from linter.positions import PathT, format_path

POSITIONAL = "_positional"


class Indexed(dict[int, Any]):
    """A list, keyed by position."""


class SetOf(dict[str, Any]):
    """An unordered list, keyed by each element's canonical text."""


class _Empty:
    pass


EMPTY = _Empty()


@mutable
class Normalized:
    """A canonical tree, and for each canonical path its original path and value."""

    tree: Any
    paths: dict[PathT, PathT]
    raw: dict[PathT, Any]

    def original_path(self, path: PathT) -> PathT | None:
        return self.paths.get(path)


@frozen
class Options:
    """``unordered``: globs of dotted canonical paths whose lists are sets."""

    unordered: tuple[str, ...] = ()


_NO_OPTIONS = Options()


def normalize(value: Any, options: Options = _NO_OPTIONS) -> Normalized:
    result = Normalized(None, {(): ()}, {(): value})
    tree = _Walker(options, result).walk(value, (), (), None, "")
    result.tree = {} if tree is EMPTY else tree
    return result


class _Walker:
    def __init__(self, options: Options, result: Normalized) -> None:
        self.options = options
        self.result = result

    def walk(self, value: Any, orig: PathT, canon: PathT, unit: Unit | None, key: str) -> Any:
        self.result.paths[canon] = orig
        self.result.raw[canon] = value
        if key in DEVICE_MAPS:
            value = device_map(value)
        if isinstance(value, dict):
            return self._mapping(value, orig, canon)
        if isinstance(value, list):
            return self._list(value, orig, canon, unit, key)
        return scalar(value, unit, key)

    def _mapping(self, value: dict[Any, Any], orig: PathT, canon: PathT) -> Any:
        out: dict[str, Any] = {}
        for raw_key, item in value.items():
            name, unit = split_unit(canonical_key(str(raw_key)))
            if name in out:  # two spellings of one key in one map: keep both apart
                name, unit = canonical_key(str(raw_key)) + "~", None
            child = self.walk(item, (*orig, raw_key), (*canon, name), unit, name)
            if child is not EMPTY:
                out[name] = child
        return out or EMPTY

    def _list(
        self, value: list[Any], orig: PathT, canon: PathT, unit: Unit | None, key: str
    ) -> Any:
        if not value:
            return EMPTY
        if _is_named_list(value):
            out: dict[str, Any] = {}
            for index, item in enumerate(value):
                rest = {k: v for k, v in item.items() if k != "name"}
                child = self.walk(rest, (*orig, index), (*canon, item["name"]), None, "")
                out[item["name"]] = {} if child is EMPTY else child
            return out
        if _is_args(value):
            return self._args(value, orig, canon)
        if len(value) == 1 and not isinstance(value[0], dict | list):
            # One value, written alone or as a one-item list: vLLM logs --api-key k as
            # ['k'] and --served-model-name m as ['m'] where a values file has the text.
            return self.walk(value[0], orig, canon, unit, key)
        if key in SET_KEYS or self._unordered(canon):
            members = SetOf()
            for index, item in enumerate(value):
                probe = scalar(item, unit, key) if not isinstance(item, dict | list) else item
                text = _member_text(probe)
                members[text] = self.walk(item, (*orig, index), (*canon, text), unit, key)
            return members
        return Indexed(
            {
                i: self._item(item, (*orig, i), (*canon, i), unit, key)
                for i, item in enumerate(value)
            }
        )

    def _item(self, value: Any, orig: PathT, canon: PathT, unit: Unit | None, key: str) -> Any:
        child = self.walk(value, orig, canon, unit, key)
        return None if child is EMPTY else child  # a position is kept even when empty

    def _args(self, value: list[Any], orig: PathT, canon: PathT) -> dict[str, Any]:
        out: dict[str, Any] = {}
        positional: list[tuple[int, Any]] = []
        index = 0
        while index < len(value):
            arg = value[index]
            if not _is_flag(arg):
                positional.append((index, arg))
                index += 1
                continue
            flag, has_value, inline = str(arg).partition("=")
            name = canonical_key(flag)
            flag_value: Any = inline
            if not has_value:
                if index + 1 < len(value) and not _is_flag(value[index + 1]):
                    index += 1
                    flag_value = value[index]
                elif name.startswith("no_") and len(name) > 3:
                    name, flag_value = name[3:], False  # --no-enable-x is enable_x: false
                else:
                    flag_value = True
            name, unit = split_unit(name)
            child = self.walk(flag_value, (*orig, index), (*canon, name), unit, name)
            out[name] = True if child is EMPTY else child
            index += 1
        if positional:
            out[POSITIONAL] = Indexed(
                {
                    i: self._item(arg, (*orig, at), (*canon, POSITIONAL, i), None, "")
                    for i, (at, arg) in enumerate(positional)
                }
            )
        return out

    def _unordered(self, canon: PathT) -> bool:
        text = format_path(canon)
        return any(fnmatch.fnmatchcase(text, pattern) for pattern in self.options.unordered)


def scalar(value: Any, unit: Unit | None, key: str) -> Any:
    """The canonical form of one scalar, in the unit of its setting when it is known."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return EMPTY
    if unit is not None:
        parsed = units.parse(value, unit)
        if parsed is not None:
            return parsed
        if isinstance(value, str):
            return value.strip()  # not in the setting's unit: never guess another one
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # nan never equals itself; compare its spelling instead
    if isinstance(value, int | float):
        return units.number(value)
    if not isinstance(value, str):
        return str(value)
    return _generic_string(value.strip(), key)


def _generic_string(text: str, key: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    plain = units.number(text)
    if plain is not None:
        return plain
    # "5m" is five minutes under a time-like key, 0.005 (a quantity) anywhere else.
    if not (text.endswith("m") and not is_time_key(key)):
        seconds = units.duration_seconds(text)
        if seconds is not None:
            return seconds
    parsed = units.quantity(text)
    return parsed if parsed is not None else text


def device_map(value: Any) -> Any:
    """``0:67108864``, ``['0:67108864', '1:...']`` and ``{0: 67108864}`` as one map from
    the device (text) to its value; anything else as it is."""
    items = value if isinstance(value, list) else [value]
    if isinstance(value, dict):
        return {str(device): size for device, size in value.items()}
    out: dict[str, Any] = {}
    for item in items:
        device, colon, size = str(item).partition(":") if isinstance(item, str) else ("", "", "")
        if not (colon and device.strip().isdigit() and size.strip()):
            return value
        out[device.strip()] = size.strip()
    return out


def _is_named_list(value: list[Any]) -> bool:
    if not all(isinstance(v, dict) and isinstance(v.get("name"), str) for v in value):
        return False
    names = [v["name"] for v in value]
    return len(set(names)) == len(names)


def _is_flag(arg: object) -> bool:
    return (
        isinstance(arg, str) and arg.startswith("-") and len(arg) > 1 and units.number(arg) is None
    )


def _is_args(value: list[Any]) -> bool:
    return all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value) and any(
        _is_flag(v) for v in value
    )


def _member_text(value: Any) -> str:
    if isinstance(value, Decimal):
        return format(value.normalize(), "f") if value == value.to_integral_value() else str(value)
    return str(value)


def get(tree: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in a plain tree, or EMPTY."""
    node = tree
    for part in path:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            continue
        if not (isinstance(node, dict) and part in node):
            return EMPTY
        node = node[part]
    return node
