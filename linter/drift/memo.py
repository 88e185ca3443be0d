"""Analyses shared by the targets of one drift run, each computed once across threads.

The pods of a cluster scan are compared in the threads that read them, while the other
threads wait on the network. Replicas print the same configuration: the first thread to
need an analysis computes it, the others that need it meanwhile wait for it instead of
computing it again (sixteen threads start together). A thread that must not wait (one
that reads pods) is told the analysis is ``Busy`` and leaves the target for later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class Busy(Exception):
    """Another thread is computing the analysis asked for without waiting."""


class Memo:
    """A map from keys to analyses, filled once per key (``once``)."""

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()

    def once(self, key: Hashable, compute: Callable[[], Any], wait: bool = True) -> Any:
        """The value kept for ``key``, else ``compute()`` kept. A ``compute`` that raises
        keeps nothing: the next caller tries again (and meets the same failure). Without
        ``wait``, ``Busy`` while another thread computes it."""
        try:
            return self._values[key]
        except KeyError:
            pass
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        if not lock.acquire(blocking=wait):
            raise Busy(key)
        try:
            if key not in self._values:
                self._values[key] = compute()
            return self._values[key]
        finally:
            lock.release()

    def __len__(self) -> int:
        return len(self._values)
