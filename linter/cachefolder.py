"""The user's cache folder (``$XDG_CACHE_HOME/servelint``, default ``~/.cache/servelint``)
and the one reader and writer of its entries: loaded policies (``linter.policy.cache``),
chart readings (``linter.helm.readcache``) and the packaged data files
(``linter._resources.packaged_yaml``).

Whoever can write the folder can change what an entry says, so an entry is data only
(never code) and is used only from a folder and a file that belong to the user running
servelint and that nobody else may write (``docs/security.md``). Every entry starts with
its kind's magic and a digest of its body (``linter.digests``): a truncated or damaged
entry is ignored and rewritten. ``SERVELINT_NO_CACHE=1`` switches the folder off.

An image compiles the built-in policies once, when it is built, into a system cache
(``$SERVELINT_SYSTEM_CACHE/servelint``): an entry the user's own folder lacks is read from
there, never written there at run time. It is trusted when it belongs to root (or to the
user) and nobody else may write it, so that an image runs fast as whatever user a cluster
gives it (Argo CD's repo-server sidecar runs as 999; issue 31).
"""

from __future__ import annotations

import mmap
import os
import stat
from pathlib import Path

from linter import digests

_DIGEST = digests.SIZE
# An entry is a few megabytes; anything far larger is not one of ours.
MAX_ENTRY_BYTES = 256 * 2**20


def _switched_off() -> bool:
    return os.environ.get("SERVELINT_NO_CACHE", "") not in ("", "0")


def cache_dir() -> Path | None:
    if _switched_off():
        return None
    home = os.path.join(os.path.expanduser("~"), ".cache")
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):  # the XDG specification ignores relative paths
        base = home
    if not os.path.isabs(base):
        return None  # no home (a bare container): never a folder below the working one
    return Path(base) / "servelint"


def system_cache_dir() -> Path | None:
    """The read-only cache folder an image filled when it was built, or None."""
    base = os.environ.get("SERVELINT_SYSTEM_CACHE", "")
    if _switched_off() or not os.path.isabs(base):
        return None
    return Path(base) / "servelint"


def trusted(info: os.stat_result, *, system: bool = False) -> bool:
    """Whether a cache folder or entry (``lstat`` of it) may be used: the user's own (in
    the ``system`` cache, root's too: only root could have changed it), not a symbolic
    link, and writable by nobody else."""
    owners = (os.geteuid(), 0) if system else (os.geteuid(),)
    return (
        not stat.S_ISLNK(info.st_mode)
        and info.st_uid in owners
        and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def trusted_folder(directory: Path, *, system: bool = False) -> bool:
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and trusted(info, system=system)


# A body whose checksum covers only its head starts with the head's length (these bytes).
HEAD_LENGTH = 8


def read_checked(path: Path, magic: bytes, *, head_only: bool = False) -> memoryview | None:
    """The body of the cache entry at ``path`` (after ``magic`` and its checksum), or None
    when the folder or file is not trusted, or the entry is of another kind or damaged.
    One reader for every entry of the cache folder (policies, chart readings).

    ``head_only``: the checksum covers the head alone (``write_checked``'s ``head``); the
    rest of the body is the caller's to check, piece by piece as it uses them, and is
    mapped rather than read (a run reads a few hundred kilobytes of a policy entry's
    megabytes).

    An entry the folder lacks (or that it holds damaged, or that is not the user's) is
    read from the system cache under the same name, when there is one."""
    body = _read_checked(path, magic, head_only, system=False)
    fallback = system_cache_dir()
    if body is None and fallback is not None and fallback != path.parent:
        body = _read_checked(fallback / path.name, magic, head_only, system=True)
    return body


def _read_checked(path: Path, magic: bytes, head_only: bool, *, system: bool) -> memoryview | None:
    if not trusted_folder(path.parent, system=system):
        return None
    raw = read_entry(path, mapped=head_only, system=system)
    if raw is None or raw[: len(magic)] != magic:
        return None
    body = memoryview(raw)[len(magic) + _DIGEST :]  # not a copy: entries are megabytes
    covered = body
    if head_only:
        covered = body[: HEAD_LENGTH + int.from_bytes(body[:HEAD_LENGTH], "big")]
    if raw[len(magic) : len(magic) + _DIGEST] != digests.digest(covered):
        return None
    return body


def write_checked(
    path: Path, magic: bytes, body: bytes, keep: int, *, rest: bytes | None = None
) -> None:
    """Store ``body`` behind ``magic`` and its checksum at ``path``, atomically, in a cache
    folder that is the user's own; then keep the ``keep`` newest entries of its kind (same
    name prefix and suffix). A folder that cannot be written only costs the next run.

    With ``rest``, ``body`` is the head (its length first, then itself) and ``rest``
    follows it unchecked: an entry whose pieces carry checks of their own, so that a run
    reading a few of them does not hash megabytes (``read_checked(head_only=True)``)."""
    import tempfile  # only on a miss: with shutil, it costs every run its import

    digest = digests.digest(body if rest is None else _head(body))
    if rest is not None:
        body = _head(body) + rest

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not trusted_folder(path.parent):
            return
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(magic + digest + body)
            os.replace(temporary, path)
        except OSError:
            os.unlink(temporary)
            raise
        _prune(path, keep)
    except OSError:
        return


def _head(head: bytes) -> bytes:
    return len(head).to_bytes(HEAD_LENGTH, "big") + head


def read_entry(
    path: Path, *, mapped: bool = False, system: bool = False
) -> bytes | mmap.mmap | None:
    """The entry's bytes, read only from a regular file of the user's (``system``: or
    root's) that nobody else may write (checked on the open handle: it cannot be swapped
    in between).

    ``mapped``: the file mapped into memory instead, its pages read when first touched.
    Entries are replaced by renaming a new file over them and removed by unlinking, never
    truncated in place, so a mapping keeps the bytes it was made with (a file truncated
    under a running process by other means would end it with SIGBUS)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or not trusted(info, system=system):
                return None
            if info.st_size > MAX_ENTRY_BYTES:
                return None
            if mapped and info.st_size > 0:
                try:
                    return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                except OSError:
                    pass  # a file system that cannot map it: read it whole
            return handle.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            return None


def _prune(written: Path, keep: int) -> None:
    """Keep the ``keep`` newest entries of the kind just ``written`` (its name's prefix up
    to the key, and its suffix): each edit of a policy or chart (or an upgrade) writes a
    new one. Entries of the former pickle format (``.bin``) are removed: no version reads
    them."""
    prefix = written.name.rsplit("-", 1)[0] + "-"
    directory = written.parent
    entries = []
    for old in directory.glob(f"{prefix}*.bin"):
        try:
            old.unlink()
        except OSError:
            continue
    for entry in directory.glob(f"{prefix}*{written.suffix}"):
        try:
            entries.append((entry.stat().st_mtime, entry))
        except OSError:
            continue  # removed by a concurrent run
    for _, entry in sorted(entries, reverse=True)[keep:]:
        try:
            entry.unlink()
        except OSError:
            continue
