"""The one conversion of a record to what policies see as ``workload``: plain JSON-ready
data (``cel_data``), the calculators' plain values (``plain``), and the origin of each
path of that data (``origins_of``, ``origins_along``) for locating a finding."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from linter.model.records.located import DROPPED, RECORD_CLASSES, UNSET, Located, Record
from linter.positions import Origin, PathT

# cel-expr-python holds 64-bit integers: a wider one (a computed budget of an absurd
# setting) becomes a float, as JSON readers make it, instead of failing every rule.
_INT64 = 1 << 63


def cel_data(record: Record) -> dict[str, Any]:
    """The record as CEL sees it: JSON-ready data, integers wider than CEL's 64 bits as
    floats (as JSON readers make them) instead of failing every rule, a record met twice
    (the server ``container``, also an entry of ``pod.containers``) as one map."""
    data: dict[str, Any] = _Data().convert(record)
    return data


def origins_of(record: Record) -> dict[PathT, Origin]:
    """The origin of every path of the record's CEL data that has one of its own (for
    ``positions.nearest``, when a finding is located or ``servelint show`` prints)."""
    origins: dict[PathT, Origin] = {}
    _collect_origins(record, (), origins)
    return origins


def origins_along(record: Record, path: PathT) -> dict[PathT, Origin]:
    """The origins of ``path`` and of each of its ancestors, as ``origins_of`` has them:
    all that ``positions.nearest`` needs to locate one finding, without the origin of
    every value of the workload."""
    origins: dict[PathT, Origin] = {}
    node: Any = record
    for end in range(1, len(path) + 1):
        node = _child(node, path[end - 1])
        if node is UNSET:
            break
        if node.__class__ is Located:
            if node.origin is not None:
                origins[path[:end]] = node.origin
            node = node.value
    return origins


def _child(node: Any, key: str | int) -> Any:
    """The value at ``key`` of a record, map or list, as the CEL data names it (``UNSET``:
    there is none)."""
    kind = node.__class__
    if kind in RECORD_CLASSES or isinstance(node, Record):
        state = node.__dict__
        found = state.get(key) if key not in node.SPREAD else None
        if found is not None:
            return found
        for name in node.SPREAD:
            spread = state.get(name)
            if spread and key in spread:
                return spread[key]
        return UNSET
    if kind is dict or isinstance(node, Mapping):
        return node.get(key, UNSET)
    if kind is list or kind is tuple:
        kept = [item for item in node if not _dropped(item)]
        return kept[key] if isinstance(key, int) and 0 <= key < len(kept) else UNSET
    return UNSET


# Exact types of the JSON scalars a record holds (dispatch on the class: a workload has a
# few hundred values, a bulk run millions).
_SCALARS = frozenset({str, bool, float, type(None)})


class _Data:
    """One conversion to plain data: CEL's (``narrow``: integers wider than 64 bits as
    floats) or the calculators' (``plain``). Scalars, plain or located (most of a
    workload's values), are taken inline, without a call: the conversion runs for every
    workload."""

    def __init__(self, *, narrow: bool = True) -> None:
        self.narrow = narrow
        self.seen: dict[int, dict[str, Any]] = {}

    def convert(self, node: Any) -> Any:
        kind = node.__class__
        if kind is Located:
            node = node.value
            kind = node.__class__
        if kind in _SCALARS:
            return node
        if kind is int:
            return float(node) if self.narrow and not -_INT64 <= node < _INT64 else node
        if kind is dict or (kind not in RECORD_CLASSES and isinstance(node, Mapping)):
            return self.entries(node.items(), {})
        if kind is list or kind is tuple:
            items: list[Any] = []
            for item in node:
                inner = item.__class__
                if inner is Located:
                    item = item.value
                    inner = item.__class__
                if inner in _SCALARS or (inner is int and -_INT64 <= item < _INT64):
                    items.append(item)
                elif item is not DROPPED:
                    items.append(self.convert(item))
            return items
        if kind in RECORD_CLASSES or isinstance(node, Record):
            found = self.seen.get(id(node))
            if found is None:
                found = self.seen[id(node)] = self.record(node)
            return found
        return node

    def entries(self, items: Iterable[tuple[Any, Any]], out: dict[Any, Any]) -> dict[Any, Any]:
        """``(key, value)`` pairs into ``out``; a ``DROPPED`` value leaves its key out."""
        for key, item in items:
            kind = item.__class__
            if kind is Located:
                item = item.value
                kind = item.__class__
            if kind in _SCALARS or (kind is int and -_INT64 <= item < _INT64):
                out[key] = item
            elif item is not DROPPED:
                out[key] = self.convert(item)
        return out

    def record(self, node: Record) -> dict[str, Any]:
        spread = node.SPREAD
        fields = _set_fields(node)
        if not spread:
            return self.entries(fields, {})
        pairs: list[tuple[Any, Any]] = []
        for name, value in fields:
            if name in spread:
                pairs.extend(value.items())
            else:
                pairs.append((name, value))
        return self.entries(pairs, {})


def _collect_origins(node: Any, path: PathT, origins: dict[PathT, Origin]) -> None:
    kind = node.__class__
    if kind is Located:
        if node.origin is not None:
            origins[path] = node.origin
        node = node.value
        kind = node.__class__
    if kind in _SCALARS or kind is int:
        return
    if kind is dict or (kind not in RECORD_CLASSES and isinstance(node, Mapping)):
        items: Iterable[tuple[Any, Any]] = node.items()
    elif kind is list or kind is tuple:
        items = enumerate(item for item in node if not _dropped(item))
    elif kind in RECORD_CLASSES or isinstance(node, Record):
        spread = node.SPREAD
        for name, value in _set_fields(node):
            if name in spread:
                _collect_origins(value, path, origins)
            else:
                _collect_origins(value, (*path, name), origins)
        return
    else:
        return
    for key, item in items:
        inner = item.__class__
        if inner is Located:
            value = item.value
            if value.__class__ in _SCALARS or value.__class__ is int or value is DROPPED:
                # A located scalar (most of a workload's values): its origin, no call.
                if item.origin is not None:
                    origins[(*path, key)] = item.origin
                continue
        elif inner in _SCALARS or inner is int:
            continue
        _collect_origins(item, (*path, key), origins)


def _set_fields(node: Record) -> list[tuple[str, Any]]:
    """The fields set on a record (not None), in field order: an unset one is not in the
    instance's dict (a workload's records have about 250 fields, most of them unset)."""
    state = node.__dict__
    return [
        (name, value)
        for name in sorted(state, key=node.ORDER.__getitem__)
        if (value := state[name]) is not None
    ]


def plain(node: Any) -> Any:
    """``node`` without origins, integers as they are (``cel_data`` narrows wide ones):
    the form calculators take."""
    return _Data(narrow=False).convert(node)


def _dropped(item: Any) -> bool:
    return item.__class__ is Located and item.value is DROPPED
