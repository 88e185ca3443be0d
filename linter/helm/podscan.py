"""What a chart's templates add to its pods around ``/dev/shm``, read from their text.

The values reading of a chart (the pre-commit hook's, without helm) cannot see what the
templates write themselves: a ``/dev/shm`` mount, a memory-backed ``emptyDir``,
``hostIPC``, NCCL environment variables. This scan finds every place a template's text (or
a string in one of its actions) mentions them, with the ``if`` blocks around it. A block
whose condition is a plain ``.Values.a.b`` at the top of a template of the chart itself
can be judged against a release's values, as Go's ``text/template`` does
(https://pkg.go.dev/text/template: the empty values — false, 0, nil, empty string, map or
list — are false); anything else (``with``, ``range``, ``else``, a named template, a
subchart, a computed condition) is a block this scan cannot judge.

Text the templates do not contain can still reach the pods: values printed with
``toYaml`` and strings rendered with ``tpl`` (``podfacts.py`` looks at the values), and
chart files read through ``.Files`` (looked at here).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from linter.lightclass import frozen, mutable

if TYPE_CHECKING:  # a run that finds the scan in the cache reads no chart file
    from linter.helm.chartfiles import ChartFiles

Path = tuple[str, ...]

SHM = "shm-mount"
MEMORY = "memory-volume"
HOST_IPC = "host-ipc"
NCCL_ENV = "nccl-env"

# How far above and below a ``medium: Memory`` the scan looks for its ``sizeLimit`` and
# ``volumes:`` key: a volume is a few lines; a template of 100,000 such lines must not
# make the scan quadratic (issue 31).
_NEAR_LINES = 100
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`')
_SIMPLE = re.compile(r"(\$?)\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_TEXT_MARKS = (
    (SHM, re.compile(r"/dev/shm")),
    (SHM, re.compile(r"/dev/?$")),  # a mount path finished by the action that follows
    (MEMORY, re.compile(r"medium:\s*[\"']?Memory")),
    (HOST_IPC, re.compile(r"hostIPC")),
    (NCCL_ENV, re.compile(r"NCCL_SHM_DISABLE|NCCL_CUMEM_ENABLE")),
)
# In a string of an action, any "shm" may be a piece of a computed mount path.
_STRING_MARKS = (
    (SHM, re.compile(r"shm", re.I)),
    (MEMORY, re.compile(r"^Memory$")),
    (HOST_IPC, re.compile(r"hostIPC")),
    (NCCL_ENV, re.compile(r"NCCL_SHM_DISABLE|NCCL_CUMEM_ENABLE")),
)
_MOUNT_PATH = re.compile(r"mountPath:\s*[\"']?$")
_FILE_MARK = re.compile(r"shm|hostIPC|NCCL_SHM_DISABLE|NCCL_CUMEM_ENABLE", re.I)


@frozen
class Mark:
    """One mention: what it is, where, and the ``.Values`` paths of the ``if`` blocks
    around it (None for a block this scan cannot judge)."""

    kind: str
    where: str  # template name and line, for messages
    guards: tuple[Path | None, ...]
    # A memory-backed volume's sizeLimit: a literal, the values path it prints, None when
    # the volume has none; ``size_unread`` when it is written in a way this scan cannot read.
    size: str | Path | None = None
    size_unread: bool = False
    mount: bool = False  # written as ``mountPath: /dev/shm`` in a manifest's text
    # A memory-backed volume: line and column of the ``volumes:`` key above it, where the
    # rendered reading places a finding about the pod's volumes.
    volumes_at: tuple[int, int] | None = None

    @property
    def template(self) -> str:
        return self.where.rsplit(":", 1)[0]


@frozen
class PodScan:
    marks: tuple[Mark, ...]
    uses_tpl: bool  # values strings may be rendered as templates
    files_read: tuple[str, ...]  # chart files read through .Files that mention shm & co.


def scan_chart(chart: ChartFiles) -> PodScan:
    """Every mention in the templates of ``chart`` and its subcharts."""
    marks: list[Mark] = []
    uses_tpl = False
    uses_files = False
    for each in chart.walk():
        own = not each.key and not each.library
        for name, text in each.templates:
            found, tpl, files = _scan_template(name, text, own)
            marks.extend(found)
            uses_tpl = uses_tpl or tpl
            uses_files = uses_files or files
    files_read: list[str] = []
    if uses_files:
        for each in chart.walk():
            files_read.extend(name for name, read in each.files if _mentions(read))
    return PodScan(tuple(marks), uses_tpl, tuple(files_read))


def _mentions(read: Callable[[], bytes]) -> bool:
    try:
        content = read()
    except OSError:
        return True  # a file that cannot be read may say anything
    return bool(_FILE_MARK.search(content.decode("utf-8", "replace")))


@mutable
class _Frame:
    keyword: str
    guard: Path | None
    named: bool = False  # this block or one around it defines a named template
    scoped: bool = False  # this block or one around it is not an ``if`` (``.`` moved)


# Blocks deeper than this are one block the scan cannot judge: a guard is a tuple of the
# blocks around a mention, and 50,000 nested ``if`` must not make every mention cost
# 50,000 (issue 31).
_MAX_FRAMES = 200


def _actions(text: str) -> Iterator[tuple[int, int, str]]:
    """Start, end and inner text of every ``{{ }}`` (a leading and a trailing ``-``
    removed), as ``\\{\\{-?(.*?)-?\\}\\}`` finds them, in one pass: once no ``}}``
    follows, no later ``{{`` can close either, so the search stops (the pattern tried
    every ``{{`` to the end of the text: quadratic in 500,000 of them)."""
    at = 0
    while (start := text.find("{{", at)) >= 0:
        inner = start + 2 + (text.startswith("-", start + 2))
        close = text.find("}}", inner)
        if close < 0:
            return
        body_end = close - 1 if close > inner and text[close - 1] == "-" else close
        yield start, close + 2, text[inner:body_end]
        at = close + 2


def _scan_template(name: str, text: str, own: bool) -> tuple[list[Mark], bool, bool]:
    marks: list[Mark] = []
    frames: list[_Frame] = []
    uses_tpl = uses_files = False
    at = deep = 0
    newlines = [i for i, char in enumerate(text) if char == "\n"] if "\n" in text else []

    def mark(kind: str, offset: int) -> None:
        line = bisect.bisect_left(newlines, offset) + 1
        guards = tuple(f.guard for f in frames) + ((None,) if deep else ())
        start = text.rfind("\n", 0, offset) + 1
        near = _near(text, newlines, line) if kind == MEMORY else ("", 0)
        size, unread = (
            _size_limit(near[0], near[1] + offset - start) if kind == MEMORY else (None, False)
        )
        where = f"{name}:{line}"
        mount = kind == SHM and _MOUNT_PATH.search(text[start:offset]) is not None
        volumes_at = _volumes_key(*near) if kind == MEMORY else None
        if volumes_at is not None:
            volumes_at = (volumes_at[0] + max(line - 1 - _NEAR_LINES, 0), volumes_at[1])
        guarded = guards if own else (*guards, None)
        marks.append(Mark(kind, where, guarded, size, unread, mount, volumes_at))

    for match_start, match_end, inner in _actions(text):
        between = text[at:match_start]
        for kind, pattern in _TEXT_MARKS:
            for found in pattern.finditer(between):
                mark(kind, at + found.start())
        at = match_end
        body = inner.strip()
        if body.startswith("/*"):
            continue
        keyword = body.split(None, 1)[0] if body else ""
        opens = keyword in ("if", "with", "range", "define", "block")
        if opens and (deep or len(frames) >= _MAX_FRAMES):
            deep += 1
        elif keyword == "if":
            frames.append(_frame("if", _guard(body[2:].strip(), frames), frames))
        elif opens:
            frames.append(_frame(keyword, None, frames))
        elif keyword == "else" and frames and not deep:
            frames[-1].guard = None
        elif keyword == "end" and deep:
            deep -= 1
        elif keyword == "end" and frames:
            frames.pop()
        uses_tpl = uses_tpl or re.search(r"(^|[\s(|])tpl\s", body) is not None
        uses_files = uses_files or ".Files" in body
        for found in _STRING.finditer(body):
            content = found.group(1) if found.group(1) is not None else found.group(2)
            for kind, pattern in _STRING_MARKS:
                if pattern.search(content):
                    mark(kind, match_start)
    rest = text[at:]
    for kind, pattern in _TEXT_MARKS[:1] + _TEXT_MARKS[2:]:
        for found in pattern.finditer(rest):
            mark(kind, at + found.start())
    return marks, uses_tpl, uses_files


_SIZE = re.compile(r"sizeLimit:\s*(\{\{.*?\}\}|[^,}]*)")
_SIZE_VALUES = re.compile(
    r"\{\{-?\s*\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\s*\|\s*quote)?\s*-?\}\}"
)
_LITERAL = re.compile(r"[\"']?([0-9][0-9.]*[A-Za-z]*)[\"']?")


def _near(text: str, newlines: list[int], line: int) -> tuple[str, int]:
    """The lines within ``_NEAR_LINES`` of ``line`` (1-based), and where ``line`` starts
    in them."""
    first = max(line - 1 - _NEAR_LINES, 0)
    last = line - 1 + _NEAR_LINES
    begin = newlines[first - 1] + 1 if first > 0 else 0
    end = newlines[last] if last < len(newlines) else len(text)
    line_start = newlines[line - 2] + 1 if line >= 2 else 0
    return text[begin:end], line_start - begin


def _volumes_key(text: str, start: int) -> tuple[int, int] | None:
    """The ``volumes:`` key that holds the volume whose line starts at ``start``."""
    lines = text[:start].split("\n")[:-1]
    end = text.find("\n", start)
    line = text[start:] if end == -1 else text[start:end]
    indent = len(line) - len(line.lstrip())
    for number in range(len(lines) - 1, -1, -1):
        above = lines[number]
        if not above.strip() or above.lstrip().startswith("{{"):
            continue
        depth = len(above) - len(above.lstrip())
        if depth >= indent:
            continue
        if above.strip() == "volumes:":
            return number + 1, depth + 1
        if not above.lstrip().startswith(("-", "emptyDir:")):
            return None
        indent = depth
    return None


def _size_limit(text: str, offset: int) -> tuple[str | Path | None, bool]:
    """The sizeLimit beside ``medium: Memory`` at ``offset``: on the same line (flow
    style) or on a line of the same indentation in the same block."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    lines = text[start:].split("\n") if end != -1 else [text[start:]]
    before = text[:start].split("\n")[:-1]
    first = lines[0]
    indent = len(first) - len(first.lstrip())
    block = [first[first.find("sizeLimit:") :]] if "sizeLimit:" in first else []
    for group in (lines[1:], reversed(before)):
        for line in group:
            if not line.strip() or line.lstrip().startswith("{{"):
                continue
            if len(line) - len(line.lstrip()) != indent:
                break
            block.append(line.strip())
    for line in block:
        match = _SIZE.match(line)
        if match is None:
            continue
        written = match.group(1).strip()
        by_values = _SIZE_VALUES.fullmatch(written)
        if by_values is not None:
            return tuple(by_values.group(1).split(".")[1:]), False
        literal = _LITERAL.fullmatch(written)
        return (literal.group(1), False) if literal is not None else (None, True)
    return None, False


def _frame(keyword: str, guard: Path | None, around: list[_Frame]) -> _Frame:
    outer = around[-1] if around else None
    named = keyword in ("define", "block") or (outer is not None and outer.named)
    scoped = keyword != "if" or (outer is not None and outer.scoped)
    return _Frame(keyword, guard, named, scoped)


def _guard(condition: str, frames: list[_Frame]) -> Path | None:
    """The values path of ``if .Values.a.b``, when it can be judged against the values:
    inside ``with``, ``range`` or a named template ``.`` is something else."""
    match = _SIMPLE.fullmatch(condition)
    if match is None:
        return None
    rooted = match.group(1) == "$"
    if frames and frames[-1].named:
        return None
    if not rooted and frames and frames[-1].scoped:
        return None
    return tuple(match.group(2).split(".")[1:])
