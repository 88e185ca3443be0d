"""Policies from the repository under review evaluated in a forked worker, whose every
evaluation has a deadline.

CEL bounds the iterations of a comprehension, and ``memory_limit`` the memory an
evaluation may take, but cel-expr-python exposes no cost limit, so one evaluation (a
regular expression over a huge string inside nested comprehensions) can still run for
minutes; the per-policy time budget of the engine is only checked between evaluations.
So when a run holds policies that are not built in, the evaluation runs in a child
process forked for it (the policies and subjects reach it by fork, nothing is pickled).
Before each evaluation the child writes which (subject, policy) it starts into a small
shared memory block; the parent watches it, and when one evaluation runs past its
deadline it kills the child, reports that policy as stopped on that subject, and forks
a new child that goes on with the next policy. Findings come back as JSON lines through
a pipe as soon as they are found, so nothing found before the kill is lost.

Built-in policies alone never pay for the fork: they are tested, and their cost known.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import select
import signal
import struct
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from linter.findings import Finding, Severity
from linter.policy.model import Policy

_SLOT = struct.Struct("=qqq")  # subject index, policy index, evaluations started
_POLL_SECONDS = 0.05

# Called with the subject's index, what one evaluation found and the policy it stopped.
Found = Callable[[int, list[Finding], str | None], None]
# The engine's own loop, resumable: (first subject, first policy of it, policies already
# stopped, called before each evaluation, called with what each evaluation found).
Evaluate = Callable[[int, int, set[str], Callable[[int, int], None], Found], None]
# A finding with the index of the subject it is about.
Placed = tuple[int, Finding]
StopFinding = Callable[[int, int, str], Finding]


def available() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def needed(policies: Sequence[Policy]) -> bool:
    return any(not p.builtin for p in policies) and available()


def run(
    evaluate: Evaluate, names: Sequence[str], stop_finding: StopFinding, deadline: float
) -> list[Placed]:
    """Run ``evaluate`` in forked children until it completes; an evaluation that runs
    longer than ``deadline`` seconds is stopped with ``stop_finding`` and its policy
    (``names`` by index) is not evaluated again in this run. Each finding comes with the
    index of its subject."""
    findings: list[Placed] = []
    stopped: set[str] = set()
    begin = (0, 0)
    while True:
        outcome = _one_child(evaluate, begin, stopped, findings, deadline)
        if outcome is None:
            return findings
        subject, policy, reason = outcome
        findings.append((subject, stop_finding(subject, policy, reason)))
        stopped.add(names[policy])
        begin = (subject, policy + 1)


def _one_child(
    evaluate: Evaluate,
    begin: tuple[int, int],
    stopped: set[str],
    findings: list[Placed],
    deadline: float,
) -> tuple[int, int, str] | None:
    """One child from ``begin``; None when it finished, else where and why it was killed."""
    slot = mmap.mmap(-1, _SLOT.size)
    slot[:] = _SLOT.pack(begin[0], begin[1], 0)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its work is checked through the parent
        os.close(reader)
        _child(evaluate, begin, stopped, slot, writer)
    os.close(writer)
    buffer = b""
    seen, since = -1, time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([reader], [], [], _POLL_SECONDS)
            if ready:
                chunk = os.read(reader, 1 << 16)
                if not chunk:
                    break  # the child finished (or died)
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    _receive(line, findings, stopped)
            subject, policy, started = _SLOT.unpack(slot[:])
            if started != seen:
                seen, since = started, time.monotonic()
            elif time.monotonic() - since > deadline:
                os.kill(pid, signal.SIGKILL)
                return (
                    subject,
                    policy,
                    (f"one evaluation ran longer than {deadline:g} s (the evaluation time limit)"),
                )
    finally:
        os.close(reader)
        _, status = os.waitpid(pid, 0)
        last = _SLOT.unpack(slot[:])
        slot.close()
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None
    return last[0], last[1], "its evaluation ended the worker process abnormally"


def _child(
    evaluate: Evaluate,
    begin: tuple[int, int],
    stopped: set[str],
    slot: mmap.mmap,
    writer: int,
) -> None:  # pragma: no cover - runs in the forked child
    code = 0
    started = 0
    try:
        out = os.fdopen(writer, "wb", buffering=1 << 16)

        def starting(subject: int, policy: int) -> None:
            nonlocal started
            started += 1
            slot[:] = _SLOT.pack(subject, policy, started)

        def found(subject: int, items: list[Finding], stopped_policy: str | None) -> None:
            if items:
                line = json.dumps([subject, [_to_json(f) for f in items]])
                out.write(b"F" + line.encode() + b"\n")
            if stopped_policy is not None:
                out.write(b"X" + json.dumps(stopped_policy).encode() + b"\n")
            out.flush()  # a finding must survive a kill of this process

        evaluate(begin[0], begin[1], set(stopped), starting, found)
        out.flush()
    except BaseException as exc:  # a bug, not a policy: the parent raises it
        code = 70
        with contextlib.suppress(BaseException):
            out.write(b"E" + json.dumps(f"{type(exc).__name__}: {exc}").encode() + b"\n")
            out.flush()
    finally:
        os._exit(code)


class WorkerFailed(RuntimeError):
    """The evaluation worker failed on its own (a bug): reported as an internal error."""


def _receive(line: bytes, findings: list[Placed], stopped: set[str]) -> None:
    if line.startswith(b"F"):
        subject, items = json.loads(line[1:])
        findings.extend((int(subject), _from_json(item)) for item in items)
    elif line.startswith(b"X"):
        stopped.add(json.loads(line[1:]))
    elif line.startswith(b"E"):
        raise WorkerFailed(f"policy evaluation worker failed: {json.loads(line[1:])}")


def _to_json(finding: Finding) -> list[Any]:
    return [
        finding.rule_id,
        int(finding.severity),
        finding.message,
        finding.file,
        finding.line,
        finding.column,
        finding.path,
        finding.doc_index,
    ]


def _from_json(item: list[Any]) -> Finding:
    rule_id, severity, message, file, line, column, path, doc_index = item
    return Finding(rule_id, Severity(severity), message, file, line, column, path, doc_index)
