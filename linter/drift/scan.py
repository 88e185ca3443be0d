"""A drift run: desired values against live files, or against pods in a cluster.

Two pairings: with ``--values-path`` a subtree of the values is compared with the live
document key by key (``sides``); without it both sides go through the serving model and
their engine settings are compared (``engines``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from linter.drift import compare as compare_module
from linter.drift import defaults as server_defaults
from linter.drift import engines, live
from linter.drift.compare import compare
from linter.drift.desired import read_desired
from linter.drift.items import (
    disagreement_findings,
    drift_findings,
    failure_finding,
    unchecked_findings,
)
from linter.drift.memo import Busy, Memo
from linter.drift.normalize import normalize
from linter.drift.result import COMPARED, ERROR, NOT_READY, DriftResult, Target, TargetResult
from linter.drift.sides import (
    PODSPEC_KEYS,
    DesiredSide,
    LiveError,
    Pairing,
    desired_side,
    live_document,
    live_side,
    live_subtree,
)
from linter.drift.unreadable import unreadable_findings
from linter.errors import SourceError
from linter.lightclass import frozen
from linter.sources import files as file_sources


@frozen
class DriftPlan:
    """The desired side of a run: values files, ``--set`` arguments, and the pairing."""

    values: tuple[str, ...]
    sets: tuple[str, ...] = ()
    pairing: Pairing = dataclasses.field(default_factory=Pairing)
    max_bytes: int = 50 * 1024 * 1024


class _Pairing(Protocol):
    @property
    def note(self) -> str: ...

    @property
    def memo(self) -> Memo: ...

    def named(self, target: Target) -> str:
        """What of the target the analysis depends on beside the live text ("" when
        nothing: one committed workload per server)."""

    def analyse(self, data: Any, target: Target, pod: bool) -> Any: ...

    def result(self, analysis: Any, target: Target) -> TargetResult: ...


@frozen
class _Failure:
    reason: str
    message: str


def _compare(pairing: _Pairing, data: Any, target: Target, pod: bool) -> TargetResult:
    return pairing.result(pairing.analyse(data, target, pod), target)


_WHOLE = (
    "the values describe no inference server that the serving model recognises: they "
    "are compared as a whole with the live document (--values-path compares a subtree)"
)


def run_files(plan: DriftPlan, live_files: Sequence[str]) -> DriftResult:
    """Compare the values with each live file (one target per file)."""
    started = time.time()
    pairing = _pairing(plan, podspec=False)
    results = []
    for given in live_files:
        # "-" is standard input: kubectl logs deploy/vllm | servelint drift ... --live -
        stdin = given == file_sources.STDIN
        name = file_sources.STDIN_NAME if stdin else given
        target = Target(name, spec=name)
        source = file_sources.Input(name, None if stdin else Path(name))
        read = file_sources.read(source, plan.max_bytes)
        if read.text is None:
            results.append(_failed(target, "unreadable", f"{name}: {read.error}"))
            continue
        try:
            results.append(_compare_text(pairing, name, read.text, target))
        except _ONE_TARGET_ERRORS as exc:
            message = f"could not compare this file ({type(exc).__name__})"
            results.append(_failed(target, "invalid", message))
    return DriftResult(results, started, time.time() - started, notes=_notes(pairing))


def run_kube(plan: DriftPlan, request: Any, progress: Any = None) -> DriftResult:
    """Compare the values with ``request.source`` read from every selected pod.

    ``request`` is a ``linter.sources.kube.KubeRequest``; the kube module (and the
    ``kubernetes`` client) is imported only here, when a cluster scan runs.
    """
    from linter.sources import kube

    started = time.time()
    pairing = _pairing(plan, podspec=request.source.kind == "podspec")
    report = kube.fetch(
        request,
        progress,
        lambda item: _compared_early(pairing, item),
        before_requests=compare_module.warm_up,
    )
    if report.error is not None:
        return DriftResult(
            [],
            started,
            time.time() - started,
            report.error.message,
            report.error.reason,
            _notes(pairing),
        )
    results = [
        early if early is not None else _fetched(pairing, item)
        for early, item in zip(report.prepared, report.items, strict=True)
    ]
    return DriftResult(results, started, time.time() - started, notes=_notes(pairing))


def _compared_early(pairing: _Pairing, item: Any) -> TargetResult | None:
    """The pod compared in the thread that read it, while the other threads wait on the
    network; None (compared after the scan) rather than wait, for the diff library's
    import or for another thread's analysis of the same configuration: a thread that
    waits reads no pods."""
    if not compare_module.ready():
        return None
    try:
        return _fetched(pairing, item, wait=False)
    except Busy:
        return None


def _notes(pairing: _Pairing) -> list[str]:
    return [pairing.note] if pairing.note else []


def _pairing(plan: DriftPlan, podspec: bool) -> _Pairing:
    by_path = plan.pairing.values_path is not None
    desired = read_desired(plan.values, plan.sets, workloads=not by_path)
    values = desired.merged
    if by_path:
        if values is None:
            raise SourceError(_NOT_VALUES.format(files=", ".join(desired.files)))
        only = PODSPEC_KEYS if podspec else None
        return _ByPath(desired_side(values, plan.pairing, only), plan.pairing)
    sides = engines.engine_sides(desired.workloads)
    if sides:
        return _ByEngine(sides, plan.pairing, hidden=desired.hidden)
    if values is None:
        raise SourceError(_NO_SERVER.format(files=", ".join(desired.files)))
    # A server config kept in Git as it is (values that hold no chart layout the serving
    # model knows): compare the documents.
    return _ByPath(desired_side(values, plan.pairing), plan.pairing, _WHOLE)


_NOT_VALUES = (
    "--values-path compares a subtree of values files; {files} holds Kubernetes objects "
    "or other committed files, whose serving-model settings are compared without it"
)
_NO_SERVER = (
    "{files}: no workload of an inference server the serving model recognises "
    "(servelint show lists what it read)"
)


def _fetched(pairing: _Pairing, item: Any, wait: bool = True) -> TargetResult:
    target = Target(
        item.source,
        item.namespace,
        item.workload,
        item.pod,
        item.container,
        item.source.rpartition(" ")[2],
    )
    if item.state == "not-ready":
        return TargetResult(
            target,
            NOT_READY,
            (failure_finding(target, item.reason, item.message, True),),
            item.reason,
            item.message,
        )
    if item.state != "ok":
        return _failed(target, item.reason, item.message)
    try:
        if item.data is not None:
            return _compare(pairing, item.data, target, pod=True)
        return _compare_text(pairing, _document_name(target.spec), item.text or "", target, wait)
    except _ONE_TARGET_ERRORS as exc:
        # A live object or file of an unexpected shape fails its own target only: the
        # other pods of the scan are still compared and reported.
        return _failed(
            target,
            "invalid",
            f"could not compare this target's configuration ({type(exc).__name__})",
        )


_ONE_TARGET_ERRORS = (
    AttributeError,
    TypeError,
    KeyError,
    IndexError,
    ValueError,
    RecursionError,
    OverflowError,
)


def _document_name(spec: str) -> str:
    """A file name for the parser to pick JSON or YAML by, from the source text."""
    kind, _, rest = spec.partition(":")
    name = PurePosixPath(rest.split("/", 1)[-1] if kind != "exec" else rest).name
    return name or "live"


def _compare_text(
    pairing: _Pairing, name: str, text: str, target: Target, wait: bool = True
) -> TargetResult:
    # The replicas of a Deployment load the same file: a text already compared in this
    # run has the same differences, only the target (pod, source) differs.
    key = (name + pairing.named(target), text)
    analysis = pairing.memo.once(
        key, lambda: _analyse_text(pairing, name, text, target, wait), wait
    )
    return pairing.result(analysis, target)


def _analyse_text(
    pairing: _Pairing, name: str, text: str, target: Target, wait: bool = True
) -> Any:
    """A start-up log or info answer (``linter.drift.live``), else a JSON/YAML document;
    a log is never read as YAML."""
    try:
        capture = live.read_capture(text)
    except live.UnknownCapture as error:
        return _Failure("unrecognised-format", f"{error}; not compared")
    if capture is not None:
        # Start-up logs of replicas differ in their times and process ids, so their texts
        # never repeat; what they printed does. Equal captures (same repr: same settings,
        # formats, lines and processes) have the same analysis. A file name never holds
        # a NUL, so these keys cannot meet a text's.
        key = ("\0capture" + pairing.named(target), capture.key())
        return pairing.memo.once(key, lambda: pairing.analyse(capture, target, pod=False), wait)
    try:
        data = live_document(name, text)
    except LiveError as error:
        return _Failure(error.reason, f"{error.message}; not compared")
    if not isinstance(data, dict | list):
        detail = live.UnknownCapture(
            "the live text is neither a config document nor a log servelint reads"
        )
        return _Failure("unrecognised-format", f"{detail}; not compared")
    return pairing.analyse(data, target, pod=False)


@frozen
class _ByPath:
    desired: DesiredSide
    pairing: Pairing
    note: str = ""
    memo: Memo = dataclasses.field(default_factory=Memo, compare=False)

    def named(self, target: Target) -> str:
        return ""

    def analyse(self, data: Any, target: Target, pod: bool) -> Any:
        """What ``result`` needs; for a live document (``pod`` false) it does not depend
        on the target."""
        from linter.sources.kube_pods import podspec_view

        capture = data if isinstance(data, live.Capture) else None
        if capture is not None:
            data = capture.settings
        if pod:  # compare only what the values describe
            view = podspec_view(data, target.container)
            described = self.desired.normalized.raw.get(())
            keys = set(described) if isinstance(described, dict) else set()
            data = {k: v for k, v in view.items() if k in keys}
        try:
            live_tree = live_side(data, self.pairing)
        except LiveError as error:
            return _Failure(error.reason, error.message)
        if capture is not None and self.pairing.server == "auto":
            server = server_defaults.SERVERS.get(capture.server)
        else:
            server = _server(self.pairing.server, live_tree.raw.get(()))
        server = _for_capture(server, capture)
        differences = compare(
            self.desired.normalized, live_tree, server, self.pairing.ignore, self.desired.root
        )
        return live_tree, server, differences, capture

    def result(self, analysis: Any, target: Target) -> TargetResult:
        if isinstance(analysis, _Failure):
            return _failed(target, analysis.reason, analysis.message)
        live_tree, server, differences, capture = analysis
        return _compared(
            target,
            drift_findings(differences, self.desired, live_tree, target),
            server,
            capture,
            self.pairing.disable,
        )


@frozen
class _ByEngine:
    sides: list[engines.EngineSide]
    pairing: Pairing
    note: str = ""
    hidden: frozenset[str] = frozenset()
    memo: Memo = dataclasses.field(default_factory=Memo, compare=False)

    def named(self, target: Target) -> str:
        """Several committed workloads: the target's name may tell which one it runs."""
        return f"\0{target.pod or target.source}" if len(self.sides) > 1 else ""

    def analyse(self, data: Any, target: Target, pod: bool) -> Any:
        """What ``result`` needs; for a live document (``pod`` false) it depends on the
        target only through ``named``."""
        capture = data if isinstance(data, live.Capture) else None
        try:
            if capture is not None:
                engine = engines.live_from_capture(capture)
            elif pod:
                engine = engines.live_from_pod(data, target.container, target.source)
            else:
                engine = engines.live_from_document(live_subtree(data, self.pairing))
            chosen = engines.pick(self.sides, engine, target.pod or target.source)
            side, unreported = engines.restricted(chosen, engine)
        except LiveError as error:
            return _Failure(error.reason, error.message)
        normalized = normalize(engines.live_settings(side, engine), self.pairing.options)
        server = (
            None
            if self.pairing.server == "none"
            else server_defaults.SERVERS.get(
                engine.server if self.pairing.server == "auto" else self.pairing.server
            )
        )
        server = _for_capture(server, capture)
        differences = compare(side.normalized, normalized, server, self.pairing.ignore, ("engine",))
        described = chosen.describe()  # once per live text, not per pod
        extra = (unreported, chosen, engine.source, engine.unreadable, described)
        return side, normalized, server, differences, capture, extra

    def result(self, analysis: Any, target: Target) -> TargetResult:
        if isinstance(analysis, _Failure):
            return _failed(target, analysis.reason, analysis.message)
        side, normalized, server, differences, capture, extra = analysis
        unreported, chosen, source, unread, described = extra
        gate = (
            unchecked_findings(unreported, chosen, source or "this source", target)
            if self.pairing.fail_on_unchecked
            else []
        )
        if unread:
            committed = engines.engine_settings(chosen.workload)
            gate += unreadable_findings(unread, chosen, committed, target)
        compared = _compared(
            target,
            [*drift_findings(differences, side, normalized, target, self.hidden), *gate],
            server,
            capture,
            self.pairing.disable,
        )
        shown = described if len(self.sides) > 1 else ""
        return dataclasses.replace(
            compared, workload=described, shown_workload=shown, unreported=unreported
        )


