"""The reporter protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult


class Reporter(Protocol):
    # quiet (lint -q): a report for people shows the active findings only; reports for
    # machines ignore it, since their readers filter by field. verbose (lint -v): every
    # coverage gap on its own line.
    def __init__(
        self, *, color: bool = False, quiet: bool = False, verbose: bool = False
    ) -> None: ...

    def report(self, result: RunResult, stream: TextIO) -> None:
        """Write ``result`` to ``stream``."""
