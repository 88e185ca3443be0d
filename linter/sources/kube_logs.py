"""Pod logs through the API server (``--source logs``): the start-up part of a container's log.

``GET /api/v1/namespaces/{ns}/pods/{name}/log`` with the query parameters of the Pod log
API (``container``, ``previous``, ``limitBytes``): the kubelet serves the container's log
from its beginning, so the first ``limitBytes`` bytes hold the start-up lines (the
configuration the server printed) however long the pod has been running. A log cut at
the limit loses its last, incomplete line. ``previous`` reads the container instance that
ran before the last restart (a crash loop's start-up). RBAC: ``get`` on ``pods/log``.

When the kubelet has rotated the log (``containerLogMaxSize``, 10 MiB by default), the
API serves the current file only and the start-up lines are gone: the drift report says
that no start-up configuration was found.
"""

from __future__ import annotations

from typing import Any, Protocol

from linter.sources.kube_errors import RequestFailed

DEFAULT_LOG_BYTES = 8 * 1024 * 1024
_PREVIOUS_MISSING = "previous terminated container"


class _Session(Protocol):
    def get(
        self, path: str, params: dict[str, str], query: list[tuple[str, str]] | None = None
    ) -> bytes: ...

    def call(self, action: Any, what: str) -> Any: ...


def query(container: str, previous: bool, limit_bytes: int) -> list[tuple[str, str]]:
    """The query of the log request, as ``kubectl logs --limit-bytes`` sends it."""
    out = [("container", container), ("limitBytes", str(limit_bytes))]
    if previous:
        out.append(("previous", "true"))
    return out


def read_log(
    session: _Session, namespace: str, pod: str, container: str, previous: bool, limit_bytes: int
) -> str:
    what = f"reading the {'previous ' if previous else ''}log of container '{container}'"
    try:
        body = session.call(
            lambda: session.get(
                "/api/v1/namespaces/{namespace}/pods/{name}/log",
                {"namespace": namespace, "name": pod},
                query(container, previous, limit_bytes),
            ),
            what,
        )
    except RequestFailed as failure:
        raise _explained(failure, container, previous) from failure
    return start_of(bytes(body), limit_bytes)


def start_of(body: bytes, limit_bytes: int) -> str:
    """The log as text; at the limit, without the line the limit cut."""
    if len(body) >= limit_bytes and b"\n" in body:
        body = body[: body.rfind(b"\n") + 1]
    return body.decode("utf-8", "replace")


def _explained(failure: RequestFailed, container: str, previous: bool) -> RequestFailed:
    if failure.status == 400 and _PREVIOUS_MISSING in failure.message:
        return RequestFailed(
            "no-previous-log",
            f"{failure.message}; container '{container}' has not restarted, "
            "drop --previous to read its current log",
            400,
        )
    if failure.status == 400 and "is waiting to start" in failure.message:
        return RequestFailed("not-started", f"{failure.message}; no log yet", 400)
    if failure.status == 404 and previous:
        return RequestFailed("no-previous-log", failure.message, 404)
    return failure
