"""The repository a wrapper lives in: its root, its charts and the objects it defines.

A wrapper names what it needs by reference: a chart folder relative to the root of the
repository (Flux ``GitRepository``, Argo CD ``path``), a ConfigMap or Secret by name. The
root is the nearest folder above the wrapper holding ``.git``; without one, the working
folder when the wrapper is below it, else the wrapper's own folder. Objects are looked
for in the wrapper's own file first, then in the YAML files of the repository (hidden
folders skipped, at most ``MAX_FILES`` files, each read only when its text names the
object), so a ConfigMap written beside the release or in a ``configs/`` folder is found.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from linter.lightclass import frozen
from linter.parsing import bounded
from linter.parsing.documents import Document, ParsedFile, parse_yaml
from linter.sources.wrappers import repository_root

MAX_FILES = 5000
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "vendor"})


@frozen
class Found:
    """An object of the repository and the file it was read from."""

    parsed: ParsedFile
    document: Document


# The root as the dependency-aware hook finds it, so that both agree on a wrapper's
# repository (``sources/wrappers.py``).
root_of = repository_root


def shown(path: Path) -> str:
    """``path`` relative to the working folder when below it, as inputs are spelled."""
    try:
        # realpath, not Path.resolve: a symlink loop must not raise (RuntimeError).
        return str(Path(os.path.realpath(path)).relative_to(os.path.realpath(Path.cwd())))
    except ValueError:
        return str(path)


def chart_folder(root: Path, relative: str) -> Path | None:
    """The chart at ``relative`` (from the root), when that folder holds a ``Chart.yaml``."""
    folder = Path(os.path.realpath(root / relative.lstrip("/")))
    if Path(os.path.realpath(root)) not in (folder, *folder.parents):
        return None  # ../ out of the repository: not this repository's chart
    return folder if (folder / "Chart.yaml").is_file() else None


def find_object(own: ParsedFile, kind: str, name: str, namespace: str | None) -> Found | None:
    """The object ``kind``/``name`` in ``own`` or else in the repository of ``own``."""
    found = _in_file(own, kind, name, namespace)
    if found is not None:
        return found
    own_path = os.path.abspath(own.source)
    for path in yaml_files(root_of(own.source)):
        if str(path) == own_path:
            continue
        parsed = _read(path, kind, name)
        if parsed is not None and (found := _in_file(parsed, kind, name, namespace)):
            return found
    return None


def _in_file(parsed: ParsedFile, kind: str, name: str, namespace: str | None) -> Found | None:
    for document in parsed.documents:
        if _is(document.data, kind, name, namespace):
            return Found(parsed, document)
    return None


def _is(data: Any, kind: str, name: str, namespace: str | None) -> bool:
    if not isinstance(data, dict) or data.get("kind") != kind:
        return False
    meta = data.get("metadata")
    if not isinstance(meta, dict) or meta.get("name") != name:
        return False
    # Kustomize often sets the namespace of a folder: an object without one may be it.
    theirs = meta.get("namespace")
    return namespace is None or theirs is None or theirs == namespace


def _read(path: Path, kind: str, name: str) -> ParsedFile | None:
    try:
        text = bounded.read_text(path)
    except (OSError, UnicodeDecodeError):  # bounded.InputRefused is an OSError
        return None
    if kind not in text or name not in text:
        return None
    return parse_yaml(shown(path), text)


@functools.cache
def yaml_files(root: Path) -> tuple[Path, ...]:
    """The YAML files of the repository at ``root`` (at most ``MAX_FILES``)."""
    return tuple(_walk(root))


def _walk(root: Path) -> Iterator[Path]:
    count = 0
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and f not in _SKIPPED_FOLDERS
        )
        for filename in sorted(files):
            if filename.endswith((".yaml", ".yml")):
                count += 1
                if count > MAX_FILES:
                    return
                yield Path(folder, filename)
