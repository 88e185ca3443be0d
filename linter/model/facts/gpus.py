"""Accelerator facts: which GPU, TPU, Gaudi or Neuron resource a workload asks for, which
product it lands on, and that product's memory and peer-to-peer capability.

The products, the node-label values that name them and the cloud instance types that carry
them are data: the packaged ``catalogue/gpus.yaml`` (schema ``schemas/gpus.schema.json``,
every entry with its vendor or cloud source) overlaid with the configuration's
``model.gpus`` and ``model.instanceTypes``. Memory is one device's total as the driver
reports it (``nvidia-smi``: "NVIDIA L4 … 23034MiB") or, where no published output shows it,
the nominal size read as GiB, which is never below the driver's figure. ``peer_to_peer`` is
False for PCIe GPUs without peer-to-peer (T4, L4, L40S, A10/A10G), True for NVLink,
NVSwitch and xGMI parts, None when it depends on the system.

``platform`` is the software stack the resource implies (``cuda``, ``rocm``, ``xpu``, ``tpu``,
``hpu``, ``neuron``): policies keep CUDA- and NCCL-specific rules to the platforms where their
reason holds. A TPU slice's chip count is read from GKE's topology label (``2x4``: 8), and a
Neuron device request is also counted in NeuronCores, the unit of a Neuron server's tensor
parallelism, with each core's share of the device memory.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from linter import _resources
from linter.lazyregex import lazy_compile
from linter.model.engine.settings import ModelSettings

MIB = 2**20
GIB = 2**30


class GpuProduct(NamedTuple):
    name: str  # GPU feature discovery's nvidia.com/gpu.product value (or the vendor's name)
    memory_mib: int
    peer_to_peer: bool | None
    interconnect: str | None = None
    vendor: str | None = None
    cores_per_device: int | None = None  # AWS Neuron: NeuronCores sharing one device


class InstanceType(NamedTuple):
    name: str  # p5.48xlarge, a3-highgpu-8g, Standard_ND96asr_v4
    product: str
    gpu_count: int


class Catalogue(NamedTuple):
    products: Mapping[str, GpuProduct]  # canonical name → product
    names: Mapping[str, str]  # upper-case name or alias → canonical name
    instance_types: Mapping[str, InstanceType]  # lower-case instance type → its GPUs


# Node labels that name the product: GPU feature discovery (GPU operator, NFD), GKE (GPUs
# and TPUs), Karpenter on AWS, AMD's node labeller (with and without its beta. prefix).
PRODUCT_LABELS = (
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "cloud.google.com/gke-tpu-accelerator",
    "karpenter.k8s.aws/instance-gpu-name",
    "amd.com/gpu.product-name",
    "beta.amd.com/gpu.product-name",
)
# GKE's TPU slice shape: chips along each axis (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus).
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
# Node labels that name the instance type (EKS, GKE, AKS, Karpenter) or, on AWS, its family.
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
INSTANCE_FAMILY_LABELS = ("karpenter.k8s.aws/instance-family",)
NODE_LABELS = (*PRODUCT_LABELS, *INSTANCE_TYPE_LABELS, *INSTANCE_FAMILY_LABELS)
_GPU_RESOURCE = lazy_compile(
    r"^(nvidia\.com/(gpu|mig-.+)|amd\.com/gpu|gpu\.intel\.com/.+|google\.com/tpu"
    r"|habana\.ai/gaudi|aws\.amazon\.com/(neuron|neuroncore|neurondevice))$"
)
# The software stack each device plugin's resource implies (vLLM's device names).
_PLATFORMS = (
    ("nvidia.com/", "cuda"),
    ("amd.com/", "rocm"),
    ("gpu.intel.com/", "xpu"),
    ("google.com/tpu", "tpu"),
    ("habana.ai/", "hpu"),
    ("aws.amazon.com/neuron", "neuron"),
)
_NEURON_CORES = "aws.amazon.com/neuroncore"
_TOPOLOGY = lazy_compile(r"^\d+(x\d+)*$")
_MIG = lazy_compile(r"^nvidia\.com/mig-(\d+)g\.(\d+)gb$")


def _key(name: str) -> str:
    key = re.sub(r"[\s_]+", "-", name.strip()).upper()
    return re.sub(r"-SHARED$", "", key)  # GPU feature discovery's time-slicing suffix


@functools.cache
def packaged_catalogue() -> Catalogue:
    loaded = _resources.packaged_yaml(_resources.builtin_catalogue() / "gpus.yaml")
    return build_catalogue(loaded.get("gpus") or {}, _instance_entries(loaded), None)


def _instance_entries(loaded: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for family in loaded.get("instanceTypes") or ():
        for name, count in family["sizes"].items():
            out[name] = {"gpu": family["gpu"], "count": count}
    return out


def build_catalogue(
    gpus: Mapping[str, Mapping[str, Any]],
    instance_types: Mapping[str, Mapping[str, Any]],
    base: Catalogue | None,
) -> Catalogue:
    """``gpus`` and ``instance_types`` (catalogue entries) over ``base``: an entry of the
    same name replaces the base's, and its aliases win over the base's aliases."""
    products = dict(base.products) if base else {}
    names = dict(base.names) if base else {}
    for name, entry in gpus.items():
        products[name] = GpuProduct(
            name,
            int(entry["memoryMiB"]),
            entry.get("peerToPeer"),
            entry.get("interconnect"),
            entry.get("vendor"),
            entry.get("coresPerDevice"),
        )
        for alias in (name, *entry.get("aliases", ())):
            names[_key(alias)] = name
    types = dict(base.instance_types) if base else {}
    for name, entry in instance_types.items():
        product = names.get(_key(str(entry["gpu"])), str(entry["gpu"]))
        types[name.lower()] = InstanceType(name, product, int(entry["count"]))
    return Catalogue(products, names, types)


def catalogue(settings: ModelSettings | None = None) -> Catalogue:
    """The packaged catalogue with the configuration's ``model.gpus`` and
    ``model.instanceTypes`` over it."""
    packaged = packaged_catalogue()
    if settings is None or not (settings.gpus or settings.instance_types):
        return packaged
    return build_catalogue(settings.gpus, settings.instance_types, packaged)


def product(name: str, settings: ModelSettings | None = None) -> GpuProduct | None:
    """The product a label value or name stands for (case, ``_`` and spaces ignored)."""
    table = catalogue(settings)
    canonical = table.names.get(_key(name))
    return table.products.get(canonical) if canonical else None


def instance_type(name: str, settings: ModelSettings | None = None) -> InstanceType | None:
    return catalogue(settings).instance_types.get(_instance_key(name))


def _instance_key(name: str) -> str:
    """SageMaker names an EC2 type with an ``ml.`` prefix (``ml.inf2.xlarge``)."""
    key = name.strip().lower()
    return key[3:] if key.startswith("ml.") else key


def node_label_product(
    label: str, value: str, settings: ModelSettings | None = None
) -> tuple[GpuProduct | None, InstanceType | None]:
    """What one node-label value tells: the product, and for an instance type its GPUs."""
    table = catalogue(settings)
    if label in INSTANCE_TYPE_LABELS:
        found = table.instance_types.get(_instance_key(value))
        return (table.products.get(found.product) if found else None), found
    if label in INSTANCE_FAMILY_LABELS:
        family = value.strip().lower()
        members = {
            t.product for key, t in table.instance_types.items() if key.split(".")[0] == family
        }
        only = members.pop() if len(members) == 1 else None
        return (table.products.get(only) if only else None), None
    return product(value, settings), None


def is_gpu_resource(name: str) -> bool:
    """An accelerator's device-plugin resource (GPU, TPU, Gaudi, Neuron)."""
    return bool(_GPU_RESOURCE.match(name))


