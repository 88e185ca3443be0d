"""Analyses shared by the targets of one drift run, each computed once across threads.

The pods of a cluster scan are compared in the threads that read them, while the other
threads wait on the network. Replicas print the same configuration: the first thread to
need an analysis computes it, the others that need it meanwhile wait for it instead of
computing it again (sixteen threads start together).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any


class Memo:
    """A map from keys to analyses, filled once per key (``once``)."""

    def __init__(self) -> None:
        self._values: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()

    def once(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``compute()`` kept. A ``compute`` that raises
        keeps nothing: the next caller tries again (and meets the same failure)."""
        try:
            return self._values[key]
        except KeyError:
            pass
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            try:
                return self._values[key]
            except KeyError:
                value = compute()
                self._values[key] = value
                return value

    def __len__(self) -> int:
        return len(self._values)
