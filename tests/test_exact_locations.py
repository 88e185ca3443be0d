"""Every leaf of a workload locates exactly where it was written, never at an ancestor.

Workloads are built from the bundled example chart (``values-prod.yaml`` in its chart's
context) and from realistic inputs under ``tests/fixtures/locations/``: vLLM Deployments
(an args list, a shell script), a TGI Deployment configured by environment variables, a
generic chart's SGLang values, a Triton ``config.pbtxt`` and a vLLM configuration file.

Each leaf of ``workload.view().data`` is classified, and its position (``Workload.locate``, what a
finding uses) is compared with a position found by searching the fixture's text, never
with the serving model's own lookup:

- written: the table of each workload names the text of the key (or list item) that
  wrote it; the leaf must be located at the start of that text;
- derived (effective settings, capacity figures, catalogue facts of the model or GPU,
  probe defaults, the image's parts): located at the input it derives from, itself
  found in the text;
- not written at all (the workload's identity, facts that hold because nothing was
  written, such as ``privileged: false``): the explicit list ``_NOT_WRITTEN`` below.

A leaf that falls in none of these fails the test, so a new fact must be placed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from linter.committed import _in_chart
from linter.evaluate.inputs import read_inputs
from linter.evaluate.parsers import parse
from linter.model.engine.settings import DEFAULT_SETTINGS
from linter.model.frontends.extract import extract_workloads
from linter.model.records.workload import Workload
from linter.parsing.documents import DEFAULT_LIMITS
from linter.policy import load_policies
from linter.sources.files import expand

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "locations"
CHART = ROOT / "examples" / "charts" / "vllm"

Path_ = tuple[str | int, ...]
Position = tuple[str, int, int]  # file name, line, column


def _path(text: str) -> Path_:
    """``pod.containers.0.resources.limits[nvidia.com/gpu]`` → a model path."""
    parts: list[str | int] = []
    for plain, bracketed in re.findall(r"([^.\[\]]+)|\[([^\]]+)\]", text):
        part = plain or bracketed
        parts.append(int(part) if part.isdigit() and plain else part)
    return tuple(parts)


def _show(path: Path_) -> str:
    return ".".join(str(p) for p in path)


@dataclass
class Case:
    """One workload and where its leaves were written.

    ``written`` maps a model path to a needle: the text at which the value's key (or
    list item) starts, searched from ``start`` in the file; ``#n`` picks the n-th match,
    ``@name`` another file of the case, and ``^`` marks the position inside the needle
    (``--max-model-len ^32768``: the value token)."""

    files: tuple[str, ...]
    main: str
    start: str
    document: str
    pod: str
    container: str
    written: dict[str, str]
    texts: dict[str, str] = field(default_factory=dict)

    def find(self, needle: str) -> Position:
        name = self.main
        if "@" in needle:
            needle, name = needle.rsplit("@", 1)
        nth = 1
        if re.search(r"#\d+$", needle):
            needle, count = needle.rsplit("#", 1)
            nth = int(count)
        text = self.texts[name]
        offset = text.index(self.start) if name == self.main else 0
        shift = needle.index("^") if "^" in needle else 0
        needle = needle.replace("^", "")
        at = offset - 1
        for _ in range(nth):
            at = text.index(needle, at + 1)
        at += shift
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        return (name, line, column)


def _leaves(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Scalars, and lists of scalars (located as a whole); an empty map or list has no
    value to locate."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(node, list) and any(isinstance(v, Mapping) for v in node):
        for index, value in enumerate(node):
            yield from _leaves(value, (*path, index))
    elif node not in ({}, []):
        yield path, node


# Facts that nothing in the input wrote, and where they are located instead.
_NOT_WRITTEN: dict[Path_, str] = {
    # The workload's identity: findings about the object as a whole point at the object.
    ("id",): "document",
    ("kind",): "document",
    ("name",): "document",
    ("source",): "document",
    ("namespace",): "document",
    ("multi_node",): "document",
    ("chart_profile",): "document",
    ("renders",): "document",
    # Whether the chart's templates prove the pod facts read from them: the whole release.
    ("chart_pod", "proven"): "document",
    # Pod facts that hold because nothing was written (no privileged container, no
    # cgroup writes) or that sum up every container (the QoS class): the pod spec.
    ("pod", "qos_class"): "pod",
    ("pod", "privileged"): "pod",
    ("pod", "writes_cgroup_memory"): "pod",
    # Container facts of the same kind: the container.
    ("pod", "containers", "*", "is_init"): "container",
    ("pod", "containers", "*", "is_server"): "container",
    ("pod", "containers", "*", "privileged"): "container",
    ("pod", "containers", "*", "writes_cgroup_memory"): "container",
    ("pod", "containers", "*", "mounts_host_cgroup"): "container",  # with no mounts
    ("pod", "containers", "*", "env_from_secret"): "container",  # with no env
}

# The inputs of each capacity figure, first written one first (a figure whose inputs are
# not written derives from the model's own shape and is located at the model).
_CAPACITY_INPUTS: dict[str, tuple[str, ...]] = {
    "tokens_requested": ("max_model_len", "context_length", "max_total_tokens"),
    "kv_bytes_requested": ("max_model_len", "context_length", "max_total_tokens"),
    "tokens_for_all_sequences": ("max_num_seqs", "max_running_requests", "max_model_len"),
    "tensor_parallel_size": ("tensor_parallel_size", "tp_size", "num_shard"),
    "pipeline_parallel_size": ("pipeline_parallel_size", "pp_size"),
    "memory_fraction": ("gpu_memory_utilization", "mem_fraction_static"),
    "memory_budget_bytes_per_gpu": ("gpu_memory_utilization", "mem_fraction_static"),
    "kv_dtype_bytes": ("kv_cache_dtype",),
    "kv_budget_bytes_per_gpu": ("kv_cache_memory_bytes", "gpu_memory_utilization"),
    "kv_tokens_per_gpu": ("kv_cache_memory_bytes", "gpu_memory_utilization"),
}
_GPU_PRODUCT_FACTS = (
    "product",
    "candidates",
    "product_source",
    "memory_bytes",
    "peer_to_peer",
    "interconnect",
)
_IMAGE_FACTS = ("name", "image", "version", "version_parts", "version_pinned")


class Expectation:
    """Where each leaf of one workload must be located."""

    def __init__(self, case: Case, workload: Workload) -> None:
        self.case = case
        self.workload = workload
        self.written = {_path(k): v for k, v in case.written.items()}
        self.anchors = {
            "document": case.find(case.document),
            "pod": case.find(case.pod),
            "container": case.find(case.container),
        }

    def written_at(self, path: Path_) -> Position | None:
        needle = self.written.get(path)
        return self.case.find(needle) if needle is not None else None

    def expected(self, path: Path_) -> Position:
        found = self.written_at(path)
        if found is not None:
            return found
        if path[0] == "container":  # the server container's entry of pod, as an alias
            return self.expected(("pod", "containers", 0, *path[1:]))
        derived = self._derived(path)
        if derived is not None:
            return derived
        for pattern, anchor in _NOT_WRITTEN.items():
            if len(pattern) == len(path) and all(
                p in ("*", q) for p, q in zip(pattern, path, strict=True)
            ):
                return self.anchors[anchor]
        return ("neither written, derived nor listed", 0, 0)

    def _engine(self, name: str) -> Position | None:
        return self.written_at(("engine", name))

    def _image(self) -> Position:
        """The server's image: the release whose defaults apply."""
        return self.written_at(("pod", "containers", 0, "image")) or self.anchors["document"]

    def _derived(self, path: Path_) -> Position | None:
        data = self.workload.view().data
        head, rest = path[0], path[1:]
        if head == "engine" and rest[0] in _IMAGE_FACTS:
            return self._image() if "image" in data["engine"] else self.anchors["document"]
        if head == "engine" and rest[0] in ("entrypoint", "args", "positionals"):
            return self._engine("args") or self._image()
        if head == "engine" and rest[0] == "env":
            return self.expected(("pod", "containers", 0, "env", rest[1]))
        if head == "engine" and rest[0] == "cli_flags":
            # A flag's verdict (from the flag tables) belongs to the token as written.
            name, line, column = self.case.find(data["engine"]["cli_flags"][rest[1]]["written"])
            before = self.case.texts[name].splitlines()[line - 1][column - 2]
            return (name, line, column - 1) if before in "\"'" else (name, line, column)
        if head == "engine" and rest[0] == "unjudged_flags":
            # A values key whose flags no rule judges (no chart, no profile): the key.
            return self.case.find(str(rest[1]).rsplit(".", 1)[-1] + ":")
        if head == "engine" and rest[:1] == ("model_id",):
            return self.expected(("engine", _model_setting(data)))
        if head == "image":  # the parts of the server's image reference
            return self._image()
        if head == "model":  # catalogue facts of the model the engine names
            return self.expected(("engine", "model_id"))
        if head == "effective":
            return self._effective(str(rest[0]))
        if head == "capacity":
            return self._capacity(str(rest[0]))
        if head == "gpu":
            return self._gpu(str(rest[0]))
        if path[:2] == ("pod", "shm"):
            return self._shm(str(rest[1]))
        if head == "pod" and len(path) == 6 and path[3] == "probes":
            # A probe field not written takes Kubernetes' default; the restart budget is
            # computed from the probe's fields: both belong to the probe.
            probe = data["pod"]["containers"][path[2]]["probes"][path[4]]
            if path[5] in (*probe["defaulted"], "defaulted", "budget_seconds"):
                return self.written_at(path[:5])
        if (
            head == "pod"
            and len(path) == 4
            and path[3] in ("env_from_secret", "mounts_host_cgroup")
        ):
            # Summaries of the env list and of the mounts.
            source = "env" if path[3] == "env_from_secret" else "mounts"
            return self.written_at((*path[:3], source))
        if path[:2] == ("triton", "models"):
            return self._triton(path)
        return None

    def _effective(self, name: str) -> Position:
        if name == "termination_grace_period_seconds":
            written = self.written_at(("pod", "termination_grace_period_seconds"))
            return written or self._image()
        # A written setting, else the default of the image's release.
        return self._engine(name) or self._image()

    def _capacity(self, figure: str) -> Position:
        if figure == "gpu_memory_bytes":
            return self._gpu("memory_bytes")
        for name in _CAPACITY_INPUTS.get(figure, ()):
            found = self._engine(name)
            if found is not None:
                return found
        return self.expected(("engine", "model_id"))

    def _gpu(self, name: str) -> Position | None:
        gpu = self.workload.view().data["gpu"]
        resources: Path_ = ("pod", "containers", 0, "resources")
        if name in _GPU_PRODUCT_FACTS:
            label = next(iter(self.workload.view().data["pod"]["node_selector"]))
            return self.written_at(("pod", "node_selector", label))
        section = "requests" if name == "requests" or "limits" not in gpu else "limits"
        return self.written_at((*resources, section, gpu["resource"]))

    def _shm(self, name: str) -> Position:
        if name == "size_limit_bytes":
            return self.expected(("pod", "volumes", self._shm_volume(), "size_limit_bytes"))
        if not self.workload.view().data["pod"]["shm"]["mounted"]:
            return self.anchors["pod"]  # nothing mounted at /dev/shm: the pod spec
        return self.expected(("pod", "volumes", self._shm_volume(), "name"))

    def _shm_volume(self) -> int:
        name = self.workload.view().data["pod"]["shm"]["volume"]
        volumes = self.workload.view().data["pod"]["volumes"]
        return next(i for i, v in enumerate(volumes) if v["name"] == name)

    def _triton(self, path: Path_) -> Position | None:
        if path[3] != "derived":
            return None
        derived = path[4:]
        # Read from one written field.
        same = {
            "name": "name",
            "backend_kind": "backend",
            "trtllm": "backend",
            "max_batch_size": "max_batch_size",
            "max_batch_size_written": "max_batch_size",
        }
        if derived[0] in same:
            return self.written_at((*path[:3], same[str(derived[0])]))
        if derived[0] == "instance_groups":
            index = derived[1]
            if derived[2] in ("count", "kind"):
                return self.written_at((*path[:3], "instance_group", index, derived[2]))
            return self.case.find("{\n    count")  # the group itself (index, GPU list)
        if derived[0] in ("preferred_batch_size", "preferred_batch_size_written"):
            return self.written_at((*path[:3], "dynamic_batching", "preferred_batch_size"))
        if derived[0] in ("max_queue_delay_microseconds",):
            return self.written_at((*path[:3], "dynamic_batching", derived[0]))
        if derived[0] in (
            "dynamic_batching",
            "priority_levels",
            "default_priority_level",
            "priority_queue_policy_levels",
        ):
            # Defaults of the dynamic batcher: the batcher that is written.
            return self.case.find("dynamic_batching {")
        if derived[0] == "parameters":
            return self.written_at((*path[:3], "parameters", derived[1], "string_value"))
        if derived[0] in ("decoupled", "sequence_batching"):
            return self.anchors["document"]  # not written: protobuf's default
        return None


