"""Baselines: switch servelint on in an old repository and fail only on new findings.

An entry is keyed by file, rule id and structural path (the setting the finding is
about), never by line number or message: an edit that moves lines keeps every known
finding known, and so does a new servelint release that words a message differently or
computes another number in it (the message is stored for people reading the file, and
not compared). Entries are a multiset: two findings of one rule on one setting need two
entries. Entries for files linted in this run that match nothing any more are stale and
reported as notes.

A committed secret (``secrets/literal-secret``) is never recorded and never matched: it
stays readable in the repository's history, so accepting it as "known" would hide the
one finding whose fix (rotating the credential) cannot wait. It can be suppressed only
with a reason that says it was rotated (see ``linter.run.suppress.apply``).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from linter.atomic_write import write_text
from linter.errors import ConfigError
from linter.findings import Finding, Suppression
from linter.lightclass import frozen
from linter.parsing import bounded
from linter.run.globs import relative_to
from linter.secrets import literal as literal_secrets

BASELINE_VERSION = 2
# Version 1 also keyed entries by message; its files still load (the message is ignored).
READABLE_VERSIONS = (1, BASELINE_VERSION)
# A file that could not be read or parsed was not checked at all: never hide that. A
# committed secret must be rotated, not accepted (module docstring).
NEVER_BASELINED = ("syntax", "read-error", "input-limit", literal_secrets.RULE_ID)


@dataclasses.dataclass(frozen=True, order=True)
class BaselineEntry:
    file: str  # relative to the baseline file's folder, with /
    rule: str
    path: str
    # For people reading the file; not part of the key (module docstring).
    message: str = dataclasses.field(default="", compare=False)

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@frozen
class Baseline:
    name: str  # as the user spelled it, for messages
    root: Path
    entries: tuple[BaselineEntry, ...]


def entry_for(finding: Finding, root: Path, files: dict[str, str] | None = None) -> BaselineEntry:
    """``files`` memoises file names: many findings share one, and the path arithmetic
    would otherwise dominate a large run."""
    files = {} if files is None else files
    if finding.file not in files:
        files[finding.file] = _relative(root, finding.file)
    return BaselineEntry(
        files[finding.file], finding.rule_id, finding.path, " ".join(finding.message.split())
    )


def _relative(root: Path, name: str) -> str:
    return name if name.startswith("<") else relative_to(root, name)


def _eligible(finding: Finding) -> bool:
    return (
        not finding.suppressed
        and finding.rule_id not in NEVER_BASELINED
        and not finding.rule_id.startswith("suppression/")
    )


def refused_secrets(findings: Iterable[Finding]) -> int:
    """How many active committed-secret findings a baseline written now leaves out."""
    return sum(1 for f in findings if f.rule_id == literal_secrets.RULE_ID and not f.suppressed)


def write(path: Path, findings: Iterable[Finding]) -> Baseline:
    """Record every active finding; the file is replaced atomically."""
    root = Path(os.path.abspath(path)).parent
    files: dict[str, str] = {}
    entries = tuple(
        sorted(
            (entry_for(f, root, files) for f in findings if _eligible(f)),
            key=lambda e: (e.file, e.rule, e.path, e.message),
        )
    )
    payload = {"version": BASELINE_VERSION, "findings": [e.to_json() for e in entries]}
    try:  # a unique temporary file, created exclusively, renamed over the baseline
        write_text(path, json.dumps(payload, indent=2) + "\n")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write baseline: {exc.strerror or exc}") from exc
    return Baseline(str(path), root, entries)


def load(path: Path) -> Baseline:
    try:
        text = bounded.read_text(path, encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: baseline not found; create it with "
            f"'servelint lint --write-baseline {path} ...'"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read baseline: {exc}") from exc
    try:
        data: Any = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except RecursionError:
        line, column = _too_deep(text)
        raise ConfigError(
            f"{path}:{line}:{column}: nested deeper than {_MAX_DEPTH} levels; "
            "not a servelint baseline"
        ) from None
    return Baseline(str(path), Path(os.path.abspath(path)).parent, _entries(path, data))


# A baseline is two levels deep; a hostile one (200,000 '[') must be an error at its
# place, not a RecursionError (issue 31).
_MAX_DEPTH = 200


def _integer(text: str) -> int | str:
    # Python refuses longer digit strings; a baseline holds no numbers that matter.
    return int(text) if len(text) <= 4300 else text


def _too_deep(text: str) -> tuple[int, int]:
    """Line and column of the bracket that nests ``text`` deeper than ``_MAX_DEPTH``
    (strings skipped); only called once the JSON reader has given up."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if escaped:
            escaped = False
        elif in_string:
            escaped = char == "\\"
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                start = text.rfind("\n", 0, offset) + 1
                return text.count("\n", 0, offset) + 1, offset - start + 1
        elif char in "]}":
            depth -= 1
    return 1, 1


def _entries(path: Path, data: Any) -> tuple[BaselineEntry, ...]:
    if not isinstance(data, dict) or data.get("version") not in READABLE_VERSIONS:
        raise ConfigError(f"{path}: not a servelint baseline (version {BASELINE_VERSION})")
    raw = data.get("findings")
    keys = ("file", "rule", "path")
    if not isinstance(raw, list) or not all(
        isinstance(item, dict)
        and all(isinstance(item.get(k), str) for k in keys)
        and isinstance(item.get("message", ""), str)
        for item in raw
    ):
        raise ConfigError(f"{path}: 'findings' must be a list of {{{', '.join(keys)}}} entries")
    return tuple(
        BaselineEntry(item["file"], item["rule"], item["path"], item.get("message", ""))
        for item in raw
    )


def apply(
    findings: Sequence[Finding], baseline: Baseline, linted: Sequence[str]
) -> tuple[list[Finding], list[str]]:
    """Known findings become suppressed (source ``baseline``); stale entries become notes."""
    remaining = collections.Counter(baseline.entries)
    reason = f"known finding, recorded in baseline {baseline.name}"
    out: list[Finding] = []
    files: dict[str, str] = {}
    for finding in findings:
        if _eligible(finding):
            entry = entry_for(finding, baseline.root, files)
            if remaining[entry] > 0:
                remaining[entry] -= 1
                finding = finding.with_suppression(Suppression(reason, None, "baseline"))
        out.append(finding)
    checked = {_relative(baseline.root, name) for name in linted}
    notes = [
        f"baseline {baseline.name}: stale entry {e.file}: {e.rule}"
        f"{' at ' + e.path if e.path else ''} is no longer found; refresh it with "
        f"--write-baseline {baseline.name}"
        for e in sorted(remaining.elements())
        if e.file in checked
    ]
    return out, notes