def platform(resource: str) -> str | None:
    return next((p for prefix, p in _PLATFORMS if resource.startswith(prefix)), None)


def topology_chips(value: str) -> int | None:
    """The chips of a TPU slice topology (``2x4`` → 8, ``2x2x2`` → 8)."""
    text = value.strip().lower()
    if not _TOPOLOGY.match(text):
        return None
    chips = 1
    for axis in text.split("x"):
        chips *= int(axis)
    return chips or None


def mig_memory_bytes(resource: str) -> int | None:
    """A MIG profile's memory, taken as the GiB figure in its name (an upper bound)."""
    match = _MIG.match(resource)
    return int(match.group(2)) * GIB if match else None


def gpu_facts(
    pod_spec: Mapping[str, Any], resources: Mapping[str, Any], settings: ModelSettings
) -> dict[str, Any]:
    """``gpu`` facts from the server container's normalised resources and the pod spec."""
    out: dict[str, Any] = {}
    limits = resources.get("limits", {}) if isinstance(resources, Mapping) else {}
    requests = resources.get("requests", {}) if isinstance(resources, Mapping) else {}
    names = [n for n in (*limits, *requests) if is_gpu_resource(n)]
    if names:
        resource = names[0]
        out["resource"] = resource
        if resource in limits:
            out["limits"] = limits[resource]
        if resource in requests:
            out["requests"] = requests[resource]
        count = limits.get(resource, requests.get(resource))
        if isinstance(count, int):
            out["count"] = count
        found_platform = platform(resource)
        if found_platform:
            out["platform"] = found_platform
        mig = mig_memory_bytes(resource)
        if mig is not None:
            out["mig"] = True
            out["memory_bytes"] = mig
    labelled = node_label_values(pod_spec)
    candidates = list(dict.fromkeys(value for _, value in labelled))
    if candidates:
        out["candidates"] = candidates
    resolved = [node_label_product(label, value, settings) for label, value in labelled]
    _instance_facts([t for _, t in resolved if t is not None], out)
    possible = _possible_products(labelled, resolved)
    known = list(possible.values()) if possible else []
    chosen = known[0] if len(known) == 1 else None
    names_product = any(label in PRODUCT_LABELS for label, _ in labelled)
    if possible is None and not names_product and settings.gpu_product:
        chosen = product(settings.gpu_product, settings)
        out["product_source"] = "settings"
    if chosen is not None:
        out["product"] = chosen.name
        out.setdefault("product_source", "manifest")
        if "memory_bytes" not in out:
            out["memory_bytes"] = chosen.memory_mib * MIB
        if chosen.peer_to_peer is not None:
            out["peer_to_peer"] = chosen.peer_to_peer
        if chosen.interconnect:
            out["interconnect"] = chosen.interconnect
    elif known and len({p.memory_mib for p in known}) == 1:
        # Several products the pod may land on, all with the same memory.
        out.setdefault("memory_bytes", known[0].memory_mib * MIB)
        p2p = {p.peer_to_peer for p in known}
        if len(p2p) == 1 and None not in p2p:
            out["peer_to_peer"] = p2p.pop()
    if "memory_bytes" not in out and settings.gpu_memory_bytes:
        out["memory_bytes"] = settings.gpu_memory_bytes
        out["memory_source"] = "settings"
    _tpu_slice(pod_spec, out)
    _neuron_cores(chosen if chosen is not None else _one(known), out)
    return out


