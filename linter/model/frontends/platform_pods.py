"""What an operator adds to the pods it creates, so that the rules judge the pod that runs.

- KServe ``LLMInferenceService``: its base configuration
  (https://github.com/kserve/kserve/blob/master/config/llmisvc/config-llm-template.yaml)
  runs ``vllm serve`` in the ``main`` container with a memory-backed ``/dev/shm`` of 1Gi
  (volume ``dshm``) and HTTP ``/health`` liveness and readiness probes on port 8000, and
  appends the ``VLLM_ADDITIONAL_ARGS`` environment variable to the command line; the user's
  ``template`` is merged over it by container and volume name.
- KubeRay: every Ray container gets a memory-backed ``/dev/shm`` (volume ``shared-mem``)
  sized to the container's memory limit
  (https://github.com/ray-project/kuberay/blob/master/ray-operator/controllers/ray/common/pod.go,
  ``addEmptyDir`` for the shared-memory volume).

- LeaderWorkerSet: every container of a group's pods gets ``LWS_GROUP_SIZE`` (the
  ``size``), ``LWS_WORKER_INDEX`` (0 on the leader) and ``LWS_LEADER_ADDRESS``
  (https://github.com/kubernetes-sigs/lws/blob/v0.10.0/site/content/en/docs/reference/labels-annotations-and-environment-variables.md#L42-L44),
  so ``$(LWS_GROUP_SIZE)`` in a command line is the group's size. The leader's address
  depends on the group index and is left unexpanded.

- RoleBasedGroup and kthena ModelServing replace a variable the container sets itself with
  their own (``injected_wins``; ``rolebasedgroup.py``, ``kthena.py``).

Each added value is located at the object that implies it, with the key saying who adds it.
"""

from __future__ import annotations

import copy
import shlex
from collections.abc import Mapping
from typing import Any

from linter.model.records.paths import Locate
from linter.model.records.pod_volumes import ADDED_BY
from linter.positions import Origin, PathT

SHM_PATH = "/dev/shm"
LLMISVC_KINDS = ("LLMInferenceService",)
RAY_KINDS = ("RayService", "RayCluster", "RayJob")
_LLMISVC_MAIN = "main"
_ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
# The base configuration's probes, timing included: it is what the liveness budget rules read.
_LLMISVC_PROBES = {
    "livenessProbe": {
        "httpGet": {"path": "/health", "port": 8000},
        "initialDelaySeconds": 10,
        "periodSeconds": 30,
        "timeoutSeconds": 10,
        "failureThreshold": 3,
    },
    "readinessProbe": {
        "httpGet": {"path": "/health", "port": 8000},
        "initialDelaySeconds": 10,
        "periodSeconds": 10,
        "timeoutSeconds": 5,
        "failureThreshold": 60,
    },
}


def with_platform_defaults(
    kind: str,
    spec: Mapping[str, Any],
    locate: Locate,
    injected: Mapping[str, tuple[str, Origin]] | None = None,
    *,
    injected_wins: bool = False,
) -> tuple[Mapping[str, Any], Locate]:
    """``spec`` (a pod spec) as the operator of ``kind`` completes it, and a ``locate``
    that knows where each added value comes from. Other kinds are returned as they are.

    ``injected``: environment variables the platform sets in every container (name →
    value and the origin of what implies it), for ``$(VAR)`` in command lines; a variable
    the container defines itself is kept, unless ``injected_wins`` (operators that replace
    it, such as RoleBasedGroup and kthena)."""
    if injected:
        spec, locate = _complete(
            spec, locate, lambda pod, _l, added: _env(pod, injected, added, injected_wins)
        )
    if kind in LLMISVC_KINDS:
        return _complete(spec, locate, _llmisvc)
    if kind in RAY_KINDS:
        return _complete(spec, locate, _ray)
    return spec, locate


def _complete(
    spec: Mapping[str, Any], locate: Locate, add: Any
) -> tuple[Mapping[str, Any], Locate]:
    pod = copy.deepcopy(dict(spec))
    added: dict[PathT, Origin] = {}
    add(pod, locate, added)
    if not added:
        return spec, locate

    def located(path: PathT) -> Origin:
        # A value under an added path comes from the platform; everything else as written.
        for end in range(len(path), 0, -1):
            origin = added.get(path[:end])
            if origin is not None:
                return origin
        return locate(path)

    return pod, located


def _llmisvc(pod: dict[str, Any], locate: Locate, added: dict[PathT, Origin]) -> None:
    containers = pod.get("containers")
    if not isinstance(containers, list):
        return
    for index, container in enumerate(containers):
        if not isinstance(container, dict) or container.get("name") != _LLMISVC_MAIN:
            continue
        here: PathT = ("containers", index)
        platform = _origin(locate(here), "LLMInferenceService base configuration")
        _additional_args(container, here, locate, added)
        for probe, default in _LLMISVC_PROBES.items():
            if probe not in container:
                container[probe] = copy.deepcopy(default)
                added[(*here, probe)] = platform
        shm = {"medium": "Memory", "sizeLimit": "1Gi"}
        added.update(
            dict.fromkeys(_mount_shm(pod, container, here, "dshm", shm, "KServe"), platform)
        )


