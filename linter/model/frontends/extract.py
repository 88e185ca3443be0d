"""Find inference workloads in parsed inputs. Extractors are registered in EXTRACTORS."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.frontends.inputs import extract_manifests, extract_values
from linter.model.records.exposure import link_exposure
from linter.model.records.workload import Workload
from linter.parsing.documents import ParsedFile

Extractor = Callable[[Sequence[ParsedFile], ModelSettings], list[Workload]]


def extract_triton(files: Sequence[ParsedFile], settings: ModelSettings) -> list[Workload]:
    """Triton model configurations; the Triton modules load only when a run has one."""
    if not any(d.fmt in ("pbtxt", "json") for f in files for d in f.documents):
        return []
    from linter.model.frontends.triton_models import extract_triton as extract

    return extract(files, settings)


# Filled by the serving-model extractors (Kubernetes objects, Helm values, Triton configs).
EXTRACTORS: list[Extractor] = [extract_manifests, extract_values, extract_triton]


def extract_workloads(
    files: Sequence[ParsedFile], settings: ModelSettings = DEFAULT_SETTINGS
) -> list[Workload]:
    workloads: list[Workload] = []
    for extractor in EXTRACTORS:
        workloads.extend(extractor(files, settings))
    # Services and routes that reach each workload's pods, from the same files.
    link_exposure(files, workloads)
    return workloads
