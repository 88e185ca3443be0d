"""Reading Pod objects (plain JSON as the API server returns them) and drift sources."""

from __future__ import annotations

import json
import re
from typing import Any

from linter.lightclass import frozen
from linter.sources.kube_errors import RequestFailed

SOURCE_KINDS = ("exec", "http", "configmap", "podspec", "logs")
_HTTP = re.compile(r"^(?P<port>\d{1,5})(?P<path>/.*)?$")
_CONFIGMAP = re.compile(r"^(?P<name>[a-z0-9]([-a-z0-9.]*[a-z0-9])?)/(?P<key>[-._a-zA-Z0-9]+)$")


@frozen
class SourceSpec:
    """Where a pod's live configuration is read from (``--source``)."""

    kind: str
    text: str
    path: str = ""
    port: int = 0
    name: str = ""
    key: str = ""


def parse_source(text: str) -> SourceSpec:
    """``exec:/path``, ``http:PORT/PATH``, ``configmap:NAME/KEY``, ``podspec`` or ``logs``;
    ``ValueError`` with the accepted forms otherwise."""
    kind, _, rest = text.partition(":")
    if kind in ("podspec", "logs") and not rest:
        return SourceSpec(kind, text)
    if kind == "exec" and rest.startswith("/") and len(rest) > 1:
        return SourceSpec("exec", text, path=rest)
    if kind == "http":
        match = _HTTP.match(rest)
        if match and 0 < int(match["port"]) < 65536:
            return SourceSpec("http", text, path=match["path"] or "/", port=int(match["port"]))
    if kind == "configmap":
        match = _CONFIGMAP.match(rest)
        if match:
            return SourceSpec("configmap", text, name=match["name"], key=match["key"])
    raise ValueError(
        f"'{text}' is not a source; use exec:/path/in/container, "
        "http:PORT/PATH, configmap:NAME/KEY, podspec or logs"
    )


def default_container(pod: dict[str, Any]) -> str:
    """The container kubectl would pick: the annotated default, else the first one."""
    metadata = pod.get("metadata") or {}
    annotated = (metadata.get("annotations") or {}).get("kubectl.kubernetes.io/default-container")
    if annotated:
        return str(annotated)
    containers = (pod.get("spec") or {}).get("containers") or []
    return str(containers[0].get("name", "")) if containers else ""


def workload_name(pod: dict[str, Any]) -> str:
    """The Deployment, StatefulSet (or other controller) that owns a pod."""
    metadata = pod.get("metadata") or {}
    labels = metadata.get("labels") or {}
    for owner in metadata.get("ownerReferences") or []:
        if not owner.get("controller"):
            continue
        name = str(owner.get("name", ""))
        template_hash = labels.get("pod-template-hash")
        if (
            owner.get("kind") == "ReplicaSet"
            and template_hash
            and name.endswith("-" + template_hash)
        ):
            return name[: -len(template_hash) - 1]  # the Deployment behind the ReplicaSet
        return name
    for key in ("app.kubernetes.io/instance", "app.kubernetes.io/name", "app"):
        if labels.get(key):
            return str(labels[key])
    return str(metadata.get("name", ""))


def not_ready(pod: dict[str, Any]) -> str | None:
    """Why a pod is not compared (not Running, or not Ready), or None when it is ready."""
    status = pod.get("status") or {}
    phase = status.get("phase") or "Unknown"
    if phase != "Running":
        return f"pod is {phase}, not Running; not compared"
    ready = next(
        (c.get("status") for c in status.get("conditions") or [] if c.get("type") == "Ready"), None
    )
    if ready != "True":
        waiting = [
            c.get("name") for c in status.get("containerStatuses") or [] if not c.get("ready")
        ]
        detail = f" (containers not ready: {', '.join(map(str, waiting))})" if waiting else ""
        return f"pod is Running but not Ready{detail}; not compared"
    return None


def container_names(pod: dict[str, Any]) -> list[str]:
    return [str(c.get("name")) for c in (pod.get("spec") or {}).get("containers") or []]


def podspec_view(pod: dict[str, Any], container: str) -> dict[str, Any]:
    """What the pod spec says a container runs with: image, command, args, env, resources."""
    for spec in (pod.get("spec") or {}).get("containers") or []:
        if spec.get("name") == container:
            return {
                key: spec[key]
                for key in ("image", "command", "args", "env", "resources")
                if key in spec
            }
    raise RequestFailed(
        "container-missing",
        f"no container '{container}' in the pod "
        f"(containers: {', '.join(container_names(pod))}); pass --container",
    )


def check_exec_status(status: str, stderr: str, path: str, container: str) -> None:
    """Raise ``RequestFailed`` unless the exec status channel reports success."""
    try:
        data = json.loads(status) if status.strip() else None
    except ValueError:
        data = None
    if isinstance(data, dict) and data.get("status") == "Success":
        return
    if not isinstance(data, dict):
        raise RequestFailed(
            "exec-failed", f"reading {path} over exec: the connection closed without an exit status"
        )
    code = _exit_code(data)
    detail = stderr.strip() or str(data.get("message", ""))
    if "No such file" in stderr or "not a directory" in stderr.lower():
        raise RequestFailed(
            "file-missing",
            f"{path} does not exist in container '{container}' "
            f"({detail}); check the path in --source and the volume mounts",
        )
    if code in (126, 127):
        raise RequestFailed(
            "exec-failed",
            f"container '{container}' cannot run 'cat' (exit "
            f"{code}: {detail}); read the config with --source http:... or "
            "configmap:... instead",
        )
    raise RequestFailed("exec-failed", f"cat {path} exited with {code}: {detail}")


def _exit_code(status: dict[str, Any]) -> int | None:
    for cause in (status.get("details") or {}).get("causes") or []:
        if cause.get("reason") == "ExitCode":
            try:
                return int(cause.get("message"))
            except (TypeError, ValueError):
                return None
    return None


def explain(failure: RequestFailed, pod: dict[str, Any]) -> tuple[str, str]:
    """A failure's reason and message, with what to do when the pod itself tells us."""
    if failure.status == 400 and "is not valid for pod" in failure.message:
        return "container-missing", (
            f"{failure.message}; the pod's containers are: "
            f"{', '.join(container_names(pod))} (pass --container)"
        )
    return failure.reason, failure.message
