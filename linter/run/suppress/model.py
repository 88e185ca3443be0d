"""Suppression directives, wherever they were written, and the findings about them."""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable

from linter.findings import Finding, Severity
from linter.lightclass import frozen

MISSING_REASON = "suppression/missing-reason"
EXPIRED = "suppression/expired"
UNUSED = "suppression/unused"
INVALID = "suppression/invalid"
META_RULES = (MISSING_REASON, EXPIRED, UNUSED, INVALID)
# Precedence when several directives cover one finding: the closest to it wins.
SOURCES = ("inline", "annotation", "config")
LOCAL_SOURCES = ("inline", "annotation")  # cover findings in the file they are written in


@frozen
class Directive:
    """One rule id (or pattern with ``*``) not counted where ``covers`` says.

    ``file``/``line``/``column`` locate the directive itself, for the findings about it.
    """

    rule: str
    reason: str  # "" when none was given
    until: datetime.date | None
    source: str  # inline | annotation | config
    file: str
    line: int
    column: int
    covers: Callable[[Finding], bool] = dataclasses.field(compare=False, hash=False)
    # Config entries scoped to paths outside this run are not "unused", just not in play.
    in_play: bool = True


def meta_finding(rule_id: str, directive: Directive, message: str) -> Finding:
    return Finding(
        rule_id, Severity.WARNING, message, directive.file, directive.line, directive.column
    )


def invalid_finding(file: str, line: int, column: int, message: str) -> Finding:
    return Finding(INVALID, Severity.WARNING, message, file, line, column)


def parse_date(text: str) -> datetime.date:
    """``YYYY-MM-DD``, and nothing else, so a typo never silently means another day."""
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        try:
            return datetime.date.fromisoformat(text)
        except ValueError:
            pass
    raise ValueError(f"until={text} is not a date (YYYY-MM-DD)")
