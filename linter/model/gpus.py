"""GPU facts: which GPU resource a workload asks for, which GPU product it lands on, and
that product's memory and peer-to-peer capability.

Memory is the total that ``nvidia-smi`` reports (MiB), as seen in published ``nvidia-smi``
outputs, e.g. "NVIDIA L4 … 23034MiB", "NVIDIA A10G … 23028 MiB" (TGI usage stats),
"NVIDIA H100 80GB HBM3 … 81559MiB". ``peer_to_peer`` is False for PCIe GPUs without
peer-to-peer support (T4, L4, L40S, A10/A10G: errata item 3), True for NVLink/NVSwitch
parts, None when not known.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from linter.model.settings import ModelSettings

MIB = 2**20
GIB = 2**30


class GpuProduct(NamedTuple):
    name: str  # GPU feature discovery's nvidia.com/gpu.product value
    memory_mib: int
    peer_to_peer: bool | None


_PRODUCTS = {
    p.name: p
    for p in (
        GpuProduct("NVIDIA-L4", 23034, False),
        GpuProduct("Tesla-T4", 15360, False),
        GpuProduct("NVIDIA-L40S", 46068, False),
        GpuProduct("NVIDIA-L40", 46068, False),
        GpuProduct("NVIDIA-A10", 23028, False),
        GpuProduct("NVIDIA-A10G", 23028, False),
        GpuProduct("NVIDIA-A40", 46068, None),
        GpuProduct("NVIDIA-A100-SXM4-40GB", 40960, True),
        GpuProduct("NVIDIA-A100-SXM4-80GB", 81920, True),
        GpuProduct("NVIDIA-A100-PCIE-40GB", 40960, None),
        GpuProduct("NVIDIA-A100-80GB-PCIe", 81920, None),
        GpuProduct("NVIDIA-H100-80GB-HBM3", 81559, True),
        GpuProduct("NVIDIA-H100-PCIe", 81559, None),
        GpuProduct("NVIDIA-H200", 143771, True),
        GpuProduct("NVIDIA-B200", 183359, True),
        GpuProduct("Tesla-V100-SXM2-16GB", 16160, True),
        GpuProduct("Tesla-V100-PCIE-16GB", 16160, None),
    )
}
# Other spellings of the same products (label values of other node labels, cloud names).
_ALIASES = {
    "NVIDIA-T4": "Tesla-T4",
    "NVIDIA-TESLA-T4": "Tesla-T4",
    "T4": "Tesla-T4",
    "NVIDIA-L4": "NVIDIA-L4",
    "L4": "NVIDIA-L4",
    "L40S": "NVIDIA-L40S",
    "A10G": "NVIDIA-A10G",
    "A10": "NVIDIA-A10",
    "NVIDIA-TESLA-A100": "NVIDIA-A100-SXM4-40GB",
    "NVIDIA-A100-80GB": "NVIDIA-A100-SXM4-80GB",
    "NVIDIA-H100-80GB": "NVIDIA-H100-80GB-HBM3",
    "NVIDIA-H100-MEGA-80GB": "NVIDIA-H100-80GB-HBM3",
    "H100": "NVIDIA-H100-80GB-HBM3",
    "NVIDIA-H100": "NVIDIA-H100-80GB-HBM3",
    "NVIDIA-H100-SXM5-80GB": "NVIDIA-H100-80GB-HBM3",
    "NVIDIA-H200-141GB": "NVIDIA-H200",
    "H200": "NVIDIA-H200",
    "B200": "NVIDIA-B200",
    "NVIDIA-TESLA-V100": "Tesla-V100-SXM2-16GB",
    "V100": "Tesla-V100-SXM2-16GB",
}
_BY_UPPER = {name.upper(): name for name in _PRODUCTS} | {k.upper(): v for k, v in _ALIASES.items()}
# Node labels that name the GPU product (GPU feature discovery, GKE, Karpenter on AWS).
PRODUCT_LABELS = (
    "nvidia.com/gpu.product",
    "cloud.google.com/gke-accelerator",
    "karpenter.k8s.aws/instance-gpu-name",
)
_GPU_RESOURCE = re.compile(r"^(nvidia\.com/(gpu|mig-.+)|amd\.com/gpu|gpu\.intel\.com/.+)$")
_MIG = re.compile(r"^nvidia\.com/mig-(\d+)g\.(\d+)gb$")


def product(name: str) -> GpuProduct | None:
    key = re.sub(r"[\s_]+", "-", name.strip()).upper()
    key = re.sub(r"-SHARED$", "", key)
    canonical = _BY_UPPER.get(key)
    return _PRODUCTS.get(canonical) if canonical else None


def is_gpu_resource(name: str) -> bool:
    return bool(_GPU_RESOURCE.match(name))


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
        mig = mig_memory_bytes(resource)
        if mig is not None:
            out["mig"] = True
            out["memory_bytes"] = mig
    candidates = product_candidates(pod_spec)
    if candidates:
        out["candidates"] = candidates
    known = [p for p in (product(c) for c in candidates) if p is not None]
    chosen = known[0] if len(candidates) == 1 and known else None
    if chosen is None and not candidates and settings.gpu_product:
        chosen = product(settings.gpu_product)
        out["product_source"] = "settings"
    if chosen is not None:
        out["product"] = chosen.name
        out.setdefault("product_source", "manifest")
        if "memory_bytes" not in out:
            out["memory_bytes"] = chosen.memory_mib * MIB
        if chosen.peer_to_peer is not None:
            out["peer_to_peer"] = chosen.peer_to_peer
    elif len({p.memory_mib for p in known}) == 1 and len(known) == len(candidates) and known:
        out.setdefault("memory_bytes", known[0].memory_mib * MIB)
        p2p = {p.peer_to_peer for p in known}
        if len(p2p) == 1 and None not in p2p:
            out["peer_to_peer"] = p2p.pop()
    if "memory_bytes" not in out and settings.gpu_memory_bytes:
        out["memory_bytes"] = settings.gpu_memory_bytes
        out["memory_source"] = "settings"
    return out


def product_candidates(pod_spec: Mapping[str, Any]) -> list[str]:
    """GPU products the pod may land on, from its node selector and required affinity."""
    found: list[str] = []
    selector = pod_spec.get("nodeSelector")
    if isinstance(selector, Mapping):
        found.extend(
            selector[label] for label in PRODUCT_LABELS if isinstance(selector.get(label), str)
        )
    for expression in _required_expressions(pod_spec.get("affinity")):
        if expression.get("key") in PRODUCT_LABELS and expression.get("operator") == "In":
            values = expression.get("values")
            if isinstance(values, list):
                found.extend(str(v) for v in values)
    return list(dict.fromkeys(found))


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
