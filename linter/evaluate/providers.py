"""The subject providers of files read as they are: every document as written, and the
workloads the files describe on their own (``subjects.py`` for the protocol).

A run's input files go through both; so do the manifests a chart renders
(``helm/release.py``). A values file linted in its chart's context is *claimed* by that
context (``helm/context.py``): its documents are still linted as written here, but its
workloads come from the chart's merged values, so they are not extracted again.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from linter.coverage import gaps
from linter.coverage.model import Coverage, NotUnderstood
from linter.coverage.unrecognised import not_understood
from linter.evaluate.subjects import Batch, Contribution, SubjectProvider
from linter.findings import Finding
from linter.lightclass import mutable
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.model.frontends.extract import extract_workloads
from linter.model.records.located import value_of
from linter.model.records.workload import Workload
from linter.parsing.documents import ParsedFile
from linter.policy.model import Policy
from linter.secrets import checks, redact


@mutable
class FileDocuments:
    """Every document of ``parsed`` as written, with what was found without the engine:
    files that could not be read, syntax problems, and (``builtin_checks``) committed
    secrets."""

    parsed: Sequence[ParsedFile]
    failures: Sequence[Finding] = ()
    builtin_checks: bool = False

    def batches(self) -> Sequence[Batch]:
        return [Batch(documents=tuple(d for f in self.parsed for d in f.documents))]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        findings: list[Finding] = list(self.failures)
        for parsed_file in self.parsed:
            findings.extend(parsed_file.problems)
        secrets_found = redact.scan(self.parsed)
        if self.builtin_checks:
            findings.extend(checks.run(secrets_found))
        findings.extend(found[0])
        return Contribution(
            tuple(findings),
            # An input that could not be read is one of the run's files too (README:
            # every count of files in a report counts these, result.py ``merged``).
            coverage=Coverage((*(f.source for f in self.parsed), *(f.file for f in self.failures))),
            linted=tuple(self.parsed),
            secrets=redact.values(secrets_found),
            read_failures=len(self.failures),
        )

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return []


@mutable
class StandaloneWorkloads:
    """The workloads of the serving model in ``parsed`` read alone (not ``claimed`` by a
    chart context), and the inference documents in them it could not read."""

    parsed: Sequence[ParsedFile]
    policies: Sequence[Policy]
    settings: ModelSettings = DEFAULT_SETTINGS
    claimed: Collection[str] = frozenset()

    def __post_init__(self) -> None:
        self._policies = [p for p in self.policies if p.target == "workload"]
        self._standalone = [f for f in self.parsed if f.source not in self.claimed]
        self.workloads: list[Workload] = []
        # Without workload policies the model is not built: nothing would look at it.
        if self._policies:
            self.workloads = extract_workloads(self._standalone, self.settings)

    def batches(self) -> Sequence[Batch]:
        return [Batch(workloads=tuple(self.workloads))]

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        if not self._policies:
            return Contribution()
        coverage = Coverage(
            (),
            tuple(gaps.entry(w, self._policies) for w in self.workloads),
            tuple(self.not_understood()),
        )
        return Contribution(tuple(found[0]), coverage=coverage)

    def not_understood(self) -> list[NotUnderstood]:
        """Documents that name an inference server and gave no workload of a known server
        (a pod read only for its accelerator request does not say the server was read)."""
        recognised = {
            (w.anchor.source, w.anchor.doc_index) for w in self.workloads if _has_server(w)
        }
        return not_understood(self._standalone, recognised)

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return []


def file_providers(
    policies: Sequence[Policy],
    parsed: Sequence[ParsedFile],
    failures: Sequence[Finding] = (),
    *,
    settings: ModelSettings = DEFAULT_SETTINGS,
    builtin_checks: bool = False,
    claimed: Collection[str] = frozenset(),
) -> list[SubjectProvider]:
    """The providers of files read as they are: documents, then standalone workloads."""
    return [
        FileDocuments(parsed, failures, builtin_checks),
        StandaloneWorkloads(parsed, policies, settings, claimed),
    ]


def _has_server(workload: Workload) -> bool:
    engine = workload.record.engine
    return engine is not None and value_of(engine.value.name) is not None
