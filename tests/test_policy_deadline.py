"""A policy from the repository cannot run for minutes: each of its evaluations has a
deadline enforced while it runs (a forked worker is stopped), the slow policy is reported
at the input it was evaluating, and every other policy and input is still evaluated."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from linter.evaluate.parsers import parse
from linter.findings import Finding, Severity
from linter.policy import load_policies, sandbox
from linter.policy.engine import MAX_MESSAGE, document_subject, evaluate

_LEVEL = "[" + ",".join(["1"] * 20) + "]"
# Four nested comprehensions of 20 around a regular expression over 100 KB: about
# 70 s for one evaluation.
SLOW = (
    f"{_LEVEL}.all(i, {_LEVEL}.all(j, {_LEVEL}.all(k, {_LEVEL}.all(l, !doc.big.matches('a*b')))))"
)
# 100,001 characters: "x" made ten times longer five times, then "y".
LOUD = "'x'" + ".replace('x', 'xxxxxxxxxx')" * 5 + " + 'y'"
POLICIES = f"""\
apiVersion: servelint/v1
kind: Policy
metadata: {{name: team-slow}}
spec:
  target: document
  matchConditions:
    - {{name: big, expression: "has(doc.big)"}}
  rules:
    - id: regex
      severity: warning
      expression: "{SLOW}"
      message: never shown
---
apiVersion: servelint/v1
kind: Policy
metadata: {{name: team-named}}
spec:
  target: document
  rules:
    - id: has-name
      severity: info
      expression: "has(doc.name)"
      message: no name
    - id: loud
      severity: info
      expression: "!has(doc.loud)"
      messageExpression: "{LOUD}"
"""


def _subjects(tmp_path: Path) -> list[object]:
    texts = {
        "big.yaml": "big: " + "a" * 100_000 + "\n",
        "other.yaml": "big: aaa\nloud: 1\n",
        "small.yaml": "kind: Thing\n",
    }
    subjects = []
    for name, text in texts.items():
        subjects += [document_subject(d) for d in parse(name, text).documents]
    return subjects


def test_a_runaway_evaluation_is_stopped_while_it_runs(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "team.yaml").write_text(POLICIES)
    policies = load_policies([str(tmp_path / "policies")], builtin=False)
    assert sandbox.needed(policies)
    start = time.monotonic()
    findings = evaluate(policies, _subjects(tmp_path), policy_seconds=1.0)
    seconds = time.monotonic() - start
    # The 1 s deadline is the behaviour under test; this bound only tells a stopped
    # evaluation (the run takes about 1.2 s alone) from one that ran to its end (about
    # 70 s alone): 30 s is 25 times the first and well under the second.
    assert seconds < 30, f"took {seconds:.1f} s"
    shown = [(f.file, f.rule_id, f.message[:60]) for f in findings]
    assert shown == [
        (
            "big.yaml",
            "team-slow/regex",
            "policy 'team-slow' stopped: one evaluation ran longer than 1",
        ),
        ("big.yaml", "team-named/has-name", "no name"),
        ("other.yaml", "team-named/has-name", "no name"),
        ("other.yaml", "team-named/loud", "x" * 60),
        ("small.yaml", "team-named/has-name", "no name"),
    ]
    assert findings[0].message.endswith(
        "(the evaluation time limit); it is not evaluated on this or any later input of "
        f"the run (defined in {tmp_path}/policies/team.yaml:9)"
    )
    loud = findings[3].message
    assert len(loud) < MAX_MESSAGE + 80
    assert loud.endswith(f"… (message cut at {MAX_MESSAGE} of 100001 characters)")


def _finding(subject: int, policy: int, message: str) -> Finding:
    return Finding(f"p{policy}/r", Severity.WARNING, message, f"s{subject}.yaml", 1, 1)


def _loop(crash_at: tuple[int, int], how: str) -> sandbox.Evaluate:
    """Two subjects, two policies; one pair kills its worker or raises."""

    def evaluate(
        first: int,
        first_policy: int,
        stopped: set[str],
        starting: Callable[[int, int], None],
        found: sandbox.Found,
    ) -> None:
        for subject in range(first, 2):
            for policy in range(first_policy if subject == first else 0, 2):
                if f"p{policy}" in stopped:
                    continue
                starting(subject, policy)
                if (subject, policy) == crash_at:
                    if how == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    raise ValueError("a bug")
                found(subject, [_finding(subject, policy, "seen")], None)

    return evaluate


def test_a_worker_that_dies_stops_that_policy_only() -> None:
    def stop(subject: int, policy: int, reason: str) -> Finding:
        return _finding(subject, policy, reason)

    findings = sandbox.run(_loop((0, 1), "kill"), ["p0", "p1"], stop, 5.0)
    assert [(index, f.file, f.rule_id, f.message) for index, f in findings] == [
        (0, "s0.yaml", "p0/r", "seen"),
        (0, "s0.yaml", "p1/r", "its evaluation ended the worker process abnormally"),
        (1, "s1.yaml", "p0/r", "seen"),
    ]


def test_a_bug_in_the_worker_is_an_internal_error_not_a_stopped_policy() -> None:
    with pytest.raises(sandbox.WorkerFailed, match="ValueError: a bug"):
        sandbox.run(_loop((1, 0), "raise"), ["p0", "p1"], lambda s, p, r: _finding(s, p, r), 5.0)
