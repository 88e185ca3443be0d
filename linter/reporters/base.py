"""The reporter protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from linter.run.runner import RunResult


class Reporter(Protocol):
    def __init__(self, *, color: bool = False, verbose: bool = False) -> None: ...

    def report(self, result: RunResult, stream: TextIO) -> None:
        """Write ``result`` to ``stream``."""
