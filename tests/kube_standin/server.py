"""A stand-in for the Kubernetes API server, on loopback, for the drift tests.

No real API server can run on the machines the tests run on, so this threading HTTP server
speaks the API server's wire protocol for exactly what ``servelint drift`` uses:

- ``GET /api/v1/namespaces/{ns}/pods?labelSelector=...`` (a ``PodList``)
- ``GET /api/v1/namespaces/{ns}/pods/{name}`` and ``.../configmaps/{name}``
- the pod proxy ``GET /api/v1/namespaces/{ns}/pods/{name}:{port}/proxy/{path}``
- pod logs ``GET /api/v1/namespaces/{ns}/pods/{name}/log`` with the Pod log API's
  ``container``, ``previous``, ``limitBytes`` and ``tailLines`` (tail first, then the byte
  limit, as the kubelet applies them), plain text
- pod exec over WebSocket (``.../pods/{name}/exec?command=...&container=...``, subprotocol
  ``v4.channel.k8s.io``: binary frames prefixed with the channel, 1 stdout, 2 stderr,
  3 the final ``Status``)

Failures are answered as the API server answers them: ``Status`` objects with codes 401,
403 (with the RBAC message naming verb and resource), 404 and 400, exec failures as a
``NonZeroExitCode`` status with the exit code, and slow answers for timeouts.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from kube_standin import websocket as ws
from kube_standin.cluster import (
    Cluster,
    Pod,
    configmap_json,
    forbidden,
    matches_selector,
    not_found,
    pod_json,
    status,
)

_NS = r"/api/v1/namespaces/(?P<ns>[^/]+)"
_ROUTES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(_NS + r"/pods$"), "list_pods"),
    (re.compile(_NS + r"/pods/(?P<name>[^/:]+):(?P<port>\d+)/proxy(?P<path>/.*)?$"), "proxy"),
    (re.compile(_NS + r"/pods/(?P<name>[^/]+)/exec$"), "exec"),
    (re.compile(_NS + r"/pods/(?P<name>[^/]+)/log$"), "log"),
    (re.compile(_NS + r"/pods/(?P<name>[^/]+)$"), "get_pod"),
    (re.compile(_NS + r"/configmaps/(?P<name>[^/]+)$"), "get_configmap"),
]
V4_CHANNEL = "v4.channel.k8s.io"
# Reason and message of the Status the API server sends with each fault code.
_FAULTS = {
    401: ("Unauthorized", "Unauthorized"),
    429: (
        "TooManyRequests",
        "the server has received too many requests and has asked us to try again later",
    ),
    500: ("InternalError", "an error on the server has prevented the request from succeeding"),
    503: ("ServiceUnavailable", "the server is currently unable to handle the request"),
    504: ("Timeout", "the server was unable to return a response in the time allotted"),
}


class StandinServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # slow handlers must not hold up the end of a test

    def __init__(self, cluster: Cluster) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.cluster = cluster
        self.stopping = threading.Event()
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> StandinServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server: StandinServer

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep test output clean

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        self.server.cluster.enter()
        try:
            self._serve(method)
        finally:
            self.server.cluster.leave()

    def _serve(self, method: str) -> None:
        cluster = self.server.cluster
        split = urlsplit(self.path)
        path = unquote(split.path)
        query = parse_qs(split.query)
        fault = cluster.record(method, path)
        if cluster.latency:
            self.server.stopping.wait(cluster.latency)
        if self.headers.get("Authorization") != f"Bearer {cluster.token}":
            self._json(401, status(401, "Unauthorized", "Unauthorized"))
            return
        if fault is not None:
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            reason, message = _FAULTS.get(fault.status, _FAULTS[503])
            self._json(fault.status, status(fault.status, reason, message), headers)
            return
        for pattern, handler in _ROUTES:
            match = pattern.match(path)
            if match:
                if method != "GET":
                    self._json(
                        405,
                        status(405, "MethodNotAllowed", "the server does not allow this method"),
                    )
                    return
                getattr(self, "_" + handler)(match.groupdict(), query)
                return
        self._json(
            404, status(404, "NotFound", "the server could not find the requested resource", {})
        )

    # -- resources ---------------------------------------------------------------------

    def _list_pods(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        ns = params["ns"]
        if self._denied("list", "pods", ns, None):
            return
        selector = query.get("labelSelector", [""])[0]
        items = [
            pod_json(p)
            for p in self.server.cluster.pods
            if p.namespace == ns and matches_selector(p.labels, selector)
        ]
        self._json(
            200,
            {
                "kind": "PodList",
                "apiVersion": "v1",
                "metadata": {"resourceVersion": "1042"},
                "items": items,
            },
        )

    def _get_pod(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        pod = self._pod(params, "get", "pods")
        if pod is not None:
            self._json(200, pod_json(pod))

    def _get_configmap(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        ns, name = params["ns"], params["name"]
        if self._denied("get", "configmaps", ns, name):
            return
        data = self.server.cluster.configmaps.get((ns, name))
        if data is None:
            self._json(404, not_found("configmaps", name))
            return
        self._json(200, configmap_json(ns, name, data))

    def _proxy(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        pod = self._pod(params, "get", "pods/proxy")
        if pod is None:
            return
        port, path = int(params["port"]), params["path"] or "/"
        if pod.delay:
            self.server.stopping.wait(pod.delay)
        replies = [c.http[(port, path)] for c in pod.containers if (port, path) in c.http]
        served = any(p == port for c in pod.containers for p, _ in c.http)
        if pod.phase != "Running" or not served:
            message = (
                f"error trying to reach service: dial tcp 10.4.0.17:{port}: "
                "connect: connection refused"
            )
            self._json(503, status(503, "ServiceUnavailable", message))
            return
        if not replies:
            self._raw(404, b'{"detail":"Not Found"}', "application/json")
            return
        self._raw(replies[0].status, replies[0].body, replies[0].content_type)

    def _exec(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        pod = self._pod(params, "get", "pods/exec")
        if pod is None:
            return
        cluster = self.server.cluster
        if cluster.websocket_create_check and self._denied(
            "create", "pods/exec", pod.namespace, pod.name
        ):
            return
        if self.headers.get("Upgrade", "").lower() != "websocket":
            self._json(400, status(400, "BadRequest", "Upgrade request required"))
            return
        problem = _exec_problem(pod, query.get("container", [None])[0])
        if problem is not None:
            self._json(400, status(400, "BadRequest", problem))
            return
        offered = [p.strip() for p in self.headers.get("Sec-WebSocket-Protocol", "").split(",")]
        if V4_CHANNEL not in offered:
            self._json(400, status(400, "BadRequest", "unable to upgrade: no supported protocol"))
            return
        if pod.delay:
            self.server.stopping.wait(pod.delay)
        container = pod.container(query.get("container", [None])[0])
        assert container is not None  # checked by _exec_problem
        stdout, stderr, code = _run(container.files, query.get("command", []))
        self._websocket_session(stdout, stderr, code)

    def _log(self, params: dict[str, str], query: dict[str, list[str]]) -> None:
        with self.server.cluster.lock:
            self.server.cluster.log_queries.append(query)
        pod = self._pod(params, "get", "pods/log")
        if pod is None:
            return
        invalid = _log_query_problem(query)
        if invalid is not None:
            self._json(422, status(422, "Invalid", invalid))
            return
        name = query.get("container", [None])[0]
        if name is None and len(pod.containers) > 1:
            names = " ".join(c.name for c in pod.containers)
            message = (
                f"a container name must be specified for pod {pod.name}, choose one of: [{names}]"
            )
            self._json(400, status(400, "BadRequest", message))
            return
        container = pod.container(name)
        if container is None:
            message = f"container {name} is not valid for pod {pod.name}"
            self._json(400, status(400, "BadRequest", message))
            return
        previous = query.get("previous", ["false"])[0] == "true"
        if previous and container.previous_log is None:
            message = (
                f'previous terminated container "{container.name}" in pod "{pod.name}" not found'
            )
            self._json(400, status(400, "BadRequest", message))
            return
        if not previous and pod.phase == "Pending":
            message = (
                f'container "{container.name}" in pod "{pod.name}" is waiting to start: '
                "ContainerCreating"
            )
            self._json(400, status(400, "BadRequest", message))
            return
        body = container.previous_log if previous else container.log
        assert body is not None
        if "tailLines" in query:
            lines = body.splitlines(keepends=True)
            count = int(query["tailLines"][0])
            body = b"".join(lines[len(lines) - count :] if count else [])
        if "limitBytes" in query:
            body = body[: int(query["limitBytes"][0])]
        self._raw(200, body, "text/plain")

    # -- helpers -----------------------------------------------------------------------

    def _pod(self, params: dict[str, str], verb: str, resource: str) -> Pod | None:
        ns, name = params["ns"], params["name"]
        if self._denied(verb, resource, ns, name):
            return None
        pod = self.server.cluster.pod(ns, name)
        if pod is None:
            self._json(404, not_found("pods", name))
        return pod

    def _denied(self, verb: str, resource: str, namespace: str, name: str | None) -> bool:
        denied = self.server.cluster.denied
        if (verb, resource) in denied or (name and (verb, resource, name) in denied):
            self._json(403, forbidden(verb, resource, namespace, name))
            return True
        return False

    def _json(self, code: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._raw(code, json.dumps(body).encode(), "application/json", headers)

    def _raw(
        self, code: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True  # the client gave up (timeout); nothing to answer

    def _websocket_session(self, stdout: bytes, stderr: bytes, code: int) -> None:
        self.close_connection = True
        key = self.headers.get("Sec-WebSocket-Key", "")
        try:
            self.send_response(101, "Switching Protocols")
            self.send_header("Upgrade", "websocket")
            self.send_header("Connection", "Upgrade")
            self.send_header("Sec-WebSocket-Accept", ws.accept_key(key))
            self.send_header("Sec-WebSocket-Protocol", V4_CHANNEL)
            self.end_headers()
            frames = [ws.encode_frame(ws.OP_BINARY, bytes([ch])) for ch in (1, 2, 3)]
            frames += _chunks(1, stdout) + _chunks(2, stderr)
            frames.append(ws.encode_frame(ws.OP_BINARY, b"\x03" + _exit_status(code)))
            frames.append(ws.encode_frame(ws.OP_CLOSE, (1000).to_bytes(2, "big")))
            self.wfile.write(b"".join(frames))
            self.wfile.flush()
            self.connection.settimeout(2.0)
            _await_close(self.connection)
        except OSError:
            return


def _log_query_problem(query: dict[str, list[str]]) -> str | None:
    """The validation of PodLogOptions (``must be greater than 0`` and friends)."""
    for name, least in (("limitBytes", 1), ("tailLines", 0)):
        if name in query:
            text = query[name][0]
            if not text.lstrip("-").isdigit():
                return f'{name}: Invalid value: "{text}": must be an integer'
            if int(text) < least:
                relation = "greater than 0" if least else "greater than or equal to 0"
                return f"{name}: Invalid value: {text}: must be {relation}"
    if query.get("previous", ["false"])[0] not in ("true", "false"):
        return f'previous: Invalid value: "{query["previous"][0]}": must be a boolean'
    return None


def _exec_problem(pod: Pod, container_name: str | None) -> str | None:
    if pod.phase in ("Succeeded", "Failed"):
        return f"cannot exec into a container in a completed pod; current phase is {pod.phase}"
    if pod.phase != "Running":
        return f"pod {pod.name} does not have a host assigned"
    if pod.container(container_name) is None:
        return f"container {container_name} is not valid for pod {pod.name}"
    return None


def _run(files: dict[str, bytes], command: list[str]) -> tuple[bytes, bytes, int]:
    """Run the only command drift needs, ``cat FILE``, against the container's files."""
    if len(command) != 2 or command[0] != "cat":
        name = command[0] if command else ""
        return b"", f'exec: "{name}": executable file not found in $PATH\n'.encode(), 126
    path = command[1]
    if path not in files:
        return b"", f"cat: {path}: No such file or directory\n".encode(), 1
    return files[path], b"", 0


def _exit_status(code: int) -> bytes:
    if code == 0:
        return json.dumps({"metadata": {}, "status": "Success"}).encode()
    return json.dumps(
        {
            "metadata": {},
            "status": "Failure",
            "message": f"command terminated with non-zero exit code: exit status {code}",
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
        }
    ).encode()


def _chunks(channel: int, data: bytes, size: int = 32 * 1024) -> list[bytes]:
    return [
        ws.encode_frame(ws.OP_BINARY, bytes([channel]) + data[i : i + size])
        for i in range(0, len(data), size)
    ]


def _await_close(sock: socket.socket) -> None:
    """Wait (bounded) for the client's close frame, answering pings."""
    for _ in range(16):
        frame = ws.read_frame(sock)
        if frame is None or frame[0] == ws.OP_CLOSE:
            return
        if frame[0] == ws.OP_PING:
            sock.sendall(ws.encode_frame(ws.OP_PONG, frame[1]))
