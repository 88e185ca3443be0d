"""What a run understood: the workloads it recognised, the facts it lacked, the inputs it
could not read as a deployment. A report that cannot tell "clean" from "not understood"
turns a gate into a rubber stamp, so every report carries this (``docs/coverage.md``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from linter.lightclass import frozen
from linter.model.facts.budget import MemoryBudget

T = TypeVar("T")

# The JSON shape of the ``coverage`` section; bumped only for an incompatible change.
COVERAGE_VERSION = 1


@frozen
class Gap:
    """A fact a workload lacks, and what it cost: rules that did not run or were weakened."""

    fact: str  # "model architecture", "GPU memory" or "server version"
    detail: str  # what is known instead, in the user's words
    effect: str  # "did not run" or "report warnings instead of errors"
    rules: tuple[str, ...]  # the rule ids affected
    error_rules: int  # how many of them are error-level: what a gate misses
    fix: str
    file: str
    line: int
    column: int

    def to_json(self) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "detail": self.detail,
            "effect": self.effect,
            "rules": list(self.rules),
            "errorRules": self.error_rules,
            "fix": self.fix,
            "file": self.file,
            "line": self.line,
            "column": self.column,
        }


# The gap of a values key whose flags the values reading does not judge; a rendered
# chart judges them (``linter/model/frontends/value_flags.py``).
FLAGS_FACT = "command-line flags"


@frozen
class WorkloadEntry:
    """One recognised workload and the facts its rules depend on."""

    name: str
    kind: str
    file: str
    line: int
    server: str | None
    version: str | None
    model: str | None
    model_source: str | None  # "catalogue", "configuration", "config.json" or None (unknown)
    gpu: str | None
    gpu_memory_known: bool
    gaps: tuple[Gap, ...] = ()
    environment: str | None = None
    # One GPU's memory, when the capacity is known: drawn by the HTML report.
    memory: MemoryBudget | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "line": self.line,
            "server": self.server,
            "version": self.version,
            "model": self.model,
            "modelSource": self.model_source,
            "gpu": self.gpu,
            "gpuMemoryKnown": self.gpu_memory_known,
            "gaps": [gap.to_json() for gap in self.gaps],
        }
        if self.environment is not None:
            out["environment"] = self.environment
        return out


@frozen
class NotUnderstood:
    """An input that names an inference server but yielded no workload."""

    file: str
    line: int
    column: int
    what: str  # "kind StormService (orchestration.aibrix.ai/v1alpha1)" or "values layout"
    evidence: str  # "image vllm/vllm-openai:v0.8.5 at spec.roles[0].template..."
    fix: str

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "what": self.what,
            "evidence": self.evidence,
            "fix": self.fix,
        }


@frozen
class Coverage:
    """Everything a run recognised or missed, over all its inputs."""

    files: tuple[str, ...] = ()
    workloads: tuple[WorkloadEntry, ...] = ()
    not_understood: tuple[NotUnderstood, ...] = ()

    def map_text(self, change: Callable[[str], str]) -> Coverage:
        """Every text of the coverage passed through ``change`` (secret masking)."""
        return _map_text(self, change)

    def merged(self, other: Coverage) -> Coverage:
        return combine([self, other])

    @property
    def gaps(self) -> list[Gap]:
        return [gap for workload in self.workloads for gap in workload.gaps]

    @property
    def unchecked(self) -> bool:
        """True when a gate would mean less than "checked and clean": an inference input
        not understood, or error-level rules skipped or weakened for a missing fact."""
        return bool(self.not_understood) or any(gap.error_rules for gap in self.gaps)

    def to_json(self) -> dict[str, Any]:
        files: dict[str, dict[str, Any]] = {
            name: {"workloads": [], "notUnderstood": []} for name in self.files
        }
        for workload in self.workloads:
            entry = files.setdefault(workload.file, {"workloads": [], "notUnderstood": []})
            entry["workloads"].append(workload.to_json())
        for item in self.not_understood:
            entry = files.setdefault(item.file, {"workloads": [], "notUnderstood": []})
            entry["notUnderstood"].append(item.to_json())
        return {
            "version": COVERAGE_VERSION,
            "summary": {
                # The run's files, as the text report's lines count them; ``files`` below
                # also lists a chart's values.yaml read for context when a workload is there.
                "files": len(self.files),
                "workloads": len(self.workloads),
                "notUnderstood": len(self.not_understood),
                "gaps": len(self.gaps),
                "unchecked": self.unchecked,
            },
            "files": [{"file": name, **entry} for name, entry in files.items()],
        }


def _unique(items: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys(items))


def combine(parts: Sequence[Coverage]) -> Coverage:
    return Coverage(
        _unique(name for part in parts for name in part.files),
        _unique(entry for part in parts for entry in part.workloads),
        _unique(item for part in parts for item in part.not_understood),
    )


def _map_text(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, tuple):
        return tuple(_map_text(item, change) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        updates = {
            field.name: _map_text(getattr(value, field.name), change)
            for field in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **updates)
    return value


# Nothing recognised: the coverage of a run that read nothing (immutable, so shareable).
NO_COVERAGE = Coverage()


def judged_flags(workloads: Sequence[WorkloadEntry]) -> tuple[WorkloadEntry, ...]:
    """``workloads`` without their ``FLAGS_FACT`` gaps: the rendered chart judged them."""
    return tuple(
        dataclasses.replace(w, gaps=tuple(g for g in w.gaps if g.fact != FLAGS_FACT))
        for w in workloads
    )