def _for_capture(
    server: server_defaults.ServerDefaults | None, capture: live.Capture | None
) -> server_defaults.ServerDefaults | None:
    """A capture prints every field it knows (a live-only key is the server's choice), and
    a setting it shows as not set cannot be excused as derived: the values set it and the
    server did not get it."""
    if server is None or capture is None:
        return server
    return dataclasses.replace(
        server,
        derived=(server.derived | capture.resolved) - capture.unset - capture.explicit,
        exhaustive=not capture.partial,
        partial=capture.partial,
        explicit=capture.explicit,
    )


def _compared(
    target: Target,
    findings: Sequence[Any],
    server: server_defaults.ServerDefaults | None,
    capture: live.Capture | None,
    disable: Sequence[str] = (),
) -> TargetResult:
    extra = tuple(disagreement_findings(capture, target)) if capture is not None else ()
    kept = [f for f in (*findings, *extra) if not _disabled(f.rule_id, disable)]
    return TargetResult(
        target,
        COMPARED,
        tuple(kept),
        server=server.name if server is not None else "",
        read=capture.describe() if capture is not None else "",
    )


def _disabled(rule: str, disable: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(rule, pattern) for pattern in disable)


def _server(choice: str, live: Any) -> server_defaults.ServerDefaults | None:
    if choice == "none":
        return None
    if choice == "auto":
        return server_defaults.detect(live)
    return server_defaults.SERVERS[choice]


def _failed(target: Target, reason: str, message: str) -> TargetResult:
    return TargetResult(target, ERROR, (failure_finding(target, reason, message),), reason, message)
