"""``--fail-on-unchecked``: each gap that fails the gate as a finding of its own.

A gate that fails must say why, where every report is read: the text report (``-q``
included), a GitHub annotation on the line, a SARIF result code scanning shows, a failing
JUnit test case. So when the gate is on, each input not understood and each gap that
costs an error-level rule is an error finding of the rule ``unchecked``, added after
governance: the flag (or ``failOnUnchecked``) is what turns it on and off, not a
suppression or a baseline.
"""

from __future__ import annotations

from linter.coverage.model import Coverage
from linter.coverage.text import gap_text, not_understood_text
from linter.findings import Finding, Severity

GATE_RULE = "unchecked"
_WHY = " (--fail-on-unchecked)"


def unchecked_findings(coverage: Coverage) -> list[Finding]:
    """One error per input not understood and per gap of an error-level rule, each once
    (environments of a chart share a gap's place)."""
    found = [
        Finding(
            GATE_RULE,
            Severity.ERROR,
            f"not understood: {not_understood_text(item)}{_WHY}",
            item.file,
            item.line,
            item.column,
        )
        for item in coverage.not_understood
    ]
    found += [
        Finding(
            GATE_RULE,
            Severity.ERROR,
            f"not checked: {gap_text(gap)}{_WHY}",
            gap.file,
            gap.line,
            gap.column,
        )
        for gap in coverage.gaps
        if gap.error_rules
    ]
    return list(dict.fromkeys(found))
