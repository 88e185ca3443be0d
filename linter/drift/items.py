"""Differences → findings in the lint finding model, pointing at the values line to edit.

Secret values are masked here, once, before any output format sees them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from linter.drift.compare import (
    CHANGED,
    MISSING_LIVE,
    TYPE_CHANGED,
    UNEXPECTED_LIVE,
    Difference,
)
from linter.drift.flagsettings import category
from linter.drift.live import Capture
from linter.drift.normalize import Normalized
from linter.drift.result import (
    DISAGREEMENT_RULE,
    FETCH_ERROR_RULE,
    NOT_READY_RULE,
    UNCHECKED_RULE,
    Target,
)
from linter.findings import Finding, Severity
from linter.positions import Origin, PathT
from linter.secrets.patterns import is_secret_path, mask, mask_value

_MAX_TEXT = 80


class DesiredView(Protocol):
    """The desired side as findings need it: its canonical tree, where each of its paths
    was written, and how to name a path for the user."""

    @property
    def normalized(self) -> Normalized: ...

    def locate(self, original: PathT) -> Origin:
        """Where the value at ``original`` (a path in the compared tree) was written."""

    def field(self, relative: PathT) -> str:
        """The name of a path to show: ``server.config.maxNumSeqs``."""


def drift_findings(
    differences: Sequence[Difference],
    desired: DesiredView,
    live: Normalized,
    target: Target,
    hidden: frozenset[str] = frozenset(),
) -> list[Finding]:
    """``hidden``: committed values read from Secrets (a GitOps wrapper's ``valuesFrom``),
    masked whatever their setting."""
    return [_finding(d, desired, live, target, hidden) for d in differences]


def _finding(
    difference: Difference,
    desired: DesiredView,
    live: Normalized,
    target: Target,
    hidden: frozenset[str],
) -> Finding:
    relative = _desired_spelling(difference, desired, live)
    origin = desired.locate(_nearest_desired(difference, desired))
    secret = any(
        is_secret_path(p) for p in (relative, difference.path, difference.live_path or ())
    ) or (difference.desired is not None and str(difference.desired) in hidden)
    shown_desired = _shown(difference.desired, relative, secret)
    shown_live = _shown(difference.live, relative, secret)
    field = desired.field(relative)
    setting = difference.path[-1] if difference.path else ""
    own = category(str(setting), difference.desired, difference.live)
    extra = {"desired": shown_desired, "live": shown_live, "source": target.source}
    if own:
        extra["status"] = difference.status  # the rule names the setting, not the status
    return Finding(
        rule_id=own or f"drift/{difference.status}",
        severity=Severity.ERROR,
        message=_message(difference.status, field, shown_desired, shown_live, target),
        file=origin.source,
        line=origin.line,
        column=origin.column,
        path=field,
        doc_index=origin.doc_index,
        extra=extra,
    )


def _desired_spelling(difference: Difference, desired: DesiredView, live: Normalized) -> PathT:
    """The path as the values spell it; for a live-only key, the nearest values ancestor
    followed by the live spelling of the rest."""
    if difference.desired_path is not None:
        return difference.desired_path
    canonical = difference.path
    for end in range(len(canonical) - 1, -1, -1):
        ancestor = desired.normalized.original_path(canonical[:end])
        live_ancestor = live.original_path(canonical[:end])
        if ancestor is not None and live_ancestor is not None:
            rest = (difference.live_path or canonical)[len(live_ancestor) :]
            return (*ancestor, *rest)
    return difference.live_path or canonical


def _nearest_desired(difference: Difference, desired: DesiredView) -> PathT:
    if difference.desired_path is not None:
        return difference.desired_path
    for end in range(len(difference.path) - 1, -1, -1):
        ancestor = desired.normalized.original_path(difference.path[:end])
        if ancestor is not None:
            return ancestor
    return ()


def _shown(value: Any, path: PathT, secret: bool) -> Any:
    if value is None:
        return None
    if secret and not isinstance(value, dict | list):
        return mask(value)
    return mask_value(path, _plain(value))


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def render(value: Any, limit: int = _MAX_TEXT) -> str:
    """A value as a short, JSON-like text for messages and tables."""
    if value is None:
        return "-"
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _message(status: str, field: str, desired: Any, live: Any, target: Target) -> str:
    where = target.source
    if status == CHANGED:
        return f"{field} is {render(live)} in {where}; the values say {render(desired)}"
    if status == TYPE_CHANGED:
        return (
            f"{field} is {render(live)} ({_kind(live)}) in {where}; the values say "
            f"{render(desired)} ({_kind(desired)})"
        )
    if status == MISSING_LIVE:
        return f"{field} is set in the values ({render(desired)}) but absent from {where}"
    assert status == UNEXPECTED_LIVE
    return f"{field} is {render(live)} in {where} but not set in the values"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "map" if isinstance(value, dict) else type(value).__name__


def unchecked_findings(
    unreported: Sequence[str], desired: DesiredView, source: str, target: Target
) -> list[Finding]:
    """``--fail-on-unchecked``: each committed setting the live source does not report,
    an error at the line that set it (as lint's gate makes one of each gap)."""
    out = []
    for name in unreported:
        origin = desired.locate((name,))
        out.append(
            Finding(
                UNCHECKED_RULE,
                Severity.ERROR,
                f"not checked: {name} is not reported by this source ({source}) in "
                f"{target.source} (--fail-on-unchecked)",
                origin.source,
                origin.line,
                origin.column,
                path=name,
                doc_index=origin.doc_index,
                extra={"desired": None, "live": None, "source": target.source},
            )
        )
    return out


def failure_finding(target: Target, reason: str, message: str, not_ready: bool = False) -> Finding:
    """A target that could not be compared, as a finding on the target itself (line 0:
    a live source has no lines)."""
    rule = NOT_READY_RULE if not_ready else FETCH_ERROR_RULE
    severity = Severity.INFO if not_ready else Severity.WARNING
    return Finding(
        rule,
        severity,
        message,
        target.source,
        0,
        0,
        extra={"source": target.source, "reason": reason},
    )


def disagreement_findings(capture: Capture, target: Target) -> list[Finding]:
    """Processes of one server (engine cores, ranks, replicas) that printed different
    values for a setting: drift of its own, at the log line of the first of them."""
    out = []
    for item in capture.disagreements:
        path = (item.setting,)
        secret = is_secret_path(path)
        seen = [
            (
                process,
                line,
                mask(value) if secret and value is not None else mask_value(path, value),
            )
            for process, line, value in item.seen
        ]
        listed = ", ".join(
            f"{render(value)} ({process}, line {line})" for process, line, value in seen
        )
        out.append(
            Finding(
                rule_id=DISAGREEMENT_RULE,
                severity=Severity.ERROR,
                message=(
                    f"{item.setting} differs between the processes that printed the "
                    f"{item.kind} in {target.source}: {listed}"
                ),
                file=target.source,
                line=seen[0][1],
                column=1,
                path=item.setting,
                extra={
                    "desired": None,
                    "live": {
                        f"{process} (line {line})": _plain(value) for process, line, value in seen
                    },
                    "source": target.source,
                },
            )
        )
    return out
