"""The stages for a set of inputs: files → documents → workloads → policies → findings.

No orchestration here (worker processes, chart contexts, governance: ``run/runner.py``),
so the chart context (``helm/``) can evaluate its merged values with the same code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from linter.coverage import gaps
from linter.coverage.model import NO_COVERAGE, Coverage
from linter.coverage.unrecognised import not_understood
from linter.evaluate.parsers import parse
from linter.evaluate.result import RunResult
from linter.findings import Finding, Severity, sort_findings
from linter.model.extract import extract_workloads
from linter.model.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing.documents import DEFAULT_LIMITS, Limits, ParsedFile
from linter.policy import engine
from linter.policy.model import Policy
from linter.secrets import checks, redact
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
    claimed: Collection[str] = frozenset(),
) -> RunResult:
    """``claimed`` inputs get their workloads elsewhere (``ContextRun``), not from here."""
    raw = raw_findings(
        policies,
        parsed,
        failures,
        settings=settings,
        builtin_checks=builtin_checks,
        claimed=claimed,
    )
    return make_result(policies, raw.findings, parsed, failures, raw.secrets, raw.coverage)


@dataclasses.dataclass(frozen=True)
class Raw:
    """What evaluating some inputs found, before secrets are scrubbed and findings sorted."""

    findings: list[Finding]
    secrets: frozenset[str]
    coverage: Coverage


def raw_findings(
    policies: Sequence[Policy],
    parsed: Sequence[ParsedFile],
    failures: Sequence[Finding] = (),
    *,
    settings: ModelSettings = DEFAULT_SETTINGS,
    builtin_checks: bool = False,
    claimed: Collection[str] = frozenset(),
) -> Raw:
    """The findings of ``parsed``, not yet scrubbed or sorted, its secret values and what
    was recognised in it."""
    findings: list[Finding] = list(failures)
    for parsed_file in parsed:
        findings.extend(parsed_file.problems)
    secrets_found = redact.scan(parsed)
    if builtin_checks:
        findings.extend(checks.run(secrets_found))
    subjects = [engine.document_subject(d) for f in parsed for d in f.documents]
    coverage = Coverage(tuple(f.source for f in parsed))
    workload_policies = [p for p in policies if p.target == "workload"]
    if workload_policies:
        standalone = [f for f in parsed if f.source not in claimed]
        workloads = extract_workloads(standalone, settings)
        subjects.extend(engine.workload_subject(w) for w in workloads)
        coverage = Coverage(
            coverage.files,
            tuple(gaps.entry(w, workload_policies) for w in workloads),
            tuple(
                not_understood(
                    standalone, {(w.anchor.source, w.anchor.doc_index) for w in workloads}
                )
            ),
        )
    findings.extend(engine.evaluate(policies, subjects))
    return Raw(findings, redact.values(secrets_found), coverage)


def make_result(
    policies: Sequence[Policy],
    findings: list[Finding],
    parsed: Sequence[ParsedFile],
    failures: Sequence[Finding],
    secret_values: frozenset[str],
    coverage: Coverage = NO_COVERAGE,
) -> RunResult:
    # Secrets are scrubbed here, before anything else sees the findings, and again by
    # the reporters' entry point (reporters/outputs.py) with the values kept below.
    return RunResult(
        sort_findings(redact.findings(findings, secret_values)),
        len(parsed) + len(failures),
        len(failures),
        policies=tuple(policies),
        secrets=secret_values,
        coverage=coverage,
    )
