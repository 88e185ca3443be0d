"""One scan's connection to the API server: the official client's configuration and
``ApiClient``, shared by the scan's threads, its requests bounded in time and size."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from linter.errors import SourceError
from linter.sources import kube_deadline, kube_ws
from linter.sources.kube_config import MISSING_CLIENT, load_configuration
from linter.sources.kube_errors import BodyTooLarge, call

if TYPE_CHECKING:
    from linter.sources.kube import KubeRequest

_MAX_ERROR_BODY = 1024 * 1024  # an error Status is a few hundred bytes
_CHUNK = 64 * 1024


def read_body(raw: Any, deadline: float, limit: int, what: str) -> bytes:
    """The body of urllib3 response ``raw``, read piece by piece until ``deadline`` and at
    most ``limit`` bytes; the connection is closed (not reused) when given up."""
    length = raw.headers.get("Content-Length", "")
    if length.isdigit() and int(length) > limit:
        raw.close()
        raise BodyTooLarge(f"{what}: the answer is larger than {limit} bytes")
    data = bytearray()
    try:
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}: the answer did not arrive within the timeout")
            chunk = raw.read1(_CHUNK)
            if not chunk:
                return bytes(data)
            data += chunk
            if len(data) > limit:
                raise BodyTooLarge(f"{what}: the answer is larger than {limit} bytes")
    except BaseException:
        raw.close()
        raise
    finally:
        raw.release_conn()


class Session:
    """Client configuration and one official ``ApiClient``, shared by the threads.

    Requests are serialised and sent by the ``ApiClient`` itself (URL, query, credentials
    and their refresh, TLS), without the generated ``CoreV1Api``, whose import (models
    and all) cost more than a scan's requests. Pod exec goes over one short
    WebSocket connection of that client's pool (``kube_ws``); only with a proxy in the
    kubeconfig does it go through ``kubernetes.stream``, which temporarily replaces a
    client's ``call_api``, so those clients are per thread.
    """

    def __init__(self, request: KubeRequest) -> None:
        self.request = request
        self.configuration, self.namespace = load_configuration(
            request.kubeconfig, request.context, request.concurrency
        )
        self._local = threading.local()
        self._lock = threading.Lock()
        self._clients: list[Any] = []
        try:
            # urllib3 too: it comes with the `kube` extra, like the client.
            import urllib3.exceptions
            from kubernetes.client.api_client import ApiClient
            from kubernetes.client.exceptions import ApiException
        except ImportError as exc:  # pragma: no cover - checked in _load_configuration
            raise SourceError(MISSING_CLIENT) from exc
        self.client = ApiClient(self.configuration)
        kube_deadline.install(self.client.rest_client.pool_manager)
        self._clients.append(self.client)
        self._api_exception = ApiException
        self.direct_exec = not (self.configuration.proxy or self.configuration.proxy_headers)
        # Everything a request can fail with; anything else is a bug and propagates.
        self.errors: tuple[type[BaseException], ...] = (
            ApiException,
            kube_ws.UpgradeRejected,
            urllib3.exceptions.HTTPError,
            OSError,  # BodyTooLarge and TimeoutError included
        )

    def get(
        self, path: str, params: dict[str, str], query: list[tuple[str, str]] | None = None
    ) -> bytes:
        """``GET path`` as the generated API methods send it (``_preload_content=False``):
        the raw body, or the ``ApiException`` of a status outside 2xx.

        ``--timeout`` bounds the whole request, not each socket read: a server that
        answers one byte at a time (its head or its body) is given up at the deadline.
        The body is read in pieces and given up as soon as it exceeds ``--max-bytes``,
        never read whole first.
        """
        timeout = self.request.timeout
        deadline = time.monotonic() + timeout
        method, url, headers, body, post = self.client.param_serialize(
            "GET",
            path,
            path_params=params,
            query_params=query or [],
            header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
        )
        with kube_deadline.bounded(deadline):
            response = self.client.call_api(
                method, url, headers, body, post, _request_timeout=timeout
            )
            ok = 200 <= response.status <= 299
            limit = self.request.max_bytes if ok else _MAX_ERROR_BODY
            data = read_body(response.response, deadline, limit, path)
        if not ok:
            # from_response raises the status's own subclass (NotFoundException, ...).
            raise self._api_exception.from_response(
                http_resp=response, body=data.decode("utf-8", "replace"), data=None
            )
        return data

    def exec_channels(
        self, namespace: str, pod: str, container: str, command: list[str]
    ) -> kube_ws.Channels:
        params: list[tuple[str, object]] = [("command", c) for c in command]
        params += [
            ("container", container),
            ("stderr", True),
            ("stdin", False),
            ("stdout", True),
            ("tty", False),
        ]
        _, url, headers, _, _ = self.client.param_serialize(
            "GET",
            "/api/v1/namespaces/{namespace}/pods/{name}/exec",
            path_params={"namespace": namespace, "name": pod},
            query_params=params,
            header_params={},
            auth_settings=["BearerToken"],
        )
        pool = self.client.rest_client.pool_manager.connection_from_url(url)
        return kube_ws.run(pool, url, headers, self.request.timeout, self.request.max_bytes)

    def api(self) -> Any:
        """A ``CoreV1Api`` of this thread, for ``kubernetes.stream`` (proxies only)."""
        api = getattr(self._local, "api", None)
        if api is None:
            from kubernetes import client

            api = client.CoreV1Api(client.ApiClient(self.configuration))
            self._local.api = api
            with self._lock:
                self._clients.append(api.api_client)
        return api

    def close(self) -> None:
        """Close every client's connection pool (sockets are not left to the collector)."""
        with self._lock:
            clients, self._clients = self._clients, []
        for api_client in clients:
            api_client.close()

    def call(self, action: Callable[[], Any], what: str) -> Any:
        return call(action, self.request.retry, what, self.errors)
