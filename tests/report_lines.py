"""Lines of a text report without its coverage summary, for tests about findings.

Coverage has tests of its own (test_coverage*.py); tests of a policy's findings compare
every other line exactly.
"""

from __future__ import annotations

COVERAGE_PREFIXES = ("coverage: ", "not checked: ", "not understood: ")


def report_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if not line.startswith(COVERAGE_PREFIXES)]