def _model_setting(data: Mapping[str, Any]) -> str:
    engine = data["engine"]
    return next(n for n in ("model", "model_id", "model_path") if n in engine and n != "model_id")


CASES: dict[str, Case] = {
    "Deployment/inference/llama-chat": Case(
        files=("vllm-deployments.yaml",),
        main="vllm-deployments.yaml",
        start="apiVersion",
        document="apiVersion",
        pod="spec:\n      terminationGracePeriodSeconds",
        container="name: vllm",
        written={
            "replicas": "replicas: 2",
            "pod.termination_grace_period_seconds": "terminationGracePeriodSeconds: 90",
            "pod.node_selector[nvidia.com/gpu.product]": "nvidia.com/gpu.product: NVIDIA-L4",
            "pod.labels.app": "app: llama-chat#2",  # the template's, not the selector's
            "pod.containers.0.name": "name: vllm",
            "pod.containers.0.image": "image: vllm/vllm-openai:v0.11.0",
            "pod.containers.0.args": "args:",
            "pod.containers.0.resources.requests.cpu": 'cpu: "6"',
            "pod.containers.0.resources.requests.memory": "memory: 40Gi#1",
            "pod.containers.0.resources.requests[nvidia.com/gpu]": "nvidia.com/gpu: 1#1",
            "pod.containers.0.resources.limits.memory": "memory: 40Gi#2",
            "pod.containers.0.resources.limits[nvidia.com/gpu]": "nvidia.com/gpu: 1#2",
            "pod.containers.0.env": "env:",
            "pod.containers.0.env.VLLM_LOGGING_LEVEL": "value: INFO",
            "pod.containers.0.env_refs.HF_TOKEN.type": "secretKeyRef",
            "pod.containers.0.env_refs.HF_TOKEN.name": "name: hf-token",
            "pod.containers.0.probes.readiness": "readinessProbe:",
            "pod.containers.0.probes.readiness.type": "httpGet#1",
            "pod.containers.0.probes.readiness.port": "port: 8000}#1",
            "pod.containers.0.probes.readiness.http_path": "path: /health#1",
            "pod.containers.0.probes.readiness.period_seconds": "periodSeconds: 5",
            "pod.containers.0.probes.startup": "startupProbe:",
            "pod.containers.0.probes.startup.type": "httpGet#2",
            "pod.containers.0.probes.startup.port": "port: 8000}#2",
            "pod.containers.0.probes.startup.http_path": "path: /health#2",
            "pod.containers.0.probes.startup.failure_threshold": "failureThreshold: 60",
            "pod.containers.0.probes.startup.period_seconds": "periodSeconds: 10",
            "pod.containers.0.mounts": "volumeMounts:",
            "pod.containers.0.mounts.0.name": "name: dshm#1",
            "pod.containers.0.mounts.0.mount_path": "mountPath: /dev/shm",
            "pod.volumes.0.name": "name: dshm#2",
            "pod.volumes.0.type": "emptyDir:",
            "pod.volumes.0.medium": "medium: Memory",
            "pod.volumes.0.size_limit_bytes": "sizeLimit: 8Gi",
            "engine.args": "--model",  # the first argument
            "engine.model": "meta-llama/Llama-3.1-8B-Instruct",
            "engine.max_model_len": '"16384"',
            "engine.gpu_memory_utilization": "--gpu-memory-utilization=0.92",
            "engine.max_num_seqs": '"64"',
            "engine.flags[--model]": "meta-llama/Llama-3.1-8B-Instruct",
            "engine.flags[--max-model-len]": '"16384"',
            "engine.flags[--gpu-memory-utilization]": "--gpu-memory-utilization=0.92",
            "engine.flags[--max-num-seqs]": '"64"',
        },
    ),
    "Deployment/default/qwen-batch": Case(
        files=("vllm-deployments.yaml",),
        main="vllm-deployments.yaml",
        start="---",
        document="apiVersion",
        pod="spec:\n      containers",
        container="name: server",
        written={
            "replicas": "replicas: 1",
            "pod.labels.app": "app: qwen-batch#2",
            "pod.containers.0.name": "name: server",
            "pod.containers.0.image": "image: vllm/vllm-openai:v0.10.1",
            "pod.containers.0.command": "command:",
            "pod.containers.0.args": "args:",
            "pod.containers.0.resources.limits[nvidia.com/gpu]": "nvidia.com/gpu: 2",
            # Tokens of the shell script, each at its own place in the literal block.
            "engine.args": "Qwen/Qwen2.5-7B-Instruct",
            "engine.model": "Qwen/Qwen2.5-7B-Instruct",
            "engine.tensor_parallel_size": "--tensor-parallel-size ^2",
            "engine.max_model_len": "--max-model-len ^32768",
            "engine.enable_prefix_caching": "--enable-prefix-caching",
            "engine.flags[--tensor-parallel-size]": "--tensor-parallel-size ^2",
            "engine.flags[--max-model-len]": "--max-model-len ^32768",
            "engine.flags[--enable-prefix-caching]": "--enable-prefix-caching",
        },
    ),
    "Deployment/default/mistral-tgi": Case(
        files=("tgi-deployment.yaml",),
        main="tgi-deployment.yaml",
        start="apiVersion",
        document="apiVersion",
        pod="spec:\n      containers",
        container="name: tgi",
        written={
            "replicas": "replicas: 1",
            "pod.labels.app": "app: mistral-tgi#2",
            "pod.containers.0.name": "name: tgi",
            "pod.containers.0.image": "image: ghcr.io",
            "pod.containers.0.env.MODEL_ID": "value: mistralai",
            "pod.containers.0.env.MAX_TOTAL_TOKENS": 'value: "8192"',
            "pod.containers.0.env.MAX_INPUT_LENGTH": 'value: "4096"',
            "pod.containers.0.env.NUM_SHARD": 'value: "1"',
            "pod.containers.0.resources.limits[nvidia.com/gpu]": "nvidia.com/gpu: 1",
            "pod.containers.0.resources.limits.memory": "memory: 32Gi",
            "pod.containers.0.probes.liveness": "livenessProbe:",
            "pod.containers.0.probes.liveness.type": "httpGet",
            "pod.containers.0.probes.liveness.port": "port: 80}",
            "pod.containers.0.probes.liveness.http_path": "path: /health",
            "pod.containers.0.probes.liveness.initial_delay_seconds": "initialDelaySeconds",
            "pod.containers.0.mounts": "volumeMounts:",
            "pod.containers.0.mounts.0.name": "name: shm#1",
            "pod.containers.0.mounts.0.mount_path": "mountPath: /dev/shm",
            "pod.volumes.0.name": "name: shm#2",
            "pod.volumes.0.type": "emptyDir:",
            "pod.volumes.0.medium": "medium: Memory",
            "pod.volumes.0.size_limit_bytes": "sizeLimit: 1Gi",
            # The launcher reads its arguments from these variables.
            "engine.model_id": "value: mistralai",
            "engine.max_total_tokens": 'value: "8192"',
            "engine.max_input_length": 'value: "4096"',
            "engine.num_shard": 'value: "1"',
        },
    ),
    "file:sglang-values.yaml": Case(
        files=("sglang-values.yaml",),
        main="sglang-values.yaml",
        start="replicaCount",
        document="replicaCount",
        pod="replicaCount",
        container="replicaCount",
        written={
            "replicas": "replicaCount: 2",
            # The chart names the container after the server: not written.
            "pod.containers.0.name": "replicaCount",
            "pod.containers.0.image": "tag: v0.4.6.post1",
            "pod.containers.0.args": "--enable-metrics",  # assembled: its first item
            "pod.containers.0.resources.requests.cpu": 'cpu: "8"',
            "pod.containers.0.resources.requests.memory": "memory: 48Gi",
            "pod.containers.0.resources.limits[nvidia.com/gpu]": "nvidia.com/gpu: 1",
            "pod.containers.0.env.SGLANG_LOG_LEVEL": "value: info",
            # The chart's /dev/shm convention: an emptyDir of shmSize, mounted.
            "pod.containers.0.mounts": "shmSize",
            "pod.containers.0.mounts.0.name": "shmSize",
            "pod.containers.0.mounts.0.mount_path": "shmSize",
            "pod.volumes.0.name": "shmSize",
            "pod.volumes.0.type": "shmSize",
            "pod.volumes.0.medium": "shmSize",
            "pod.volumes.0.size_limit_bytes": "shmSize",
            "engine.args": "--enable-metrics",
            "engine.model_path": "modelPath",
            "engine.context_length": "contextLength",
            "engine.mem_fraction_static": "memFractionStatic",
            "engine.tp_size": "tpSize",
            "engine.enable_metrics": "--enable-metrics",
            "engine.flags[--model-path]": "modelPath",
            "engine.flags[--context-length]": "contextLength",
            "engine.flags[--mem-fraction-static]": "memFractionStatic",
            "engine.flags[--tp-size]": "tpSize",
            "engine.flags[--enable-metrics]": "--enable-metrics",
        },
    ),
    "llama": Case(
        files=("triton/llama/config.pbtxt",),
        main="triton/llama/config.pbtxt",
        start="name:",
        document="name:",
        pod="name:",
        container="name:",
        written={
            "triton.models.0.name": 'name: "llama"',
            "triton.models.0.backend": "backend:",
            "triton.models.0.max_batch_size": "max_batch_size:",
            "triton.models.0.dynamic_batching.preferred_batch_size": "preferred_batch_size",
            "triton.models.0.dynamic_batching.max_queue_delay_microseconds": "max_queue_delay",
            "triton.models.0.instance_group.0.count": "count: 1",
            "triton.models.0.instance_group.0.kind": "kind: KIND_GPU",
            "triton.models.0.parameters.max_model_len.string_value": "string_value",
            # Not written: the server follows from the backend (TensorRT-LLM or not).
            "engine.name": "name:",
        },
    ),
    "file:vllm-live-config.json": Case(
        files=("vllm-live-config.json",),
        main="vllm-live-config.json",
        start="{",
        document="{",
        pod="{",
        container="{",
        written={
            # A configuration file has no container: its name is the server's.
            "pod.containers.0.name": "{",
            "engine.model": '"model"',
            "engine.max_model_len": '"max_model_len"',
            "engine.gpu_memory_utilization": '"gpu_memory_utilization"',
            "engine.max_num_seqs": '"max_num_seqs"',
            "engine.tensor_parallel_size": '"tensor_parallel_size"',
            "engine.enable_prefix_caching": '"enable_prefix_caching"',
            "engine.dtype": '"dtype"',
            "engine.flags[--model]": '"model"',
            "engine.flags[--max-model-len]": '"max_model_len"',
            "engine.flags[--gpu-memory-utilization]": '"gpu_memory_utilization"',
            "engine.flags[--max-num-seqs]": '"max_num_seqs"',
            "engine.flags[--tensor-parallel-size]": '"tensor_parallel_size"',
            "engine.flags[--enable-prefix-caching]": '"enable_prefix_caching"',
            "engine.flags[--dtype]": '"dtype"',
        },
    ),
}

