"""What a release's pods get from the chart's templates, for the values reading.

Without helm (the pre-commit hook), a values file of a chart is read through the serving
model, which sees only the values; the templates may add a ``/dev/shm`` volume, so the
``shm`` policy can only warn where the rendered pod fails for certain. The templates are
on disk, though: ``podscan.py`` finds every mention of ``/dev/shm``, memory-backed
volumes, ``hostIPC`` and the NCCL variables that change the shared-memory transport, with
the ``if .Values...`` blocks around them. For one release this module decides:

- ``none``: no template can add any of them with these values, nothing in the values can
  carry them into a template, and the templates read every values key the workload's
  ranks, GPUs and engine came from. The pod is then known as well as a rendered one
  (``chart_pod.proven``), and the policy says what the rendered reading would.
- ``mounted``: a template of the chart mounts ``/dev/shm`` and declares a memory-backed
  ``emptyDir`` in blocks these values turn on, and the chart has one server workload: the
  server container gets that volume, as the rendered pod does.
- otherwise the pod is not known (``chart_pod.unseen`` says why) and the policy keeps its
  uncertain reading.

A false certainty here is a false error in the hook, so every doubt leaves the pod
unknown. The scan is kept per chart and run (and in the user's cache folder,
``readcache.py``) until a file of the chart changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from linter.helm import readcache
from linter.helm.keytree import KeyTree, any_whole, step_all
from linter.helm.podscan import HOST_IPC, MEMORY, NCCL_ENV, SHM, Mark, PodScan, scan_chart
from linter.helm.unread import ChartKeys, chart_keys
from linter.helm.values import MergedValues
from linter.model import quantities as q
from linter.model.workload import Workload
from linter.positions import Origin, PathT, format_path, parse_path

FACT = "chart_pod"
_SHM_PATH = "/dev/shm"
_VOLUME = "dshm"
# Model paths whose values keys must reach the pod for the values reading to be the pod's.
_NEEDED: tuple[PathT, ...] = (
    ("engine", "name"),
    ("engine", "tensor_parallel_size"),
    ("engine", "pipeline_parallel_size"),
    ("gpu", "resource"),
    ("gpu", "count"),
    ("gpu", "product"),
)
_NCCL_NAMES = ("nccl_shm_disable", "nccl_cumem_enable")
_SCANS: dict[tuple[str, readcache.Stamp], PodScan] = {}


def add_chart_pod(workloads: Sequence[Workload], directory: str, merged: MergedValues) -> None:
    """Record on each values workload of the chart in ``directory`` what its templates add."""
    mine = [w for w in workloads if _applies(w)]
    if not mine:
        return
    keys = chart_keys(directory)
    scan = _scan(directory, keys)
    state, reason, mount = _release(scan, keys, merged, len(mine))
    for workload in mine:
        unread = _unread_source(workload, keys.summary.reads) if state != "unseen" else ""
        if unread:
            fact: dict[str, Any] = {"proven": False, "unseen": unread}
        elif state == "unseen":
            fact = {"proven": False, "unseen": reason}
        else:
            fact = {"proven": True}
            _forget_guessed_shm(workload)
            if mount is not None:
                _mount_memory_volume(workload, merged, *mount)
        workload.data[FACT] = fact
        workload.origins[(FACT,)] = workload.anchor


def _applies(workload: Workload) -> bool:
    data = workload.data
    return (
        data.get("source") == "helm-values"
        and not data.get("chart_profile")  # a chart profile already says what renders
        and not data.get("compose")
        and isinstance(data.get("pod"), dict)
        and isinstance(data.get("container"), dict)
    )


def _scan(directory: str, keys: ChartKeys) -> PodScan:
    key = (keys.real, keys.stamp)
    found = _SCANS.get(key)
    if found is not None:
        return found
    stored = readcache.load_pod_scan(keys.real, keys.stamp)
    if stored is None:
        from linter.helm.chartfiles import load_chart_files

        stored = scan_chart(load_chart_files(directory))
        readcache.store_pod_scan(keys.real, keys.stamp, stored)
    _SCANS[key] = stored
    return stored


def _release(
    scan: PodScan, keys: ChartKeys, merged: MergedValues, workloads: int
) -> tuple[str, str, tuple[PathT, Mark] | None]:
    """``none``/``mounted``/``unseen``, why unseen, and (mounted) the values path that
    turned the mount on (``()`` when it is always there) with the volume's mark."""
    if not keys.summary.renders:
        return "unseen", "the chart has no templates", None
    if keys.summary.notes:
        return "unseen", "some of its templates could not be read", None
    if scan.files_read:
        named = ", ".join(scan.files_read)
        return (
            "unseen",
            f"its templates read chart files through .Files, and {named} mention shared memory",
            None,
        )
    carried = _values_carry(merged.data, scan.uses_tpl)
    if carried:
        return "unseen", carried, None
    live = {
        kind: [m for m in scan.marks if m.kind == kind and _on(m, merged.data)]
        for kind in (SHM, MEMORY, HOST_IPC, NCCL_ENV)
    }
    unknown = [m for marks in live.values() for m in marks if None in m.guards]
    for kind in (HOST_IPC, NCCL_ENV):
        if live[kind]:
            return "unseen", f"{live[kind][0].where} may set {_WORDS[kind]}", None
    if unknown:
        return "unseen", f"{unknown[0].where} may add {_WORDS[unknown[0].kind]}", None
    if not live[SHM]:
        return "none", "", None
    # Mounted only when every mention is a volume mount, beside a memory-backed volume in
    # the same template, for the one server the values configure.
    shm = live[SHM][0]
    volume = next((v for v in live[MEMORY] if v.template == shm.template), None)
    if volume is None or workloads != 1 or not all(m.mount for m in live[SHM]):
        return "unseen", f"{shm.where} may add a /dev/shm mount", None
    if volume.size_unread:
        return "unseen", f"{volume.where}: its sizeLimit could not be read", None
    guard = next((g for g in shm.guards if g), ())
    return "mounted", "", (guard, volume)


