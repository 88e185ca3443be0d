"""Failures of cluster requests: what they mean for the user, and which are worth a retry.

Kept apart from ``kube.py`` so that it imports nothing from ``kubernetes`` at module
level: exceptions are recognised by their attributes (``status``, ``body``) and by the
``urllib3``/``websocket`` classes that the client raises. ``urllib3`` comes with the
``kube`` extra, so it is imported only once a request has failed: ``drift --live`` reads
``parse_source`` from here in an install without the extra (issue 31).
"""

from __future__ import annotations

import json
import random
import re
import socket
import time
from collections.abc import Callable
from typing import Any, TypeVar

from linter.lightclass import frozen

T = TypeVar("T")

# Transient answers: worth another try after a pause (never 401, 403 or 404).
RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
_FORBIDDEN = re.compile(
    r'cannot (?P<verb>\w+) resource "(?P<resource>[^"]+)"'
    r'(?: in API group "(?P<group>[^"]*)")?'
    r'(?: in the namespace "(?P<namespace>[^"]+)")?'
)


@frozen
class RetryPolicy:
    """At most ``attempts`` tries; pauses of ``base_delay`` × 2^n, capped at ``max_delay``."""

    attempts: int = 3
    base_delay: float = 0.5
    max_delay: float = 8.0


class RequestFailed(Exception):
    """A request failed for good. ``reason`` is a short word; ``message`` says what to do."""

    def __init__(self, reason: str, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.status = status


@frozen
class _Transient:
    """A failure worth another try; ``retry_after`` is the server's Retry-After, if any."""

    failure: RequestFailed
    retry_after: float | None


def call(
    action: Callable[[], T],
    policy: RetryPolicy,
    what: str,
    errors: tuple[type[BaseException], ...],
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``action``; retry transient ``errors`` with exponential backoff (bounded).

    Raises ``RequestFailed`` once the failure is final.
    """
    attempts = max(policy.attempts, 1)
    for attempt in range(attempts):
        try:
            return action()
        except errors as exc:
            failure = classify(exc, what)
            if isinstance(failure, RequestFailed):
                raise failure from exc
            if attempt + 1 >= attempts:
                raise failure.failure from exc
        delay = min(policy.max_delay, policy.base_delay * 2**attempt)
        if failure.retry_after is not None:
            delay = min(policy.max_delay, max(delay, failure.retry_after))
        sleep(delay * random.uniform(0.8, 1.0))
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


class BodyTooLarge(OSError):
    """An answer larger than ``--max-bytes`` (or an error Status larger than a MiB),
    given up while it was being read."""


def classify(exc: BaseException, what: str) -> RequestFailed | _Transient:
    """What ``exc`` means: a final ``RequestFailed`` or a ``_Transient`` worth a retry."""
    import urllib3.exceptions  # the client's dependency: a request failed, so it is there

    if isinstance(exc, BodyTooLarge):
        return RequestFailed("too-large", f"{what}: {exc}; raise --max-bytes if it is genuine")
    status = getattr(exc, "status", None)
    if isinstance(status, int) and hasattr(exc, "reason"):
        return _api_failure(exc, status, what)
    if isinstance(exc, urllib3.exceptions.NewConnectionError | ConnectionError):
        return _Transient(
            RequestFailed(
                "unreachable",
                f"{what}: cannot connect to the API "
                f"server ({exc}); check the kubeconfig server address "
                "and the network",
            ),
            None,
        )
    if isinstance(exc, urllib3.exceptions.TimeoutError | socket.timeout | TimeoutError):
        return _timeout(what)
    if isinstance(exc, urllib3.exceptions.ProtocolError):
        return _Transient(RequestFailed("unreachable", f"{what}: connection dropped ({exc})"), None)
    return RequestFailed("unreachable", f"{what}: {type(exc).__name__}: {exc}")


def _timeout(what: str) -> RequestFailed:
    # Not retried: a pod that did not answer within --timeout would only multiply the wait.
    return RequestFailed(
        "timeout",
        f"{what}: no answer within the timeout; raise --timeout "
        "if the pod is slow, or check that it is not overloaded",
    )


def _api_failure(exc: BaseException, status: int, what: str) -> RequestFailed | _Transient:
    handshake = _websocket_status(exc)
    if handshake is not None:
        status, body = handshake
    else:
        body = getattr(exc, "body", None)
        if status == 0:
            return _status_zero(exc, what)
    message = _status_message(body)
    if status == 401:
        return RequestFailed(
            "unauthorized",
            f"{what}: 401 Unauthorized: the API server "
            "rejected the credentials; renew the kubeconfig token (or the "
            "ServiceAccount token) and check --context",
            status,
        )
    if status == 403:
        return RequestFailed("forbidden", f"{what}: 403 Forbidden: {_rbac_advice(message)}", status)
    if status == 404:
        return RequestFailed(
            "not-found", f"{what}: 404 Not Found: {message or 'no such object'}", status
        )
    failure = RequestFailed(
        "unavailable" if status >= 500 or status == 429 else "rejected",
        f"{what}: HTTP {status}: {message or 'no message'}",
        status,
    )
    if status in RETRYABLE_STATUS:
        return _Transient(failure, _retry_after(exc))
    return failure


def _status_zero(exc: BaseException, what: str) -> RequestFailed | _Transient:
    """The client reports WebSocket and connection problems as ``status=0``."""
    context = exc.__context__ or exc.__cause__
    if context is not None and type(context).__name__ == "WebSocketTimeoutException":
        return _timeout(what)
    if isinstance(context, ConnectionError | OSError) and not isinstance(context, TimeoutError):
        return _Transient(
            RequestFailed("unreachable", f"{what}: cannot connect to the API server ({context})"),
            None,
        )
    if isinstance(context, TimeoutError | socket.timeout):
        return _timeout(what)
    reason = str(getattr(exc, "reason", "") or exc)
    if "timed out" in reason.lower():
        return _timeout(what)
    return RequestFailed("unreachable", f"{what}: {reason}")


def _websocket_status(exc: BaseException) -> tuple[int, Any] | None:
    context = exc.__context__ or exc.__cause__
    code = getattr(context, "status_code", None)
    if isinstance(code, int):
        return code, getattr(context, "resp_body", None)
    return None


def _status_message(body: Any) -> str:
    """The ``message`` of a ``Status`` body, or the body itself (shortened)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not isinstance(body, str) or not body:
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:200]
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return body.strip()[:200]


def _rbac_advice(message: str) -> str:
    match = _FORBIDDEN.search(message)
    if match is None:
        return message or "the user lacks a permission"
    where = f" in namespace '{match['namespace']}'" if match["namespace"] else ""
    return (
        f"the user may not {match['verb']} '{match['resource']}'{where}; grant verb "
        f"'{match['verb']}' on resource '{match['resource']}' in a Role bound to it "
        "(see deploy/drift-scan/rbac.yaml)"
    )


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "headers", None)
    if not headers:
        return None
    value = headers.get("Retry-After") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