def _one(known: Sequence[GpuProduct]) -> GpuProduct | None:
    """A stand-in for the products the pod may land on when they agree in memory and
    NeuronCores per device (the figures a Neuron request is converted with)."""
    return known[0] if len({(p.memory_mib, p.cores_per_device) for p in known}) == 1 else None


def _tpu_slice(pod_spec: Mapping[str, Any], out: dict[str, Any]) -> None:
    """``slice_chips``: the chips of the TPU slice GKE's topology label names."""
    if out.get("platform") != "tpu":
        return
    values = [v for _, v in _labels(pod_spec, (TPU_TOPOLOGY_LABEL,))]
    chips = {topology_chips(v) for v in values}
    if len(chips) == 1 and None not in chips:
        out["topology"] = values[0]
        out["slice_chips"] = chips.pop()


def _neuron_cores(found: GpuProduct | None, out: dict[str, Any]) -> None:
    """A Neuron server's tensor parallelism counts NeuronCores, which share their device's
    memory: ``cores`` is the request in cores, and ``memory_bytes`` one core's share."""
    if out.get("platform") != "neuron" or not isinstance(out.get("count"), int):
        return
    if out.get("resource") == _NEURON_CORES:
        out["cores"] = out["count"]
    per_device = found.cores_per_device if found is not None else None
    settings_memory = out.get("memory_source") == "settings"
    if per_device is None:
        # One core's share of the catalogue's device memory is unknown (Trainium2: the
        # node's logical-core setting decides it).
        if not settings_memory:
            out.pop("memory_bytes", None)
        return
    if out.get("resource") != _NEURON_CORES:
        out["cores"] = out["count"] * per_device
    if "memory_bytes" in out and not settings_memory:
        out["memory_bytes"] = out["memory_bytes"] // per_device


