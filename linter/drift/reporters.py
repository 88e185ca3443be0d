"""Output formats of ``servelint drift``. Each reporter writes one DriftResult to a stream."""

from __future__ import annotations

from typing import Protocol, TextIO

from linter.drift.report_html import DriftHtmlReporter
from linter.drift.report_json import DriftJsonReporter
from linter.drift.report_prometheus import DriftPrometheusReporter
from linter.drift.report_text import DriftTextReporter
from linter.drift.result import DriftResult


class DriftReporter(Protocol):
    def __init__(self, *, color: bool = False) -> None: ...

    def report(self, result: DriftResult, stream: TextIO) -> None:
        """Write ``result`` to ``stream``."""


DRIFT_REPORTERS: dict[str, type[DriftReporter]] = {
    "text": DriftTextReporter,
    "json": DriftJsonReporter,
    "prometheus": DriftPrometheusReporter,
    "html": DriftHtmlReporter,
}
