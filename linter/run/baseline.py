"""Baselines: switch servelint on in an old repository and fail only on new findings.

An entry is keyed by file, rule id, structural path and a normalised message, never by
line number, so an edit that moves lines keeps every known finding known. Entries are
a multiset: two identical findings in one file need two entries. Entries for files
linted in this run that match nothing any more are stale and reported as notes.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from linter.atomic_write import write_text
from linter.errors import ConfigError
from linter.findings import Finding, Suppression
from linter.parsing import bounded
from linter.run.globs import relative_to

BASELINE_VERSION = 1
# A file that could not be read or parsed was not checked at all: never hide that.
NEVER_BASELINED = ("syntax", "read-error", "input-limit")
_LINE_REFERENCE = re.compile(r"\b(lines?)\s+[0-9]+")
_POSITION = re.compile(r"(\.(?:ya?ml|json|pbtxt|toml)):[0-9]+(?::[0-9]+)?")
_SPACE = re.compile(r"\s+")


@dataclasses.dataclass(frozen=True, order=True)
class BaselineEntry:
    file: str  # relative to the baseline file's folder, with /
    rule: str
    path: str
    message: str  # normalised

    def to_json(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Baseline:
    name: str  # as the user spelled it, for messages
    root: Path
    entries: tuple[BaselineEntry, ...]


def normalise(message: str) -> str:
    """Drop what moves when unrelated lines move: line references and spacing."""
    message = _LINE_REFERENCE.sub(r"\1 N", message)
    message = _POSITION.sub(r"\1:N", message)
    return _SPACE.sub(" ", message).strip()


def entry_for(finding: Finding, root: Path, files: dict[str, str] | None = None) -> BaselineEntry:
    """``files`` memoises file names: many findings share one, and the path arithmetic
    would otherwise dominate a large run."""
    files = {} if files is None else files
    if finding.file not in files:
        files[finding.file] = _relative(root, finding.file)
    return BaselineEntry(
        files[finding.file], finding.rule_id, finding.path, normalise(finding.message)
    )


def _relative(root: Path, name: str) -> str:
    return name if name.startswith("<") else relative_to(root, name)


def _eligible(finding: Finding) -> bool:
    return (
        not finding.suppressed
        and finding.rule_id not in NEVER_BASELINED
        and not finding.rule_id.startswith("suppression/")
    )


def write(path: Path, findings: Iterable[Finding]) -> Baseline:
    """Record every active finding; the file is replaced atomically."""
    root = Path(os.path.abspath(path)).parent
    files: dict[str, str] = {}
    entries = tuple(sorted(entry_for(f, root, files) for f in findings if _eligible(f)))
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
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    return Baseline(str(path), Path(os.path.abspath(path)).parent, _entries(path, data))


def _entries(path: Path, data: Any) -> tuple[BaselineEntry, ...]:
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION:
        raise ConfigError(f"{path}: not a servelint baseline (version {BASELINE_VERSION})")
    raw = data.get("findings")
    keys = ("file", "rule", "path", "message")
    if not isinstance(raw, list) or not all(
        isinstance(item, dict) and all(isinstance(item.get(k), str) for k in keys) for item in raw
    ):
        raise ConfigError(f"{path}: 'findings' must be a list of {{{', '.join(keys)}}} entries")
    return tuple(BaselineEntry(*(item[k] for k in keys)) for item in raw)


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
