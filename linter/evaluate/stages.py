"""Linting files read as they are (``servelint test``).

Reading the inputs is ``inputs.py``; the lint run itself (providers, the engine once,
governance) is ``run/pipeline.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from linter.evaluate.providers import file_providers
from linter.evaluate.result import RunResult, merged
from linter.evaluate.subjects import evaluate
from linter.findings import Finding
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing.documents import ParsedFile
from linter.policy.model import Policy


def lint_parsed(
    policies: Sequence[Policy],
    parsed: Sequence[ParsedFile],
    failures: Sequence[Finding] = (),
    *,
    settings: ModelSettings = DEFAULT_SETTINGS,
    builtin_checks: bool = False,
) -> RunResult:
    """Files read as they are, without chart context or governance (``servelint test``)."""
    providers = file_providers(
        policies, parsed, failures, settings=settings, builtin_checks=builtin_checks
    )
    return merged(policies, evaluate(policies, providers))
