"""A drift run: desired values against live files, or against pods in a cluster."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from linter.drift import defaults as server_defaults
from linter.drift.compare import compare
from linter.drift.items import drift_findings, failure_finding
from linter.drift.result import COMPARED, ERROR, NOT_READY, DriftResult, Target, TargetResult
from linter.drift.sides import (
    PODSPEC_KEYS,
    DesiredSide,
    LiveError,
    Pairing,
    desired_side,
    live_document,
    live_side,
    load_desired,
)
from linter.sources import files as file_sources


@dataclasses.dataclass(frozen=True)
class DriftPlan:
    """The desired side of a run: values files, ``--set`` arguments, and the pairing."""

    values: tuple[str, ...]
    sets: tuple[str, ...] = ()
    pairing: Pairing = dataclasses.field(default_factory=Pairing)
    max_bytes: int = 50 * 1024 * 1024


def run_files(plan: DriftPlan, live_files: Sequence[str]) -> DriftResult:
    """Compare the values with each live file (one target per file)."""
    started = time.time()
    desired = desired_side(load_desired(plan.values, plan.sets), plan.pairing)
    results = []
    for name in live_files:
        target = Target(name, spec=name)
        read = file_sources.read(file_sources.Input(name, Path(name)), plan.max_bytes)
        if read.text is None:
            results.append(_failed(target, "unreadable", f"{name}: {read.error}"))
            continue
        results.append(compare_text(desired, name, read.text, target, plan.pairing))
    return DriftResult(results, started, time.time() - started)


def run_kube(plan: DriftPlan, request: Any, progress: Any = None) -> DriftResult:
    """Compare the values with ``request.source`` read from every selected pod.

    ``request`` is a ``linter.sources.kube.KubeRequest``; the kube module (and the
    ``kubernetes`` client) is imported only here, when a cluster scan runs.
    """
    from linter.sources import kube

    started = time.time()
    only = PODSPEC_KEYS if request.source.kind == "podspec" else None
    desired = desired_side(load_desired(plan.values, plan.sets), plan.pairing, only)
    report = kube.fetch(request, progress)
    if report.error is not None:
        return DriftResult([], started, time.time() - started, report.error.message,
                           report.error.reason)
    results = [_fetched(desired, item, plan.pairing) for item in report.items]
    return DriftResult(results, started, time.time() - started)


def _fetched(desired: DesiredSide, item: Any, pairing: Pairing) -> TargetResult:
    target = Target(item.source, item.namespace, item.workload, item.pod, item.container,
                    item.source.rpartition(" ")[2])
    if item.state == "not-ready":
        return TargetResult(target, NOT_READY, (failure_finding(target, item.reason,
                                                                item.message, True),),
                            item.reason, item.message)
    if item.state != "ok":
        return _failed(target, item.reason, item.message)
    if item.data is not None:  # podspec: compare only what the values describe
        described = desired.normalized.raw.get(())
        keys = set(described) if isinstance(described, dict) else set()
        return compare_data(desired, {k: v for k, v in item.data.items() if k in keys},
                            target, pairing)
    return compare_text(desired, _document_name(target.spec), item.text or "", target, pairing)


def _document_name(spec: str) -> str:
    """A file name for the parser to pick JSON or YAML by, from the source text."""
    kind, _, rest = spec.partition(":")
    name = PurePosixPath(rest.split("/", 1)[-1] if kind != "exec" else rest).name
    return name or "live"


def compare_text(desired: DesiredSide, name: str, text: str, target: Target,
                 pairing: Pairing) -> TargetResult:
    try:
        data = live_document(name, text)
    except LiveError as error:
        return _failed(target, error.reason, f"{error.message}; not compared")
    return compare_data(desired, data, target, pairing)


def compare_data(desired: DesiredSide, data: Any, target: Target, pairing: Pairing
                 ) -> TargetResult:
    try:
        live = live_side(data, pairing)
    except LiveError as error:
        return _failed(target, error.reason, error.message)
    server = _server(pairing.server, live.raw.get(()))
    differences = compare(desired.normalized, live, server, pairing.ignore, desired.root)
    findings = drift_findings(differences, desired, live, target)
    return TargetResult(target, COMPARED, tuple(findings),
                        server=server.name if server is not None else "")


def _server(choice: str, live: Any) -> server_defaults.ServerDefaults | None:
    if choice == "none":
        return None
    if choice == "auto":
        return server_defaults.detect(live)
    return server_defaults.SERVERS[choice]


def _failed(target: Target, reason: str, message: str) -> TargetResult:
    return TargetResult(target, ERROR, (failure_finding(target, reason, message),), reason,
                        message)
