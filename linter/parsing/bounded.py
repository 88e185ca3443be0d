"""The one way servelint reads a file by its path: bounded, and regular files only.

Every file the tool reads on behalf of a repository (inputs, values files, Chart.yaml,
policy files, profiles, configuration, the baseline, live files of ``drift -f``) may be
hostile: a FIFO named ``values.yaml`` blocks forever, ``/dev/zero`` never ends, a
symbolic link may point anywhere. So a file is opened without blocking, checked through
the open handle (it cannot be swapped in between), and read only when it is a regular
file within the size limit; more than the limit is never read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from linter.parsing.documents import DEFAULT_LIMITS


class InputRefused(OSError):
    """A file that is not read: not a regular file, or larger than the limit. An
    ``OSError``, so that every caller that reports unreadable files reports it too."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large

    def __str__(self) -> str:
        return str(self.args[0])


def too_large_message(max_bytes: int) -> str:
    return (
        f"larger than the input size limit of {max_bytes} bytes; "
        "raise --max-bytes (limits.maxBytes) if this input is genuine"
    )


def read_bytes(path: str | os.PathLike[str], max_bytes: int = DEFAULT_LIMITS.max_bytes) -> bytes:
    """The bytes of the regular file at ``path``; ``InputRefused`` (an OSError) for
    anything else or anything larger than ``max_bytes``, other OSErrors as raised."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise InputRefused("is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise InputRefused("not a regular file (a pipe, socket or device); not read")
        if info.st_size > max_bytes:
            raise InputRefused(too_large_message(max_bytes), too_large=True)
    except BaseException:
        os.close(descriptor)
        raise
    with os.fdopen(descriptor, "rb") as handle:
        raw = handle.read(max_bytes + 1)  # the file may have grown since fstat
    if len(raw) > max_bytes:
        raise InputRefused(too_large_message(max_bytes), too_large=True)
    return raw


def read_text(
    path: str | os.PathLike[str],
    max_bytes: int = DEFAULT_LIMITS.max_bytes,
    encoding: str = "utf-8-sig",
) -> str:
    """``read_bytes`` decoded (UnicodeDecodeError as raised), with Windows line ends
    turned into newlines."""
    return read_bytes(path, max_bytes).decode(encoding).replace("\r\n", "\n")


def is_regular_file(path: str | Path) -> bool:
    """Whether ``path`` is a regular file (following links), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
