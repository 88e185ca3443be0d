"""Lint many inputs with worker processes, one per core (``benchmarks/bulk.py``).

Reading, parsing, the serving model and policy evaluation are done file by file, and
CEL and the model are CPU-bound Python, so threads would queue on the interpreter lock;
processes forked after the policies are loaded share them without pickling. Only what
is per file runs in the workers: each reads its share of the input files, builds their
subject providers (``evaluate/providers.py``) and calls the engine once over them. The
calling process gets their conclusions as one provider (``InWorkers``) and does the
rest of the run (``run/pipeline.py``): the merge, the redaction of secrets, sorting and
everything that looks across files (suppressions, baseline), so the output is the one a
single process writes.

Used only when it pays and cannot change a result: enough inputs, none of them standard
input, more than one core, the built-in policies alone (a user policy may be stopped for
its evaluation budget, and "stopped for the rest of the run" must mean the whole run),
and no chart context (a chart's findings may sit in another file than the one linted).
A GitOps wrapper (``linter/gitops/``) is read in the worker that reads its file: it
finds its chart and ConfigMaps on disk itself; its environment's summary line is the one
thing a worker does not report.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from linter.coverage.model import combine
from linter.evaluate.inputs import read_inputs
from linter.evaluate.providers import file_providers
from linter.evaluate.subjects import Batch, Contribution, evaluate
from linter.findings import Finding
from linter.lightclass import frozen
from linter.model.engine.settings import ModelSettings
from linter.parsing.documents import Limits, ParsedFile
from linter.policy.model import Policy
from linter.sources.files import Input
from linter.sources.wrappers import any_wrapper, is_kustomization

MIN_FILES = 48  # below this, forking and merging cost more than a second core saves
CHUNK = 16  # inputs per task: small enough to balance the workers, large enough to batch
MAX_WORKERS = 8


@frozen
class InWorkers:
    """The input files' subjects, already evaluated by the workers: a provider with
    nothing left for the engine of the calling process."""

    contribution: Contribution

    def batches(self) -> Sequence[Batch]:
        return []

    def conclude(self, found: Sequence[list[Finding]]) -> Contribution:
        return self.contribution

    def summary(self, findings: Sequence[Finding]) -> list[str]:
        return []


def workers_for(policies: Sequence[Policy], inputs: Sequence[Input], has_context: bool) -> int:
    """How many worker processes to use; 0 means lint in this process."""
    if has_context or len(inputs) < MIN_FILES or not all(p.builtin for p in policies):
        return 0
    if any(i.path is None for i in inputs):
        return 0  # standard input: a worker process has /dev/null there
    import multiprocessing  # only now: a pre-commit run of a few files never needs it

    if (
        multiprocessing.get_start_method(allow_none=True) not in (None, "fork")
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return 0  # the policies reach the workers by fork, never by pickling
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    return min(cores, MAX_WORKERS, len(inputs) // (MIN_FILES // 2)) if cores > 1 else 0


# Set in the parent just before forking; the workers read it from their copy.
_JOB: tuple[Sequence[Policy], Limits, ModelSettings] | None = None


def collect(
    policies: Sequence[Policy],
    inputs: Sequence[Input],
    limits: Limits,
    settings: ModelSettings,
    workers: int,
) -> InWorkers:
    """Every input linted by ``workers`` processes, merged in input order."""
    import gc
    import multiprocessing

    global _JOB
    chunks = [list(inputs[i : i + CHUNK]) for i in range(0, len(inputs), CHUNK)]
    _JOB = (policies, limits, settings)
    # What the workers inherit (modules, policies) is frozen out of the collector's sight
    # before the fork, as the gc module's documentation advises: their full collections
    # then walk only what they built themselves, and leave the inherited pages shared.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_lint_chunk, chunks, chunksize=1)
    finally:
        gc.unfreeze()
        _JOB = None
    return InWorkers(
        Contribution(
            tuple(f for part in parts for f in part.findings),
            tuple(n for part in parts for n in part.notes),
            coverage=combine([part.coverage for part in parts]),
            linted=tuple(p for part in parts for p in part.linted),
            secrets=frozenset(v for part in parts for v in part.secrets),
            read_failures=sum(part.read_failures for part in parts),
        )
    )


def _lint_chunk(inputs: list[Input]) -> Contribution:
    """One worker's share of the run: its files' providers and one engine call."""
    assert _JOB is not None
    policies, limits, settings = _JOB
    parsed, failures = read_inputs(inputs, limits)
    providers = file_providers(policies, parsed, failures, settings=settings, builtin_checks=True)
    if any_wrapper(d.data for p in parsed for d in p.documents):
        from linter.gitops.provider import GitOpsReleases  # a wrapper reads its own context

        providers.append(GitOpsReleases(policies, parsed, settings, limits))
    if any(is_kustomization(p.source) for p in parsed):
        from linter.gitops.kustomize_releases import KustomizeReleases  # a build reads its own

        providers.append(KustomizeReleases(policies, parsed, settings, limits))
    documents, workloads, *wrapped = evaluate(policies, providers)
    return Contribution(
        (*documents.findings, *workloads.findings, *(f for w in wrapped for f in w.findings)),
        tuple(n for w in wrapped for n in w.notes),
        coverage=combine([documents.coverage, workloads.coverage, *(w.coverage for w in wrapped)]),
        linted=tuple(_for_governance(p) for p in parsed),
        secrets=documents.secrets.union(*(w.secrets for w in wrapped)),
        read_failures=documents.read_failures,
    )


def _for_governance(parsed: ParsedFile) -> ParsedFile:
    """What the calling process still needs of a file: its name, and its text and
    documents only when it may hold a suppression (``suppress.collect`` skips the rest
    the same way), so that a thousand parsed files are not sent back."""
    if "servelint" in parsed.text:
        return parsed
    return ParsedFile(parsed.source, "", [], [])
