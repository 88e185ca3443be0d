"""A policy from the repository cannot run for minutes: each of its evaluations has a
deadline enforced while it runs (a forked worker is stopped), the slow policy is reported
at the input it was evaluating, and every other policy and input is still evaluated."""

from __future__ import annotations

import time
from pathlib import Path

from linter.policy import load_policies, sandbox
from linter.policy.engine import MAX_MESSAGE, document_subject, evaluate
from linter.run.parsers import parse

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
    assert seconds < 15, f"took {seconds:.1f} s"  # one evaluation alone takes about 70 s
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
