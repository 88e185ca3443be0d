"""``linter.sources.kube_deadline``: a deadline over a whole HTTP answer, read over a real
socket pair, and the pool classes it installs in a real ``urllib3`` pool manager."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import urllib3

from linter.sources import kube_deadline

HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"


def _drip(sock: socket.socket, data: bytes, pause: float) -> None:
    try:
        for byte in data:
            sock.sendall(bytes([byte]))
            time.sleep(pause)
    except OSError:
        pass  # the reader gave up and closed its end


def _answer(data: bytes, pause: float, deadline: float | None) -> tuple[bytes, socket.socket]:
    client, server = socket.socketpair()
    client.settimeout(5.0)
    writer = threading.Thread(target=_drip, args=(server, data, pause), daemon=True)
    writer.start()
    try:
        if deadline is None:
            response = kube_deadline.DeadlineResponse(client)
        else:
            with kube_deadline.bounded(deadline):
                response = kube_deadline.DeadlineResponse(client)
        response.begin()
        return response.read(), client
    except BaseException:
        client.close()
        raise
    finally:
        server.close()


def test_an_answer_in_time_is_read_whole_and_the_socket_keeps_its_timeout() -> None:
    body, client = _answer(HEAD, 0.0, time.monotonic() + 5.0)
    assert body == b"hello"
    assert client.gettimeout() == 5.0
    client.close()


def test_a_head_dripped_within_each_socket_timeout_still_ends_at_the_deadline() -> None:
    # Each byte comes 50 ms after the last, well within the 5 s socket timeout; the
    # whole head would take 2 s, the deadline is 0.3 s away.
    started = time.monotonic()
    with pytest.raises(TimeoutError):  # at a read, or as one was given the time left
        _answer(HEAD, 0.05, started + 0.3)
    assert 0.25 < time.monotonic() - started < 1.5


def test_without_a_deadline_the_answer_is_read_as_http_client_reads_it() -> None:
    body, client = _answer(HEAD, 0.0, None)
    assert body == b"hello"
    client.close()


def test_the_deadline_ends_with_its_block() -> None:
    with kube_deadline.bounded(time.monotonic() - 1.0):
        pass
    body, client = _answer(HEAD, 0.0, None)  # no deadline is left behind in the thread
    assert body == b"hello"
    client.close()


def test_pools_of_every_scheme_build_bounded_answers_and_installing_twice_changes_nothing() -> None:
    manager = urllib3.PoolManager()
    kube_deadline.install(manager)
    first = dict(manager.pool_classes_by_scheme)
    kube_deadline.install(manager)
    assert manager.pool_classes_by_scheme == first
    assert sorted(first) == ["http", "https"]
    for scheme, pool in first.items():
        assert issubclass(pool, urllib3.PoolManager().pool_classes_by_scheme[scheme])
        assert pool.ConnectionCls.response_class is kube_deadline.DeadlineResponse


def test_a_tls_handshake_that_never_ends_is_given_up_at_the_deadline() -> None:
    """A server that takes the connection and never answers the TLS handshake: each read
    would wait the 5 s socket timeout; the request ends at its 0.5 s deadline."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    server = threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True)
    server.start()
    manager = urllib3.PoolManager(cert_reqs="CERT_NONE", retries=False)
    kube_deadline.install(manager)
    port = listener.getsockname()[1]
    started = time.monotonic()
    try:
        with (
            kube_deadline.bounded(started + 0.5),
            pytest.raises(urllib3.exceptions.TimeoutError),
        ):
            manager.request("GET", f"https://127.0.0.1:{port}/", timeout=5.0)
        assert 0.4 < time.monotonic() - started < 3.0
    finally:
        manager.clear()
        server.join(5)
        for sock in accepted:
            sock.close()
        listener.close()


def test_connections_made_in_time_are_kept_alive_and_reused() -> None:
    """A keep-alive server answered twice over one connection: the connection is made
    once (by the deadline), then reused without connecting again."""
    listener = socket.create_server(("127.0.0.1", 0))
    connections: list[socket.socket] = []

    def serve() -> None:
        conn = listener.accept()[0]
        connections.append(conn)
        for _ in range(2):
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            conn.sendall(HEAD)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    manager = urllib3.PoolManager(retries=False)
    kube_deadline.install(manager)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    try:
        for _ in range(2):
            with kube_deadline.bounded(time.monotonic() + 5.0):
                assert manager.request("GET", url, timeout=5.0).data == b"hello"
        server.join(5)
        assert len(connections) == 1
    finally:
        manager.clear()
        for sock in connections:
            sock.close()
        listener.close()
