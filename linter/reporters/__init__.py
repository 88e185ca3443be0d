"""Output formats. Each reporter writes one RunResult to one stream."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from linter.reporters.base import Reporter

# Format → "module:class". A run imports only the reporters it writes with: SARIF, JUnit
# and GitHub pull in rule metadata and XML that a pre-commit run never shows.
REPORTERS: dict[str, str] = {
    "text": "linter.reporters.text:TextReporter",
    "json": "linter.reporters.json_:JsonReporter",
    "sarif": "linter.reporters.sarif:SarifReporter",
    "junit": "linter.reporters.junit:JunitReporter",
    "github": "linter.reporters.github:GithubReporter",
    "html": "linter.reporters.html:HtmlReporter",
}


def get(name: str) -> type[Reporter]:
    try:
        spec = REPORTERS[name]
    except KeyError:
        raise ValueError(
            f"unknown format '{name}'; choose from {', '.join(sorted(REPORTERS))}"
        ) from None
    reporter: type[Reporter] = imported(spec)
    return reporter


def imported(spec: str) -> Any:
    """The object ``"module:name"`` names, its module imported now (not at start-up)."""
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)
