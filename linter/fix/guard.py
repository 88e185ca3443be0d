"""Which files a fix may write: a regular file among the run's inputs, reached without a
symbolic link, inside the repository of the path the user named; never standard input, a
chart's template or a manifest Helm rendered."""

from __future__ import annotations

import os
from collections.abc import Iterable

from linter.findings import RENDERED_KEY, Finding
from linter.lightclass import frozen
from linter.sources.chartlayout import chart_of_template
from linter.sources.files import STDIN_NAME
from linter.sources.repository import inside, root_of


@frozen
class Bounds:
    """The files the run linted, the paths the user named (files and folders), and the
    real paths of their repositories."""

    files: frozenset[str]
    named: frozenset[str]
    roots: frozenset[str]

    @classmethod
    def of(cls, paths: Iterable[str], linted: Iterable[str]) -> Bounds:
        named = [p for p in paths if p != "-"]
        return cls(
            frozenset(os.path.abspath(f) for f in linted),
            frozenset(os.path.abspath(p) for p in named),
            frozenset(root_of(p) for p in named),
        )

    def holds(self, path: str) -> bool:
        """Whether ``path`` (absolute) is an input: linted, and named or in a folder
        named (a chart's other values files, read for context, are not)."""
        return path in self.files and any(
            path == named or path.startswith(named.rstrip(os.sep) + os.sep) for named in self.named
        )


def refusal(finding: Finding, bounds: Bounds) -> str | None:
    """Why the file of ``finding`` is not written; None when it may be."""
    name = finding.file
    if name in (STDIN_NAME, "-"):
        return "not fixable: standard input (fix the file itself)"
    if RENDERED_KEY in finding.extra or chart_of_template(name) is not None:
        return "not fixable: rendered (a chart template or Helm's output)"
    absolute = os.path.abspath(name)
    if _through_link(absolute, bounds.roots):
        return "not fixable: the file is reached through a symbolic link"
    if not os.path.isfile(absolute):
        return "not fixable: not a file on disk"
    if not bounds.holds(absolute) or not inside(absolute, bounds.roots):
        return "not fixable: outside the inputs"
    return None


def _through_link(path: str, roots: frozenset[str]) -> bool:
    """Whether ``path`` or a folder between it and its repository is a symbolic link."""
    current = path
    while True:
        if os.path.islink(current):
            return True
        parent = os.path.dirname(current)
        if parent == current or os.path.realpath(parent) in roots:
            return False
        current = parent