CASES["file:production-stack-values.yaml:servingEngineSpec.modelSpec[0]"] = Case(
    files=("production-stack-values.yaml",),
    main="production-stack-values.yaml",
    start="servingEngineSpec",
    document="name: llama3",  # the modelSpec entry
    pod="name: llama3",
    container="name: llama3",
    written={
        "replicas": "replicaCount: 2",
        "pod.runtime_class_name": "runtimeClassName: nvidia",
        # The chart's own container name and command (vllm serve <modelURL>).
        "pod.containers.0.name": "name: llama3",
        "pod.containers.0.command": "name: llama3",
        "pod.containers.0.image": "tag: v0.11.0",
        "pod.containers.0.args": '"--max-num-seqs"',
        "pod.containers.0.resources.requests.cpu": "requestCPU",
        "pod.containers.0.resources.requests.memory": "requestMemory",
        # requestGPU goes to both the requests and the limits.
        "pod.containers.0.resources.requests[nvidia.com/gpu]": "requestGPU",
        "pod.containers.0.resources.limits[nvidia.com/gpu]": "requestGPU",
        "pod.containers.0.env": "name: VLLM_LOGGING_LEVEL",
        "pod.containers.0.env.VLLM_LOGGING_LEVEL": "value: DEBUG",
        # The chart mounts a memory-backed /dev/shm of shmSize when tensorParallelSize
        # is set.
        "pod.containers.0.mounts": "tensorParallelSize",
        "pod.containers.0.mounts.0.name": "tensorParallelSize",
        "pod.containers.0.mounts.0.mount_path": "tensorParallelSize",
        "pod.volumes.0.name": "shmSize",
        "pod.volumes.0.type": "shmSize",
        "pod.volumes.0.medium": "shmSize",
        "pod.volumes.0.size_limit_bytes": "shmSize",
        "engine.args": "modelURL",  # the model, the first argument of vllm serve
        "engine.model": "modelURL",
        "engine.positionals": "modelURL",
        # The chart passes --host 0.0.0.0 and --port 8000 itself.
        "engine.host": "name: llama3",
        "engine.port": "name: llama3",
        "engine.enable_lora": "enableLoRA",
        "engine.enable_prefix_caching": "enablePrefixCaching",
        "engine.max_model_len": "maxModelLen",
        "engine.tensor_parallel_size": "tensorParallelSize",
        "engine.gpu_memory_utilization": "gpuMemoryUtilization",
        "engine.max_num_seqs": '"32"',
        "engine.flags[--host]": "name: llama3",
        "engine.flags[--port]": "name: llama3",
        "engine.flags[--enable-lora]": "enableLoRA",
        "engine.flags[--no-enable-prefix-caching]": "enablePrefixCaching",
        "engine.flags[--max-model-len]": "maxModelLen",
        "engine.flags[--tensor-parallel-size]": "tensorParallelSize",
        "engine.flags[--gpu-memory-utilization]": "gpuMemoryUtilization",
        "engine.flags[--max-num-seqs]": '"32"',
    },
)

