"""A deadline over a whole HTTP answer, in the thread that waits for it.

A socket timeout bounds each read, not the answer: a server that sends its head (or
its body) a byte at a time within each timeout keeps a request alive for ever. Every
read of an answer is therefore given the time left until the request's deadline, and
fails with ``TimeoutError`` once none is left. This replaces a thread per request that
was given up at the deadline: a scan of 500 pods spent a third of its CPU starting
those threads (``benchmarks/drift.py``).

The connection pools of the official client's ``urllib3`` pool manager are swapped for
subclasses whose connections build their answers with ``DeadlineResponse`` and connect
within the deadline too: a new connection (name lookup, each address tried, the TLS
handshake) is made in a thread given up at the deadline. Connections are kept alive, so
that thread is started once per connection, not per request. The deadline is the
calling thread's (``bounded``), so connections stay shared by threads. Exec's WebSocket
connections (``kube_ws``) connect under the socket timeout, as before.
"""

from __future__ import annotations

import http.client
import io
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

T = TypeVar("T")
_local = threading.local()
_BUFFER = 64 * 1024


@contextmanager
def bounded(deadline: float) -> Iterator[None]:
    """Every answer read in this thread until the block ends must arrive by ``deadline``
    (a ``time.monotonic`` value)."""
    _local.deadline = deadline
    try:
        yield
    finally:
        _local.deadline = None


class _DeadlineReader(io.RawIOBase):
    """The socket's own unbuffered file (which keeps the socket open while the answer is
    read, after ``http.client`` closed its connection), each read given the time left."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer within the timeout")
        previous = self._sock.gettimeout()
        # The connection goes back to the pool afterwards: its own timeout is kept.
        self._sock.settimeout(remaining if previous is None else min(previous, remaining))
        try:
            return self._raw.readinto(buffer)
        finally:
            self._sock.settimeout(previous)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _Deadlined:
    """The socket as ``http.client.HTTPResponse`` takes it: only ``makefile`` is used."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline), _BUFFER)


class DeadlineResponse(http.client.HTTPResponse):
    """An answer read within the deadline of the thread that asked (``bounded``)."""

    def __init__(self, sock: Any, *args: Any, **kwargs: Any) -> None:
        deadline = getattr(_local, "deadline", None)
        if deadline is not None:
            sock = cast(socket.socket, _Deadlined(sock, deadline))  # only makefile is used
        super().__init__(sock, *args, **kwargs)


class _DeadlineConnect:
    """A connection made by the deadline of the thread that needs it (``bounded``)."""

    def connect(self) -> None:
        deadline = getattr(_local, "deadline", None)
        if deadline is None:
            super().connect()  # type: ignore[misc]
            return
        with_deadline(
            super().connect,  # type: ignore[misc]
            max(deadline - time.monotonic(), 0.0),
            (Exception,),
            abandoned=lambda _: self.close(),  # type: ignore[attr-defined]
            name="servelint-connect",
        )


def with_deadline(
    action: Callable[[], T],
    timeout: float,
    errors: tuple[type[BaseException], ...],
    abandoned: Callable[[T], None] | None = None,
    name: str = "servelint-exec",
) -> T:
    """Run ``action`` in a daemon thread and give up after ``timeout`` seconds; its
    ``errors`` are raised here. What it returns after it was given up goes to
    ``abandoned`` (a connection made too late is closed there).

    The client's WebSocket handshake has no timeout of its own (websocket-client connects
    with a blocking socket), nor has a name lookup, so a pod that never answers would
    hang the scan; the abandoned thread ends when the connection does, or with the
    process.
    """
    lock = threading.Lock()
    outcome: list[tuple[bool, Any]] = []
    given_up = False

    def target() -> None:
        try:
            result: tuple[bool, Any] = (True, action())
        except errors as exc:  # handed over to the calling thread, which classifies it
            result = (False, exc)
        with lock:
            if not given_up:
                outcome.append(result)
            elif result[0] and abandoned is not None:
                abandoned(result[1])

    worker = threading.Thread(target=target, daemon=True, name=name)
    worker.start()
    worker.join(timeout)
    with lock:
        if not outcome:
            given_up = True
            if worker.is_alive():
                raise TimeoutError(f"no answer within {timeout} s")
            raise RuntimeError(f"the {name} worker failed (traceback above)")
    ok, value = outcome[0]
    if not ok:
        raise value
    return cast(T, value)


_POOLS: dict[type[Any], type[Any]] = {}
_POOLS_LOCK = threading.Lock()


def install(pool_manager: Any) -> None:
    """Make every connection pool that ``pool_manager`` creates from now on read its
    answers with ``DeadlineResponse`` (plain, TLS, proxy and SOCKS pools alike)."""
    pool_manager.pool_classes_by_scheme = {
        scheme: _bounded_pool(pool) for scheme, pool in pool_manager.pool_classes_by_scheme.items()
    }


def _bounded_pool(pool: type[Any]) -> type[Any]:
    with _POOLS_LOCK:
        if pool in _POOLS.values():
            return pool  # installed before
        made = _POOLS.get(pool)
        if made is None:
            connection = type(
                pool.ConnectionCls.__name__,
                (_DeadlineConnect, pool.ConnectionCls),
                {"response_class": DeadlineResponse},
            )
            made = type(pool.__name__, (pool,), {"ConnectionCls": connection})
            _POOLS[pool] = made
        return made
