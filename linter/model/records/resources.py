"""Container resources normalised, and the pod QoS class computed as the kubelet does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from linter.model.facts import quantities as q

_COMPUTE = ("cpu", "memory")


def normalise(resources: object) -> dict[str, Any]:
    """``requests``/``limits`` with cpu in cores, memory in bytes, others as numbers.

    Unreadable quantities are listed under ``invalid`` instead of being guessed.
    """
    out: dict[str, Any] = {}
    if not isinstance(resources, Mapping):
        return out
    invalid: list[dict[str, Any]] = []
    for section in ("requests", "limits"):
        values = resources.get(section)
        if not isinstance(values, Mapping):
            continue
        normalised: dict[str, Any] = {}
        for name, raw in values.items():
            value = _value(str(name), raw)
            if value is None:
                invalid.append({"section": section, "name": str(name), "value": _text(raw)})
            else:
                normalised[str(name)] = value
        out[section] = normalised
    if invalid:
        out["invalid"] = invalid
    return out


def _value(name: str, raw: object) -> int | float | None:
    if name == "cpu":
        return q.cpu_cores(raw)
    if name == "memory" or name == "ephemeral-storage" or name.startswith("hugepages-"):
        return q.memory_bytes(raw)
    quantity = q.parse_quantity(raw)
    return None if quantity is None else q.plain_number(quantity)


def _text(raw: object) -> str:
    return "" if raw is None else str(raw)


def _decimals(resources: object, section: str) -> dict[str, Decimal]:
    if not isinstance(resources, Mapping):
        return {}
    values = resources.get(section)
    if not isinstance(values, Mapping):
        return {}
    out: dict[str, Decimal] = {}
    for name in _COMPUTE:
        quantity = q.parse_quantity(values.get(name))
        if quantity is not None:
            out[name] = quantity
    return out


def effective_requests(resources: object) -> dict[str, Decimal]:
    """Requests after API defaulting: a missing request takes the limit's value."""
    limits = _decimals(resources, "limits")
    requests = _decimals(resources, "requests")
    return {**limits, **requests}


def qos_class(containers: Sequence[object], pod_resources: object = None) -> str:
    """Port of kubernetes/kubernetes:pkg/apis/core/v1/helper/qos/qos.go ``ComputePodQOS``.

    Sums cpu/memory requests and limits over init and regular containers (only values
    above zero count); Guaranteed needs cpu and memory limits in every container and the
    summed requests equal to the summed limits. Pod-level ``spec.resources`` (the
    PodLevelResources feature, beta and on by default from 1.34) replaces the containers.
    """
    sources: Sequence[object] = containers
    if isinstance(pod_resources, Mapping) and pod_resources:
        sources = [pod_resources]
    requests: dict[str, Decimal] = {}
    limits: dict[str, Decimal] = {}
    guaranteed = True
    for resources in sources:
        for name, value in effective_requests(resources).items():
            if value > 0:
                requests[name] = requests.get(name, Decimal(0)) + value
        found = set()
        for name, value in _decimals(resources, "limits").items():
            if value > 0:
                found.add(name)
                limits[name] = limits.get(name, Decimal(0)) + value
        if not found.issuperset(_COMPUTE):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if (
        guaranteed
        and all(limits.get(name) == value for name, value in requests.items())
        and len(requests) == len(limits)
    ):
        return "Guaranteed"
    return "Burstable"
