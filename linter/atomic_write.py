"""Write a report or baseline so that no reader ever sees half of it and nothing else is
clobbered.

The text goes to a new temporary file in the destination's folder, created exclusively
under a unique name (never a fixed ``NAME.tmp`` that someone could have planted as a
symbolic link to a file outside the repository), and is then renamed over the
destination in one step: two runs writing the same ``-o`` file leave one whole report,
not an interleaving of both. A destination that is not a regular file (``/dev/stdout``,
a FIFO a CI step reads from) is written directly: it cannot be replaced, and must not be.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from typing import IO, Any, TextIO, cast


@contextlib.contextmanager
def atomic_text(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A text stream whose content replaces ``path`` in one step when the block ends
    without an exception (then nothing is changed)."""
    destination = os.fspath(path)
    try:
        special = not stat.S_ISREG(os.stat(destination).st_mode)
    except FileNotFoundError:
        special = False
    if special:
        with open(destination, "w", encoding="utf-8") as handle:
            yield handle
        return
    with _replacing(destination, binary=False) as handle:
        yield cast("TextIO", handle)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    with atomic_text(path) as handle:
        handle.write(text)


def replace_bytes(path: str, data: bytes) -> None:
    """Replace the regular file ``path`` with ``data`` in one step, keeping its mode
    (``servelint lint --fix``: the bytes are written as they are, line endings included)."""
    with _replacing(path, binary=True) as handle:
        handle.write(data)


@contextlib.contextmanager
def _replacing(destination: str, *, binary: bool) -> Iterator[IO[Any]]:
    """A new temporary file beside ``destination``, renamed over it, with its mode, when
    the block ends without an exception; removed otherwise."""
    import tempfile  # only when writing: with shutil and random it costs every run 2 ms

    folder = os.path.dirname(os.path.abspath(destination))
    name = os.path.basename(destination)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with (
            os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8")
        ) as handle:
            yield handle
        os.chmod(temporary, _mode(destination))
        os.replace(temporary, destination)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _mode(destination: str) -> int:
    """The mode of the file being replaced, or what a plain open() would have given."""
    try:
        info = os.lstat(destination)
    except FileNotFoundError:
        return _default_mode()
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else _default_mode()


def _default_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
