"""Suppressions: inline comments, Kubernetes annotations and configuration entries."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from linter.findings import Finding
from linter.parsing.documents import ParsedFile
from linter.run.config import Config
from linter.run.globs import matches_any, relative_to
from linter.run.suppress.apply import apply
from linter.run.suppress.model import META_RULES, Directive

__all__ = ["META_RULES", "Directive", "apply", "collect"]


def collect(
    parsed_files: Sequence[ParsedFile], config: Config, linted: Sequence[str]
) -> tuple[list[Directive], list[Finding]]:
    """Every directive of this run, and findings about comments that cannot be read."""
    directives: list[Directive] = []
    problems: list[Finding] = []
    for parsed in parsed_files:
        if "servelint" not in parsed.text:  # the one cheap test most files stop at
            continue
        # The comment and annotation readers load only for such a file (start-up time).
        from linter.run.suppress import annotated, inline

        for scanner in (inline.scan, annotated.scan):
            found, bad = scanner(parsed)
            directives.extend(found)
            problems.extend(bad)
    directives.extend(_from_config(config, linted))
    return directives, problems


def _from_config(config: Config, linted: Sequence[str]) -> list[Directive]:
    directives: list[Directive] = []
    for entry in config.suppressions:
        paths, root = entry.paths, config.root
        covers = _path_scope(paths, root)
        in_play = not paths or any(matches_any(paths, relative_to(root, f)) for f in linted)
        directives.extend(
            Directive(
                rule,
                entry.reason,
                entry.until,
                "config",
                config.source or "",
                entry.line,
                entry.column,
                covers,
                in_play,
            )
            for rule in entry.rules
        )
    return directives


def _path_scope(paths: tuple[str, ...], root: Path) -> Callable[[Finding], bool]:
    def covers(finding: Finding) -> bool:
        return not paths or matches_any(paths, relative_to(root, finding.file))

    return covers