_CHART_CASE = Case(
    files=("values.yaml", "values-prod.yaml", "templates/deployment.yaml"),
    main="values.yaml",
    start="# Defaults",
    document="# Defaults",  # the merged values' root
    pod="# Defaults",
    container="# Defaults",
    written={
        "replicas": "replicaCount: 3@values-prod.yaml",
        "pod.termination_grace_period_seconds": "terminationGracePeriodSeconds: 120@values-prod.yaml",
        "pod.node_selector[nvidia.com/gpu.product]": "nvidia.com/gpu.product: NVIDIA-L4",
        "pod.containers.0.name": "# Defaults",  # named after the server: not written
        "pod.containers.0.image": "tag: v0.11.0",
        "pod.containers.0.resources.requests.cpu": 'cpu: "8"@values-prod.yaml',
        "pod.containers.0.resources.requests.memory": "memory: 48Gi#1@values-prod.yaml",
        "pod.containers.0.resources.requests[nvidia.com/gpu]": "nvidia.com/gpu: 1#1@values-prod.yaml",
        "pod.containers.0.resources.limits.memory": "memory: 48Gi#2@values-prod.yaml",
        "pod.containers.0.resources.limits[nvidia.com/gpu]": "nvidia.com/gpu: 1#2@values-prod.yaml",
        # The /dev/shm volume the chart's templates write (read from them without rendering,
        # located at the template's volumes), its size from shm.sizeLimit.
        "pod.containers.0.mounts": "shm:",
        "pod.containers.0.mounts.0.name": "volumes:@templates/deployment.yaml",
        "pod.containers.0.mounts.0.mount_path": "volumes:@templates/deployment.yaml",
        "pod.volumes.0.name": "volumes:@templates/deployment.yaml",
        "pod.volumes.0.type": "volumes:@templates/deployment.yaml",
        "pod.volumes.0.medium": "volumes:@templates/deployment.yaml",
        "pod.volumes.0.size_limit_bytes": "sizeLimit: 8Gi",
        "pod.shm.mounted": "volumes:@templates/deployment.yaml",
        "pod.shm.host_ipc": "volumes:@templates/deployment.yaml",
        "pod.shm.volume": "volumes:@templates/deployment.yaml",
        "pod.shm.medium": "volumes:@templates/deployment.yaml",
        "engine.model": "model: meta-llama",
        "engine.max_model_len": "maxModelLen: 131072@values-prod.yaml",
        "engine.dtype": "dtype: bfloat16",
        "engine.max_num_seqs": "maxNumSeqs: 16@values-prod.yaml",
        "engine.gpu_memory_utilization": "gpuMemoryUtilization",
        "engine.enable_prefix_caching": "enablePrefixCaching",
        "engine.tensor_parallel_size": "tensorParallelSize",
        "engine.flags[--model]": "model: meta-llama",
        "engine.flags[--max-model-len]": "maxModelLen: 131072@values-prod.yaml",
        "engine.flags[--dtype]": "dtype: bfloat16",
        "engine.flags[--max-num-seqs]": "maxNumSeqs: 16@values-prod.yaml",
        "engine.flags[--gpu-memory-utilization]": "gpuMemoryUtilization",
        "engine.flags[--enable-prefix-caching]": "enablePrefixCaching",
        "engine.flags[--tensor-parallel-size]": "tensorParallelSize",
    },
)


