"""What ``--fix`` and ``--diff`` show: a unified diff of each changed file (as ``diff -u``
prints it, with ``a/`` and ``b/`` paths) and the summary of what was fixed and what was
not. Pure functions of the outcome; the command prints them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from linter.findings import Finding
from linter.fix.apply import Change, Outcome

_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(change: Change) -> str:
    before = change.before.decode("utf-8").splitlines(keepends=True)
    after = change.after.decode("utf-8").splitlines(keepends=True)
    name = change.file.removeprefix("./")
    lines = difflib.unified_diff(before, after, f"a/{name}", f"b/{name}")
    out: list[str] = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n" + _NO_NEWLINE)
    return "".join(out)


def diff(outcome: Outcome) -> str:
    return "".join(unified_diff(change) for change in outcome.changes)


def summary(outcome: Outcome, remaining: Iterable[Finding], written: bool) -> list[str]:
    """Each fix made (or that ``--diff`` would make) and each refused with its reason, the
    Secrets to create, and a last line: ``fixed 3, 2 left: 1 no unique fix, 1 not
    fixable``. ``remaining``: the findings after the fixes were written (``--fix``), or
    the findings as they are (``--diff``)."""
    verb = "fixed" if written else "would fix"
    done = [(f, f"{verb} {f.rule_id}") for f in outcome.fixed]
    done += [(f, f"{f.rule_id}: {why}") for f, why in outcome.refused]
    done.sort(key=lambda pair: pair[0].sort_key())
    lines = [f"{f.file}:{f.line}:{f.column}: {text}" for f, text in done]
    for name, key in outcome.secrets:
        lines.append(
            f"create the Secret {name} with the key {key} before applying (the value is "
            f"never written: kubectl create secret generic {name} --from-literal={key}=...)"
        )
    active = sum(1 for f in remaining if not f.suppressed)
    left = active if written else max(active - len(outcome.fixed), 0)
    refused = len(outcome.refused)
    parts = [f"{left - refused} no unique fix"] if left > refused else []
    if refused:
        parts.append(f"{refused} not fixable")
    head = f"{verb} {len(outcome.fixed)}, {left} left"
    return [*lines, head + (": " + ", ".join(parts) if parts else "")]
