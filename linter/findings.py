"""Findings, their ordering, and the exit-code policy shared by lint and drift."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from linter.lightclass import frozen


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.upper()]

    @property
    def label(self) -> str:
        return self.name.lower()


@frozen
class Suppression:
    """Why a finding is not counted; its JSON and SARIF shape is in the README, "Suppressions"."""

    reason: str
    until: str | None
    source: str  # inline | annotation | config | baseline

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "until": self.until, "source": self.source}


# ``extra`` key of a finding moved from a rendered manifest to its source (helm/provenance.py):
# {"file", "line", "column", "doc_index"} of the rendered position.
RENDERED_KEY = "rendered"


# What ``servelint lint --fix`` may do (docs/fix.md): replace the scalar the finding points
# at, put a flag's successor in place of the flag, add keys to the mapping the finding
# points at, or move a literal env value into a Secret reference.
FIX_ACTIONS = frozenset({"set", "rename-flag", "add", "secret-ref"})


@frozen
class Fix:
    """A fix a rule attaches to its finding: what to write at the finding's position.
    ``set``: ``value`` is the new scalar; ``rename-flag``: the successor flag; ``add``:
    ``value`` maps keys to what they hold, added to the mapping ``under`` names (a key of
    the mapping at the finding; "" for that mapping, ".." for the one holding it);
    ``secret-ref``: ``value`` is ``{"name": Secret, "key": key}``."""

    action: str
    value: Any
    under: str = ""
    # ``set`` of a server setting: the flag that carries it on a command line, to find the
    # value's token in ``--max-model-len 8192`` or ``--max-model-len=8192``.
    flag: str = ""

    @classmethod
    def from_data(cls, data: object) -> Fix | None:
        """The fix a rule's ``autofix`` expression returned; None for null or a malformed
        map (a fix that cannot be read is not applied)."""
        if not isinstance(data, Mapping) or data.get("action") not in FIX_ACTIONS:
            return None
        under, flag = data.get("under", ""), data.get("flag", "")
        if "value" not in data or not isinstance(under, str) or not isinstance(flag, str):
            return None
        return cls(str(data["action"]), _plain(data["value"]), under, flag)


def _plain(value: Any) -> Any:
    """CEL's maps and lists as Python dicts and lists (bools stay bools)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@frozen
class Finding:
    rule_id: str
    severity: Severity
    message: str
    file: str
    line: int
    column: int
    path: str = ""
    doc_index: int = 0
    # Extra structured data a front end adds (drift: desired, live, source).
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, hash=False)
    suppression: Suppression | None = None
    # The rule's fix, when it has one safe, unique fix here (``servelint lint --fix``).
    fix: Fix | None = dataclasses.field(default=None, compare=False, hash=False)

    @property
    def suppressed(self) -> bool:
        return self.suppression is not None

    def sort_key(self) -> tuple[str, int, int, int, str, str, str]:
        return (
            self.file,
            self.doc_index,
            self.line,
            self.column,
            self.rule_id,
            self.path,
            self.message,
        )

    def positions(self) -> list[tuple[str, int, int]]:
        """(file, line, doc_index) where the finding is, and where it was rendered (for
        suppressions written in a Helm template, which stay in the rendered output)."""
        own = [(self.file, self.line, self.doc_index)]
        rendered = self.extra.get(RENDERED_KEY)
        if isinstance(rendered, Mapping):
            own.append((rendered["file"], rendered["line"], rendered["doc_index"]))
        return own

    def with_suppression(self, suppression: Suppression) -> Finding:
        return dataclasses.replace(self, suppression=suppression)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule": self.rule_id,
            "severity": self.severity.label,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "path": self.path,
        }
        out.update(self.extra)
        out["suppressed"] = self.suppressed
        if self.suppression is not None:
            out["suppression"] = self.suppression.to_json()
        return out


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(set(findings), key=Finding.sort_key)


def summarize(findings: Sequence[Finding]) -> dict[str, int]:
    counts = {"error": 0, "warning": 0, "info": 0, "suppressed": 0}
    for finding in findings:
        if finding.suppressed:
            counts["suppressed"] += 1
        else:
            counts[finding.severity.label] += 1
    return counts


def exit_code(findings: Iterable[Finding], fail_level: Severity) -> int:
    """0 when nothing active is at or above ``fail_level``, else 1."""
    failing = any(not f.suppressed and f.severity >= fail_level for f in findings)
    return 1 if failing else 0


def syntax_finding(
    source: str, message: str, line: int, column: int, doc_index: int = 0
) -> Finding:
    """The ``syntax`` finding of an input that does not parse."""
    return Finding(
        "syntax", Severity.ERROR, message, source, max(line, 1), max(column, 1), "", doc_index
    )


def limit_finding(source: str, message: str, line: int, column: int, doc_index: int = 0) -> Finding:
    """The ``input-limit`` finding of an input over a size, node or depth limit."""
    return Finding(
        "input-limit", Severity.ERROR, message, source, max(line, 1), max(column, 1), "", doc_index
    )
