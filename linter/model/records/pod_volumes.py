"""A pod's volumes as records, and what it mounts at ``/dev/shm``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.facts import quantities as q
from linter.model.records.located import Located, value_of
from linter.model.records.paths import Locate
from linter.model.records.pod_records import Pod, Shm, Volume
from linter.positions import Origin, PathT

_SHM_PATH = "/dev/shm"
# Key of a volume that an operator adds to the pods it creates (platform_pods.py).
ADDED_BY = "servelint.io/added-by"


def pod_volumes(spec: Mapping[str, Any], locate: Locate) -> Located[list[Located[Volume]]]:
    items = spec.get("volumes")
    out: list[Located[Volume]] = []
    if isinstance(items, list):
        for index, volume in enumerate(items):
            if isinstance(volume, Mapping):
                out.append(
                    Located(_volume(volume, locate, ("volumes", index)), locate(("volumes", index)))
                )
    return Located(out, locate(("volumes",)))


# Fields of a container that never belong to a volume: written in a volume entry, they are
# an indentation slip (probes one level too deep, under the last volume).
CONTAINER_FIELDS = frozenset(
    {
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "resources",
        "env",
        "envFrom",
        "args",
        "command",
        "image",
        "ports",
        "volumeMounts",
        "securityContext",
        "lifecycle",
    }
)


def _volume(volume: Mapping[str, Any], locate: Locate, at: PathT) -> Volume:
    def here(*key: str | int) -> Origin:
        return locate((*at, *key))

    record = Volume(name=Located(str(volume.get("name", "")), here("name")))
    if isinstance(volume.get(ADDED_BY), str):
        record.added_by = Located(volume[ADDED_BY], here(ADDED_BY))
    for kind in (
        "emptyDir",
        "hostPath",
        "persistentVolumeClaim",
        "configMap",
        "secret",
        "ephemeral",
        "nfs",
        "csi",
        "projected",
        "downwardAPI",
    ):
        if kind in volume:
            record.type = Located(kind, here(kind))
            body = volume.get(kind)
            if kind == "emptyDir" and isinstance(body, Mapping):
                if isinstance(body.get("medium"), str):
                    record.medium = Located(body["medium"], here(kind, "medium"))
                size = q.memory_bytes(body.get("sizeLimit"))
                if size is not None:
                    record.size_limit_bytes = Located(size, here(kind, "sizeLimit"))
            elif kind == "hostPath" and isinstance(body, Mapping):
                record.path = Located(str(body.get("path", "")), here(kind, "path"))
            elif kind == "persistentVolumeClaim" and isinstance(body, Mapping):
                record.claim_name = Located(str(body.get("claimName", "")), here(kind, "claimName"))
            break
    else:
        record.type = Located("other")
    # ``image`` with a map is an image volume (ImageVolumeSource), with text a container's
    # image.
    misplaced = [
        str(k)
        for k, v in volume.items()
        if k in CONTAINER_FIELDS and not (k == "image" and isinstance(v, Mapping))
    ]
    if misplaced:
        record.misplaced = Located(
            [Located(name, here(name)) for name in misplaced], here(misplaced[0])
        )
    return record


def shm_of(
    pod: Pod, host_ipc: bool, volumes: Mapping[str, Volume], fallback: Origin
) -> Located[Shm]:
    """What the pod mounts at ``/dev/shm``: at the volume that backs it, its size at the
    volume's ``sizeLimit``."""
    shm = Shm(mounted=Located(False), host_ipc=Located(host_ipc))
    origin = fallback
    for container in pod.all_containers():
        for item in container.mounts.value:
            mount = item.value
            if mount.mount_path.value.rstrip("/") != _SHM_PATH:
                continue
            name = mount.name.value
            volume = volumes.get(name)
            shm.volume = Located(name)
            medium = value_of(volume.medium) if volume is not None else None
            shm.medium = Located(medium or "")
            if volume is not None and value_of(volume.type) == "emptyDir" and medium == "Memory":
                shm.mounted = Located(True)
                if volume.size_limit_bytes is not None:
                    shm.size_limit_bytes = volume.size_limit_bytes
            located = _entry_of(pod, volume)
            if located is not None:
                origin = located.origin or origin
            break
    return Located(shm, origin)


def _entry_of(pod: Pod, volume: Volume | None) -> Located[Volume] | None:
    if volume is None or pod.volumes is None:
        return None
    return next((v for v in pod.volumes.value if v.value is volume), None)
