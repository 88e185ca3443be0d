"""Render a chart with the real ``helm template`` and split the output per template.

Each rendered file is named after the template it came from (helm's ``# Source:``
comments): ``charts/vllm/templates/deployment.yaml (rendered)``, with lines counted as in
``helm template --show-only templates/deployment.yaml``; ``provenance.py`` then moves the
findings on it to the values key or template line they come from. A helm failure is a
finding that carries helm's own message, placed on the template line helm names when it
names one.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from linter.errors import SourceError
from linter.findings import Finding, Severity
from linter.parsing.documents import ParsedFile, parse_yaml

RENDER_RULE = "helm-template"
RENDERED_SUFFIX = " (rendered)"
TIMEOUT_SECONDS = 120
_SOURCE = re.compile(r"^# Source: (.+?)\s*$")
# "template: vllm/templates/x.yaml:12:20:", "at (vllm/templates/x.yaml:3:4)",
# "parse error at (vllm/templates/x.yaml:3)", "YAML parse error on vllm/templates/x.yaml"
_TEMPLATE_REF = re.compile(
    r"(?P<file>[\w.-]+/(?:charts/[\w.-]+/)*templates/[^\s:()]+)(?::(?P<line>\d+))?(?::(?P<col>\d+))?"
)
_MAX_MESSAGE = 2000
_LOG_LINE = re.compile(r'^level=\w+ msg="(.*)"$')
_HELM_ADVICE = ("Use --debug flag to render out invalid YAML",)


@dataclasses.dataclass(frozen=True)
class Rendered:
    """What one ``helm template`` run produced."""

    files: list[ParsedFile]
    problems: list[Finding]
    warnings: list[str]


def find_helm(explicit: str | None) -> str | None:
    """The helm binary: ``explicit`` (which must work), else ``helm`` on PATH, else None."""
    if explicit:
        found = shutil.which(explicit) or (explicit if os.access(explicit, os.X_OK) else None)
        if found is None or not Path(found).is_file():
            raise SourceError(f"{explicit}: helm binary not found or not executable (--helm)")
        return found
    return shutil.which("helm")


def helm_command(
    helm: str, release: str, chart_dir: str, values: Sequence[str], sets: Sequence[str]
) -> list[str]:
    command = [helm, "template", release, chart_dir]
    for path in values:
        command += ["--values", path]
    for argument in sets:
        command += ["--set", argument]
    return command


def render(
    helm: str,
    chart_dir: str,
    chart_name: str,
    values: Sequence[str],
    sets: Sequence[str],
    release: str,
) -> Rendered:
    """Run ``helm template`` and parse its output; failures come back as findings."""
    command = helm_command(helm, release, chart_dir, values, sets)
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Rendered(
            [],
            [
                _failure(
                    chart_dir, chart_name, f"helm template did not finish in {TIMEOUT_SECONDS} s"
                )
            ],
            [],
        )
    except OSError as exc:
        return Rendered([], [_failure(chart_dir, chart_name, f"cannot run {helm}: {exc}")], [])
    stderr = done.stderr.strip()
    if done.returncode != 0:
        stderr = _helm_error(stderr)
        detail = stderr or f"exit code {done.returncode}"
        return Rendered(
            [], [_failure(chart_dir, chart_name, f"helm template failed: {detail}")], []
        )
    # helm 4 prints some warnings once per coalescing pass: say each once
    warnings = list(dict.fromkeys(_warning(line) for line in stderr.splitlines() if line.strip()))
    return Rendered(split_rendered(done.stdout, chart_dir, chart_name), [], warnings)


def split_rendered(output: str, chart_dir: str, chart_name: str) -> list[ParsedFile]:
    """One parsed file per template, in the order helm printed them."""
    groups: dict[str, list[str]] = {}
    for chunk in _chunks(output):
        source = next((m.group(1) for line in chunk[:3] if (m := _SOURCE.match(line))), "")
        groups.setdefault(rendered_name(chart_dir, chart_name, source), []).extend(chunk)
    return [parse_yaml(name, "\n".join(lines) + "\n") for name, lines in groups.items()]


def rendered_name(chart_dir: str, chart_name: str, source: str) -> str:
    """``vllm/templates/x.yaml`` → ``<chart_dir>/templates/x.yaml (rendered)``."""
    return _template_path(chart_dir, chart_name, source or "") + RENDERED_SUFFIX


def _template_path(chart_dir: str, chart_name: str, source: str) -> str:
    base = chart_dir.rstrip("/") or "."
    if not source:
        return base
    prefix = f"{chart_name}/"
    rest = source[len(prefix) :] if source.startswith(prefix) else source.split("/", 1)[-1]
    return f"{base}/{rest}"


def _chunks(output: str) -> list[list[str]]:
    """Split at the ``---`` lines helm puts before every object; drop empty pieces."""
    chunks: list[list[str]] = []
    current: list[str] = []
    for line in output.splitlines():
        if line.rstrip() == "---" and current:
            chunks.append(current)
            current = []
        current.append(line)
    chunks.append(current)
    return [chunk for chunk in chunks if any(_is_content(line) for line in chunk)]


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and stripped != "---" and not stripped.startswith("#")


def _helm_error(stderr: str) -> str:
    """helm's error (from its "Error:" line on), without its advice about its own flags."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith("Error: ")), 0)
    kept = [line.removeprefix("Error: ") for line in lines[start:] if line not in _HELM_ADVICE]
    return "\n".join(kept)


def _warning(line: str) -> str:
    """Helm 4 logs ``level=INFO msg="warning: ..."``; keep the message itself."""
    match = _LOG_LINE.match(line.strip())
    return match.group(1).replace('\\"', '"') if match else line.strip()


def _failure(chart_dir: str, chart_name: str, message: str) -> Finding:
    flat = " ".join(line.strip() for line in message.splitlines() if line.strip())
    if len(flat) > _MAX_MESSAGE:
        flat = flat[:_MAX_MESSAGE] + " …"
    match = _TEMPLATE_REF.search(flat)
    if match is None:
        base = chart_dir.rstrip("/") or "."
        return Finding(RENDER_RULE, Severity.ERROR, flat, f"{base}/Chart.yaml", 1, 1)
    file = _template_path(chart_dir, chart_name, match.group("file"))
    line = int(match.group("line") or 1)
    column = int(match.group("col") or 1)
    return Finding(RENDER_RULE, Severity.ERROR, flat, file, line, column)
