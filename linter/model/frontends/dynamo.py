"""NVIDIA Dynamo ``DynamoGraphDeployment`` (nvidia.com/v1alpha1): each service that runs a
server (``python3 -m dynamo.vllm``, ``dynamo.sglang``, ``dynamo.trtllm``) as the pod the
operator creates.

Read from https://github.com/ai-dynamo/dynamo (``deploy/cloud/operator``):

- ``spec.services.<name>`` holds ``componentType``, ``replicas``, ``resources`` (Dynamo's
  own form: ``gpu`` becomes ``nvidia.com/gpu``, other keys under ``custom`` keep their
  names: ``getResourcesConfig``), ``envs``, ``livenessProbe``/``readinessProbe``,
  ``multinode.nodeCount``, ``sharedMemory`` and ``extraPodSpec`` (a pod spec whose
  ``mainContainer`` is merged over the operator's container).
- The operator adds (``docs/footer.md`` "Operator Default Values Injection",
  ``internal/dynamo/component_worker.go`` at 0284ad86): a memory-backed ``/dev/shm`` of 8Gi
  to every component unless ``sharedMemory.disabled`` (``sharedMemory.size`` resizes it);
  to a ``worker``: HTTP ``/live`` liveness (period 5 s, one failure), ``/health`` readiness
  and ``/live`` startup (720 × 10 s) probes on the ``system`` port 9090 and the
  ``DYN_SYSTEM_*`` variables. A service's own probes replace the defaults. On a multinode
  vLLM or SGLang worker the probes of the non-leader nodes are removed.
- The workers take the engine's own arguments; the ones this module reads are those the
  server's flag table knows (Dynamo's own flags such as ``--is-prefill-worker`` are not
  the engine's and are left out).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from typing import Any

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Hint, Meta, build_workloads
from linter.model.frontends.operator_kinds import flag_hints
from linter.model.frontends.role_pods import added_by
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate, lookup
from linter.model.records.pod_volumes import ADDED_BY
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT

WHO = "the Dynamo operator"
_C: PathT = ("containers", 0)
# python -m dynamo.<backend> → the engine whose arguments it takes.
_BACKENDS = {"dynamo.vllm": "vllm", "dynamo.sglang": "sglang", "dynamo.trtllm": "trtllm"}
_SYSTEM_PORT = 9090
_WORKER_PROBES: dict[str, dict[str, Any]] = {
    "livenessProbe": {
        "httpGet": {"path": "/live", "port": "system"},
        "periodSeconds": 5,
        "timeoutSeconds": 4,
        "failureThreshold": 1,
    },
    "readinessProbe": {
        "httpGet": {"path": "/health", "port": "system"},
        "periodSeconds": 10,
        "timeoutSeconds": 4,
        "failureThreshold": 3,
    },
    "startupProbe": {
        "httpGet": {"path": "/live", "port": "system"},
        "periodSeconds": 10,
        "timeoutSeconds": 5,
        "failureThreshold": 720,
    },
}
_WORKER_ENV = {
    "DYN_SYSTEM_ENABLED": "true",
    "DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS": '["generate"]',
    "DYN_SYSTEM_PORT": str(_SYSTEM_PORT),
}


def dynamo_workloads(
    data: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    services = (
        data.get("spec", {}).get("services") if isinstance(data.get("spec"), Mapping) else None
    )
    if not isinstance(services, Mapping):
        return []
    out: list[Workload] = []
    for name, service in services.items():
        if isinstance(service, Mapping):
            out += _service(str(name), service, ("spec", "services", name), locate, meta, settings)
    return out


def backend_of(container: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The engine a container's command line runs through Dynamo, and the words after
    ``-m dynamo.<backend>`` (shell text split as the shell would)."""
    words: list[str] = []
    for key in ("command", "args"):
        items = container.get(key)
        if isinstance(items, list):
            for item in items:
                try:
                    words += shlex.split(str(item))
                except ValueError:
                    words += str(item).split()
    for index, word in enumerate(words[:-1]):
        if word == "-m" and words[index + 1] in _BACKENDS:
            rest = words[index + 2 :]
            end = next((i for i, w in enumerate(rest) if w in ("|", "&&", ";", "2>&1")), len(rest))
            return _BACKENDS[words[index + 1]], rest[:end]
    return "", []


