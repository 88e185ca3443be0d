"""Live configuration from pods, through the official ``kubernetes`` client.

The client is imported lazily (only ``servelint drift --kube`` needs it): kubeconfig
contexts, in-cluster configuration and exec auth plugins all come from it. Pods are read
concurrently by a bounded thread pool; one pod's failure is recorded for that pod and
never stops the others. Transient failures (connection errors, 429, 5xx) are retried with
exponential backoff a bounded number of times; 401, 403, 404 and timeouts are not.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from linter.lightclass import frozen
from linter.sources import kube_logs, kube_pods
from linter.sources.kube_deadline import with_deadline
from linter.sources.kube_errors import RequestFailed, RetryPolicy
from linter.sources.kube_pods import SourceSpec
from linter.sources.kube_session import Session

Progress = Callable[[int, int], None]
Prepare = Callable[["Fetched"], Any]


@frozen
class KubeRequest:
    """What to read from the cluster, and how patiently."""

    source: SourceSpec
    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None
    selector: str | None = None
    pod: str | None = None
    container: str | None = None
    concurrency: int = 8
    timeout: float = 10.0
    retry: RetryPolicy = dataclasses.field(default_factory=RetryPolicy)
    max_bytes: int = 50 * 1024 * 1024
    previous: bool = False  # --source logs: the container instance before the last restart
    log_bytes: int = kube_logs.DEFAULT_LOG_BYTES  # --source logs: the start of the log read


@frozen
class Fetched:
    """One thing read from the cluster: its text (or pod-spec data), or why it was not."""

    source: str
    namespace: str
    workload: str = ""
    pod: str = ""
    container: str = ""
    state: str = "ok"  # ok | error | not-ready
    text: str | None = None
    data: Any = None  # podspec: the Pod object as the API server returned it
    reason: str = ""
    message: str = ""


@frozen
class FetchReport:
    items: list[Fetched]
    namespace: str
    error: RequestFailed | None = None  # the scan could not start: nothing was read
    prepared: list[Any] = dataclasses.field(default_factory=list)  # fetch's ``prepare``


def fetch(
    request: KubeRequest,
    progress: Progress | None = None,
    prepare: Prepare | None = None,
    before_requests: Callable[[], None] | None = None,
) -> FetchReport:
    """Read ``request.source`` from every selected pod (or the one ConfigMap).

    ``prepare`` is called with each pod's ``Fetched``, in the thread that read it (CPU work
    on one pod is done while the other threads wait on the network); what it returns is
    ``FetchReport.prepared``, in the order of the items. ``before_requests`` is called
    once the client is set up (its import is most of a scan's start), before the first
    request: work started there runs while the requests wait on the network.
    """
    session = Session(request)
    try:
        if before_requests is not None:
            before_requests()
        return _fetch(session, request, progress, prepare)
    finally:
        session.close()


def _fetch(
    session: Session, request: KubeRequest, progress: Progress | None, prepare: Prepare | None
) -> FetchReport:
    namespace = request.namespace or session.namespace
    if request.source.kind == "configmap":
        item = _configmap(session, namespace)
        return FetchReport([item], namespace, prepared=[prepare(item)] if prepare else [])
    try:
        pods = _select_pods(session, namespace)
    except RequestFailed as failure:
        return FetchReport([], namespace, failure)
    if not pods:
        what = f"selector '{request.selector}'" if request.selector else "the request"
        return FetchReport(
            [],
            namespace,
            RequestFailed("no-pods", f"no pods match {what} in namespace '{namespace}'"),
        )
    results: list[Fetched | None] = [None] * len(pods)
    prepared: list[Any] = [None] * len(pods) if prepare is not None else []
    # Each worker stores its result and counts itself done: a main thread woken at every
    # pod would contend for the interpreter lock with the workers 500 times a scan.
    done = itertools.count(1)
    lock = threading.Lock()

    def read(index: int, pod: dict[str, Any]) -> None:
        results[index] = fetched = _fetch_pod(session, namespace, pod)
        if prepare is not None:
            prepared[index] = prepare(fetched)
        if progress is not None:
            with lock:
                progress(next(done), len(pods))

    with ThreadPoolExecutor(max_workers=max(request.concurrency, 1)) as pool:
        futures = [pool.submit(read, index, pod) for index, pod in enumerate(pods)]
    for future in futures:
        future.result()  # all done: a failure in a worker propagates
    return FetchReport([r for r in results if r is not None], namespace, prepared=prepared)


def _select_pods(session: Session, namespace: str) -> list[dict[str, Any]]:
    request = session.request
    if request.pod:
        name = request.pod
        try:
            data = session.call(
                lambda: session.get(
                    "/api/v1/namespaces/{namespace}/pods/{name}",
                    {"namespace": namespace, "name": name},
                ),
                f"reading pod {name}",
            )
        except RequestFailed as failure:
            if failure.reason == "not-found":
                raise RequestFailed(
                    "no-pods", f"pod '{request.pod}' not found in namespace '{namespace}'"
                ) from failure
            raise
        return [_json_object(data, f"pod {name}")]
    data = session.call(
        lambda: session.get(
            "/api/v1/namespaces/{namespace}/pods",
            {"namespace": namespace},
            [("labelSelector", request.selector or "")],
        ),
        f"listing pods in namespace {namespace}",
    )
    items = _json_object(data, "the pod list").get("items") or []
    if not isinstance(items, list):
        raise RequestFailed("invalid", "the API server's pod list has no list of items")
    # An item that is not an object is no pod; one with a broken shape is reported for
    # itself when it is read (_fetch_pod).
    pods = [item for item in items if isinstance(item, dict)]
    return sorted(pods, key=_pod_name)


def _pod_name(pod: dict[str, Any]) -> str:
    metadata = pod.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) else ""


# Deeper than any Kubernetes object; Python's own JSON reader would recurse further and
# fail with RecursionError (or worse, deep in the client) on a hostile answer.
_MAX_JSON_DEPTH = 200


def _json_object(data: bytes, what: str) -> dict[str, Any]:
    """``data`` as a JSON object; ``RequestFailed('invalid', ...)`` for anything else
    (not JSON, not an object, nested beyond any Kubernetes object)."""
    if _nesting(data) > _MAX_JSON_DEPTH:
        raise RequestFailed("invalid", f"{what}: the answer is nested too deeply to be an object")
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise RequestFailed("invalid", f"{what}: the answer is not valid JSON") from exc
    if not isinstance(value, dict):
        raise RequestFailed("invalid", f"{what}: the answer is not a JSON object")
    return value


def _nesting(data: bytes) -> int:
    """The deepest bracket nesting of a JSON text, outside its strings: exact for valid
    UTF-8 JSON; any other text fails to parse (a RecursionError included). Escaped
    backslashes, then escaped quotes, are dropped, so that every quote left opens or
    closes a string; the text is then split at its quotes a window at a time (a list of
    pieces per window, not per answer: a hostile list of empty strings stays small). A
    pure-Python loop over every byte of a 500-pod list cost more than parsing it."""
    unescaped = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    depth = deepest = 0
    inside = False  # a string runs on from the window before
    for start in range(0, len(unescaped), _WINDOW):
        pieces = unescaped[start : start + _WINDOW].split(b'"')
        outside = b"".join(pieces[1 if inside else 0 :: 2])
        inside ^= len(pieces) % 2 == 0  # an odd number of quotes
        steps = map(_STEP.__getitem__, outside.translate(None, _NOT_BRACKETS))
        levels = list(itertools.accumulate(steps, initial=depth))
        deepest, depth = max(deepest, max(levels)), levels[-1]
    return deepest


_WINDOW = 1 << 20
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def _fetch_pod(session: Session, namespace: str, pod: dict[str, Any]) -> Fetched:
    try:
        return _fetch_pod_checked(session, namespace, pod)
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        # An object of the wrong shape (a list where a map belongs): this pod only.
        name = _pod_name(pod) or "?"
        return Fetched(
            f"kube://{namespace}/{name} {session.request.source.text}",
            namespace,
            pod=name,
            state="error",
            reason="invalid",
            message=f"the API server's object for pod {name} has an unexpected shape "
            f"({type(exc).__name__})",
        )


def _fetch_pod_checked(session: Session, namespace: str, pod: dict[str, Any]) -> Fetched:
    request = session.request
    name = _pod_name(pod)
    container = request.container or kube_pods.default_container(pod)
    base = Fetched(
        f"kube://{namespace}/{name}/{container} {request.source.text}",
        namespace,
        kube_pods.workload_name(pod),
        name,
        container,
    )
    not_ready = kube_pods.not_ready(pod)
    # A server prints its configuration long before it is Ready (while loading weights),
    # and a crash-looping one only in its logs: logs are read from any Running pod.
    started = request.source.kind == "logs" and (pod.get("status") or {}).get("phase") == "Running"
    if not_ready is not None and not started:
        return dataclasses.replace(base, state="not-ready", reason="not-ready", message=not_ready)
    try:
        if request.source.kind == "podspec":
            kube_pods.podspec_view(pod, container)  # the container must exist
            return dataclasses.replace(base, data=pod)
        if request.source.kind == "logs":
            text = kube_logs.read_log(
                session, namespace, name, container, request.previous, request.log_bytes
            )
        elif request.source.kind == "exec":
            text = _exec(session, namespace, name, container)
        else:
            text = _proxy(session, namespace, name)
    except RequestFailed as failure:
        reason, message = kube_pods.explain(failure, pod)
        return dataclasses.replace(base, state="error", reason=reason, message=message)
    return dataclasses.replace(base, text=text)


def _exec(session: Session, namespace: str, pod: str, container: str) -> str:
    request = session.request
    path = request.source.path
    what = f"reading {path} over exec"
    if session.direct_exec:
        channels = session.call(
            lambda: session.exec_channels(namespace, pod, container, ["cat", path]), what
        )
        if channels.too_large:
            raise RequestFailed("too-large", f"{path} is larger than {request.max_bytes} bytes")
        stdout, stderr, status = (
            bytes(c).decode("utf-8", "replace")
            for c in (channels.stdout, channels.stderr, channels.status)
        )
    else:
        stdout, stderr, status = session.call(
            lambda: with_deadline(
                lambda: _exec_stream(session, namespace, pod, container),
                request.timeout,
                session.errors,
            ),
            what,
        )
    kube_pods.check_exec_status(status, stderr, path, container)
    if len(stdout.encode()) > request.max_bytes:
        raise RequestFailed("too-large", f"{path} is larger than {request.max_bytes} bytes")
    return str(stdout)


def _exec_stream(
    session: Session, namespace: str, pod: str, container: str
) -> tuple[str, str, str]:
    """Exec through the official client's ``stream``, which knows proxies."""
    from kubernetes.stream import stream

    request = session.request
    client = stream(
        session.api().connect_get_namespaced_pod_exec,
        pod,
        namespace,
        command=["cat", request.source.path],
        container=container,
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
        _preload_content=False,
    )
    try:
        client.run_forever(timeout=request.timeout)
        if client.is_open():
            raise TimeoutError("exec did not finish")
        return client.read_channel(1), client.read_channel(2), client.read_channel(3)
    finally:
        client.close()
        # websocket-client leaves the socket open when the server closed first (its
        # close() returns early once a close frame was answered): close it here.
        if client.sock is not None:
            client.sock.shutdown()


def _proxy(session: Session, namespace: str, pod: str) -> str:
    request = session.request
    port, path = request.source.port, request.source.path
    what = f"GET :{port}{path} through the pod proxy"
    body = session.call(
        lambda: session.get(
            "/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}",
            {"namespace": namespace, "name": f"{pod}:{port}", "path": path.lstrip("/")},
        ),
        what,
    )
    if len(body) > request.max_bytes:
        raise RequestFailed("too-large", f"{what}: larger than {request.max_bytes} bytes")
    try:
        return str(body.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise RequestFailed("invalid", f"{what}: the answer is not UTF-8 text") from exc


def _configmap(session: Session, namespace: str) -> Fetched:
    source = session.request.source
    base = Fetched(
        f"kube://{namespace}/configmap/{source.name} {source.text}", namespace, source.name
    )
    try:
        raw = session.call(
            lambda: session.get(
                "/api/v1/namespaces/{namespace}/configmaps/{name}",
                {"namespace": namespace, "name": source.name},
            ),
            f"reading ConfigMap {source.name}",
        )
    except RequestFailed as failure:
        return dataclasses.replace(
            base, state="error", reason=failure.reason, message=failure.message
        )
    try:
        data = _json_object(raw, f"ConfigMap {source.name}").get("data") or {}
    except RequestFailed as failure:
        return dataclasses.replace(
            base, state="error", reason=failure.reason, message=failure.message
        )
    if not isinstance(data, dict):
        data = {}
    if source.key not in data:
        keys = ", ".join(sorted(data)) or "none"
        return dataclasses.replace(
            base,
            state="error",
            reason="not-found",
            message=(f"ConfigMap {source.name} has no key '{source.key}' (keys: {keys})"),
        )
    return dataclasses.replace(base, text=str(data[source.key]))
