"""An edited text read back: it must parse, and its data must be the original's with
exactly the changes its edits intend; anything else refuses the edits."""

from __future__ import annotations

import copy
from typing import Any

from linter.fix.edits import Edit, Refused
from linter.fix.locate import Unreadable, load


def applied(text: str, edits: list[Edit]) -> str:
    """``text`` with every edit made; edits at one offset keep their order."""
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[0]), reverse=True)
    for _, edit in ordered:
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text


def check(text: str, documents: list[Any], edits: list[Edit]) -> None:
    """The edited text must parse, and its data be the original's with exactly the
    changes the edits intend."""
    try:
        after = load(applied(text, edits))
    except Unreadable as exc:
        raise Refused(f"the edited file would not parse ({exc})") from exc
    expected = copy.deepcopy(documents)
    for edit in edits:
        if not _change(expected, edit):
            raise Refused("the value is not where the edit expects it")
    if after != expected:
        raise Refused("the edited file would not read as the fix intends")


def _change(documents: list[Any], edit: Edit) -> bool:
    if edit.doc >= len(documents):
        return False
    if not edit.path:
        new = edit.expect(documents[edit.doc])
        documents[edit.doc] = new
        return new is not None
    holder = documents[edit.doc]
    try:
        for part in edit.path[:-1]:
            holder = holder[part]
        new = edit.expect(holder[edit.path[-1]])
    except (KeyError, IndexError, TypeError):
        return False
    holder[edit.path[-1]] = new
    return new is not None
