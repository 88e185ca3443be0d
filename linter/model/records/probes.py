"""Probes with the API defaults filled in, and how long a ``preStop`` hook sleeps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.lazyregex import lazy_compile
from linter.model.engine.command import split_script
from linter.model.facts import quantities as q
from linter.model.records.located import Located
from linter.model.records.paths import Locate
from linter.model.records.pod_records import Container, PreStop, Probe
from linter.positions import Origin, PathT

# kubernetes/kubernetes:staging/src/k8s.io/api/core/v1/types.go (Probe defaults).
PROBE_DEFAULTS = {
    "initial_delay_seconds": 0,
    "period_seconds": 10,
    "timeout_seconds": 1,
    "failure_threshold": 3,
    "success_threshold": 1,
}
_FIELDS = {
    "initialDelaySeconds": "initial_delay_seconds",
    "periodSeconds": "period_seconds",
    "timeoutSeconds": "timeout_seconds",
    "failureThreshold": "failure_threshold",
    "successThreshold": "success_threshold",
    "terminationGracePeriodSeconds": "termination_grace_period_seconds",
}
PROBE_KINDS = {
    "livenessProbe": "liveness",
    "readinessProbe": "readiness",
    "startupProbe": "startup",
}
_SLEEP = lazy_compile(r"^(\d+(?:\.\d+)?)([smhd]?)$")
_LOOPS = frozenset({"while", "until", "for"})
_SLEEP_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_NOWHERE = Origin("", 1, 1)


def probes_of(
    container: Mapping[str, Any], cpath: PathT, locate: Locate
) -> Located[dict[str, Located[Probe]]]:
    """The container's probes by kind (``liveness``, ``readiness``, ``startup``)."""
    probes: dict[str, Located[Probe]] = {}
    for key, kind in PROBE_KINDS.items():
        probe = container.get(key)
        if not isinstance(probe, Mapping):
            continue
        ppath = (*cpath, key)
        out: dict[str, Any] = {}
        origins: dict[str, Origin] = {}
        defaulted: list[str] = []
        for field, name in _FIELDS.items():
            value = q.to_int(probe.get(field))
            if value is not None:
                out[name] = value
                origins[name] = locate((*ppath, field))
            elif name in PROBE_DEFAULTS:
                out[name] = PROBE_DEFAULTS[name]
                defaulted.append(name)
        out["defaulted"] = defaulted
        for name, where in _handler(probe, out).items():
            origins[name] = locate((*ppath, *where))
        # The kubelet restarts after initialDelay + failureThreshold × period (infra-rules §4).
        out["budget_seconds"] = (
            out["initial_delay_seconds"] + out["failure_threshold"] * out["period_seconds"]
        )
        probes[kind] = Located(Probe.of(out, origins.get), locate(ppath))
    return Located(probes)


def _handler(probe: Mapping[str, Any], out: dict[str, Any]) -> dict[str, PathT]:
    """The probe's handler into ``out``; each field it set → the key it was read from."""
    for handler in ("httpGet", "tcpSocket", "grpc", "exec"):
        spec = probe.get(handler)
        if not isinstance(spec, Mapping):
            continue
        out["type"] = handler
        keys = {"type": (handler,), "port": (handler, "port"), "http_path": (handler, "path")}
        keys |= {"scheme": (handler, "scheme"), "command": (handler, "command")}
        if "port" in spec:
            port = spec["port"]
            out["port"] = (
                port if isinstance(port, int) and not isinstance(port, bool) else str(port)
            )
        if handler == "httpGet" and isinstance(spec.get("path"), str):
            out["http_path"] = spec["path"]
        if handler == "httpGet" and isinstance(spec.get("scheme"), str):
            out["scheme"] = spec["scheme"]
        if handler == "exec" and isinstance(spec.get("command"), list):
            out["command"] = [str(part) for part in spec["command"]]
        return {name: where for name, where in keys.items() if name in out}
    return {}


def add_pre_stop(
    container: Mapping[str, Any], cpath: PathT, locate: Locate, record: Container
) -> None:
    """``pre_stop`` and how long it sleeps (``pre_stop_seconds``) into ``record``."""
    lifecycle = container.get("lifecycle")
    hook = lifecycle.get("preStop") if isinstance(lifecycle, Mapping) else None
    if not isinstance(hook, Mapping):
        return
    hpath = (*cpath, "lifecycle", "preStop")
    origin = locate(hpath)
    sleep = hook.get("sleep")
    if isinstance(sleep, Mapping):
        record.pre_stop = Located(PreStop(type=Located("sleep")), origin)
        seconds = q.to_number(sleep.get("seconds"))
        if seconds is not None:
            record.pre_stop_seconds = Located(seconds, locate((*hpath, "sleep", "seconds")))
        return
    exec_ = hook.get("exec")
    if isinstance(exec_, Mapping) and isinstance(exec_.get("command"), list):
        command = [str(part) for part in exec_["command"]]
        record.pre_stop = Located(
            PreStop(
                type=Located("exec"),
                command=Located(command, locate((*hpath, "exec", "command"))),
            ),
            origin,
        )
        found = sleep_seconds(command)
        if found is not None:
            record.pre_stop_seconds = Located(found, locate((*hpath, "exec", "command")))
        return
    for handler in ("httpGet", "tcpSocket"):
        if isinstance(hook.get(handler), Mapping):
            record.pre_stop = Located(PreStop(type=Located(handler)), origin)
            return


def sleep_seconds(command: list[str]) -> int | float | None:
    """Seconds a hook command sleeps, when that can be told (no loops, only literal sleeps)."""
    if (
        len(command) >= 3
        and command[0].rsplit("/", 1)[-1] in ("sh", "bash", "ash")
        and command[1].startswith("-")
        and "c" in command[1]
    ):
        commands = [[t.text for t in cmd] for cmd in split_script(command[2], _NOWHERE, {})]
    else:
        commands = [command]
    if any(word in _LOOPS for cmd in commands for word in cmd):
        return None
    total: float = 0
    found = False
    for cmd in commands:
        if cmd and cmd[0].rsplit("/", 1)[-1] == "sleep":
            for arg in cmd[1:]:
                match = _SLEEP.match(arg)
                if match is None:
                    return None
                total += float(match.group(1)) * _SLEEP_UNITS[match.group(2)]
                found = True
    if not found:
        return None
    return int(total) if total.is_integer() else total
