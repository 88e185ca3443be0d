"""The built-in policies are tested as users test theirs: ``servelint test policies/tests``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

from linter.policy import load_policies

ROOT = Path(__file__).parent.parent
TESTS = ROOT / "policies" / "tests"


def test_every_builtin_policy_test_passes(
    run_line: Callable[..., Result], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = run_line(["test", "policies/tests"])
    summary = result.output.splitlines()[-1]
    assert (result.exit_code, summary) == (0, f"{summary.split()[0]} passed, 0 failed"), (
        result.output
    )


def test_every_builtin_rule_is_tested_failing_and_passing() -> None:
    expectations: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("*_test.yaml")):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))["spec"]
        for case in spec["cases"]:
            for expected in case["expect"]:
                expectations.setdefault(expected["rule"], set()).add(expected["result"])
    untested = [
        f"{rule.id} (needs {', '.join(sorted({'pass', 'fail'} - found))})"
        for policy in load_policies()
        for rule in policy.rules
        if (found := expectations.get(rule.id, set())) != {"pass", "fail"}
    ]
    assert untested == [], (
        "built-in rules without a 'pass' and a 'fail' expectation in policies/tests/*_test.yaml"
        " (see docs/writing-policies.md): " + "; ".join(untested)
    )
