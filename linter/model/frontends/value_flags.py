"""Flags written in values keys: judged where they are shown to reach the server as written.

A chart passes a values list such as ``extraArgs`` into the container's args, and then
the server's parser reads its flags exactly as a manifest's. The values reading (the
pre-commit hook, a PreSync job: no helm) can only be sure of that where a chart profile
says so (its ``list`` rules) or the chart's templates visibly do it
(``linter/helm/argscan.py``). Flags from such a key are marked ``key_reaches``, and the
``<server>/flag-not-accepted`` rules judge them on the values lines. Flags from any other
key are named in ``engine.unjudged_flags``, a coverage gap: a false error is worse than a
flag not judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from linter.model.frontends.values_sections import ARG_KEYS
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT, format_path

_Place = tuple[str, int, int]


def mark_reaching(workloads: Iterable[Workload], origins: Iterable[Origin]) -> None:
    """Mark the flags written at ``origins`` (items of keys shown to reach the server)."""
    places = {_place(o) for o in origins}
    for workload in workloads:
        for item in _flags(workload):
            if _place(item.origin) in places:
                item.value.key_reaches = True


def mark_compose_command(workloads: Iterable[Workload]) -> None:
    """Mark every command-line flag of Compose services: Compose runs the service's
    ``entrypoint`` and ``command`` as the container's argv, with no template between
    (https://docs.docker.com/reference/compose-file/services/#command)."""
    for workload in workloads:
        for item in _flags(workload):
            if item.value.command_line:
                item.value.key_reaches = True


def key_origins(data: Any, locate: Locate, path: PathT) -> list[Origin]:
    """Where the words of the values key at ``path`` are written: each item of a list,
    the key itself for a string (its words share its line)."""
    value = value_at(data, path)
    if isinstance(value, list):
        return [locate((*path, i)) for i, v in enumerate(value) if not isinstance(v, dict | list)]
    if isinstance(value, str):
        return [locate(path)]
    return []


def arg_keys(data: Any, base: PathT = ()) -> Iterator[PathT]:
    """Every values key named like a server's arguments (``extraArgs``, ``args``, …)."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            path = (*base, str(key))
            if key in ARG_KEYS and isinstance(value, list | str):
                yield path
            else:
                yield from arg_keys(value, path)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from arg_keys(value, (*base, index))


def note_unjudged(
    workloads: Iterable[Workload], data: Any, locate: Locate, reaches: Callable[[PathT], bool]
) -> None:
    """Mark the flags of keys ``reaches`` accepts; name each other key that holds a flag
    not judged otherwise in ``engine.unjudged_flags`` (its coverage gap)."""
    keys = list(arg_keys(data))
    for workload in workloads:
        flags = [f for f in _flags(workload) if not f.value.key_reaches]
        engine = workload.record.engine
        if engine is None or workload.record.source.value != "helm-values":
            continue
        engine.value.unjudged_flags = None
        if not flags:
            continue
        unjudged: dict[str, Located[str]] = {}
        for path in keys:
            places = {_place(o) for o in key_origins(data, locate, path)}
            mine = [f for f in flags if _place(f.origin) in places]
            if not mine:
                continue
            if reaches(path):
                for item in mine:
                    item.value.key_reaches = True
            else:
                name = format_path(path)
                unjudged[name] = Located(name, locate(path))
        if unjudged:
            first = next(iter(unjudged.values()))
            engine.value.unjudged_flags = Located(unjudged, first.origin)


def _flags(workload: Workload) -> list[Located[Any]]:
    engine = workload.record.engine
    found = engine.value.cli_flags if engine is not None else None
    return list(found.value) if found is not None else []


def _place(origin: Origin | None) -> _Place:
    return (origin.source, origin.line, origin.column) if origin is not None else ("", 0, 0)


def value_at(data: Any, path: PathT) -> Any:
    for part in path:
        found = isinstance(part, int) and isinstance(data, list) and part < len(data)
        if not (found or (isinstance(data, Mapping) and part in data)):
            return None
        data = data[part]
    return data
