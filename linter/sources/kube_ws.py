"""Pod exec over one short WebSocket connection (RFC 6455, subprotocol v4.channel.k8s.io).

A drift scan runs ``cat FILE`` in hundreds of pods. The official client's ``stream``
builds a ``WSClient`` per exec, polls it from a loop and needs a thread per call for a
deadline; that machinery, not the network, was most of a 500-pod scan (``benchmarks/drift.py``). Here
the request is still serialised by the official ``ApiClient`` (URL, query, user agent
and credentials, refreshed by its auth hooks) and the connection comes from the urllib3
pool manager that the official REST client configured (TLS, client certificates, CA,
server name); this module only performs the upgrade, reads the channel frames and
closes. Everything is bounded: a deadline over the whole exchange, the size of the
answer head, and the bytes read (a frame, or a message of fragments, that would exceed
what the answer may hold is not read).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import os
import socket
import struct
import time
from typing import Any
from urllib.parse import urlsplit

from linter.lightclass import mutable

PROTOCOL = "v4.channel.k8s.io"
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_OP_CONT, _OP_BINARY, _OP_CLOSE, _OP_PING, _OP_PONG = 0x0, 0x2, 0x8, 0x9, 0xA
_MAX_HEAD = 64 * 1024
_MAX_ERROR_BODY = 1024 * 1024


class UpgradeRejected(Exception):
    """The API server answered the upgrade with an HTTP error (a ``Status`` body).

    Carries what ``kube_errors.classify`` reads from an ``ApiException``: ``status``,
    ``reason``, ``body`` and ``headers``.
    """

    def __init__(self, status: int, reason: str, body: bytes, headers: dict[str, str]) -> None:
        super().__init__(f"({status}) {reason}")
        self.status = status
        self.reason = reason
        self.body = body
        self.headers = headers


class ProtocolViolation(OSError):
    """The server broke the WebSocket protocol (a connection-level failure)."""


@mutable
class Channels:
    stdout: bytearray = dataclasses.field(default_factory=bytearray)
    stderr: bytearray = dataclasses.field(default_factory=bytearray)
    status: bytearray = dataclasses.field(default_factory=bytearray)
    too_large: bool = False


def run(pool: Any, url: str, headers: dict[str, str], timeout: float, max_bytes: int) -> Channels:
    """Upgrade ``url`` (an exec URL from ``ApiClient.param_serialize``) on a connection of
    ``pool`` (a urllib3 connection pool) and collect the channels until the server
    closes; ``TimeoutError`` once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    connection = pool._new_conn()  # the pool's TLS and socket settings, our own socket
    connection.timeout = timeout
    try:
        connection.connect()
        sock = connection.sock
        reader = _handshake(sock, url, headers, deadline)
        return _read_channels(reader, max_bytes)
    finally:
        connection.close()


