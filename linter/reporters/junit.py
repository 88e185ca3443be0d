"""JUnit XML for CI test-report views (GitLab ``artifacts:reports:junit``, Jenkins
``junit``, Azure DevOps ``PublishTestResults``).

One test case per (file, rule): its failure lists every active finding as
``file:line:col``. A case whose findings are all suppressed is ``skipped`` with the
reasons, so an accepted exception never shows as a failed test. Each gap that fails
``--fail-on-unchecked`` is a case of its own, named ``unchecked:LINE``: a gap is one
thing to fix, as a rule is.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from itertools import groupby
from typing import TYPE_CHECKING, TextIO

from linter.coverage.gate import GATE_RULE
from linter.coverage.text import summary_lines
from linter.findings import Finding
from linter.reporters.meta import TOOL_NAME
from linter.reporters.text import format_summary

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

# XML 1.0 cannot carry most control characters, even escaped; a message quoting a
# user's key could contain one (YAML "\x07"), and one such byte would break the report.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def location(finding: Finding) -> str:
    return f"{finding.file}:{finding.line}:{finding.column}"


def _finding_line(finding: Finding) -> str:
    line = f"{location(finding)}: {finding.severity.label} {finding.rule_id} {finding.message}"
    if finding.suppression is not None:
        line += f" [suppressed ({finding.suppression.source}): {finding.suppression.reason}]"
    return line


def _testcase(file: str, rule_id: str, findings: Sequence[Finding]) -> ET.Element:
    case = ET.Element(
        "testcase", {"name": _clean(rule_id), "classname": _clean(file), "file": _clean(file)}
    )
    active = [f for f in findings if not f.suppressed]
    if not active:
        reasons = "; ".join(
            dict.fromkeys(f.suppression.reason for f in findings if f.suppression is not None)
        )
        ET.SubElement(case, "skipped", {"message": _clean(f"suppressed: {reasons}")})
        return case
    worst = max(f.severity for f in active)
    first = active[0]
    message = f"{location(first)}: {first.message}"
    if len(active) > 1:
        message += f" (and {len(active) - 1} more)"
    failure = ET.SubElement(case, "failure", {"message": _clean(message), "type": worst.label})
    failure.text = _clean("\n".join(_finding_line(f) for f in findings))
    return case


def _case(finding: Finding) -> tuple[str, str]:
    """The test case of ``finding``: its file and rule, or its gap (``unchecked:LINE``)."""
    if finding.rule_id == GATE_RULE:
        return finding.file, f"{GATE_RULE}:{finding.line}"
    return finding.file, finding.rule_id


def as_junit(result: RunResult) -> ET.Element:
    """The ``<testsuites>`` element of one run."""
    cases: list[ET.Element] = []
    by_case = sorted(result.findings, key=lambda f: (*_case(f), f.sort_key()))
    for (file, name), group in groupby(by_case, key=_case):
        cases.append(_testcase(file, name, list(group)))
    if not cases:
        # Jenkins' junit step fails on a report without test cases; a clean run is a pass.
        cases.append(ET.Element("testcase", {"name": "lint", "classname": TOOL_NAME}))
    counts = {
        "tests": str(len(cases)),
        "failures": str(sum(case.find("failure") is not None for case in cases)),
        "errors": "0",
        "skipped": str(sum(case.find("skipped") is not None for case in cases)),
    }
    suites = ET.Element("testsuites", {"name": TOOL_NAME, **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": TOOL_NAME, **counts})
    suite.extend(cases)
    out = ET.SubElement(suite, "system-out")
    out.text = _clean(
        "\n".join(
            [
                *(f"note: {n}" for n in result.notes),
                *summary_lines(result.coverage),
                format_summary(result),
            ]
        )
    )
    return suites


class JunitReporter:
    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.color = color
        self.quiet = quiet

    def report(self, result: RunResult, stream: TextIO) -> None:
        tree = ET.ElementTree(as_junit(result))
        ET.indent(tree)
        buffer = io.StringIO()
        tree.write(buffer, encoding="unicode", xml_declaration=False)
        stream.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        stream.write(buffer.getvalue())
        stream.write("\n")
