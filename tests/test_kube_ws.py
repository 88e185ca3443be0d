"""The exec WebSocket client (linter/sources/kube_ws.py) against scripted servers on
loopback: what a real API server may do that the stand-in does not (fragments, pings,
a dropped connection, a wrong accept key), and its bounds (deadline, size)."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator

import pytest
import urllib3
from kube_standin import websocket as ws

from linter.sources import kube_ws

Script = Callable[[socket.socket, str], None]
Serve = Callable[[Script], urllib3.HTTPConnectionPool]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """One connection, answered by ``script(connection, websocket key)``."""
    listener = socket.create_server(("127.0.0.1", 0))
    threads: list[threading.Thread] = []

    def start(script: Script) -> urllib3.HTTPConnectionPool:
        def run() -> None:
            connection, _ = listener.accept()
            with connection:
                connection.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head:
                    head += connection.recv(4096)
                key = next(
                    line.split(":", 1)[1].strip()
                    for line in head.decode().split("\r\n")
                    if line.lower().startswith("sec-websocket-key:")
                )
                script(connection, key)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        return urllib3.HTTPConnectionPool("127.0.0.1", listener.getsockname()[1])

    yield start
    listener.close()
    for thread in threads:
        thread.join(timeout=5)


def _upgrade(connection: socket.socket, key: str, accept: str | None = None) -> None:
    connection.sendall(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: "
        + (accept or ws.accept_key(key)).encode()
        + b"\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n"
    )


def _frame(opcode: int, payload: bytes, final: bool = True) -> bytes:
    return bytes([(0x80 if final else 0) | opcode]) + ws.encode_frame(0, payload)[1:]


SUCCESS = b'\x03{"metadata":{},"status":"Success"}'
URL = "http://127.0.0.1/api/v1/namespaces/llm/pods/p/exec?command=cat"


def test_fragments_pings_and_the_closing_handshake(serve: Serve) -> None:
    seen: list[tuple[int, bytes] | None] = []

    def script(connection: socket.socket, key: str) -> None:
        _upgrade(connection, key)
        connection.sendall(
            _frame(ws.OP_BINARY, b'\x01{"max_', final=False)
            + _frame(0x0, b'model_len": 4096}')
            + ws.encode_frame(ws.OP_PING, b"hi")
            + ws.encode_frame(ws.OP_BINARY, SUCCESS)
            + ws.encode_frame(ws.OP_CLOSE, struct.pack("!H", 1000))
        )
        seen.append(ws.read_frame(connection))  # the pong
        seen.append(ws.read_frame(connection))  # the client's close frame

    channels = kube_ws.run(serve(script), URL, {"authorization": "Bearer t"}, 5.0, 1000)
    assert bytes(channels.stdout) == b'{"max_model_len": 4096}'
    assert bytes(channels.status) == SUCCESS[1:]
    assert not channels.too_large
    assert seen == [(ws.OP_PONG, b"hi"), (ws.OP_CLOSE, struct.pack("!H", 1000))]


def test_a_connection_dropped_without_a_close_frame_ends_the_answer(serve: Serve) -> None:
    def script(connection: socket.socket, key: str) -> None:
        _upgrade(connection, key)
        connection.sendall(ws.encode_frame(ws.OP_BINARY, b"\x01partial"))

    channels = kube_ws.run(serve(script), URL, {}, 5.0, 1000)
    assert bytes(channels.stdout) == b"partial" and bytes(channels.status) == b""


def test_output_beyond_the_limit_stops_reading(serve: Serve) -> None:
    def script(connection: socket.socket, key: str) -> None:
        _upgrade(connection, key)
        connection.sendall(ws.encode_frame(ws.OP_BINARY, b"\x01" + b"x" * 2000))

    assert kube_ws.run(serve(script), URL, {}, 5.0, 1000).too_large


def test_an_http_error_carries_status_body_and_headers(serve: Serve) -> None:
    body = b'{"kind":"Status","code":429,"message":"slow down"}'

    def script(connection: socket.socket, key: str) -> None:
        connection.sendall(
            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
        )

    with pytest.raises(kube_ws.UpgradeRejected) as raised:
        kube_ws.run(serve(script), URL, {}, 5.0, 1000)
    assert (raised.value.status, raised.value.body) == (429, body)
    assert raised.value.headers["retry-after"] == "2"


def test_a_wrong_accept_key_is_refused(serve: Serve) -> None:
    with pytest.raises(kube_ws.ProtocolViolation, match="accept key"):
        kube_ws.run(
            serve(lambda c, k: _upgrade(c, k, accept="bm90IHRoZSBrZXk=")), URL, {}, 5.0, 1000
        )


def test_a_silent_server_hits_the_deadline(serve: Serve) -> None:
    release = threading.Event()

    def script(connection: socket.socket, key: str) -> None:
        _upgrade(connection, key)
        connection.sendall(ws.encode_frame(ws.OP_BINARY, b"\x01a"))
        release.wait(5)

    try:
        with pytest.raises(TimeoutError):
            kube_ws.run(serve(script), URL, {}, 0.3, 1000)
    finally:
        release.set()
