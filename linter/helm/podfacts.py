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
from linter.model.facts import quantities as q
from linter.model.records.located import Located
from linter.model.records.pod_records import Mount, Shm, Volume
from linter.model.records.records import ChartPod
from linter.model.records.workload import Workload
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
            fact = ChartPod(proven=Located(False), unseen=Located(unread))
        elif state == "unseen":
            fact = ChartPod(proven=Located(False), unseen=Located(reason))
        else:
            fact = ChartPod(proven=Located(True))
            _forget_guessed_shm(workload)
            if mount is not None:
                _mount_memory_volume(workload, merged, *mount)
        workload.record.chart_pod = Located(fact, workload.anchor)


def _applies(workload: Workload) -> bool:
    record = workload.record
    return (
        record.source.value == "helm-values"
        and not record.chart_profile  # a chart profile already says what renders
        and not record.compose
        and record.pod is not None
        and record.container is not None
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
    origins = workload.origins()
    for model_path in _NEEDED:
        origin = origins.get(model_path)
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
    record = workload.record
    assert record.pod is not None and record.container is not None
    pod, container = record.pod.value, record.container.value
    if pod.volumes is None:
        pod.volumes = Located([])
    size = volume.size
    size_origin = _template_origin(volume)
    if isinstance(size, tuple):
        size_origin = merged.locate(size)
        size = _get(merged.data, size)
    size_bytes = q.memory_bytes(size) if size is not None else None
    size_fact = Located(size_bytes, size_origin) if size_bytes is not None else None
    # The volume is declared in the template; the mount is turned on in the values.
    pod.volumes.value.append(
        Located(
            Volume(
                name=Located(_VOLUME),
                type=Located("emptyDir"),
                medium=Located("Memory"),
                size_limit_bytes=size_fact,
            ),
            _template_origin(volume),
        )
    )
    mount = Mount(name=Located(_VOLUME), mount_path=Located(_SHM_PATH))
    container.mounts.value.append(Located(mount, origin))
    host_ipc = pod.shm.value.host_ipc if pod.shm is not None else Located(False)
    shm = Shm(
        mounted=Located(True),
        host_ipc=host_ipc,
        volume=Located(_VOLUME),
        medium=Located("Memory"),
        size_limit_bytes=size_fact,
    )
    pod.shm = Located(shm, origin)


def _forget_guessed_shm(workload: Workload) -> None:
    """Drop the /dev/shm the values model guessed from a values key (``shm:``,
    ``shmSize``): the templates, not the key's name, say whether the pod gets one."""
    pod = workload.record.pod
    if pod is None:
        return
    containers = [item.value for item in pod.value.containers.value] if pod.value.containers else []
    dropped: set[str] = set()
    for container in containers:
        mounts = container.mounts.value
        dropped.update(m.value.name.value for m in mounts if _is_shm(m.value))
        mounts[:] = [m for m in mounts if not _is_shm(m.value)]
    still = {m.value.name.value for c in containers for m in c.mounts.value}
    if pod.value.volumes is not None:
        volumes = pod.value.volumes.value
        volumes[:] = [v for v in volumes if v.value.name.value not in dropped - still]
    shm = pod.value.shm
    host_ipc = shm.value.host_ipc.value if shm is not None else False
    pod.value.shm = Located(
        Shm(mounted=Located(False), host_ipc=Located(bool(host_ipc))),
        shm.origin if shm is not None else None,
    )


def _is_shm(mount: Mount) -> bool:
    return mount.mount_path.value.rstrip("/") == _SHM_PATH


def _template_origin(mark: Mark) -> Origin:
    file, _, line = mark.where.rpartition(":")
    at = mark.volumes_at or (int(line), 1)
    return Origin(file, *at)
