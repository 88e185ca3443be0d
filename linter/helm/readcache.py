"""What a chart reads and declares, kept in the user's cache folder between runs.

Reading a chart's templates costs tens of milliseconds (about 40 ms for
production-stack's), which the pre-commit hook would pay on every commit although
charts rarely change. The summary of a reading is stored beside the policy cache
(``linter.cachefolder``: same folder, same ``SERVELINT_NO_CACHE``), keyed by the
chart's real path, the size and modification time of every file in it, servelint's
modules that do the reading, and the Python version. Entries are data only (JSON: a
cache folder someone else could write must never run code, see docs/security.md), read
only from a folder and file that are the user's own and nobody else may write, written to
a temporary file and renamed into place, checked by a checksum when read, and only the
newest are kept.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from linter import digests
from linter.helm.keytree import KeyTree
from linter.helm.podscan import Mark, PodScan
from linter.lightclass import frozen
from linter.sources.chartlayout import is_values_name

_MAGIC = b"servelint-chart-reads-3\n"
KEEP = 32  # entries kept: the charts of a few repositories
_PREFIX = "chart-reads-"
# The modules whose code decides what a reading finds, or whose classes are stored.
_CODE = (
    "gotemplate",
    "reads",
    "chartreads",
    "chartfiles",
    "templatevalues",
    "schemakeys",
    "keytree",
    "readcache",
    "podscan",
)

Stamp = tuple[tuple[str, int, int], ...]


@frozen
class ChartSummary:
    """A chart's reading, without the parsed templates."""

    name: str
    reads: KeyTree
    declared: KeyTree
    has_schema: bool
    renders: bool  # the chart or a subchart has templates
    renders_values: bool  # tpl with the root context: values strings may read keys
    notes: tuple[str, ...]


def signature(directory: str) -> Stamp:
    """What changes when any file the reading depends on changes. The values files beside
    ``Chart.yaml`` are left out: they are what is being edited, and no template reads
    them as templates."""
    out = []
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if root == directory and is_values_name(name):
                continue
            path = os.path.join(root, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            out.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def load(real: str, stamp: Stamp) -> ChartSummary | None:
    """The stored summary of the chart at ``real`` as ``stamp`` describes it, or None."""
    found = _load((real, stamp))
    return found if isinstance(found, ChartSummary) else None


def load_value_reads(real: str, stamp: Stamp, texts: tuple[str, ...]) -> KeyTree | None:
    """What the values strings ``texts`` read when the chart renders them with tpl."""
    found = _load((real, stamp, texts))
    return found if isinstance(found, KeyTree) else None


def store_value_reads(real: str, stamp: Stamp, texts: tuple[str, ...], tree: KeyTree) -> None:
    _store((real, stamp, texts), tree)


def load_pod_scan(real: str, stamp: Stamp) -> PodScan | None:
    """What the chart's templates say about /dev/shm and its kin (``podscan.py``)."""
    found = _load((real, stamp, "pod-scan"))
    return found if isinstance(found, PodScan) else None


def store_pod_scan(real: str, stamp: Stamp, scan: PodScan) -> None:
    _store((real, stamp, "pod-scan"), scan)


def _load(key: tuple[object, ...]) -> object:
    from linter.cachefolder import read_checked

    path = _entry(key)
    body = None if path is None else read_checked(path, _MAGIC)
    if body is None:
        return None
    try:
        return _decode(json.loads(bytes(body)))
    except (ValueError, KeyError, TypeError):
        return None  # damaged or from another version: read the chart again


def store(real: str, stamp: Stamp, summary: ChartSummary) -> None:
    """Store ``summary``; a cache folder that cannot be written costs only a re-read."""
    _store((real, stamp), summary)


def _store(key: tuple[object, ...], value: object) -> None:
    from linter.cachefolder import write_checked

    path = _entry(key)
    if path is not None:
        body = json.dumps(_encode(value), separators=(",", ":")).encode("utf-8", "surrogatepass")
        write_checked(path, _MAGIC, body, KEEP)


def _entry(key: tuple[object, ...]) -> Path | None:
    from linter.cachefolder import cache_dir

    directory = cache_dir()
    if directory is None:
        return None
    digest = digests.new()
    digest.update(repr((key, _code(), sys.version)).encode("utf-8", "surrogatepass"))
    return directory / f"{_PREFIX}{digest.hexdigest()[:40]}.json"


def _code() -> tuple[tuple[str, int, int], ...]:
    here = Path(__file__).parent
    out = []
    for name in _CODE:
        try:
            stat = (here / f"{name}.py").stat()
        except OSError:
            continue
        out.append((name, stat.st_mtime_ns, stat.st_size))
    return tuple(out)


# The stored shapes, by name: decoding builds only these, from plain JSON values.
_DATACLASSES: dict[str, type] = {"summary": ChartSummary, "pod": PodScan, "mark": Mark}
_TAGS = {cls: tag for tag, cls in _DATACLASSES.items()}


def _encode(value: object) -> object:
    if isinstance(value, KeyTree):
        return {"tree": [value.whole, {k: _encode(c) for k, c in value.children.items()}]}
    if type(value) in _TAGS:
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}  # type: ignore[arg-type]
        return {_TAGS[type(value)]: fields}
    if isinstance(value, tuple):
        return {"tuple": [_encode(item) for item in value]}
    if value is None or isinstance(value, str | int | bool):
        return value
    raise TypeError(f"not storable: {type(value).__name__}")


def _decode(value: object) -> object:
    if value is None or isinstance(value, str | int | bool):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        raise ValueError("not a stored value")
    [(tag, body)] = value.items()
    if tag == "tuple" and isinstance(body, list):
        return tuple(_decode(item) for item in body)
    if tag == "tree" and isinstance(body, list) and len(body) == 2:
        whole, children = body
        if not isinstance(whole, bool) or not isinstance(children, dict):
            raise ValueError("not a key tree")
        tree = KeyTree()
        tree.whole = whole
        for key, child in children.items():
            decoded = _decode(child)
            if not isinstance(decoded, KeyTree):
                raise ValueError("not a key tree")
            tree.children[key] = decoded
        return tree
    cls = _DATACLASSES.get(tag)
    if cls is None or not isinstance(body, dict):
        raise ValueError(f"unknown stored shape {tag!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    if set(body) != names:
        raise ValueError(f"fields of {tag!r} differ")
    return cls(**{name: _decode(item) for name, item in body.items()})