def _additional_args(
    container: dict[str, Any], here: PathT, locate: Locate, added: dict[PathT, Origin]
) -> None:
    """``VLLM_ADDITIONAL_ARGS`` as the flags it becomes, each at the variable's value."""
    env = container.get("env")
    if not isinstance(env, list):
        return
    for position, item in enumerate(env):
        if not (isinstance(item, Mapping) and item.get("name") == _ADDITIONAL_ARGS):
            continue
        value = item.get("value")
        if not isinstance(value, str):
            return
        try:
            tokens = shlex.split(value)
        except ValueError:
            return  # unbalanced quotes: the shell would fail too; leave it unread
        args = container.setdefault("args", [])
        if not isinstance(args, list):
            return
        origin = locate((*here, "env", position, "value"))
        for token in tokens:
            added[(*here, "args", len(args))] = origin
            args.append(token)
        return


def lws_env(data: Mapping[str, Any], role: str, locate: Locate) -> dict[str, tuple[str, Origin]]:
    """What the LeaderWorkerSet controller sets in the containers of ``role``'s pods."""
    template = (
        data.get("spec", {}).get("leaderWorkerTemplate")
        if isinstance(data.get("spec"), Mapping)
        else None
    )
    size = template.get("size", 1) if isinstance(template, Mapping) else 1
    if not isinstance(size, int) or isinstance(size, bool):
        return {}
    where: PathT = ("spec", "leaderWorkerTemplate", "size")
    at = locate(where) if isinstance(template, Mapping) and "size" in template else locate(())
    origin = _origin(at, "LeaderWorkerSet")
    out = {"LWS_GROUP_SIZE": (str(size), origin)}
    if role == "leader" or size == 1:
        out["LWS_WORKER_INDEX"] = ("0", origin)
    return out


def _env(
    pod: dict[str, Any],
    injected: Mapping[str, tuple[str, Origin]],
    added: dict[PathT, Origin],
    wins: bool = False,
) -> None:
    containers = pod.get("containers")
    if not isinstance(containers, list):
        return
    for index, container in enumerate(containers):
        if not isinstance(container, dict):
            continue
        env = container.setdefault("env", [])
        if not isinstance(env, list):
            continue
        own = {e.get("name"): n for n, e in enumerate(env) if isinstance(e, Mapping)}
        for name, (value, origin) in injected.items():
            if name in own and not wins:
                continue  # the container's own definition wins
            position = own.get(name, len(env))
            added[("containers", index, "env", position)] = origin
            if position == len(env):
                env.append({"name": name, "value": value})
            else:
                env[position] = {"name": name, "value": value}


def _ray(pod: dict[str, Any], locate: Locate, added: dict[PathT, Origin]) -> None:
    containers = pod.get("containers")
    if not isinstance(containers, list) or not containers or not isinstance(containers[0], dict):
        return
    container = containers[0]  # KubeRay's Ray container is the first one
    here: PathT = ("containers", 0)
    # KubeRay sizes it to the container's memory limit, and Ray caps its object store
    # (the main user of /dev/shm) at 30% of memory: no size is recorded here, so that the
    # memory rules judge what the user wrote, not the operator's own headroom.
    volume: dict[str, Any] = {"medium": "Memory"}
    kuberay = _origin(locate(here), "KubeRay")
    added.update(
        dict.fromkeys(_mount_shm(pod, container, here, "shared-mem", volume, "KubeRay"), kuberay)
    )


def _mount_shm(
    pod: dict[str, Any],
    container: dict[str, Any],
    here: PathT,
    name: str,
    empty_dir: dict[str, Any],
    added_by: str,
) -> list[PathT]:
    """Mount a memory-backed volume at /dev/shm unless the container has its own there;
    the paths added."""
    mounts = container.setdefault("volumeMounts", [])
    volumes = pod.setdefault("volumes", [])
    if not isinstance(mounts, list) or not isinstance(volumes, list):
        return []
    if any(isinstance(m, Mapping) and m.get("mountPath") == SHM_PATH for m in mounts):
        return []  # the user's own mount wins
    paths: list[PathT] = []
    if not any(isinstance(v, Mapping) and v.get("name") == name for v in volumes):
        paths.append(("volumes", len(volumes)))
        volumes.append({"name": name, "emptyDir": empty_dir, ADDED_BY: added_by})
    paths.append((*here, "volumeMounts", len(mounts)))
    mounts.append({"name": name, "mountPath": SHM_PATH})
    return paths


def _origin(at: Origin, who: str) -> Origin:
    return at._replace(key=f"added by {who}")
