"""Run policy test cases: lint each case's inputs and compare with what it expects.

For a rule that a case expects to fail, the expectations list every place it fails:
a finding of that rule that no expectation names fails the case. A rule that cannot be
evaluated fails the case whatever was expected, because that is a bug in the policy, and so
does an input that yields nothing to evaluate (unreadable or unparsable).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from linter.evaluate.parsers import parse
from linter.evaluate.stages import lint_parsed
from linter.findings import Finding
from linter.parsing.documents import ParsedFile
from linter.policytest.load import InvalidTest, PolicyCache, discover, load
from linter.policytest.model import (
    Case,
    CaseResult,
    Expectation,
    InvalidFile,
    Outcome,
    PolicyTestFile,
)
from linter.sources.files import Input, read

EVALUATION_ERROR = "cannot evaluate rule:"
_UNCHECKED = ("syntax", "read-error", "input-limit")
_MAX_BYTES = 50 * 1024 * 1024


def run_paths(paths: Sequence[str]) -> Outcome:
    """Discover, load and run every test under ``paths``."""
    results: list[CaseResult] = []
    invalid: list[InvalidFile] = []
    cache: PolicyCache = {}
    for path, named in discover(paths):
        try:
            test = load(path, named, cache)
        except InvalidTest as exc:
            invalid.append(InvalidFile(str(path), exc.format_message()))
            continue
        if test is not None:
            results.extend(run_case(test, case) for case in test.cases)
    if not results and not invalid:
        raise InvalidTest(f"no policy tests (*_test.yaml, kind PolicyTest) in {', '.join(paths)}")
    return Outcome(tuple(results), tuple(invalid))


def run_case(test: PolicyTestFile, case: Case) -> CaseResult:
    parsed, problems = _read(test.folder, case.inputs)
    findings = [
        f
        for f in lint_parsed(test.policies, parsed, settings=test.settings).findings
        if f.rule_id not in _UNCHECKED
    ]
    tested = {e.rule for e in case.expect}
    failures = list(problems)
    failures.extend(
        f"rule {f.rule_id} could not be evaluated at {f.file}:{f.line}: "
        f"{f.message.removeprefix(EVALUATION_ERROR).strip()}"
        for f in findings
        if f.message.startswith(EVALUATION_ERROR)
    )
    unmatched = [
        f for f in findings if not f.message.startswith(EVALUATION_ERROR) and f.rule_id in tested
    ]
    for expectation in case.expect:
        failures.extend(_check(expectation, case, unmatched))
    failing_rules = {e.rule for e in case.expect if e.result == "fail"}
    failures.extend(
        f"unexpected {f.rule_id} failure at {f.file}:{f.line}: {f.message}"
        for f in unmatched
        if f.rule_id in failing_rules
    )
    return CaseResult(test.path, test.name, case.name, tuple(failures))


def _read(folder: Path, names: Sequence[str]) -> tuple[list[ParsedFile], list[str]]:
    parsed: list[ParsedFile] = []
    problems: list[str] = []
    for name in names:
        result = read(Input(name, folder / name), _MAX_BYTES)
        if result.text is None:
            problems.append(f"input {name}: {result.error}")
            continue
        parsed_file = parse(name, result.text)
        if not parsed_file.documents:  # nothing to evaluate: any expectation would be moot
            problems.extend(
                f"input {name}:{p.line}:{p.column}: {p.message}"
                for p in parsed_file.problems
                if p.rule_id in _UNCHECKED
            )
        parsed.append(parsed_file)
    return parsed, problems


def _check(expectation: Expectation, case: Case, unmatched: list[Finding]) -> list[str]:
    """Failures for one expectation; a matched finding is taken out of ``unmatched``."""
    files = (expectation.file,) if expectation.file else case.inputs
    mine = [f for f in unmatched if f.rule_id == expectation.rule and f.file in files]
    if expectation.result == "pass":
        for finding in mine:
            unmatched.remove(finding)
        return [
            f"expected {expectation.rule} to pass, but it failed at {f.file}:{f.line}: {f.message}"
            for f in mine
        ]
    where = f"{files[0]}:{expectation.line}"
    at_line = [f for f in mine if f.line == expectation.line]
    if not at_line:
        # Where it did fail is listed as "unexpected", with the message.
        actual = "did not fail there" if mine else "passed"
        return [f"expected {expectation.rule} to fail at {where}, but it {actual}"]
    exact = [f for f in at_line if expectation.message in (None, f.message)]
    if not exact:
        unmatched.remove(at_line[0])
        return [
            f"expected {expectation.rule} at {where} to say {expectation.message!r}, "
            f"but it said {at_line[0].message!r}"
        ]
    unmatched.remove(exact[0])
    return []
