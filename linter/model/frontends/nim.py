"""NVIDIA NIM for LLMs: the NIM Operator's ``NIMService`` as the pod the operator creates.

The operator (release v3.1.2: https://github.com/NVIDIA/k8s-nim-operator/blob/v3.1.2/api/apps/v1alpha1/nimservice_types.go,
``GetDeploymentParams``, ``GetStandardEnv`` at L303, ``GetVolumes``, ``GetVolumeMounts`` and the
``GetDefault*Probe`` functions at L657-L735) runs one container named ``<name>-ctr`` from
``spec.image.repository:tag`` with ``spec.env``, ``spec.command``/``args`` and
``spec.resources``; it

- sets ``NIM_SERVER_PORT`` to ``spec.expose.service.port`` (8000 by default);
- mounts a memory-backed ``/dev/shm`` (volume ``dshm``) sized by
  ``spec.storage.sharedMemorySizeLimit`` (no limit when unset);
- adds liveness (``/v1/health/live``), readiness and startup (``/v1/health/ready``) probes
  unless ``spec.<probe>.enabled`` is false; ``spec.<probe>.probe`` replaces the default.

Each added value is located at the part of the ``NIMService`` that implies it, with the key
saying that the operator adds it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Meta, build_workloads
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate
from linter.model.records.pod_volumes import ADDED_BY
from linter.model.records.workload import Workload
from linter.positions import Origin, PathT

NIM_SERVICE_KIND = "NIMService"
NIM_API_GROUP = "apps.nvidia.com/"
_OPERATOR = "added by the NIM Operator"
_DEFAULT_PORT = 8000
_C: PathT = ("containers", 0)
# The operator's default probes (GetDefaultLivenessProbe, GetDefaultReadinessProbe,
# GetDefaultStartupProbe), on the container's named API port.
_DEFAULT_PROBES: dict[str, dict[str, Any]] = {
    "livenessProbe": {
        "httpGet": {"path": "/v1/health/live", "port": "api"},
        "initialDelaySeconds": 15,
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    },
    "readinessProbe": {
        "httpGet": {"path": "/v1/health/ready", "port": "api"},
        "initialDelaySeconds": 15,
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    },
    "startupProbe": {
        "httpGet": {"path": "/v1/health/ready", "port": "api"},
        "initialDelaySeconds": 30,
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 120,
    },
}
_POD_KEYS = ("nodeSelector", "tolerations", "runtimeClassName")


def is_nim_service(kind: str, api_version: str) -> bool:
    return kind == NIM_SERVICE_KIND and api_version.startswith(NIM_API_GROUP)


def nim_service_workloads(
    spec: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    """The workload of a ``NIMService`` (its ``spec`` at ``('spec',)``)."""
    base: PathT = ("spec",)
    at = lambda *rest: locate((*base, *rest))  # noqa: E731
    pod = SyntheticPod(at())
    operator = at()._replace(key=_OPERATOR)
    pod.set((*_C, "name"), f"{meta.name}-ctr", at())
    image = spec.get("image")
    if isinstance(image, Mapping) and isinstance(image.get("repository"), str):
        tag = image.get("tag")
        text = image["repository"] + (f":{tag}" if tag not in (None, "") else "")
        pod.set((*_C, "image"), text, at("image", "tag" if tag not in (None, "") else "repository"))
    for key in ("command", "args", "env", "resources"):
        if spec.get(key) not in (None, [], {}):
            pod.put_tree((*_C, key), spec[key], locate, (*base, key))
    _server_port(spec, at, operator, pod)
    _probes(spec, at, operator, pod)
    _shared_memory(spec, at, operator, pod)
    for key in _POD_KEYS:
        if spec.get(key) not in (None, "", {}, []):
            pod.put_tree((key,), spec[key], locate, (*base, key))
    replicas = spec.get("replicas")
    multi = spec.get("multiNode")
    size = multi.get("size") if isinstance(multi, Mapping) else None
    completed = dataclasses.replace(
        meta,
        replicas=replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else None,
        replicas_origin=at("replicas") if isinstance(replicas, int) else None,
        server_hint="nim",
        multi_node=isinstance(size, int) and size > 1,
    )
    return build_workloads(pod.spec, pod.locate, completed, settings)


def _server_port(spec: Mapping[str, Any], at: Any, operator: Origin, pod: SyntheticPod) -> None:
    service = _mapping(_mapping(spec.get("expose")).get("service"))
    port = service.get("port")
    origin = (
        at("expose", "service", "port")._replace(key=_OPERATOR) if "port" in service else operator
    )
    value = port if isinstance(port, int) and not isinstance(port, bool) else _DEFAULT_PORT
    env = pod.spec.get("containers", [{}])[0].get("env")
    if isinstance(env, list) and any(
        isinstance(e, Mapping) and e.get("name") == "NIM_SERVER_PORT" for e in env
    ):
        return  # the user's own value wins (utils.MergeEnvVars)
    spot = pod.append((*_C, "env"), {"name": "NIM_SERVER_PORT", "value": str(value)}, origin)
    pod.origins[(*_C, "env", spot, "value")] = origin
    pod.append((*_C, "ports"), {"name": "api", "containerPort": value}, origin)


def _probes(spec: Mapping[str, Any], at: Any, operator: Origin, pod: SyntheticPod) -> None:
    for key, default in _DEFAULT_PROBES.items():
        written = _mapping(spec.get(key))
        if written.get("enabled") is False:
            continue
        probe = written.get("probe")
        if isinstance(probe, Mapping) and probe:
            pod.put_tree((*_C, key), dict(probe), lambda p: at(*p), (key, "probe"))
        else:
            pod.set((*_C, key), dict(default), operator)


def _shared_memory(spec: Mapping[str, Any], at: Any, operator: Origin, pod: SyntheticPod) -> None:
    storage = _mapping(spec.get("storage"))
    empty_dir: dict[str, Any] = {"medium": "Memory"}
    origin = operator
    limit = storage.get("sharedMemorySizeLimit")
    if isinstance(limit, str | int) and not isinstance(limit, bool):
        empty_dir["sizeLimit"] = limit
        origin = at("storage", "sharedMemorySizeLimit")._replace(key=_OPERATOR)
    volume = {"name": "dshm", "emptyDir": empty_dir, ADDED_BY: "NIM Operator"}
    spot = pod.append(("volumes",), volume, origin)
    pod.copy_origins(("volumes", spot), volume, lambda _p: origin, ())
    pod.append((*_C, "volumeMounts"), {"name": "dshm", "mountPath": "/dev/shm"}, operator)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


# The nim-llm Helm chart (https://github.com/NVIDIA/nim-deploy/blob/be34031ce621188ab9321949ca4da49b5dc78529/helm/nim-llm/templates/deployment.yaml,
# the ``dshm`` volume and NIM_SERVER_PORT; ``nim-llm.volumeMounts`` in templates/_helpers.tpl
# mounts it at /dev/shm): its template adds these to the values' container.
_CHART = "added by the nim-llm chart"


def nim_chart_additions(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    """The pod pieces the nim-llm chart's template adds to a values section ``node``."""
    model = _mapping(node.get("model"))
    origin = at("model")._replace(key=_CHART)
    port = model.get("openaiPort")
    if isinstance(port, int) and not isinstance(port, bool):
        where = at("model", "openaiPort")._replace(key=_CHART)
        spot = pod.append((*_C, "env"), {"name": "NIM_SERVER_PORT", "value": str(port)}, where)
        pod.origins[(*_C, "env", spot, "value")] = where
    volume = {"name": "dshm", "emptyDir": {"medium": "Memory"}, ADDED_BY: "nim-llm chart"}
    spot = pod.append(("volumes",), volume, origin)
    pod.copy_origins(("volumes", spot), volume, lambda _p: origin, ())
    pod.append((*_C, "volumeMounts"), {"name": "dshm", "mountPath": "/dev/shm"}, origin)