def _possible_products(
    labelled: Sequence[tuple[str, str]],
    resolved: Sequence[tuple[GpuProduct | None, InstanceType | None]],
) -> dict[str, GpuProduct] | None:
    """The products the pod can land on, or None when the labels do not tell.

    A node carries every label the pod requires, so each label narrows the products; the
    values of one label are alternatives, so a label with an unknown value among known ones
    leaves the product open (the pod may land on the unknown one): no product, no memory.
    A label none of whose values is known (an n1-standard-8 beside a GKE accelerator
    label) tells nothing and is passed over.
    """
    by_label: dict[str, list[GpuProduct | None]] = {}
    for (label, _), (found, _) in zip(labelled, resolved, strict=True):
        by_label.setdefault(label, []).append(found)
    possible: dict[str, GpuProduct] | None = None
    for products in by_label.values():
        named = {p.name: p for p in products if p is not None}
        if not named:
            continue
        if None in products:
            return {}
        possible = named if possible is None else {k: v for k, v in possible.items() if k in named}
    return possible


def _instance_facts(types: Sequence[InstanceType], out: dict[str, Any]) -> None:
    if not types:
        return
    out["instance_types"] = list(dict.fromkeys(t.name for t in types))
    counts = {t.gpu_count for t in types}
    if len(counts) == 1:
        out["node_gpus"] = counts.pop()


def product_candidates(pod_spec: Mapping[str, Any]) -> list[str]:
    """Node-label values the pod is pinned to (GPU products, instance types or families),
    from its node selector and required node affinity."""
    return list(dict.fromkeys(value for _, value in node_label_values(pod_spec)))


def node_label_values(pod_spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs of the GPU-naming node labels the pod requires, in order."""
    return _labels(pod_spec, NODE_LABELS)


def _labels(pod_spec: Mapping[str, Any], labels: Sequence[str]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        found.extend(
            (label, selector[label]) for label in labels if isinstance(selector.get(label), str)
        )
    for expression in _required_expressions(pod_spec.get("affinity")):
        label = expression.get("key")
        if label in labels and expression.get("operator") == "In":
            values = expression.get("values")
            if isinstance(values, list):
                found.extend((str(label), str(v)) for v in values)
    return _unique(found)


def _unique(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return list(dict.fromkeys(pairs))


def _required_expressions(affinity: object) -> Sequence[Mapping[str, Any]]:
    node = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = (
        node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(node, Mapping)
        else None
    )
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    out: list[Mapping[str, Any]] = []
    if isinstance(terms, list):
        for term in terms:
            expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
            if isinstance(expressions, list):
                out.extend(e for e in expressions if isinstance(e, Mapping))
    return out
