"""OME (ome.io/v1beta1): ``ClusterServingRuntime``, ``ServingRuntime`` and
``InferenceService`` as the pods the operator creates.

Read from OME at v0.1.5-18 (https://github.com/sgl-project/ome, commit 17b77eda):

- A runtime's ``spec.engineConfig`` and ``spec.decoderConfig`` (``EngineSpec``,
  ``DecoderSpec`` in ``pkg/apis/ome/v1beta1/inference_service.go`` L138-L206) are pod specs
  written inline whose server container is ``runner`` (a ``RunnerSpec``: a container,
  L270); multinode serving puts a ``leader`` (pod spec and ``runner``) and a ``worker``
  (pod spec, ``size`` and ``runner``) beside them (L215-L248). An InferenceService's
  ``spec.engine`` and ``spec.decoder`` have the same shape. ``routerConfig``/``router``
  runs the request router, not a server, and is not read.
- The operator sets ``MODEL_PATH`` to the base model's storage path when the container
  does not set it (``pkg/controller/v1beta1/inferenceservice/components/base.go``
  ``UpdateEnvVariables`` L139-L146), so ``--model-path $(MODEL_PATH)`` names the model the
  InferenceService's ``spec.model`` refers to: a ``BaseModel``/``ClusterBaseModel``'s
  ``spec.storage.path``, which may be in another file. The runtime's ``runner`` is merged
  under an InferenceService's own; an InferenceService whose runner names no image is
  completed from a runtime chosen at admission and is left to coverage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.build import Meta, build_workloads
from linter.model.frontends.synthetic import SyntheticPod
from linter.model.records.paths import Locate
from linter.model.records.workload import Workload
from linter.positions import PathT

# Keys of a component that are not pod-spec fields (ComponentExtensionSpec and the parts).
_NOT_POD = frozenset(
    {
        "runner",
        "leader",
        "worker",
        "size",
        "minReplicas",
        "maxReplicas",
        "scaleTarget",
        "scaleMetric",
        "containerConcurrency",
        "timeout",
        "canaryTrafficPercent",
        "annotations",
        "labels",
        "deploymentStrategy",
        "kedaConfig",
        "acceleratorOverride",
    }
)
_RUNTIME_PARTS = (("engineConfig", "engine"), ("decoderConfig", "decoder"))
_SERVICE_PARTS = (("engine", "engine"), ("decoder", "decoder"))


def ome_workloads(
    data: Mapping[str, Any], locate: Locate, meta: Meta, settings: ModelSettings
) -> list[Workload]:
    spec = data.get("spec")
    if not isinstance(spec, Mapping):
        return []
    parts = _SERVICE_PARTS if data.get("kind") == "InferenceService" else _RUNTIME_PARTS
    out: list[Workload] = []
    for key, role in parts:
        component = spec.get(key)
        if isinstance(component, Mapping):
            out += _component(component, ("spec", key), role, locate, meta, settings)
    return out


def _component(
    component: Mapping[str, Any],
    where: PathT,
    role: str,
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
) -> list[Workload]:
    replicas = component.get("minReplicas")
    counted = isinstance(replicas, int) and not isinstance(replicas, bool)
    base = dataclasses.replace(
        meta,
        replicas=replicas if counted else None,
        replicas_origin=locate((*where, "minReplicas")) if counted else None,
    )
    leader, worker = component.get("leader"), component.get("worker")
    if isinstance(leader, Mapping) or isinstance(worker, Mapping):
        out: list[Workload] = []
        for name, part in (("leader", leader), ("worker", worker)):
            if isinstance(part, Mapping):
                out += _pod(
                    component, part, (*where, name), f"{role}-{name}", locate, base, settings
                )
        return out
    return _pod(component, None, where, role, locate, base, settings)


def _pod(
    component: Mapping[str, Any],
    part: Mapping[str, Any] | None,
    where: PathT,
    role: str,
    locate: Locate,
    meta: Meta,
    settings: ModelSettings,
) -> list[Workload]:
    """One pod: the component's pod-spec fields, a leader's or worker's over them, and the
    ``runner`` as its container."""
    holder = part if part is not None else component
    runner = holder.get("runner")
    if not isinstance(runner, Mapping) or not runner.get("image"):
        return []  # completed from a runtime chosen at admission: not in this file
    component_at: PathT = where[:-1] if part is not None else where
    pod = SyntheticPod(locate(where))
    for source, at in ((component, component_at), (part or {}, where)):
        for key, value in source.items():
            if key not in _NOT_POD:
                pod.put_tree((key,), value, locate, (*at, key))
    pod.put_tree(("containers", 0), dict(runner), locate, (*where, "runner"))
    completed = dataclasses.replace(
        meta,
        id=f"{meta.id}/{role}",
        role=role,
        multi_node=part is not None,
    )
    return build_workloads(pod.spec, pod.locate, completed, settings)
