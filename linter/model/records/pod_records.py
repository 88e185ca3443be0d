"""The serving model's records of the pod and its containers: resources, probes,
mounts, environment, volumes, ``/dev/shm`` (``located.py`` has what a record is)."""

from __future__ import annotations

from typing import Any

from linter.model.records.located import Located, Record, record


@record
class Resources(Record):
    """A container's or pod's resources in numbers (cpu in cores, memory in bytes)."""

    requests: Located[dict[str, Located[Any]]] | None = None
    limits: Located[dict[str, Located[Any]]] | None = None
    invalid: Located[list[Any]] | None = None


@record
class Probe(Record):
    """A probe with the Kubernetes API defaults filled in."""

    initial_delay_seconds: Located[int] | None = None
    period_seconds: Located[int] | None = None
    timeout_seconds: Located[int] | None = None
    failure_threshold: Located[int] | None = None
    success_threshold: Located[int] | None = None
    termination_grace_period_seconds: Located[int] | None = None
    defaulted: Located[list[str]] | None = None
    type: Located[str] | None = None
    port: Located[int | str] | None = None
    http_path: Located[str] | None = None
    scheme: Located[str] | None = None
    command: Located[list[str]] | None = None
    budget_seconds: Located[int] | None = None


@record
class Mount(Record):
    name: Located[str]
    mount_path: Located[str]
    read_only: Located[bool] | None = None


@record
class EnvRef(Record):
    """An env variable whose value comes from elsewhere (``valueFrom``)."""

    type: Located[str]
    name: Located[str]


@record
class EnvSource(Record):
    """A source of the whole environment (``envFrom``)."""

    type: Located[str]
    name: Located[str]


@record
class PreStop(Record):
    """The ``preStop`` hook: its handler and, for ``exec``, the command."""

    type: Located[str]
    command: Located[list[str]] | None = None


@record
class Container(Record):
    name: Located[str]
    image: Located[str] | None = None
    is_init: Located[bool]
    is_server: Located[bool]
    sidecar: Located[bool] | None = None
    command: Located[list[str]] | None = None
    args: Located[list[str]] | None = None
    resources: Located[Resources]
    env: Located[dict[str, Located[str]]]
    env_from_secret: Located[list[str]]
    env_refs: Located[dict[str, Located[EnvRef]]]
    env_from: Located[list[Located[EnvSource]]]
    probes: Located[dict[str, Located[Probe]]]
    pre_stop: Located[PreStop] | None = None
    pre_stop_seconds: Located[int | float] | None = None
    privileged: Located[bool]
    capabilities_add: Located[list[str]] | None = None
    mounts: Located[list[Located[Mount]]]
    mounts_host_cgroup: Located[bool]
    writes_cgroup_memory: Located[bool]
    cgroup_memory_files: Located[list[str]] | None = None


@record
class Volume(Record):
    name: Located[str]
    added_by: Located[str] | None = None
    type: Located[str] | None = None
    medium: Located[str] | None = None
    size_limit_bytes: Located[int] | None = None
    path: Located[str] | None = None
    claim_name: Located[str] | None = None
    # Container fields written in the volume entry (an indentation slip).
    misplaced: Located[list[Located[str]]] | None = None


@record
class Shm(Record):
    """What the pod has at ``/dev/shm``."""

    mounted: Located[bool]
    host_ipc: Located[bool]
    volume: Located[str] | None = None
    medium: Located[str] | None = None
    size_limit_bytes: Located[int] | None = None


@record
class Pod(Record):
    volumes: Located[list[Located[Volume]]] | None = None
    init_containers: Located[list[Located[Container]]] | None = None
    containers: Located[list[Located[Container]]] | None = None
    qos_class: Located[str] | None = None
    resources: Located[Resources] | None = None
    host_ipc: Located[bool] | None = None
    host_network: Located[bool] | None = None
    host_pid: Located[bool] | None = None
    termination_grace_period_seconds: Located[int] | None = None
    runtime_class_name: Located[str] | None = None
    service_account_name: Located[str] | None = None
    node_selector: Located[dict[str, Located[str]]] | None = None
    privileged: Located[bool] | None = None
    writes_cgroup_memory: Located[bool] | None = None
    shm: Located[Shm] | None = None
    labels: Located[dict[str, Located[str]]] | None = None
    # Dynamic resource allocation: devices (GPUs among them) claimed outside resources.limits.
    resource_claims: Located[bool] | None = None

    def all_containers(self) -> list[Container]:
        return [
            item.value
            for group in (self.init_containers, self.containers)
            if group is not None
            for item in group.value
        ]
