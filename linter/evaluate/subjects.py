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

import dataclasses
from collections.abc import Sequence
from typing import Protocol, TypeVar

from linter.coverage.model import NO_COVERAGE, Coverage
from linter.findings import Finding
from linter.model.workload import Origin, Workload
from linter.parsing.documents import Document, ParsedFile
from linter.policy import engine
from linter.policy.model import Policy
from linter.positions import PathT


@dataclasses.dataclass(frozen=True)
class Batch:
    """Subjects whose findings go back to their provider together."""

    documents: tuple[Document, ...] = ()
    workloads: tuple[Workload, ...] = ()


@dataclasses.dataclass(frozen=True)
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
    files_checked: int = 0
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
    for number, batch in enumerate(b for group in groups for b in group):
        subjects.extend(_owned(engine.document_subject(d), number) for d in batch.documents)
        subjects.extend(_owned(engine.workload_subject(w), number) for w in batch.workloads)
    # No subjects, no call: with repository policies a call forks the sandbox.
    routed = _route(engine.evaluate(policies, subjects) if subjects else [])
    contributions = []
    first = 0
    for provider, group in zip(providers, groups, strict=True):
        found = [routed.get(number, []) for number in range(first, first + len(group))]
        contributions.append(provider.conclude(found))
        first += len(group)
    return contributions


# The engine returns one flat list of findings; each finding is taken back to its batch
# by the file its subject's ``locate`` gave it, marked with the batch's number here and
# unmarked in ``_route``. The mark travels in the finding itself, so it also survives
# the sandbox process that evaluates repository policies (``policy/sandbox.py``).
_MARK = "\x00batch:"


def _owned(subject: engine.Subject, number: int) -> engine.Subject:
    locate = subject.locate

    def marked(path: PathT) -> Origin:
        origin = locate(path)
        return origin._replace(source=f"{_MARK}{number}\x00{origin.source}")

    return dataclasses.replace(subject, locate=marked)


def _route(findings: Sequence[Finding]) -> dict[int, list[Finding]]:
    routed: dict[int, list[Finding]] = {}
    for finding in findings:
        number, _, source = finding.file.removeprefix(_MARK).partition("\x00")
        if not finding.file.startswith(_MARK) or not number.isdigit():
            raise AssertionError(f"a finding of the engine without its subject: {finding}")
        routed.setdefault(int(number), []).append(dataclasses.replace(finding, file=source))
    return routed
