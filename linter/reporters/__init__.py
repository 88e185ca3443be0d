"""Output formats. Each reporter writes one RunResult to one stream."""

from __future__ import annotations

from linter.reporters.base import Reporter
from linter.reporters.github import GithubReporter
from linter.reporters.json_ import JsonReporter
from linter.reporters.junit import JunitReporter
from linter.reporters.sarif import SarifReporter
from linter.reporters.text import TextReporter

REPORTERS: dict[str, type[Reporter]] = {
    "text": TextReporter,
    "json": JsonReporter,
    "sarif": SarifReporter,
    "junit": JunitReporter,
    "github": GithubReporter,
}


def get(name: str) -> type[Reporter]:
    try:
        return REPORTERS[name]
    except KeyError:
        raise ValueError(f"unknown format '{name}'; choose from {', '.join(sorted(REPORTERS))}"
                         ) from None
