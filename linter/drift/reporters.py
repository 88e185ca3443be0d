"""Output formats of ``servelint drift``. Each reporter writes one DriftResult to a stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TextIO

from linter.reporters import imported

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
    reporter: type[DriftReporter] = imported(DRIFT_REPORTERS[name])
    return reporter
