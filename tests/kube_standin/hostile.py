"""A hostile or broken Kubernetes API server on loopback, for the drift scan's limits.

The ordinary stand-in (``server.py``) answers as a real API server does. This one speaks
just enough HTTP to be reached by the real ``kubernetes`` client through a kubeconfig,
and then misbehaves in one chosen way:

- ``slow-head``: answers the pod list with a status line, then one header byte at a time
- ``slow-body``: announces a body and sends it one byte at a time
- ``huge-list``: a pod list of 1 GiB, streamed without a length
- ``invalid-json``, ``list-for-object``, ``deep-json``: bodies that are not a pod list
- ``bad-items``: a pod list whose items have the wrong shapes, next to one good pod
- ``evil-names``: a good pod whose name carries a terminal escape and a workflow command
- ``fragments``: a good pod whose exec answer is a WebSocket message of endless
  fragments (never a final frame)

Every answer loop stops when the client goes away or the server is stopped.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from typing import Any

from kube_standin import websocket as ws
from kube_standin.cluster import Container, Pod, pod_json

MODES = (
    "slow-head",
    "slow-body",
    "huge-list",
    "invalid-json",
    "list-for-object",
    "deep-json",
    "bad-items",
    "fragments",
    "evil-names",
)
GIB = 2**30
DRIP_SECONDS = 0.2


def good_pod(name: str, config: bytes) -> dict[str, Any]:
    return pod_json(
        Pod(
            name,
            labels={"app": "vllm"},
            containers=[Container("vllm", files={"/etc/vllm/config.json": config})],
        )
    )


class HostileServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False

    def __init__(self, mode: str, config: bytes = b"{}") -> None:
        assert mode in MODES
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode
        self.config = config
        self.stopping = threading.Event()
        self.requests: list[str] = []
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


class _Handler(socketserver.BaseRequestHandler):
    server: HostileServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        sock.settimeout(30)
        head = b""
        try:
            while b"\r\n\r\n" not in head:
                chunk = sock.recv(65536)
                if not chunk:
                    return
                head += chunk
            path = head.split(b" ", 2)[1].decode("latin-1").split("?", 1)[0]
            self.server.requests.append(path)
            if path.endswith("/exec"):
                self._exec(sock, head)
            elif path.endswith("/pods"):
                getattr(self, "_" + self.server.mode.replace("-", "_"))(sock)
            else:
                _send(sock, 404, json.dumps({"kind": "Status", "code": 404}).encode())
        except OSError:
            return  # the client gave up: what these tests expect

    def _drip(self, sock: socket.socket, data: bytes) -> None:
        for byte in data:
            if self.server.stopping.wait(DRIP_SECONDS):
                return
            sock.sendall(bytes([byte]))

    def _slow_head(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\n")
        self._drip(sock, b"X-Drip: " + b"a" * 100_000)

    def _slow_body(self, sock: socket.socket) -> None:
        body = json.dumps({"kind": "PodList", "items": []}).encode().ljust(100_000)
        sock.sendall(_head(200, len(body)))
        self._drip(sock, body)

    def _huge_list(self, sock: socket.socket) -> None:
        sock.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        )
        item = json.dumps({"metadata": {"name": "p" * 200}}).encode() + b","
        block = item * (2**20 // len(item))
        sock.sendall(b'{"kind": "PodList", "items": [')
        sent = 0
        while sent < GIB and not self.server.stopping.is_set():
            sock.sendall(block)
            sent += len(block)

    def _invalid_json(self, sock: socket.socket) -> None:
        _send(sock, 200, b'{"kind": "PodList", "items": [{"metadata": ')

    def _list_for_object(self, sock: socket.socket) -> None:
        _send(sock, 200, b'[{"kind": "PodList"}]')

    def _deep_json(self, sock: socket.socket) -> None:
        _send(sock, 200, b'{"items": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")

    def _bad_items(self, sock: socket.socket) -> None:
        items: list[Any] = [
            1,
            "pod",
            {"metadata": ["not", "a", "map"]},
            {"metadata": {"name": "broken"}, "spec": {"containers": "vllm"}},
            good_pod("vllm-good", self.server.config),
        ]
        _send(sock, 200, json.dumps({"kind": "PodList", "items": items}).encode())

    def _evil_names(self, sock: socket.socket) -> None:
        pod = good_pod("vllm-\x1b[2J\n::error file=a.py::owned", self.server.config)
        _send(sock, 200, json.dumps({"kind": "PodList", "items": [pod]}).encode())

    def _fragments(self, sock: socket.socket) -> None:
        body = json.dumps(
            {"kind": "PodList", "items": [good_pod("vllm-flood", self.server.config)]}
        ).encode()
        _send(sock, 200, body)

    def _exec(self, sock: socket.socket, head: bytes) -> None:
        key = ""
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().lower() == "sec-websocket-key":
                key = value.strip()
        sock.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
            b"Connection: Upgrade\r\nSec-WebSocket-Accept: "
            + ws.accept_key(key).encode()
            + b"\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n"
        )
        if self.server.mode != "fragments":  # the file, a success status, and goodbye
            status = json.dumps({"metadata": {}, "status": "Success"}).encode()
            sock.sendall(
                ws.encode_frame(ws.OP_BINARY, b"\x01" + self.server.config)
                + ws.encode_frame(ws.OP_BINARY, b"\x03" + status)
                + ws.encode_frame(ws.OP_CLOSE, (1000).to_bytes(2, "big"))
            )
            ws.read_frame(sock)  # the client's close frame
            return
        piece = b"x" * 65536
        # A binary frame without FIN, then continuation frames without FIN, forever.
        sock.sendall(bytes([ws.OP_BINARY]) + _length(len(piece) + 1) + b"\x01" + piece)
        frame = bytes([0x0]) + _length(len(piece)) + piece
        sent = 0
        while sent < 8 * GIB and not self.server.stopping.is_set():
            sock.sendall(frame)
            sent += len(frame)


def _length(size: int) -> bytes:
    return bytes([127]) + size.to_bytes(8, "big")


def _head(status: int, length: int) -> bytes:
    return (
        f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


def _send(sock: socket.socket, status: int, body: bytes) -> None:
    sock.sendall(_head(status, len(body)) + body)
    time.sleep(0.05)
