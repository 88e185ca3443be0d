"""Render a chart with the real ``helm template`` and split the output per template.

Each rendered file is named after the template it came from (helm's ``# Source:``
comments): ``charts/vllm/templates/deployment.yaml (rendered)``, with lines counted as in
``helm template --show-only templates/deployment.yaml``; ``provenance.py`` then moves the
findings on it to the values key or template line they come from. A helm failure is a
finding that carries helm's own message, placed on the template line helm names when it
names one.

A chart under review is untrusted: ``ln -s /proc/self/environ files/env`` with
``{{ fail (.Files.Get "files/env") }}`` would copy the runner's environment into the
report. So helm renders a copy of the chart made here, in which no symbolic link leaves
the chart (a chart that has one is not rendered: a finding names the link), and only
regular files are copied; the values files reach helm as bounded copies too; and helm
runs with a minimal environment (``PATH`` and its own folders inside the copy).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from linter.errors import SourceError
from linter.findings import Finding, Severity
from linter.lightclass import frozen
from linter.parsing import bounded
from linter.parsing.documents import DEFAULT_LIMITS, ParsedFile, parse_yaml

RENDER_RULE = "helm-template"
RENDERED_SUFFIX = " (rendered)"
TIMEOUT_SECONDS = 120
# helm holds the whole rendering in memory before it prints a byte: a 4 KB chart that
# renders 300 MB took 3.5 GB (issue 31). Its data segment is bounded (RLIMIT_DATA, which
# counts Go's heap; RLIMIT_AS would count the address space Go reserves at start). A
# rendering just under the output limit (50 MiB) needs about 500 MB, the example chart 53.
MEMORY_BYTES = 1024 * 1024 * 1024
_OUT_OF_MEMORY = re.compile(r"^fatal error: .*(?:out of memory|cannot allocate memory)", re.M)
_SOURCE = re.compile(r"^# Source: (.+?)\s*$")
# "template: vllm/templates/x.yaml:12:20:", "at (vllm/templates/x.yaml:3:4)",
# "parse error at (vllm/templates/x.yaml:3)", "YAML parse error on vllm/templates/x.yaml"
_TEMPLATE_REF = re.compile(
    r"(?P<file>[\w.-]+/(?:charts/[\w.-]+/)*templates/[^\s:()]+)(?::(?P<line>\d+))?(?::(?P<col>\d+))?"
)
_MAX_MESSAGE = 2000
_LOG_LINE = re.compile(r'^level=\w+ msg="(.*)"$')
_HELM_ADVICE = ("Use --debug flag to render out invalid YAML",)
# Everything a chart folder may hold, copied: helm's own limit for a chart archive's
# decompressed size is of this order (100 MiB); a folder beyond it is not rendered.
MAX_CHART_BYTES = 100 * 2**20
_SKIP = {".git"}


@frozen
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
    """Run ``helm template`` on a copy of the chart and parse its output; failures come
    back as findings."""
    with tempfile.TemporaryDirectory(prefix="servelint-render-") as work:
        copy = os.path.join(work, os.path.basename(os.path.realpath(chart_dir)) or "chart")
        refused = copy_chart(chart_dir, copy)
        if refused:
            return Rendered([], [_refusal(chart_dir, path, why) for path, why in refused], [])
        copied_values: list[str] = []
        for index, path in enumerate(values):
            target = os.path.join(work, f"values-{index}.yaml")
            try:
                Path(target).write_bytes(bounded.read_bytes(path, DEFAULT_LIMITS.max_bytes))
            except OSError as exc:
                reason = str(exc) if isinstance(exc, bounded.InputRefused) else exc.strerror
                message = f"helm template not run: {path}: cannot read: {reason or exc}"
                return Rendered([], [_failure(chart_dir, chart_name, message)], [])
            copied_values.append(target)
        command = helm_command(helm, release, copy, copied_values, sets)
        try:
            done = _run_bounded(command, work)
        except subprocess.TimeoutExpired:
            message = f"helm template did not finish in {TIMEOUT_SECONDS} s"
            return Rendered([], [_failure(chart_dir, chart_name, message)], [])
        except _OutputTooLarge:
            message = (
                f"helm template printed more than {DEFAULT_LIMITS.max_bytes} bytes; "
                "not linted (the input size limit)"
            )
            return Rendered([], [_failure(chart_dir, chart_name, message)], [])
        except OSError as exc:
            return Rendered([], [_failure(chart_dir, chart_name, f"cannot run {helm}: {exc}")], [])
        # helm names the copies: its messages name what the user gave
        names = {copy: chart_dir.rstrip("/") or ".", work: "."}
        names.update(zip(copied_values, values, strict=True))
        done = subprocess.CompletedProcess(
            done.args, done.returncode, done.stdout, _renamed(done.stderr, names)
        )
    stderr = done.stderr.strip()
    if done.returncode != 0 and _OUT_OF_MEMORY.search(stderr):
        message = (
            f"helm template needed more than {MEMORY_BYTES // 2**20} MiB of memory; "
            "not linted (helm's memory limit)"
        )
        return Rendered([], [_failure(chart_dir, chart_name, message)], [])
    if done.returncode != 0:
        stderr = _helm_error(stderr)
        detail = stderr or f"exit code {done.returncode}"
        return Rendered(
            [], [_failure(chart_dir, chart_name, f"helm template failed: {detail}")], []
        )
    # helm 4 prints some warnings once per coalescing pass: say each once
    warnings = list(dict.fromkeys(_warning(line) for line in stderr.splitlines() if line.strip()))
    return Rendered(split_rendered(done.stdout, chart_dir, chart_name), [], warnings)


class _OutputTooLarge(Exception):
    """helm printed more than the input size limit."""


def _run_bounded(command: list[str], work: str) -> subprocess.CompletedProcess[str]:
    """Run helm with its output going to files in ``work``, watched while it runs: a
    chart whose templates print gigabytes is stopped at the input size limit (and at the
    time limit), never collected in memory."""
    limit = DEFAULT_LIMITS.max_bytes
    out_path, err_path = os.path.join(work, ".helm-stdout"), os.path.join(work, ".helm-stderr")
    with open(out_path, "xb") as out, open(err_path, "xb") as err:
        process = subprocess.Popen(
            command,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=helm_environment(work),
            cwd=work,
            preexec_fn=_limit_memory if os.name == "posix" else None,
        )
        deadline = time.monotonic() + TIMEOUT_SECONDS
        try:
            while True:
                try:
                    process.wait(timeout=0.05)
                    break
                except subprocess.TimeoutExpired:
                    if (
                        os.fstat(out.fileno()).st_size > limit
                        or os.fstat(err.fileno()).st_size > limit
                    ):
                        raise _OutputTooLarge from None
                    if time.monotonic() > deadline:
                        raise subprocess.TimeoutExpired(command, TIMEOUT_SECONDS) from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    try:
        stdout, stderr = (
            bounded.read_bytes(path, limit).decode("utf-8", "replace")
            for path in (out_path, err_path)
        )
    except bounded.InputRefused as exc:
        raise _OutputTooLarge from exc
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _limit_memory() -> None:  # pragma: no cover - runs in the child, before helm
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))


def helm_environment(work: str) -> dict[str, str]:
    """What helm may see of the runner's environment: ``PATH`` only, and its own cache,
    configuration and data folders inside ``work`` (nothing there is a secret)."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": work,
        "TMPDIR": work,
        "HELM_CACHE_HOME": os.path.join(work, ".helm", "cache"),
        "HELM_CONFIG_HOME": os.path.join(work, ".helm", "config"),
        "HELM_DATA_HOME": os.path.join(work, ".helm", "data"),
        "LC_ALL": "C.UTF-8",
    }


