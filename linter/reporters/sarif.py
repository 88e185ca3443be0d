"""SARIF 2.1.0 for code scanning (GitHub ``upload-sarif``, GitLab, Azure DevOps).

File paths are relative to the working directory under ``%SRCROOT%``, so a CI job run
from the checkout root produces locations that point at the pull request's lines.
Suppressed findings stay in the log with ``result.suppressions``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from linter import __version__
from linter.coverage.text import summary_lines
from linter.findings import Finding, Severity, Suppression
from linter.reporters.meta import (
    INFORMATION_URI,
    TOOL_NAME,
    RuleMeta,
    repo_path,
    rule_metadata,
    rules_for,
)
from linter.run.rulemeta import is_link

if TYPE_CHECKING:
    from linter.evaluate.result import RunResult

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "servelint/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def as_sarif(result: RunResult, root: Path) -> dict[str, Any]:
    """The SARIF log of one run; ``root`` is the directory ``%SRCROOT%`` stands for."""
    rules = rules_for(result.findings, rule_metadata(result))
    index = {rule.id: position for position, rule in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule(rule) for rule in rules],
            }
        },
        "invocations": [_invocation(result)],
        "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(root)}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(f, index[f.rule_id], root) for f in result.findings],
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _directory_uri(root: Path) -> str:
    uri = root.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _rule(rule: RuleMeta) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": rule.id,
        "shortDescription": {"text": rule.title or rule.id},
    }
    if rule.description:
        out["fullDescription"] = {"text": rule.description.strip()}
    links = [ref for ref in rule.references if is_link(ref)]
    if rule.help_uri and is_link(rule.help_uri):
        out["helpUri"] = rule.help_uri
    if rule.fix or links:
        out["help"] = _help(rule.fix.strip(), links)
    out["defaultConfiguration"] = {"level": LEVELS[rule.severity]}
    return out


def _help(fix: str, links: list[str]) -> dict[str, str]:
    """``help``: the fix, then the upstream sources as links (code scanning renders the
    markdown on the alert page)."""
    text = [fix] if fix else []
    markdown = [f"**Fix:**\n\n```\n{fix}\n```" if "\n" in fix else f"**Fix:** {fix}"] if fix else []
    if links:
        text.append("Sources: " + " ".join(links))
        markdown.append("**Sources:**\n\n" + "\n".join(f"- <{link}>" for link in links))
    return {"text": "\n\n".join(text), "markdown": "\n\n".join(markdown)}


def _invocation(result: RunResult) -> dict[str, Any]:
    out: dict[str, Any] = {"executionSuccessful": result.read_failures == 0}
    # Coverage: what was not understood or not checked is a notification of the run, and
    # the whole section is kept under the invocation's properties.
    coverage = result.coverage
    detail = coverage.gaps or coverage.not_understood
    notes = [*result.notes, *(summary_lines(coverage, verbose=True) if detail else [])]
    if notes:
        out["toolExecutionNotifications"] = [
            {"level": "note", "message": {"text": note}} for note in notes
        ]
    out["properties"] = {"coverage": coverage.to_json()}
    return out


def _result(finding: Finding, rule_index: int, root: Path) -> dict[str, Any]:
    relative = repo_path(finding.file, root)
    out: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": finding.message},
        "locations": [_location(finding, relative)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(finding, relative)},
    }
    if finding.suppression is not None:
        out["suppressions"] = [_suppression(finding.suppression)]
    if finding.extra:
        # What a front end adds (drift: desired and live values; charts: environments).
        out["properties"] = dict(finding.extra)
    return out


def _location(finding: Finding, relative: str | None) -> dict[str, Any]:
    if relative is not None:
        artifact = {"uri": quote(relative), "uriBaseId": SRCROOT}
    else:
        artifact = {"uri": Path(finding.file).absolute().as_uri()}
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": artifact,
            "region": {"startLine": finding.line, "startColumn": finding.column},
        }
    }
    if finding.path:
        location["logicalLocations"] = [{"fullyQualifiedName": finding.path, "kind": "member"}]
    return location


def _suppression(suppression: Suppression) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": "inSource" if suppression.source == "inline" else "external",
        "status": "accepted",
        "justification": suppression.reason,
        "properties": {"source": suppression.source},
    }
    if suppression.until:
        out["properties"]["until"] = suppression.until
    return out


def fingerprint(finding: Finding, relative: str | None = None) -> str:
    """Identity of a finding that survives lines moving: rule, file, document, path.

    Findings without a structural path (syntax errors) fall back to the line.
    """
    where = finding.path or f"line {finding.line}"
    name = relative if relative is not None else finding.file
    key = "\0".join((finding.rule_id, name, str(finding.doc_index), where))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


class SarifReporter:
    def __init__(self, *, color: bool = False, quiet: bool = False, verbose: bool = False) -> None:
        self.color = color
        self.quiet = quiet

    def report(self, result: RunResult, stream: TextIO) -> None:
        json.dump(as_sarif(result, Path.cwd()), stream, indent=2, ensure_ascii=False)
        stream.write("\n")
