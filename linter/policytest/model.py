"""Policy tests as data: what a ``PolicyTest`` file says, and what running it found."""

from __future__ import annotations

from pathlib import Path

from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.policy.model import Policy


@frozen
class Expectation:
    """One expected result: ``rule`` passes, or fails at ``line`` (of ``file``)."""

    rule: str
    result: str  # pass | fail
    file: str | None  # None: every input of the case (pass) / its only input (fail)
    line: int | None
    message: str | None


@frozen
class Case:
    name: str
    inputs: tuple[str, ...]  # as written: relative to the test file
    expect: tuple[Expectation, ...]


@frozen
class PolicyTestFile:
    path: str  # as shown to the user
    name: str
    folder: Path  # inputs are relative to it
    policies: tuple[Policy, ...]
    settings: ModelSettings
    cases: tuple[Case, ...]


@frozen
class CaseResult:
    file: str
    suite: str
    case: str
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failures


@frozen
class InvalidFile:
    path: str
    message: str  # ``file:line:col: what is wrong``, one per line


@frozen
class Outcome:
    results: tuple[CaseResult, ...]
    invalid: tuple[InvalidFile, ...]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> int:
        return len(self.results) - self.passed

    @property
    def exit_code(self) -> int:
        """3 when a test file is invalid, 1 when an expectation fails, else 0."""
        if self.invalid:
            return 3
        return 1 if self.failed else 0