def copy_chart(source: str, target: str) -> list[tuple[str, str]]:
    """Copy the chart folder ``source`` to ``target`` for helm: regular files and
    folders, and the symbolic links that stay inside the chart (kept as relative links).
    Returns what was refused, as (path, reason); the copy is only usable without any."""
    root = os.path.realpath(source)
    refused: list[tuple[str, str]] = []
    total = 0
    shown = source.rstrip("/") or "."
    for folder, dirnames, filenames in os.walk(root):
        relative = os.path.relpath(folder, root)
        destination = os.path.normpath(os.path.join(target, relative))
        os.makedirs(destination, exist_ok=True)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
        for name in [*dirnames, *sorted(filenames)]:
            path = os.path.join(folder, name)
            display = os.path.normpath(os.path.join(shown, relative, name))
            try:
                info = os.lstat(path)
            except OSError as exc:
                refused.append((display, f"cannot read: {exc.strerror or exc}"))
                continue
            if stat.S_ISLNK(info.st_mode):
                problem = _link_problem(path, root)
                if problem is not None:
                    refused.append((display, problem))
                    continue
                link = os.path.relpath(os.path.realpath(path), os.path.dirname(path))
                os.symlink(link, os.path.join(destination, name))
                if name in dirnames:
                    dirnames.remove(name)  # os.walk does not descend into links anyway
                continue
            if stat.S_ISDIR(info.st_mode):
                continue  # made when os.walk reaches it
            if not stat.S_ISREG(info.st_mode):
                refused.append((display, "not a regular file (a pipe, socket or device)"))
                continue
            total += info.st_size
            if total > MAX_CHART_BYTES:
                return [(shown, f"the chart folder holds more than {MAX_CHART_BYTES} bytes")]
            try:
                data = bounded.read_bytes(path, MAX_CHART_BYTES)
            except OSError as exc:
                refused.append((display, f"cannot read: {exc}"))
                continue
            with open(os.path.join(destination, name), "xb") as out:
                out.write(data)
    return refused


def _link_problem(path: str, root: str) -> str | None:
    """Why the link at ``path`` cannot be kept in the copy, or None when it may."""
    try:
        target = os.readlink(path)
    except OSError as exc:
        return f"cannot read the link: {exc.strerror or exc}"
    resolved = os.path.realpath(path)
    if os.path.commonpath([resolved, root]) != root:
        return (
            f"a symbolic link to {target!r}, outside the chart: helm would read it "
            "into the rendered output (remove the link or copy the file into the chart)"
        )
    if not os.path.exists(resolved):
        return f"a symbolic link to {target!r}, which does not exist"
    return None


def _refusal(chart_dir: str, path: str, why: str) -> Finding:
    return Finding(RENDER_RULE, Severity.ERROR, f"chart not rendered: {path}: {why}", path, 1, 1)


def _renamed(text: str, names: dict[str, str]) -> str:
    for temporary, given in sorted(names.items(), key=lambda item: -len(item[0])):
        text = text.replace(temporary, given)
    return text


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
