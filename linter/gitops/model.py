"""What a wrapper says about the release it makes: the chart and the values layers."""

from __future__ import annotations

from linter.findings import Finding
from linter.lightclass import frozen
from linter.parsing.documents import Document


@frozen
class Layer:
    """One source of values: ``label`` names it in notes (``deploy/hr.yaml spec.values``)."""

    label: str
    document: Document


@frozen
class ChartSource:
    """Where the chart is: a folder of this repository, a chart profile, or neither."""

    words: str  # "chart charts/vllm (GitRepository flux-system)", for notes and show
    directory: str | None = None
    profile: str | None = None
    chart: str = ""  # the chart's name, when the wrapper says it
    version: str = ""
    # Why no profile reads it although one names the chart: its version is in no range.
    uncovered: str = ""
    # The chart was taken from a name alone (an OCIRepository not in this repository).
    by_name: bool = False


@frozen
class WrappedRelease:
    """One release a wrapper makes of a chart."""

    kind: str  # HelmRelease, Application, ApplicationSet
    name: str
    source: str
    line: int
    doc_index: int
    chart: ChartSource
    layers: tuple[Layer, ...]  # in Helm's order: later layers win
    findings: tuple[Finding, ...] = ()  # values Helm could not read
    notes: tuple[str, ...] = ()
    secrets: frozenset[str] = frozenset()  # values read from Secrets: never printed
    reads: tuple[str, ...] = ()  # the other files its values come from
    release_name: str = ""  # Argo CD helm.releaseName
    # Flux ``spec.postRenderers[].kustomize``, each as a document on the release's lines.
    post_renderers: tuple[Document, ...] = ()

    @property
    def title(self) -> str:
        return f"{self.kind} {self.name}"

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"