def _fixture_workloads() -> dict[str, Workload]:
    found: dict[str, Workload] = {}
    for name in (
        "vllm-deployments.yaml",
        "tgi-deployment.yaml",
        "sglang-values.yaml",
        "triton/llama/config.pbtxt",
        "vllm-live-config.json",
        "production-stack-values.yaml",
    ):
        path = FIXTURES / name
        parsed = parse(name, path.read_text(encoding="utf-8"))
        for workload in extract_workloads([parsed]):
            found[workload.name] = workload
    return found


def _check(case: Case, workload: Workload, directory: Path) -> list[str]:
    case.texts = {name: (directory / name).read_text(encoding="utf-8") for name in case.files}
    expectation = Expectation(case, workload)
    wrong = []
    for path, value in _leaves(workload.view().data):
        origin = workload.view().locate(path)
        got = (Path(origin.source).name, origin.line, origin.column)
        want = expectation.expected(path)
        want = (Path(want[0]).name, want[1], want[2])
        if got != want:
            wrong.append(f"{_show(path)} = {value!r}: located at {got}, written at {want}")
    return wrong


def test_every_leaf_of_the_fixtures_locates_exactly() -> None:
    workloads = _fixture_workloads()
    assert sorted(workloads) == sorted(CASES)
    for name, case in CASES.items():
        assert _check(case, workloads[name], FIXTURES) == [], name


def test_every_leaf_of_the_bundled_example_locates_exactly() -> None:
    [parsed], _ = read_inputs(expand([str(CHART / "values-prod.yaml")]))
    # The built-in policies: a release builds its workloads for the policies that read them.
    policies = load_policies()
    [workload] = _in_chart(parsed, policies, DEFAULT_SETTINGS, DEFAULT_LIMITS) or []
    assert _check(_CHART_CASE, workload, CHART) == []
