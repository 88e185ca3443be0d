"""Where each GPU fact of a workload was read from: the count and resource at the GPU
request or limit, the product and its catalogue figures at the node label that names it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.model.facts import gpus
from linter.model.records.located import Located, value_of
from linter.model.records.paths import Locate, lookup
from linter.model.records.pod import ContainerView
from linter.model.records.records import Gpu
from linter.positions import Origin, PathT

# GPU facts read from the node's product (the catalogue's entry for it).
_PRODUCT_FACTS = ("product", "candidates", "memory_bytes", "peer_to_peer", "interconnect")


def locate_gpu(spec: Mapping[str, Any], view: ContainerView, locate: Locate, gpu: Gpu) -> None:
    """Each ``gpu`` fact at what it was read from: the count and resource at the GPU
    request or limit, the product and its catalogue figures at the node label that names
    it (a ``nodeSelector`` key; a required node affinity at its expression)."""

    def place(field: str, origin: Origin | None) -> None:
        current = getattr(gpu, field)
        if origin is not None and current is not None:
            setattr(gpu, field, Located(current.value, origin))

    resource = value_of(gpu.resource)
    if isinstance(resource, str):
        resources = view.spec.get("resources")
        at = {
            section: locate((*view.path, "resources", section, resource))
            for section in ("limits", "requests")
            if isinstance(resources, Mapping)
            and isinstance(resources.get(section), Mapping)
            and resource in resources[section]
        }
        first = at.get("limits") or at.get("requests")
        for field, origin in (
            ("resource", first),
            ("count", first),
            ("limits", at.get("limits")),
            ("requests", at.get("requests")),
            ("mig", first),
            ("memory_bytes", first if value_of(gpu.mig) else None),
            ("platform", first),
            ("cores", first),
        ):
            place(field, origin)
    if gpu.slice_chips is not None:
        topology_at = _label_origin(spec, gpus.TPU_TOPOLOGY_LABEL, locate)
        place("topology", topology_at)
        place("slice_chips", topology_at)
    if (value_of(gpu.product_source) or "manifest") != "manifest" or gpu.candidates is None:
        return
    labelled = gpus.node_label_values(spec)
    origin = _label_origin(spec, labelled[0][0] if labelled else "", locate)
    for field in (*_PRODUCT_FACTS, "product_source"):
        if not (field == "memory_bytes" and value_of(gpu.mig)):
            place(field, origin)


def _label_origin(spec: Mapping[str, Any], label: str, locate: Locate) -> Origin:
    """A ``nodeSelector`` key, else the required node-affinity expression on ``label``."""
    selector = spec.get("nodeSelector")
    if isinstance(selector, Mapping) and label in selector:
        return locate(("nodeSelector", label))
    return _affinity_origin(spec, label, locate)


def _affinity_origin(spec: Mapping[str, Any], label: str, locate: Locate) -> Origin:
    """The required node-affinity expression on ``label``."""
    base: PathT = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms = lookup(spec, (*base, "nodeSelectorTerms"))
    for t, term in enumerate(terms if isinstance(terms, list) else []):
        expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
        for e, expression in enumerate(expressions if isinstance(expressions, list) else []):
            if isinstance(expression, Mapping) and expression.get("key") == label:
                return locate((*base, "nodeSelectorTerms", t, "matchExpressions", e))
    return locate(("affinity",))
