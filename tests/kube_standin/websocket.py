"""The server side of RFC 6455 framing, as much as pod exec needs.

Server frames are never masked (RFC 6455 §5.1); client frames always are. Only single
(unfragmented) frames are sent; fragmented client frames are not expected from an exec
client that sends no stdin.
"""

from __future__ import annotations

import base64
import hashlib
import socket
import struct

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x1, 0x2, 0x8, 0x9, 0xA


def accept_key(client_key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key`` (RFC 6455 §4.2.2)."""
    digest = hashlib.sha1((client_key.strip() + _GUID).encode("ascii")).digest()
    return base64.b64encode(digest).decode("ascii")


def encode_frame(opcode: int, payload: bytes) -> bytes:
    header = bytes([0x80 | opcode])  # FIN set, no extensions
    length = len(payload)
    if length < 126:
        header += bytes([length])
    elif length < 1 << 16:
        header += bytes([126]) + struct.pack("!H", length)
    else:
        header += bytes([127]) + struct.pack("!Q", length)
    return header + payload


def read_frame(sock: socket.socket) -> tuple[int, bytes] | None:
    """One frame from the client (unmasked payload), or None when the peer went away."""
    head = _read_exact(sock, 2)
    if head is None:
        return None
    opcode = head[0] & 0x0F
    masked = head[1] & 0x80
    length = head[1] & 0x7F
    if length == 126:
        raw = _read_exact(sock, 2)
        if raw is None:
            return None
        length = struct.unpack("!H", raw)[0]
    elif length == 127:
        raw = _read_exact(sock, 8)
        if raw is None:
            return None
        length = struct.unpack("!Q", raw)[0]
    mask = _read_exact(sock, 4) if masked else b"\0\0\0\0"
    payload = _read_exact(sock, length)
    if mask is None or payload is None:
        return None
    return opcode, bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _read_exact(sock: socket.socket, count: int) -> bytes | None:
    data = b""
    while len(data) < count:
        try:
            chunk = sock.recv(count - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    return data
