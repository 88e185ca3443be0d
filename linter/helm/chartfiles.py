"""A chart's files as a static reading of its templates needs them, subcharts included.

A chart is a folder or, under ``charts/``, a ``.tgz`` archive (what ``helm dependency
build`` writes). Each subchart's values sit under its name, or its ``alias`` in the
parent's ``Chart.yaml`` ``dependencies`` (Helm's chartutil ``CoalesceValues``); a
dependency that is declared but not vendored is ``missing``: its values cannot be judged.
Library charts (``type: library``) only define named templates; Helm renders none of
their files.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterator
from typing import Any

from linter.lightclass import frozen, mutable
from linter.parsing import bounded
from linter.parsing.documents import parse_yaml
from linter.sources import repository

_MAX_FILE = 2 * 1024 * 1024  # a template larger than this is not a template
_MAX_DEPTH = 8  # subcharts of subcharts
# A chart's templates, subcharts included, read statically in all: each megabyte costs
# seconds and some 50 MB to read, and twenty templates of 2 MB took 1.1 GB (issue 31).
# The largest public charts (dashboards kept as templates) stay well below.
MAX_CHART_BYTES = 4 * 1024 * 1024
# A packaged subchart: its members and their size once unpacked, counted from the
# archive's headers before anything is unpacked (a 1 MB .tgz of zeros unpacks to 1 GB).
_MAX_MEMBERS = 1000
_MAX_UNPACKED = MAX_CHART_BYTES


@frozen
class ChartFiles:
    name: str
    label: str  # for messages: the folder or archive
    key: tuple[str, ...]  # where its values sit in the top chart's values
    library: bool
    templates: tuple[tuple[str, str], ...]  # (file name for messages, text)
    schema: Any
    conditions: tuple[str, ...]  # dependency conditions, dotted, in this chart's values
    missing: tuple[str, ...]  # keys of dependencies that are not vendored
    subcharts: tuple[ChartFiles, ...]
    problems: tuple[str, ...]  # what could not be read, for a note
    # The chart's other files (what .Files serves, by name inside the chart), read only
    # when tpl renders one.
    files: tuple[tuple[str, Callable[[], bytes]], ...] = ()

    def walk(self) -> Iterator[ChartFiles]:
        yield self
        for sub in self.subcharts:
            yield from sub.walk()


# A chart's files: relative name -> reader, plus what is under charts/ (name -> reader).
_Reader = Callable[[], bytes]


@frozen
class _Tree:
    label: str
    files: dict[str, _Reader]


def load_chart_files(directory: str) -> ChartFiles:
    """The chart in ``directory`` with its vendored subcharts."""
    return _load(_directory_tree(directory), (), 0, _Budget(MAX_CHART_BYTES))


@mutable
class _Budget:
    """What is left of ``MAX_CHART_BYTES`` for the templates of one chart."""

    left: int


def _directory_tree(directory: str) -> _Tree:
    files: dict[str, _Reader] = {}
    base = directory or "."
    # A link may stay in the repository (a template shared by two charts) but not leave it.
    allowed = (repository.root_of(base), os.path.realpath(base))
    for root, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            path = os.path.join(root, name)
            outside = os.path.islink(path) and not repository.inside(path, allowed)
            reader = _refused(allowed[0]) if outside else _file_reader(path)
            files[os.path.relpath(path, base).replace(os.sep, "/")] = reader
    return _Tree(directory or ".", files)


def _file_reader(path: str) -> _Reader:
    # Regular files only: a template linked to a FIFO or /dev/stdin would block forever.
    return lambda: bounded.read_bytes(path, _MAX_FILE)


def _refused(root: str) -> _Reader:
    def read() -> bytes:
        raise bounded.InputRefused(repository.refusal(root))

    return read


def _archive_tree(label: str, data: bytes) -> _Tree:
    import tarfile  # only charts with packaged subcharts pay for it

    files: dict[str, _Reader] = {}
    unpacked = 0
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        for count, member in enumerate(iter(archive.next, None)):
            if count >= _MAX_MEMBERS:
                raise tarfile.TarError(f"more than {_MAX_MEMBERS} members")
            if not member.isfile() or member.size > _MAX_FILE:
                continue
            unpacked += member.size
            if unpacked > _MAX_UNPACKED:
                raise tarfile.TarError(f"more than {_MAX_UNPACKED} bytes once unpacked")
            _, _, inner = member.name.partition("/")
            handle = archive.extractfile(member)
            if inner and handle is not None:
                files[inner] = _bytes_reader(handle.read(_MAX_FILE + 1))
    return _Tree(label, files)


def _bytes_reader(content: bytes) -> _Reader:
    return lambda: content


def _load(tree: _Tree, key: tuple[str, ...], depth: int, budget: _Budget) -> ChartFiles:
    problems: list[str] = []
    meta = _chart_yaml(tree, problems)
    name = str(meta.get("name") or os.path.basename(tree.label.rstrip("/")))
    templates = []
    skipped = []
    for rel in sorted(n for n in tree.files if n.startswith("templates/")):
        if budget.left < 0:
            skipped.append(f"{tree.label}/{rel}")
            continue
        text = _text(tree, rel, problems)
        if text is not None:
            budget.left -= len(text)
            templates.append((f"{tree.label}/{rel}", text))
    if skipped:
        more = f" and {len(skipped) - 1} more" if len(skipped) > 1 else ""
        problems.append(
            f"{skipped[0]}{more}: the chart's templates are larger than {MAX_CHART_BYTES} "
            "bytes in all"
        )
    subcharts, missing = _subcharts(tree, meta, key, depth, problems, budget)
    return ChartFiles(
        name,
        tree.label,
        key,
        meta.get("type") == "library",
        tuple(templates),
        _schema(tree, problems),
        tuple(_conditions(meta)),
        tuple(missing),
        tuple(subcharts),
        tuple(problems),
        tuple(
            (rel, reader)
            for rel, reader in sorted(tree.files.items())
            if rel.split("/", 1)[0] not in ("templates", "charts")
        ),
    )


def _text(tree: _Tree, rel: str, problems: list[str]) -> str | None:
    try:
        data = tree.files[rel]()
        if len(data) > _MAX_FILE:
            raise bounded.InputRefused("", too_large=True)
        return data.decode("utf-8-sig")
    except bounded.InputRefused as exc:
        reason = f"larger than {_MAX_FILE} bytes" if exc.too_large else str(exc)
        reason = reason.removesuffix("; not read")  # the note says it
        problems.append(f"{tree.label}/{rel}: {reason}")
        return None
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{tree.label}/{rel}: cannot read: {exc}")
        return None


def _chart_yaml(tree: _Tree, problems: list[str]) -> dict[str, Any]:
    text = _text(tree, "Chart.yaml", problems) if "Chart.yaml" in tree.files else None
    if text is None:
        return {}
    parsed = parse_yaml(f"{tree.label}/Chart.yaml", text)
    first = parsed.documents[0].data if parsed.documents else None
    return first if isinstance(first, dict) else {}


def _schema(tree: _Tree, problems: list[str]) -> Any:
    if "values.schema.json" not in tree.files:
        return None
    text = _text(tree, "values.schema.json", problems)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        problems.append(f"{tree.label}/values.schema.json: not JSON: {exc}")
        return None


def _conditions(meta: dict[str, Any]) -> Iterator[str]:
    for dependency in _dependencies(meta):
        condition = dependency.get("condition")
        if isinstance(condition, str):
            yield from (c.strip() for c in condition.split(",") if c.strip())


def _dependencies(meta: dict[str, Any]) -> list[dict[str, Any]]:
    entries = meta.get("dependencies")
    return [d for d in entries if isinstance(d, dict)] if isinstance(entries, list) else []


def _subcharts(
    tree: _Tree,
    meta: dict[str, Any],
    key: tuple[str, ...],
    depth: int,
    problems: list[str],
    budget: _Budget,
) -> tuple[list[ChartFiles], list[str]]:
    vendored = _vendored(tree, problems) if depth < _MAX_DEPTH else {}
    declared = _dependencies(meta)
    charts: list[ChartFiles] = []
    missing: list[str] = []
    used: set[str] = set()
    for dependency in declared:
        name = str(dependency.get("name") or "")
        value_key = str(dependency.get("alias") or name)
        if name in vendored:
            used.add(name)
            charts.append(_load(vendored[name], (*key, value_key), depth + 1, budget))
        elif value_key:
            missing.append(value_key)
    # A chart under charts/ that Chart.yaml does not list is still a dependency (Helm 3).
    for name, sub in vendored.items():
        if name not in used:
            charts.append(_load(sub, (*key, name), depth + 1, budget))
    return charts, missing


def _vendored(tree: _Tree, problems: list[str]) -> dict[str, _Tree]:
    """Subcharts under ``charts/`` by chart name (folders and ``.tgz`` archives)."""
    found: dict[str, _Tree] = {}
    folders: dict[str, dict[str, _Reader]] = {}
    for rel, reader in tree.files.items():
        parts = rel.split("/")
        if len(parts) < 3 or parts[0] != "charts":
            if len(parts) == 2 and parts[0] == "charts" and parts[1].endswith((".tgz", ".tar.gz")):
                archive = _archive(tree, rel, reader, problems)
                if archive is not None:
                    found[_tree_name(archive)] = archive
            continue
        folders.setdefault(parts[1], {})["/".join(parts[2:])] = reader
    for folder, files in folders.items():
        if "Chart.yaml" in files:
            sub = _Tree(f"{tree.label}/charts/{folder}", files)
            found[_tree_name(sub)] = sub
    return found


def _archive(tree: _Tree, rel: str, reader: _Reader, problems: list[str]) -> _Tree | None:
    import tarfile

    try:
        return _archive_tree(f"{tree.label}/{rel}", reader())
    except (OSError, tarfile.TarError, EOFError) as exc:
        problems.append(f"{tree.label}/{rel}: cannot read the archive: {exc}")
        return None


def _tree_name(tree: _Tree) -> str:
    meta = _chart_yaml(tree, [])
    return str(meta.get("name") or os.path.basename(tree.label))
