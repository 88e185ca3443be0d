"""JUnit XML output: one test case per (file, rule), exact structure."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from linter.evaluate.result import RunResult
from linter.findings import Finding, Severity, Suppression
from linter.reporters.junit import JunitReporter

REPORTERS = Path(__file__).parent / "fixtures" / "reporters"
POLICIES = ["--no-config", "--no-builtin", "--policy-dir", "policies"]

RunLine = Callable[..., Result]


def _shape(element: ET.Element) -> Any:
    """An element as (tag, attributes, text, children), whitespace-only text dropped."""
    text = element.text if element.text and element.text.strip() else None
    return (element.tag, element.attrib, text, [_shape(child) for child in element])


def _render(result: RunResult) -> str:
    stream = io.StringIO()
    JunitReporter().report(result, stream)
    return stream.getvalue()


def test_cli_junit_one_case_per_file_and_rule(
    run_line: RunLine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPORTERS)
    result = run_line(["lint", *POLICIES, "--format", "junit", "inputs"])
    assert result.exit_code == 1
    assert result.output.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    counts = {"tests": "5", "failures": "5", "errors": "0", "skipped": "0"}
    syntax = (
        "inputs/broken.yaml:2:1: invalid YAML: did not find expected ',' or ']' while "
        "parsing a flow sequence started at line 1, column 9"
    )
    latest = [
        "inputs/deploy.yaml:12:11: warning team/no-latest-tag container server uses "
        "vllm/vllm-openai:latest",
        "inputs/deploy.yaml:14:11: warning team/no-latest-tag container sidecar uses "
        "busybox:latest",
    ]
    duplicate = (
        "inputs/values.yaml:3:3: duplicate key 'maxModelLen' (first at line 2); "
        "Helm and Kubernetes silently keep the last value"
    )

    def case(file: str, rule: str, message: str, kind: str, body: str) -> Any:
        return (
            "testcase",
            {"name": rule, "classname": file, "file": file},
            None,
            [("failure", {"message": message, "type": kind}, body, [])],
        )

    assert _shape(ET.fromstring(result.output)) == (
        "testsuites",
        {"name": "servelint", **counts},
        None,
        [
            (
                "testsuite",
                {"name": "servelint", **counts},
                None,
                [
                    case(
                        "inputs/broken.yaml",
                        "syntax",
                        syntax,
                        "error",
                        syntax.replace(": invalid", ": error syntax invalid"),
                    ),
                    case(
                        "inputs/deploy.yaml",
                        "team/has-labels",
                        "inputs/deploy.yaml:5:3: add labels",
                        "info",
                        "inputs/deploy.yaml:5:3: info team/has-labels add labels",
                    ),
                    case(
                        "inputs/deploy.yaml",
                        "team/min-replicas",
                        "inputs/deploy.yaml:7:3: needs at least two replicas, has 1",
                        "error",
                        "inputs/deploy.yaml:7:3: error team/min-replicas needs at least two "
                        "replicas, has 1",
                    ),
                    case(
                        "inputs/deploy.yaml",
                        "team/no-latest-tag",
                        "inputs/deploy.yaml:12:11: container server uses vllm/vllm-openai:latest"
                        " (and 1 more)",
                        "warning",
                        "\n".join(latest),
                    ),
                    case(
                        "inputs/values.yaml",
                        "duplicate-key",
                        duplicate,
                        "error",
                        duplicate.replace(": duplicate", ": error duplicate-key duplicate"),
                    ),
                    ("system-out", {}, "3 errors, 2 warnings, 1 info in 3 files", []),
                ],
            ),
        ],
    )


def test_suppressed_findings_are_skipped_not_failed() -> None:
    accepted = Suppression("profiling INC-2231", "2026-12-31", "inline")
    findings = [
        Finding(
            "vllm/enforce-eager",
            Severity.WARNING,
            "eager mode",
            "values-staging.yaml",
            4,
            3,
            suppression=accepted,
        ),
        Finding(
            "vllm/enforce-eager",
            Severity.WARNING,
            "eager mode",
            "values-staging.yaml",
            9,
            3,
            suppression=Suppression("debugging", None, "config"),
        ),
        Finding("team/x", Severity.ERROR, "bad", "values-staging.yaml", 2, 1),
        Finding(
            "team/x", Severity.ERROR, "bad too", "values-staging.yaml", 5, 1, suppression=accepted
        ),
    ]
    tree = ET.fromstring(_render(RunResult(findings, 1)))
    suite = tree.find("testsuite")
    assert suite is not None
    assert (tree.attrib, [_shape(case) for case in suite.iter("testcase")]) == (
        {"name": "servelint", "tests": "2", "failures": "1", "errors": "0", "skipped": "1"},
        [
            (
                "testcase",
                {
                    "name": "team/x",
                    "classname": "values-staging.yaml",
                    "file": "values-staging.yaml",
                },
                None,
                [
                    (
                        "failure",
                        {"message": "values-staging.yaml:2:1: bad", "type": "error"},
                        "values-staging.yaml:2:1: error team/x bad\n"
                        "values-staging.yaml:5:1: error team/x bad too "
                        "[suppressed (inline): profiling INC-2231]",
                        [],
                    )
                ],
            ),
            (
                "testcase",
                {
                    "name": "vllm/enforce-eager",
                    "classname": "values-staging.yaml",
                    "file": "values-staging.yaml",
                },
                None,
                [("skipped", {"message": "suppressed: profiling INC-2231; debugging"}, None, [])],
            ),
        ],
    )


def test_clean_run_is_one_passing_case_with_notes() -> None:
    text = _render(RunResult([], 3, notes=["helm not found: rendering skipped"]))
    assert text == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="servelint" tests="1" failures="0" errors="0" skipped="0">\n'
        '  <testsuite name="servelint" tests="1" failures="0" errors="0" skipped="0">\n'
        '    <testcase name="lint" classname="servelint" />\n'
        "    <system-out>note: helm not found: rendering skipped\n"
        "0 errors, 0 warnings, 0 info in 3 files</system-out>\n"
        "  </testsuite>\n"
        "</testsuites>\n"
    )


def test_control_characters_and_markup_stay_well_formed() -> None:
    finding = Finding("team/x", Severity.ERROR, "key 'a\x07b' <&> \"q\"", "v&1.yaml", 1, 2)
    tree = ET.fromstring(_render(RunResult([finding], 1)))
    failure = tree.find("testsuite/testcase/failure")
    assert failure is not None
    assert (failure.attrib["message"], failure.text) == (
        "v&1.yaml:1:2: key 'a\\x07b' <&> \"q\"",
        "v&1.yaml:1:2: error team/x key 'a\\x07b' <&> \"q\"",
    )
