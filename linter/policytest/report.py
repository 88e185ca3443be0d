"""Policy test output: a test runner's text, or JUnit XML for CI. Pure functions → str."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

from linter.policytest.model import CaseResult, InvalidFile, Outcome
from linter.reporters.escape import escape_text


def format_case(result: CaseResult) -> str:
    status = "PASS" if result.passed else "FAIL"
    # Names, messages and quoted values come from the repository: shown inert.
    lines = [f"{status} {escape_text(result.file)}: {escape_text(result.case)}"]
    lines.extend(f"     {escape_text(failure)}" for failure in result.failures)
    return "\n".join(lines)


def format_invalid(invalid: InvalidFile) -> str:
    return "\n".join(f"INVALID {escape_text(line)}" for line in invalid.message.splitlines())


def summary(outcome: Outcome) -> str:
    text = f"{outcome.passed} passed, {outcome.failed} failed"
    if outcome.invalid:
        count = len(outcome.invalid)
        text += f", {count} invalid test file{'s' * (count != 1)}"
    return text


def text(outcome: Outcome) -> str:
    lines = [format_case(result) for result in outcome.results]
    lines.extend(format_invalid(invalid) for invalid in outcome.invalid)
    lines.append(summary(outcome))
    return "\n".join(lines) + "\n"


def junit(outcome: Outcome) -> str:
    """One ``testsuite`` per test file, one ``testcase`` per case; invalid files as errors."""
    root = ET.Element(
        "testsuites",
        name="servelint test",
        tests=str(len(outcome.results) + len(outcome.invalid)),
        failures=str(outcome.failed),
        errors=str(len(outcome.invalid)),
    )
    for file, group in itertools.groupby(outcome.results, key=lambda r: r.file):
        results = list(group)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=file,
            tests=str(len(results)),
            failures=str(sum(not r.passed for r in results)),
            errors="0",
        )
        for result in results:
            case = ET.SubElement(suite, "testcase", classname=result.suite, name=result.case)
            if not result.passed:
                failure = ET.SubElement(case, "failure", message=result.failures[0])
                failure.text = "\n".join(result.failures)
    for invalid in outcome.invalid:
        suite = ET.SubElement(
            root, "testsuite", name=invalid.path, tests="1", failures="0", errors="1"
        )
        case = ET.SubElement(suite, "testcase", classname=invalid.path, name="load test file")
        error = ET.SubElement(case, "error", message=invalid.message.splitlines()[0])
        error.text = invalid.message
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