_WORDS = {
    SHM: "a /dev/shm mount",
    MEMORY: "a memory-backed volume",
    HOST_IPC: "hostIPC",
    NCCL_ENV: "NCCL_SHM_DISABLE or NCCL_CUMEM_ENABLE",
}


def _on(mark: Mark, values: Any) -> bool:
    """False when an ``if`` around the mark is off with these values; True otherwise
    (on, or not known)."""
    for guard in mark.guards:
        if guard is not None and not _truthy(_get(values, guard)):
            return False
    return True


def _get(values: Any, path: PathT) -> Any:
    node = values
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "", [], {})


def _values_carry(data: Any, uses_tpl: bool) -> str:
    """Why a template printing the values (``toYaml``, ``tpl``) might add one of them."""
    for path, key, value in _leaves(data, ()):
        shown = format_path(path)
        if isinstance(key, str) and key.lower() == "hostipc" and _truthy(value):
            return f"the values set {shown}"
        if isinstance(key, str) and key.lower() in _NCCL_NAMES:
            return f"the values set {shown}"
        if isinstance(value, str):
            lowered = value.lower()
            if "shm" in lowered or "hostipc" in lowered or any(n in lowered for n in _NCCL_NAMES):
                return f"the values set {shown} to {value!r}"
            if uses_tpl and "{{" in value:
                return f"the templates render {shown} with tpl"
    return ""