def _handshake(sock: socket.socket, url: str, headers: dict[str, str], deadline: float) -> _Reader:
    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    key = base64.b64encode(os.urandom(16)).decode("ascii")
    lines = [
        f"GET {target} HTTP/1.1",
        f"Host: {parts.netloc}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
        f"Sec-WebSocket-Protocol: {PROTOCOL}",
    ]
    lines += [
        f"{name}: {value}"
        for name, value in headers.items()
        if name.lower() not in ("host", "connection", "upgrade", "content-type", "accept")
    ]
    _send(sock, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"), deadline)
    reader = _Reader(sock, deadline)
    status, reason, answer = _response_head(reader)
    if status != 101:
        raise UpgradeRejected(status, reason, _error_body(reader, answer), answer)
    expected = base64.b64encode(hashlib.sha1(key.encode("ascii") + _GUID).digest()).decode()
    if answer.get("sec-websocket-accept") != expected:
        raise ProtocolViolation("the API server's WebSocket accept key does not match")
    return reader  # it may hold the first frames already


class _Reader:
    """Buffered, deadline-bounded reads from a socket."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.pending = b""

    def exactly(self, count: int) -> bytes:
        while len(self.pending) < count:
            self._fill()
        data, self.pending = self.pending[:count], self.pending[count:]
        return data

    def line_block(self) -> bytes:
        while b"\r\n\r\n" not in self.pending:
            if len(self.pending) > _MAX_HEAD:
                raise ProtocolViolation("the API server's answer head is too large")
            self._fill()
        head, _, self.pending = self.pending.partition(b"\r\n\r\n")
        return head

    def rest(self, limit: int) -> bytes:
        try:
            while len(self.pending) < limit:
                self._fill()
        except EOFError:
            pass
        return self.pending[:limit]

    def _fill(self) -> None:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("exec did not finish")
        self.sock.settimeout(remaining)
        chunk = self.sock.recv(65536)  # socket.timeout is TimeoutError
        if not chunk:
            raise EOFError
        self.pending += chunk


def _response_head(reader: _Reader) -> tuple[int, str, dict[str, str]]:
    try:
        head = reader.line_block().decode("latin-1")
    except EOFError as exc:
        raise ProtocolViolation("the API server closed the connection before answering") from exc
    status_line, *header_lines = head.split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[1].isdigit():
        raise ProtocolViolation(f"not an HTTP answer: {status_line[:80]!r}")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), parts[2] if len(parts) > 2 else "", headers


def _error_body(reader: _Reader, headers: dict[str, str]) -> bytes:
    length = headers.get("content-length", "")
    limit = min(int(length), _MAX_ERROR_BODY) if length.isdigit() else _MAX_ERROR_BODY
    try:
        return reader.rest(limit)
    except (TimeoutError, OSError):
        return reader.pending[:limit]


def _read_channels(reader: _Reader, max_bytes: int) -> Channels:
    sock, deadline = reader.sock, reader.deadline
    channels = Channels()
    message = bytearray()
    while True:
        try:
            opcode, payload, final = _frame(reader, max_bytes + _MAX_ERROR_BODY - len(message))
        except _FrameTooLarge:
            channels.too_large = True
            return channels
        except EOFError:
            return channels  # closed without a close frame: the status channel tells
        if opcode == _OP_PING:
            _send(sock, _client_frame(_OP_PONG, payload), deadline)
            continue
        if opcode == _OP_CLOSE:
            _send_close(sock, deadline)
            _await_eof(reader)
            return channels
        if opcode == _OP_PONG:
            continue
        message += payload
        if len(message) > max_bytes + _MAX_ERROR_BODY:
            # Fragments of one message that never ends: stop at what stdout may hold.
            channels.too_large = True
            return channels
        if not final:
            continue
        if message and not _add(channels, message[0], bytes(message[1:]), max_bytes):
            channels.too_large = True
            return channels
        message = bytearray()


def _add(channels: Channels, channel: int, data: bytes, max_bytes: int) -> bool:
    target = {1: channels.stdout, 2: channels.stderr, 3: channels.status}.get(channel)
    if target is None:
        return True  # stdin echo or resize: nothing for us
    target += data
    return (
        len(channels.stdout) <= max_bytes
        and len(channels.stderr) + len(channels.status) <= _MAX_ERROR_BODY
    )


class _FrameTooLarge(Exception):
    """A frame announcing more bytes than the answer may hold: not read at all."""


def _frame(reader: _Reader, room: int) -> tuple[int, bytes, bool]:
    first, second = reader.exactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", reader.exactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", reader.exactly(8))[0]
    if length > max(room, 0) + 1:  # +1: the channel byte of a message's first frame
        raise _FrameTooLarge
    mask = reader.exactly(4) if second & 0x80 else b""
    payload = reader.exactly(length)
    if mask:  # servers never mask (RFC 6455 §5.1), but a masked frame is still readable
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return first & 0x0F, payload, bool(first & 0x80)


def _client_frame(opcode: int, payload: bytes) -> bytes:
    """A final, masked frame (RFC 6455 §5.3: every client frame is masked)."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
    elif length < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _send_close(sock: socket.socket, deadline: float) -> None:
    try:
        _send(sock, _client_frame(_OP_CLOSE, struct.pack("!H", 1000)), deadline)
    except OSError:
        return  # the server may already have gone; the answer is complete


def _await_eof(reader: _Reader) -> None:
    """After the closing handshake the server closes the TCP connection first (RFC 6455
    §7.1.1); waiting for it means the server is done with this pod before the next one."""
    try:
        for _ in range(64):
            reader.pending = b""
            reader._fill()
    except (EOFError, TimeoutError, OSError):
        return


def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("exec did not finish")
    sock.settimeout(remaining)
    sock.sendall(data)
