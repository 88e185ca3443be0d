"""The repository an input belongs to, and the links that lead out of it.

servelint reads what a repository holds, and what the user names on the command line;
nothing else. A symbolic link committed to the repository can point anywhere
(``deploy/values.yaml -> /home/runner/.aws/credentials``), so every file servelint finds
by itself (a folder's walk, a chart's ``values.yaml``, ``values-<env>.yaml``, templates
and files, ``policyDirs``) is read only when its real path stays inside the repository
(issue 31). *The repository* of a path is the nearest folder at or above it that holds
``.git`` (the git top level, found without running git); outside git it is the current
directory when the path is inside it, else the folder named itself. docs/security.md
states the rule.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

GIT = ".git"


def root_of(path: str) -> str:
    """The real path of the repository of ``path`` (a file or a folder)."""
    absolute = os.path.abspath(path)
    start = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
    return _root_of_folder(start, os.path.abspath(os.getcwd()))


@functools.lru_cache(maxsize=256)
def _root_of_folder(folder: str, here: str) -> str:
    current = folder
    while True:
        if os.path.lexists(os.path.join(current, GIT)):
            return os.path.realpath(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if folder == here or folder.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.realpath(here)
    return os.path.realpath(folder)


def inside(path: str, roots: Iterable[str]) -> bool:
    """Whether the real path of ``path`` (links followed) is one of ``roots`` (real
    paths) or under one of them."""
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def refusal(root: str, hint: str = "") -> str:
    """Why a file is not read: it leads outside ``root``."""
    reason = f"a symbolic link to a file outside the repository ({root})"
    return f"{reason}; not read: {hint}" if hint else reason
