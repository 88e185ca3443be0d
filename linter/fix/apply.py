"""Plan the fixes of a run's findings, file by file: each fix becomes an edit of the
original text, every edit is checked by reading the edited file back (it parses, and
the data differs from before exactly as the fix says), and a fix that cannot be made
safely is refused with its reason. Nothing here writes; ``write.py`` does."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from linter.findings import Finding
from linter.fix.edits import Edit, Refused
from linter.fix.guard import Bounds, refusal
from linter.fix.inline import edit as edit_for
from linter.fix.locate import Unreadable, load, places
from linter.fix.text import Source
from linter.fix.verify import applied, check
from linter.lightclass import frozen


@frozen
class Change:
    """One file's bytes before and after its fixes."""

    file: str
    before: bytes
    after: bytes


@frozen
class Outcome:
    fixed: tuple[Finding, ...]
    refused: tuple[tuple[Finding, str], ...]
    changes: tuple[Change, ...]
    # The Secrets the fixes now reference: (name, key); their values are never written.
    secrets: tuple[tuple[str, str], ...]


def plan(findings: Iterable[Finding], bounds: Bounds, secrets: frozenset[str]) -> Outcome:
    fixed: list[Finding] = []
    refused: list[tuple[Finding, str]] = []
    changes: list[Change] = []
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.fix is None or finding.suppressed:
            continue
        reason = refusal(finding, bounds)
        if reason is None:
            by_file.setdefault(finding.file, []).append(finding)
        else:
            refused.append((finding, reason))
    for name in sorted(by_file):
        change, done, failed = _plan_file(name, by_file[name], secrets)
        fixed += done
        refused += failed
        if change is not None:
            changes.append(change)
    return Outcome(tuple(fixed), tuple(refused), tuple(changes), _secrets_of(fixed))


def _secrets_of(fixed: Sequence[Finding]) -> tuple[tuple[str, str], ...]:
    found: dict[tuple[str, str], None] = {}
    for finding in fixed:
        fix = finding.fix
        if fix is not None and fix.action == "secret-ref":
            found[(str(fix.value["name"]), str(fix.value["key"]))] = None
    return tuple(found)


def _plan_file(
    name: str, findings: list[Finding], secrets: frozenset[str]
) -> tuple[Change | None, list[Finding], list[tuple[Finding, str]]]:
    try:
        with open(name, "rb") as handle:
            before = handle.read()
    except OSError as exc:
        reason = f"not fixable: the file could not be read ({exc.strerror})"
        return None, [], [(f, reason) for f in findings]
    try:
        source = Source.decode(before)
        all_places = places(source.text)
        documents = load(source.text)
    except (UnicodeDecodeError, Unreadable) as exc:
        reason = f"not fixable: the file does not read as plain YAML ({exc})"
        return None, [], [(f, reason) for f in findings]
    edits: list[tuple[Finding, Edit]] = []
    refused: list[tuple[Finding, str]] = []
    for finding in findings:
        assert finding.fix is not None
        try:
            edit = edit_for(source, all_places, finding, finding.fix)
            _check_secret(edit, secrets)
            check(source.text, documents, [edit])
        except Refused as exc:
            refused.append((finding, f"not fixable: {exc}"))
            continue
        edits.append((finding, edit))
    kept, conflicting = _without_conflicts(edits)
    refused += conflicting
    if not kept:
        return None, [], refused
    unique = list(dict.fromkeys(edit for _, edit in kept))
    text = applied(source.text, unique)
    try:
        check(source.text, documents, unique)
    except Refused as exc:
        return None, [], refused + [(f, f"not fixable: {exc}") for f, _ in kept]
    after = source.encode(text)
    return Change(name, before, after), [f for f, _ in kept], refused


def _check_secret(edit: Edit, secrets: frozenset[str]) -> None:
    if any(value in edit.new for value in secrets if value):
        raise Refused("it would write a secret value")


def _without_conflicts(
    edits: list[tuple[Finding, Edit]],
) -> tuple[list[tuple[Finding, Edit]], list[tuple[Finding, str]]]:
    """Edits of one value that disagree (one number per environment of a shared values
    file) are all refused; so is an edit overlapping another one's span."""
    by_target: dict[tuple[int, tuple[Any, ...], int, int, str], set[str]] = {}
    for _, edit in edits:
        by_target.setdefault(_target(edit), set()).add(edit.new)
    kept: list[tuple[Finding, Edit]] = []
    refused: list[tuple[Finding, str]] = []
    for finding, edit in sorted(edits, key=lambda pair: (pair[1].start, pair[1].end)):
        if len(by_target[_target(edit)]) > 1:
            refused.append(
                (
                    finding,
                    "not fixable: no unique fix (the inputs that share "
                    "this value need different ones)",
                )
            )
        elif any(_overlap(edit, other) for _, other in kept if other != edit):
            refused.append((finding, "not fixable: another fix changes the same text"))
        else:
            kept.append((finding, edit))
    return kept, refused


def _target(edit: Edit) -> tuple[int, tuple[Any, ...], int, int, str]:
    return (edit.doc, edit.path, edit.start, edit.end, edit.target)


def _overlap(one: Edit, other: Edit) -> bool:
    if one.start == one.end or other.start == other.end:
        return other.start < one.start < other.end or one.start < other.start < one.end
    return one.start < other.end and other.start < one.end
