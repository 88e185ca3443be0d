"""Subject providers and the one call of the policy engine over all of their subjects.

A *subject* is what a policy looks at: a document as written, or a workload of the
serving model. A *provider* turns one kind of input into subjects: the input files
(``providers.py``: their documents, and the workloads they hold alone), a chart's values
files linted in the chart's context (``helm/context.py``), the releases of ``lint
--chart`` with their rendered manifests (``helm/chart.py``). It hands them over in
``Batch``es, the subjects whose findings it handles together (one environment's
workloads, one release's rendered files), and after the engine ran it gets back the
findings of each batch and concludes: places rendered findings on the values line that
caused them, merges the environments, adds what it found without the engine (syntax,
unreadable files, values that cannot be merged). It never calls the engine itself, and
nothing here calls back up into the run (``run/pipeline.py``), which applies redaction
and governance to what the providers concluded, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from linter.coverage.model import NO_COVERAGE, Coverage
from linter.findings import Finding
from linter.lightclass import frozen
from linter.model.records.workload import Workload
from linter.parsing.documents import Document, ParsedFile
from linter.policy import engine
from linter.policy.model import Policy


@frozen
class Batch:
    """Subjects whose findings go back to their provider together."""

    documents: tuple[Document, ...] = ()
    workloads: tuple[Workload, ...] = ()


@frozen
class Contribution:
    """What a provider concluded, before redaction and governance."""

    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    coverage: Coverage = NO_COVERAGE
    # Files the run checked: governance judges their suppression comments and baseline
    # entries. In worker processes only what governance needs of them comes back
    # (``run/parallel.py``).
    linted: tuple[ParsedFile, ...] = ()
    # Files read only to lint others (a chart's values.yaml): their suppression comments
    # cover findings in them, but are not judged there.
    context: tuple[ParsedFile, ...] = ()
    # Literal secret values found in what was read; scrubbed from every report.
    secrets: frozenset[str] = frozenset()
    read_failures: int = 0


class SubjectProvider(Protocol):
    """One kind of input, as subjects for the engine and a conclusion on their findings."""

    def batches(self) -> Sequence[Batch]:
        """The subjects, grouped as ``conclude`` wants their findings back; the same
        batches each time it is asked (the number of batches splits the findings)."""
        ...

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        """``found``: the engine's findings of each batch, in the order of ``batches``."""
        ...

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        """Notes on the run's final findings (after governance): one per environment."""
        ...


T_co = TypeVar("T_co", covariant=True)


class Part(Protocol[T_co]):
    """Anything that hands over batches and concludes on their findings."""

    def batches(self) -> Sequence[Batch]: ...

    def conclude(self, found: Sequence[list[Finding]]) -> T_co: ...


def conclude_each(parts: Sequence[Part[T_co]], found: Sequence[list[Finding]]) -> list[T_co]:
    """Each part's conclusion on its own share of ``found`` (the findings of the batches
    of all ``parts``, in order): for providers made of providers."""
    out = []
    first = 0
    for part in parts:
        count = len(part.batches())
        out.append(part.conclude(found[first : first + count]))
        first += count
    return out


def evaluate(
    policies: Sequence[Policy], providers: Sequence[SubjectProvider]
) -> list[Contribution]:
    """Every provider's subjects evaluated by one call of the engine, and each provider's
    conclusion on its own findings, in the order of ``providers``."""
    groups = [list(provider.batches()) for provider in providers]
    subjects: list[engine.Subject] = []
    counts: list[int] = []  # subjects of each batch, in order
    for batch in (b for group in groups for b in group):
        subjects.extend(engine.document_subject(d) for d in batch.documents)
        subjects.extend(engine.workload_subject(w) for w in batch.workloads)
        counts.append(len(batch.documents) + len(batch.workloads))
    # No subjects, no call: with repository policies a call forks the sandbox.
    each = engine.evaluate_each(policies, subjects) if subjects else []
    per_batch: list[list[Finding]] = []
    first = 0
    for count in counts:
        per_batch.append([f for found in each[first : first + count] for f in found])
        first += count
    contributions = []
    first = 0
    for provider, group in zip(providers, groups, strict=True):
        contributions.append(provider.conclude(per_batch[first : first + len(group)]))
        first += len(group)
    return contributions
