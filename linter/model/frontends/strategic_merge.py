"""Kubernetes strategic merge patch of a pod template, remembering where each value was written.

Operators that build pods from a template and a patch (RoleBasedGroup's ``templateRef.patch``
and leader/worker patches) merge them with ``strategicpatch.StrategicMergePatch`` against
``corev1.PodTemplateSpec``
(https://github.com/kubernetes/apimachinery/blob/v0.31.0/pkg/util/strategicpatch/patch.go):
maps merge key by key, a ``null`` deletes the key, lists of named objects merge by their
``patchMergeKey`` (``containers`` by ``name``, ``env`` by ``name``, ``volumeMounts`` by
``mountPath``, ``ports`` by ``containerPort``, as the Kubernetes API types declare them
in https://github.com/kubernetes/api/blob/v0.31.0/core/v1/types.go), and every other list
(``command``, ``args``, ``tolerations``) is replaced whole. ``$patch: delete`` removes a
merged list item and ``$patch: replace`` replaces a map.

``merge`` returns the merged template and, for every path in it, the path in the document
where that value was written: the patch's for a patched key, the template's for an
inherited one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.positions import PathT

# Merge key of each list that merges by key, by the list's field name. The names are
# unique across PodTemplateSpec, so the owning type need not be tracked.
_MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "ports": "containerPort",
    "hostAliases": "ip",
    "resourceClaims": "name",
    "schedulingGates": "name",
}
_DIRECTIVE = "$patch"


def merge(
    base: object, base_at: PathT, patch: object, patch_at: PathT
) -> tuple[object, dict[PathT, PathT]]:
    """``patch`` merged into ``base``, and where each merged path was written.

    ``base_at``/``patch_at`` are the documents' paths of ``base`` and ``patch``."""
    where: dict[PathT, PathT] = {}
    merged = _merge(base, base_at, patch, patch_at, (), "", where)
    return merged, where


def written(value: object, at: PathT, here: PathT, where: dict[PathT, PathT]) -> object:
    """``value`` unchanged, with every path under ``here`` recorded as written at ``at``."""
    where[here] = at
    if isinstance(value, Mapping):
        return {k: written(v, (*at, k), (*here, k), where) for k, v in value.items()}
    if isinstance(value, list):
        return [written(v, (*at, i), (*here, i), where) for i, v in enumerate(value)]
    return value


def _merge(
    base: object,
    base_at: PathT,
    patch: object,
    patch_at: PathT,
    here: PathT,
    field: str,
    where: dict[PathT, PathT],
) -> object:
    if isinstance(patch, Mapping) and patch.get(_DIRECTIVE) == "delete":
        return None  # the map is removed, as null removes it (its key is dropped by the caller)
    if isinstance(base, Mapping) and isinstance(patch, Mapping):
        if patch.get(_DIRECTIVE) == "replace":
            return written(_without_directives(patch), patch_at, here, where)
        where[here] = base_at
        out: dict[Any, Any] = {}
        for key, value in base.items():
            if key in patch:
                continue
            out[key] = written(value, (*base_at, key), (*here, key), where)
        for key, value in patch.items():
            if isinstance(key, str) and key.startswith("$"):
                continue  # a directive ($patch, $setElementOrder/...), not a field
            if value is None:
                continue  # null deletes the key
            if key in base:
                merged = _merge(
                    base[key],
                    (*base_at, key),
                    value,
                    (*patch_at, key),
                    (*here, key),
                    str(key),
                    where,
                )
                if merged is not None:
                    out[key] = merged
            elif not (isinstance(value, Mapping) and value.get(_DIRECTIVE) == "delete"):
                out[key] = written(value, (*patch_at, key), (*here, key), where)
        return out
    if isinstance(base, list) and isinstance(patch, list) and field in _MERGE_KEYS:
        return _merge_list(base, base_at, patch, patch_at, here, _MERGE_KEYS[field], where)
    return written(patch, patch_at, here, where)


def _merge_list(
    base: list[Any],
    base_at: PathT,
    patch: list[Any],
    patch_at: PathT,
    here: PathT,
    key: str,
    where: dict[PathT, PathT],
) -> list[Any]:
    where[here] = base_at
    # (value, where it was written) per item, base order first, new patch items after.
    items: list[tuple[object, PathT, object, PathT] | None] = [
        (item, (*base_at, i), None, ()) for i, item in enumerate(base)
    ]
    # A {$patch: replace} item replaces the whole list with the patch's other items.
    if any(isinstance(item, Mapping) and item.get(_DIRECTIVE) == "replace" for item in patch):
        where[here] = patch_at
        kept = [
            (j, item)
            for j, item in enumerate(patch)
            if not (isinstance(item, Mapping) and item.get(_DIRECTIVE) == "replace")
        ]
        return [
            written(_without_directives(item), (*patch_at, j), (*here, index), where)
            for index, (j, item) in enumerate(kept)
        ]
    for j, item in enumerate(patch):
        name = item.get(key) if isinstance(item, Mapping) else None
        found = next(
            (
                n
                for n, entry in enumerate(items)
                if entry is not None
                and isinstance(entry[0], Mapping)
                and name is not None
                and entry[0].get(key) == name
            ),
            None,
        )
        deleting = isinstance(item, Mapping) and item.get(_DIRECTIVE) == "delete"
        if found is not None:
            entry = items[found]
            assert entry is not None
            items[found] = None if deleting else (entry[0], entry[1], item, (*patch_at, j))
        elif not deleting:
            items.append((None, (), item, (*patch_at, j)))
    out: list[Any] = []
    for entry in items:
        if entry is None:
            continue
        value, value_at, patched, patched_at = entry
        index = len(out)
        if patched is None:
            out.append(written(value, value_at, (*here, index), where))
        elif value is None:
            out.append(written(_without_directives(patched), patched_at, (*here, index), where))
        else:
            out.append(_merge(value, value_at, patched, patched_at, (*here, index), "", where))
    return out


def _without_directives(value: object) -> object:
    if isinstance(value, Mapping):
        return {k: v for k, v in value.items() if not (isinstance(k, str) and k.startswith("$"))}
    return value
