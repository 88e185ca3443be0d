"""The extractors registered in ``EXTRACTORS``: Kubernetes objects and Helm-values-like
documents of the parsed inputs. (Triton model configurations have their own extractor.)"""

from __future__ import annotations

from collections.abc import Sequence

from linter.model.engine.settings import ModelSettings
from linter.model.frontends.values import triton_vllm_engine_args, workloads_from_values
from linter.model.frontends.values_sections import looks_like_values
from linter.model.records.paths import document_locate
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, ParsedFile
from linter.sources.wrappers import wrapper_kind


def _is_object(document: Document) -> bool:
    data = document.data
    return (
        isinstance(data, dict)
        and isinstance(data.get("kind"), str)
        and isinstance(data.get("apiVersion"), str)
    )


def extract_manifests(files: Sequence[ParsedFile], settings: ModelSettings) -> list[Workload]:
    objects = [
        (parsed, document)
        for parsed in files
        for document in parsed.documents
        if document.fmt in ("yaml", "json")
        and _is_object(document)
        # A chart's wrapper is read as a release of its chart (linter/gitops/), not as a pod.
        and wrapper_kind(document.data) is None
    ]
    if not objects:
        return []
    # The Kubernetes objects' modules (custom resources, platform defaults): with objects.
    from linter.model.frontends.manifests import workloads_from_manifest

    return [
        workload
        for parsed, document in objects
        for workload in workloads_from_manifest(
            document, settings, parsed.text, companions=parsed.documents
        )
    ]


def extract_values(files: Sequence[ParsedFile], settings: ModelSettings) -> list[Workload]:
    from linter.triton.detect import is_model_config_json

    out: list[Workload] = []
    for parsed in files:
        for document in parsed.documents:
            if document.fmt not in ("yaml", "json") or _is_object(document):
                continue
            if document.fmt == "json" and is_model_config_json(document.data):
                continue
            engine_args = triton_vllm_engine_args(document.data, document.source)
            if not engine_args and not looks_like_values(document.data, document.source, settings):
                continue
            suffix = f"#{document.index}" if document.index else ""
            out.extend(
                workloads_from_values(
                    document.data,
                    document_locate(document),
                    f"file:{document.source}{suffix}",
                    settings,
                    "vllm" if engine_args else "",
                )
            )
    return out
