"""Output formats of ``servelint drift``. Each reporter writes one DriftResult to a stream."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Protocol, TextIO

if TYPE_CHECKING:
    from linter.drift.result import DriftResult


class DriftReporter(Protocol):
    def __init__(self, *, color: bool = False) -> None: ...

    def report(self, result: DriftResult, stream: TextIO) -> None:
        """Write ``result`` to ``stream``."""


# Format → "module:class". A scan imports only the reporter it writes with: the HTML
# report pulls in the policies' metadata, which a JSON scan of 500 pods never shows.
DRIFT_REPORTERS: dict[str, str] = {
    "text": "linter.drift.report_text:DriftTextReporter",
    "json": "linter.drift.report_json:DriftJsonReporter",
    "prometheus": "linter.drift.report_prometheus:DriftPrometheusReporter",
    "html": "linter.drift.report_html:DriftHtmlReporter",
}


def get(name: str) -> type[DriftReporter]:
    module, _, cls = DRIFT_REPORTERS[name].partition(":")
    reporter: type[DriftReporter] = getattr(importlib.import_module(module), cls)
    return reporter
