"""Reading inputs into documents, and linting files read as they are.

The lint run itself (providers, the engine once, governance) is ``run/pipeline.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from linter.evaluate.parsers import parse
from linter.evaluate.providers import file_providers
from linter.evaluate.result import RunResult, merged
from linter.evaluate.subjects import evaluate
from linter.findings import Finding, Severity
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing.documents import DEFAULT_LIMITS, Limits, ParsedFile
from linter.policy.model import Policy
from linter.sources import files as file_sources


def read_inputs(
    inputs: Sequence[file_sources.Input], limits: Limits = DEFAULT_LIMITS
) -> tuple[list[ParsedFile], list[Finding]]:
    """Read and parse every input; a file that cannot be read is a ``read-error`` finding."""
    parsed: list[ParsedFile] = []
    failures: list[Finding] = []
    for item in inputs:
        result = file_sources.read(item, limits.max_bytes)
        if result.text is None:
            finding = Finding(
                result.rule,
                Severity.ERROR,
                result.error or "cannot read",
                item.name,
                result.line,
                result.column,
            )
            if result.rule == "input-limit":
                # A limit is a finding about the input (exit 1), not a tool failure.
                parsed.append(ParsedFile(item.name, "", [], [finding]))
            else:
                failures.append(finding)
            continue
        parsed.append(parse(item.name, result.text, limits))
    return parsed, failures


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
