"""Expand command-line paths into inputs and read them, never aborting on one bad file."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from linter.errors import SourceError
from linter.lightclass import frozen
from linter.parsing import bounded
from linter.sources import repository
from linter.sources.chartlayout import CHART_FILE, TEMPLATES, chart_of_template

STDIN = "-"
STDIN_NAME = "<stdin>"
LINTABLE_SUFFIXES = (".yaml", ".yml", ".json")
LINTABLE_NAMES = ("config.pbtxt",)
_SKIP_DIRS = {".git", "node_modules", "__pycache__"}
_NAME_IT = "name it on the command line to lint it"


@frozen
class Input:
    """One input to read: its display name (as given) and where to read it from."""

    name: str
    path: Path | None  # None for standard input
    # Set when a directory could not be walked: reported as a read error of this input.
    error: str | None = None


@frozen
class ReadResult:
    input: Input
    text: str | None
    error: str | None = None
    # The rule of the finding for ``error``: read-error, or input-limit for a file that
    # exceeds the size limit (a property of the input, like its node count).
    rule: str = "read-error"
    line: int = 1
    column: int = 1


def is_lintable(path: Path) -> bool:
    return (
        path.suffix.lower() in LINTABLE_SUFFIXES
        or path.name in LINTABLE_NAMES
        or (path.suffix == ".pbtxt")
    )


def expand(paths: Iterable[str], refused: list[str] | None = None) -> list[Input]:
    """Files as given, directories recursively (hidden folders and the ``templates/`` of
    Helm charts skipped), ``-`` for stdin.

    A path that does not exist is a tool failure: the user named it explicitly. A file
    found by the walk that links outside the repository (``sources/repository.py``) and
    outside the folder named is not read: a note for it goes to ``refused``.
    """
    inputs: list[Input] = []
    seen: set[str] = set()
    for raw in paths:
        if raw == STDIN:
            inputs.append(Input(STDIN_NAME, None))
            continue
        path = Path(raw)
        try:
            os.lstat(path)
        except FileNotFoundError:
            raise SourceError(f"{raw}: no such file or directory") from None
        except OSError as exc:  # a folder on the way that may not be searched
            candidates = [Input(raw, path, f"cannot read: {exc.strerror or exc}")]
        else:
            candidates = (
                list(_walk(path, refused if refused is not None else []))
                if path.is_dir()
                else [Input(raw, path)]
            )
        for candidate in candidates:
            if candidate.name not in seen:
                seen.add(candidate.name)
                inputs.append(candidate)
    return inputs


def not_a_configuration(item: Input) -> str | None:
    """Why a file named on the command line is not linted, as a note; None to lint it.

    The directory walk yields only configuration files; a file named by the user (or
    passed by pre-commit, which passes every changed YAML file) may be a chart template
    or a log, whose syntax errors would say nothing true (issue 31).
    """
    if item.path is None or item.error is not None:
        return None
    chart = chart_of_template(item.name)
    if chart is not None:
        return f"{item.name}: a chart template: lint the chart (servelint lint --chart {chart})"
    if _template_outside_a_chart(item):
        return (
            f"{item.name}: a template (Go template syntax in a templates/ folder with no "
            "Chart.yaml above it): not linted; render it and lint the output"
        )
    if is_lintable(item.path):
        return None
    return (
        f"{item.name}: not a configuration file (servelint lints .yaml, .yml, .json and "
        ".pbtxt files): not linted"
    )


def _template_outside_a_chart(item: Input) -> bool:
    """A file under a ``templates/`` folder that no chart holds (a chart moved, a tool of
    its own) with template actions in it: what the pre-commit hook passes for charts'
    templates, and no configuration either."""
    assert item.path is not None
    if TEMPLATES not in Path(item.name).parts[:-1]:
        return False
    try:
        return "{{" in bounded.read_text(item.path, encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # read again, and reported, as any input is


def found_input(name: str, hint: str) -> Input:
    """A file servelint reads without being told to (a chart's ``values.yaml``,
    ``values-<env>.yaml``): refused, with a reason, when it links outside its repository."""
    root = repository.root_of(name)
    if repository.inside(name, (root,)):
        return Input(name, Path(name))
    return Input(name, Path(name), repository.refusal(root, hint))


def _walk(root: Path, refused: list[str]) -> Iterator[Input]:
    # os.walk does not follow directory symlinks, so symlink loops cannot recurse forever.
    # A folder that cannot be listed (no permission, removed meanwhile) is reported, not
    # skipped in silence: its files would otherwise pass unchecked.
    failed: list[OSError] = []
    allowed = (repository.root_of(str(root)), os.path.realpath(root))
    for dirpath, dirnames, filenames in os.walk(root, onerror=failed.append):
        yield from _walk_errors(failed)
        # A chart's templates/ are Go templates, not YAML: `lint --chart` renders them.
        skip = _SKIP_DIRS | ({TEMPLATES} if CHART_FILE in filenames else set())
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in skip)
        for filename in sorted(filenames):
            path = Path(dirpath, filename)
            if not is_lintable(path):
                continue
            # Only a link can lead out: the walk does not enter linked folders.
            if os.path.islink(path) and not repository.inside(str(path), allowed):
                refused.append(f"{path}: {repository.refusal(allowed[0], _NAME_IT)}")
                continue
            yield Input(str(path), path)
    yield from _walk_errors(failed)


def _walk_errors(failed: list[OSError]) -> Iterator[Input]:
    while failed:
        exc = failed.pop(0)
        name = str(exc.filename) if exc.filename is not None else "?"
        yield Input(name, Path(name), f"cannot read directory: {exc.strerror or exc}")


def read(item: Input, max_bytes: int) -> ReadResult:
    """Read one input as text; any failure is returned, not raised.

    Only regular files are read: a FIFO, socket or device named ``*.yaml`` would block
    forever or never end. The file is opened without blocking and checked through the
    open handle, so it cannot be swapped for something else between check and read.
    """
    if item.error is not None:
        return ReadResult(item, None, item.error)
    try:
        if item.path is None:
            raw = sys.stdin.buffer.read(max_bytes + 1)
        else:
            raw = bounded.read_bytes(item.path, max_bytes)
    except bounded.InputRefused as exc:
        if exc.too_large:
            return _too_large(item, max_bytes)
        message = str(exc)
        return ReadResult(
            item, None, f"cannot read: {message}" if message == "is a directory" else message
        )
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ReadResult(item, None, f"cannot read: {reason}")
    if len(raw) > max_bytes:
        return _too_large(item, max_bytes)
    return decode(item, raw)


def _too_large(item: Input, max_bytes: int) -> ReadResult:
    return ReadResult(item, None, bounded.too_large_message(max_bytes), rule="input-limit")


def decode(item: Input, raw: bytes) -> ReadResult:
    """Bytes to text: UTF-8 (a byte-order mark is dropped), or UTF-16 with its BOM."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:  # YAML allows UTF-16 when the stream starts with a byte-order mark
            return ReadResult(item, raw.decode("utf-16").replace("\r\n", "\n"))
        except UnicodeDecodeError:
            pass
    if b"\0" in raw:
        return ReadResult(item, None, "binary file (contains NUL bytes); not a configuration")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _position(raw, exc.start)
        return ReadResult(
            item,
            None,
            f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at byte "
            f"offset {exc.start}); save the file as UTF-8",
            line=line,
            column=column,
        )
    return ReadResult(item, text.replace("\r\n", "\n"))


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    line_start = raw.rfind(b"\n", 0, offset) + 1
    return raw.count(b"\n", 0, offset) + 1, offset - line_start + 1