def _leaves(data: Any, path: PathT) -> Iterator[tuple[PathT, object, Any]]:
    items: Any = (
        data.items()
        if isinstance(data, Mapping)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for key, value in items:
        here = (*path, key)
        yield here, key, value
        if isinstance(value, Mapping | list):
            yield from _leaves(value, here)


def _unread_source(workload: Workload, reads: KeyTree) -> str:
    """A values key the workload's ranks, GPUs or engine came from that no template
    reads: the rendered pod may not have what the values reading saw."""
    for model_path in _NEEDED:
        origin: Origin | None = workload.origins.get(model_path)
        if origin is None or not origin.key:
            continue
        if not _is_read(reads, parse_path(origin.key)):
            return f"no template reads {origin.key}"
    return ""


def _is_read(tree: KeyTree, path: PathT) -> bool:
    nodes = [tree]
    for key in path:
        if any_whole(nodes):
            return True
        nodes = step_all(nodes, key)
        if not nodes:
            return False
    return True


def _mount_memory_volume(
    workload: Workload, merged: MergedValues, guard: PathT, volume: Mark
) -> None:
    """The template's memory-backed /dev/shm on the server container, as the rendered pod
    has it, with its sizeLimit when the template writes one."""
    # Where the user turns it on, or (always there) the template line of the volume.
    origin = merged.locate(guard) if guard else _template_origin(volume)
    pod, container = workload.data["pod"], workload.data["container"]
    volumes = pod.setdefault("volumes", [])
    mounts = container.setdefault("mounts", [])
    record: dict[str, Any] = {"name": _VOLUME, "type": "emptyDir", "medium": "Memory"}
    size = volume.size
    size_origin = _template_origin(volume)
    if isinstance(size, tuple):
        size_origin = merged.locate(size)
        size = _get(merged.data, size)
    size_bytes = q.memory_bytes(size) if size is not None else None
    if size_bytes is not None:
        record["size_limit_bytes"] = size_bytes
        workload.origins[("pod", "volumes", len(volumes), "size_limit_bytes")] = size_origin
        workload.origins[("pod", "shm", "size_limit_bytes")] = size_origin
    # The volume is declared in the template; the mount is turned on in the values.
    workload.origins[("pod", "volumes", len(volumes))] = _template_origin(volume)
    volumes.append(record)
    workload.origins[("container", "mounts", len(mounts))] = origin
    # The server container is also an entry of pod.containers: the same origin there.
    for index, entry in enumerate(pod.get("containers", [])):
        if entry is container:
            workload.origins[("pod", "containers", index, "mounts", len(mounts))] = origin
    mounts.append({"name": _VOLUME, "mount_path": _SHM_PATH})
    shm = pod.setdefault("shm", {"mounted": False, "host_ipc": False})
    shm.update({"mounted": True, "volume": _VOLUME, "medium": "Memory"})
    if size_bytes is not None:
        shm["size_limit_bytes"] = size_bytes
    workload.origins[("pod", "shm")] = origin


def _forget_guessed_shm(workload: Workload) -> None:
    """Drop the /dev/shm the values model guessed from a values key (``shm:``,
    ``shmSize``): the templates, not the key's name, say whether the pod gets one."""
    pod = workload.data["pod"]
    containers = pod.get("containers", [])
    dropped: set[str] = set()
    for index, container in enumerate(containers):
        mounts = container.get("mounts", [])
        gone = {i for i, m in enumerate(mounts) if _is_shm(m)}
        if not gone:
            continue
        dropped.update(str(mounts[i].get("name", "")) for i in gone)
        prefixes: list[PathT] = [("pod", "containers", index, "mounts")]
        if container is workload.data["container"]:
            prefixes.append(("container", "mounts"))
        _drop(workload, mounts, prefixes, gone)
    still = {str(m.get("name", "")) for c in containers for m in c.get("mounts", [])}
    volumes = pod.get("volumes", [])
    unused = {i for i, v in enumerate(volumes) if v.get("name") in dropped - still}
    _drop(workload, volumes, [("pod", "volumes")], unused)
    shm = pod.get("shm", {})
    pod["shm"] = {"mounted": False, "host_ipc": bool(shm.get("host_ipc", False))}
    for key in [k for k in workload.origins if k[:2] == ("pod", "shm") and len(k) > 2]:
        del workload.origins[key]


def _is_shm(mount: Mapping[str, Any]) -> bool:
    return str(mount.get("mount_path", "")).rstrip("/") == _SHM_PATH


def _drop(workload: Workload, items: list[Any], prefixes: list[PathT], gone: set[int]) -> None:
    """Remove ``items[i]`` for ``i`` in ``gone``, keeping the origins of the others."""
    if not gone:
        return
    kept = [i for i in range(len(items)) if i not in gone]
    renumber = {old: new for new, old in enumerate(kept)}
    items[:] = [items[i] for i in kept]
    origins: dict[PathT, Origin] = {}
    for key, origin in workload.origins.items():
        for prefix in prefixes:
            size = len(prefix)
            index = key[size] if key[:size] == prefix and len(key) > size else None
            if isinstance(index, int):
                if index in gone:
                    break
                key = (*prefix, renumber[index], *key[size + 1 :])
                origins[key] = origin
                break
        else:
            origins[key] = origin
    workload.origins.clear()
    workload.origins.update(origins)


def _template_origin(mark: Mark) -> Origin:
    file, _, line = mark.where.rpartition(":")
    at = mark.volumes_at or (int(line), 1)
    return Origin(file, *at)