def _service(
    name: str,
    service: Mapping[str, Any],
    where: PathT,
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
) -> list[Workload]:
    extra = service.get("extraPodSpec")
    extra = extra if isinstance(extra, Mapping) else {}
    main = extra.get("mainContainer")
    main = main if isinstance(main, Mapping) else {}
    server, words = backend_of(main)
    at = lambda *rest: locate((*where, *rest))  # noqa: E731
    pod = SyntheticPod(at())
    operator = added_by(at(), WHO)
    for key, value in extra.items():
        if key != "mainContainer":
            pod.put_tree((key,), value, locate, (*where, "extraPodSpec", key))
    pod.put_tree(_C, {"name": "main", **main}, locate, (*where, "extraPodSpec", "mainContainer"))
    if server and not main.get("command"):
        # Dynamo's examples write the worker as one line of shell text in ``args`` (with
        # pipes and redirections) for the runtime image's entrypoint to run: it is read
        # as a script, so the text does not reach the engine's parser as its arguments.
        pod.set((*_C, "command"), ["/bin/sh", "-c"], at("extraPodSpec", "mainContainer"))
    _resources(service, at, pod)
    _env(service, at, pod)
    worker = service.get("componentType") == "worker" or bool(server)
    _probes(service, at, operator, pod, worker)
    _shared_memory(service, at, operator, pod)
    nodes = (
        service.get("multinode", {}).get("nodeCount")
        if isinstance(service.get("multinode"), Mapping)
        else None
    )
    replicas = service.get("replicas")
    counted = isinstance(replicas, int) and not isinstance(replicas, bool)
    completed = dataclasses.replace(
        meta,
        id=f"{meta.id}/{name}",
        role=name,
        replicas=replicas if counted else None,
        replicas_origin=at("replicas") if counted else None,
        server_hint=server,
        server_known=bool(server),
        hints=_hints(server, words, at("extraPodSpec", "mainContainer")),
        multi_node=isinstance(nodes, int) and nodes > 1,
    )
    return build_workloads(pod.spec, pod.locate, completed, settings)


def _hints(server: str, words: list[str], origin: Origin) -> tuple[Hint, ...]:
    """The engine settings among a worker's arguments. ``dynamo.trtllm`` takes TensorRT-LLM's
    own arguments, not the Triton server's whose table ``trtllm`` names here: none read."""
    if server not in ("vllm", "sglang"):
        return ()
    return flag_hints(server, [(word, origin) for word in words])


def _resources(service: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    resources = service.get("resources")
    if not isinstance(resources, Mapping):
        return
    for side in ("requests", "limits"):
        written = resources.get(side)
        if not isinstance(written, Mapping):
            continue
        for key, value in written.items():
            if key == "custom" and isinstance(value, Mapping):
                for custom, amount in value.items():
                    origin = at("resources", side, "custom", custom)
                    pod.set((*_C, "resources", side, str(custom)), amount, origin)
                continue
            resource = "nvidia.com/gpu" if key == "gpu" else str(key)
            if value in (None, ""):
                continue
            amount = int(value) if key == "gpu" and str(value).isdigit() else value
            pod.set((*_C, "resources", side, resource), amount, at("resources", side, key))


def _env(service: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    envs = service.get("envs")
    if not isinstance(envs, list):
        return
    for index, item in enumerate(envs):
        if isinstance(item, Mapping):
            spot = _append(pod, (*_C, "env"), dict(item), at("envs", index))
            if spot is not None:
                pod.copy_origins((*_C, "env", spot), dict(item), lambda p: at(*p), ("envs", index))


def _probes(
    service: Mapping[str, Any], at: Any, operator: Origin, pod: SyntheticPod, worker: bool
) -> None:
    container = pod.spec["containers"][0]
    for key, default in _WORKER_PROBES.items():
        written = service.get(key)
        if isinstance(written, Mapping) and written:
            pod.put_tree((*_C, key), dict(written), lambda p: at(*p), (key,))
        elif worker and key not in container:
            pod.set((*_C, key), dict(default), operator)
    if not worker:
        return
    env = container.get("env")
    own = {e.get("name") for e in env if isinstance(e, Mapping)} if isinstance(env, list) else set()
    for name, value in _WORKER_ENV.items():
        if name not in own:
            spot = _append(pod, (*_C, "env"), {"name": name, "value": value}, operator)
            if spot is not None:
                pod.origins[(*_C, "env", spot, "value")] = operator
    _append(pod, (*_C, "ports"), {"name": "system", "containerPort": _SYSTEM_PORT}, operator)


def _append(pod: SyntheticPod, path: PathT, value: Any, origin: Origin) -> int | None:
    """Append to a list of the pod; nothing when the pod holds something else there (a
    malformed value is reported by the pod-spec rules as written)."""
    if not isinstance(lookup(pod.spec, path), list | None):
        return None
    return pod.append(path, value, origin)


def _shared_memory(
    service: Mapping[str, Any], at: Any, operator: Origin, pod: SyntheticPod
) -> None:
    shared = service.get("sharedMemory")
    shared = shared if isinstance(shared, Mapping) else {}
    if shared.get("disabled") is True:
        return
    mounts = pod.spec["containers"][0].get("volumeMounts")
    if isinstance(mounts, list) and any(
        isinstance(m, Mapping) and m.get("mountPath") == "/dev/shm" for m in mounts
    ):
        return  # the container's own mount wins
    size = shared.get("size", "8Gi")
    origin = added_by(at("sharedMemory", "size"), WHO) if "size" in shared else operator
    volume = {
        "name": "shared-memory",
        "emptyDir": {"medium": "Memory", "sizeLimit": size},
        ADDED_BY: "Dynamo operator",
    }
    spot = _append(pod, ("volumes",), volume, origin)
    if spot is None:
        return
    pod.copy_origins(("volumes", spot), volume, lambda _p: origin, ())
    mount = {"name": "shared-memory", "mountPath": "/dev/shm"}
    _append(pod, (*_C, "volumeMounts"), mount, operator)
