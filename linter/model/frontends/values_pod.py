"""Pod pieces of a Helm values section: environment, volumes, /dev/shm, GPU products."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate
from linter.positions import PathT

_ENV_KEYS = ("env", "extraEnv", "envVars", "environment")
_SHM_KEYS = ("shmSize", "shm_size", "dshmSize")
_GPU_LIST_KEYS = ("gpu", "gpus", "gpuModels", "gpuProducts")
_C: PathT = ("containers", 0)


def words(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value if not isinstance(v, dict | list)]
    if isinstance(value, str):
        try:
            return shlex.split(value)
        except ValueError:
            return value.split()
    return []


def env_facts(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    target = (*_C, "env")
    for key in _ENV_KEYS:
        value = node.get(key)
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, Mapping):
                    spot = pod.append(target, dict(item), at(key, index))
                    pod.origins[(*target, spot, "value")] = at(key, index, "value")
                elif isinstance(item, str) and "=" in item:  # compose style "NAME=value"
                    name, _, text = item.partition("=")
                    spot = pod.append(target, {"name": name, "value": text}, at(key, index))
                    pod.origins[(*target, spot, "value")] = at(key, index)
        elif isinstance(value, Mapping):
            for name, text in value.items():
                if isinstance(text, Mapping | list):
                    continue
                item = {"name": str(name), "value": "" if text is None else str(text)}
                spot = pod.append(target, item, at(key, name))
                pod.origins[(*target, spot, "value")] = at(key, name)
    extra = next(
        (
            e.get("value")
            for e in pod.spec.get("containers", [{}])[0].get("env", [])
            if isinstance(e, Mapping) and e.get("name") == "EXTRA_ARGS"
        ),
        None,
    )
    if isinstance(extra, str):
        # Images built by substratusai/helm append $EXTRA_ARGS to the server's arguments.
        for word in words(extra):
            pod.append((*_C, "args"), word, at("env"))


def is_probe(value: Mapping[str, Any]) -> bool:
    return any(k in value for k in ("httpGet", "tcpSocket", "exec", "grpc"))


def volume_facts(
    node: Mapping[str, Any], section: PathT, locate: Locate, pod: SyntheticPod
) -> None:
    for key, target in (
        ("volumes", ("volumes",)),
        ("extraVolumes", ("volumes",)),
        ("volumeMounts", (*_C, "volumeMounts")),
        ("extraVolumeMounts", (*_C, "volumeMounts")),
        ("initContainers", ("initContainers",)),
    ):
        items = node.get(key)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, Mapping):
                    spot = pod.append(target, dict(item), locate((*section, key, index)))
                    pod.copy_origins((*target, spot), item, locate, (*section, key, index))
    shm = node.get("shm")
    size_key = next((k for k in _SHM_KEYS if node.get(k) not in (None, "")), None)
    size: Any = node.get(size_key) if size_key else None
    origin = locate((*section, size_key)) if size_key else None
    size_origin = origin
    if isinstance(shm, Mapping):
        if shm.get("enabled") is False:
            return
        size = shm.get("size", shm.get("sizeLimit", size))
        origin = locate((*section, "shm"))
        written = next((k for k in ("size", "sizeLimit") if k in shm), None)
        size_origin = locate((*section, "shm", written)) if written else origin
    if origin is None:
        return
    # The common chart convention: a memory-backed emptyDir of that size at /dev/shm.
    volume: dict[str, Any] = {"name": "shm", "emptyDir": {"medium": "Memory"}}
    if size not in (None, ""):
        volume["emptyDir"]["sizeLimit"] = size
    spot = pod.append(("volumes",), volume, origin)
    pod.origins[("volumes", spot, "emptyDir", "sizeLimit")] = size_origin or origin
    pod.append((*_C, "volumeMounts"), {"name": "shm", "mountPath": "/dev/shm"}, origin)


def gpu_products(node: Mapping[str, Any], at: Any, pod: SyntheticPod) -> None:
    for key in _GPU_LIST_KEYS:
        value = node.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            term = {
                "matchExpressions": [
                    {"key": "nvidia.com/gpu.product", "operator": "In", "values": list(value)}
                ]
            }
            pod.set(
                (
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                ),
                [term],
                at(key),
            )
            return
