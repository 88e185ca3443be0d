"""Which documents are GitOps wrappers of a chart (``linter/gitops/``). A leaf module:
the run asks it about every input, so it imports nothing, and the wrappers' readers load
only when one is found; the serving model's extractors leave wrappers to them.
"""

from __future__ import annotations

import functools
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FLUX_HELM = "helm.toolkit.fluxcd.io/"
ARGO = "argoproj.io/"
HELM_RELEASE = "HelmRelease"
APPLICATION = "Application"
APPLICATION_SET = "ApplicationSet"
# The names Kustomize looks for in a folder (kustomize's konfig.RecognizedKustomizationFileNames).
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def wrapper_kind(data: Any) -> str | None:
    """``HelmRelease``, ``Application`` or ``ApplicationSet`` for a wrapper; None otherwise."""
    if not isinstance(data, dict):
        return None
    kind, api = data.get("kind"), data.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return None
    if kind == HELM_RELEASE and api.startswith(FLUX_HELM):
        return kind
    if kind in (APPLICATION, APPLICATION_SET) and api.startswith(ARGO):
        return kind
    return None


def any_wrapper(documents: Iterable[Any]) -> bool:
    """Whether any of the documents' data is a wrapper."""
    return any(wrapper_kind(data) is not None for data in documents)


def is_kustomization(source: str) -> bool:
    """Whether the file ``source`` is a folder's kustomization (``linter/gitops/kustomize.py``)."""
    return os.path.basename(source) in KUSTOMIZATION_FILES


# A wrapper's apiVersion within the first bytes of a file: how a repository's wrappers are
# found without parsing every file (``wrapper_files``).
_MARKER = re.compile(rb"apiVersion:\s*[\"']?(?:helm\.toolkit\.fluxcd\.io|argoproj\.io)/")
HEAD_BYTES = 4096
MAX_FILES = 5000


def repository_root(path: str) -> Path:
    """The nearest folder above ``path`` holding ``.git``; without one, the working folder
    when ``path`` is below it, else the file's folder (``linter/gitops/repo.py`` reads
    wrappers' references from it)."""
    folder = Path(os.path.abspath(path)).parent
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    cwd = Path.cwd()
    return cwd if folder == cwd or cwd in folder.parents else folder


def wrapper_files(root: Path) -> tuple[Path, ...]:
    """The YAML files of the repository at ``root`` whose first bytes name a wrapper's
    apiVersion (hidden folders skipped, at most ``MAX_FILES`` files looked at)."""
    return _scan(root)[0]


def kustomization_files(root: Path) -> tuple[Path, ...]:
    """The kustomizations of the repository at ``root``, found by the same walk."""
    return _scan(root)[1]


@functools.cache
def _scan(root: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    found: list[Path] = []
    kustomizations: list[Path] = []
    count = 0
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith(".") and f != "node_modules")
        for filename in sorted(files):
            if filename in KUSTOMIZATION_FILES:
                kustomizations.append(Path(folder, filename))
            if not filename.endswith((".yaml", ".yml")):
                continue
            count += 1
            if count > MAX_FILES:
                return tuple(found), tuple(kustomizations)
            path = Path(folder, filename)
            if _names_wrapper(path):
                found.append(path)
    return tuple(found), tuple(kustomizations)


def _names_wrapper(path: Path) -> bool:
    # Opened without blocking and read only when a regular file: a FIFO named *.yaml in
    # the repository must not hang the run (as parsing/bounded.py reads inputs).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return False
        return _MARKER.search(os.read(descriptor, HEAD_BYTES)) is not None
    except OSError:
        return False
    finally:
        os.close(descriptor)
