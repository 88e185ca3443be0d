"""The lint run: subject providers → the policy engine, once → redaction → governance.

``providers_for`` says where a run's subjects come from (``evaluate/subjects.py``): the
input files as written and their standalone workloads (``evaluate/providers.py``; in
worker processes when ``parallel.py`` says it pays), the chart context of values files
among them (``helm/context.py``) and the releases of ``lint --chart``
(``helm/release.py``). ``run`` evaluates all their subjects with one call of the engine,
lets each provider conclude on its own findings, scrubs secrets from the merged result
and applies governance (rules switched off, suppressions, the baseline, severities:
``governance.py``) and ``--write-baseline`` once, to everything together. The providers
never call back into the run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from linter.evaluate.inputs import read_inputs
from linter.evaluate.providers import file_providers
from linter.evaluate.result import RunResult, merged
from linter.evaluate.subjects import Contribution, SubjectProvider, evaluate
from linter.findings import Finding
from linter.model.engine.settings import DEFAULT_SETTINGS, ModelSettings
from linter.parsing.documents import DEFAULT_LIMITS, Limits, ParsedFile
from linter.policy.model import Policy
from linter.run import parallel
from linter.sources.files import Input
from linter.sources.wrappers import any_wrapper, is_kustomization

if TYPE_CHECKING:
    from linter.helm.chart import ChartRequest
    from linter.helm.context import ChartContext
    from linter.run.governance import Governance


def providers_for(
    policies: Sequence[Policy],
    inputs: Sequence[Input],
    limits: Limits = DEFAULT_LIMITS,
    settings: ModelSettings = DEFAULT_SETTINGS,
    *,
    context: ChartContext | None = None,
    chart: ChartRequest | None = None,
) -> list[SubjectProvider]:
    """The providers of a run, in the order their coverage and notes are reported."""
    providers: list[SubjectProvider]
    workers = parallel.workers_for(policies, inputs, context is not None)
    if workers:
        providers = [parallel.collect(policies, inputs, limits, settings, workers)]
    else:
        parsed, failures = read_inputs(inputs, limits)
        in_context = (
            None if context is None else context.provider(policies, parsed, settings, limits)
        )
        providers = file_providers(
            policies,
            parsed,
            failures,
            settings=settings,
            builtin_checks=any(p.builtin for p in policies),
            claimed=frozenset() if in_context is None else in_context.claimed,
        )
        if in_context is not None:
            providers.append(in_context)
        if any_wrapper(d.data for p in parsed for d in p.documents):
            from linter.gitops.provider import GitOpsReleases  # only when a wrapper is linted

            providers.append(GitOpsReleases(policies, parsed, settings, limits))
        if any(is_kustomization(p.source) for p in parsed):
            from linter.gitops.kustomize_releases import KustomizeReleases  # only with one

            providers.append(KustomizeReleases(policies, parsed, settings, limits))
    if chart is not None:
        from linter.helm.release import ChartReleases  # helm only when a chart is linted

        providers.append(ChartReleases(policies, chart, settings, limits))
    return providers


def run(
    policies: Sequence[Policy],
    providers: Sequence[SubjectProvider],
    *,
    governance: Governance | None = None,
    write_baseline: Path | None = None,
    notes: Sequence[str] = (),
) -> RunResult:
    """One lint run over ``providers``; ``notes`` come first (the configuration's)."""
    contributions = _built_once(evaluate(policies, providers))
    result = dataclasses.replace(merged(policies, contributions), notes=[])
    if governance is not None:
        linted = _unique([p for c in contributions for p in c.linted])
        context = _unique([p for c in contributions for p in c.context])
        result = governance.apply(result, linted, context)
    findings, run_notes = result.findings, list(result.notes)
    if write_baseline is not None:
        linted_names = [p.source for c in contributions for p in c.linted]
        findings, written = _write_baseline(write_baseline, findings, linted_names)
        run_notes += written
    # Each provider's notes, then its summaries of the final findings; the run's own
    # notes (stale or written baseline) come before the last summaries, which end the list.
    out = list(notes)
    for number, (provider, contribution) in enumerate(zip(providers, contributions, strict=True)):
        out += contribution.notes
        if number == len(providers) - 1:
            out += run_notes
        out += provider.summary(findings)
    if not providers:
        out += run_notes
    return dataclasses.replace(result, findings=findings, notes=out)


def _built_once(contributions: list[Contribution]) -> list[Contribution]:
    """A resource file's finding once when a Kustomize build of it found it too: the
    build's copy, which names the environments (``Kustomization/FOLDER``) it occurs in,
    is kept, naming every environment any build found it in (worker processes build a
    base once per overlay they were given; findings equal but for those names are one
    finding to ``sort_findings``)."""
    names: dict[tuple[str, int, int, int, str, str, str], list[str]] = {}
    for c in contributions:
        for f in c.findings:
            envs = f.extra.get("environments", ())
            if any(str(n).startswith("Kustomization/") for n in envs):
                known = names.setdefault(f.sort_key(), [])
                known.extend(n for n in envs if n not in known)
    if not names:
        return contributions

    def one(f: Finding) -> Finding | None:
        known = names.get(f.sort_key())
        if known is None:
            return f
        own = f.extra.get("environments")
        if not own:
            return None
        merged = [*known, *(n for n in own if n not in known)]
        return dataclasses.replace(f, extra={**f.extra, "environments": merged})

    return [
        dataclasses.replace(
            c, findings=tuple(kept for f in c.findings if (kept := one(f)) is not None)
        )
        for c in contributions
    ]


def _unique(files: Sequence[ParsedFile]) -> list[ParsedFile]:
    """A file read by two providers (a values file given as input and with ``--chart``)
    once: its suppression comments are judged once."""
    seen: dict[str, ParsedFile] = {}
    for parsed in files:
        seen.setdefault(parsed.source, parsed)
    return list(seen.values())


def _write_baseline(
    path: Path, findings: list[Finding], linted: Sequence[str]
) -> tuple[list[Finding], list[str]]:
    """Every active finding recorded in ``path``, then accepted as known."""
    from linter.run import baseline as baselines  # only with --write-baseline

    written = baselines.write(path, findings)
    findings, _ = baselines.apply(findings, written, linted)
    count = len(written.entries)
    notes = [f"baseline {path}: recorded {count} finding{'s' * (count != 1)}"]
    secrets = baselines.refused_secrets(findings)
    if secrets:
        notes.append(
            f"baseline {path}: {secrets} committed secret{'s' * (secrets != 1)} not "
            "recorded: a secret stays in the history of the repository; rotate it, then "
            "suppress the finding with a reason that says it was rotated"
        )
    return findings, notes
