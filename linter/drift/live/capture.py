"""What a live capture (a start-up log or an info answer) says the server loaded.

Every parser yields ``Printed`` records: one configuration printed once, by one process,
at one line, under the server's own setting names. ``assemble`` collapses the records that
several processes printed alike (engine cores, tensor-parallel ranks, data-parallel
replicas), keeps the disagreements between them as differences of their own, and merges
the kinds of record in the order of what they prove: a full dump of the arguments first,
the resolved engine configuration first, then the values the server derived, then a full
dump of the arguments as given, then what was set explicitly. A setting that only the
server's resolution shows, beside a record of the arguments, was chosen by the server.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from linter.lightclass import frozen

# Merge order: later kinds override earlier ones. What the server resolved (its engine
# configuration, the values it derived) is overridden by the arguments as they were given,
# so that "auto" as given compares with "auto" in the values, not with the resolved dtype.
RESOLVED, DERIVED, FULL_DUMP, EXPLICIT = 0, 1, 2, 3


@frozen
class Printed:
    kind: str  # what was read: "non-default args", "V1 engine config", "/info", ...
    rank: int  # FULL_DUMP | RESOLVED | DERIVED | EXPLICIT
    line: int  # 1-based line of the input (0 for a whole document)
    process: str  # the process label in front of the line, or ""
    values: dict[str, Any]
    # The record lists every setting that differs from the defaults (vLLM's non-default
    # args): a setting it does not list was not set.
    lists_all_set: bool = False
    # The record was cut before its end: the last complete field read (what follows it
    # is not reported by this record).
    truncated_after: str = ""


@frozen
class Disagreement:
    """One setting printed with different values by processes of one deployment."""

    setting: str
    kind: str
    seen: tuple[tuple[str, int, Any], ...]  # (process, line, value)


@frozen
class Capture:
    server: str
    version: str
    formats: tuple[str, ...]
    settings: dict[str, Any]
    # Settings the capture shows as not set (printed as None, or absent from a record
    # that lists every setting that was set): a server-derived value is no excuse there.
    unset: frozenset[str] = frozenset()
    # Settings that only the server's resolution shows (no argument record lists them):
    # the server chose them, so one on the live side alone is not drift.
    resolved: frozenset[str] = frozenset()
    # Settings a record of explicitly set arguments lists (vLLM's non-default args).
    explicit: frozenset[str] = frozenset()
    disagreements: tuple[Disagreement, ...] = ()
    ignored: tuple[str, ...] = ()  # metadata and hardware fields, never compared
    model: str = ""
    partial: bool = False  # the source reports a few settings only (/v1/models)
    # The settings (under the server's own names) this source reports: what its records
    # printed, and for a record that lists every setting that was set (vLLM's non-default
    # args), every setting of the server. A setting outside it is "not reported by this
    # source": never drift (docs/drift.md, "What each source prints").
    reported: frozenset[str] = frozenset()
    model_key: str = ""
    # (kind, last complete field) of each record cut before its end.
    truncated: tuple[tuple[str, str], ...] = ()
    # repr() of the capture without this field, once it is known (a capture read again
    # from lines read before): what a scan keys its shared analyses by. Not an argument:
    # ``dataclasses.replace`` never carries it over to a capture that may differ.
    fingerprint: str = dataclasses.field(default="", init=False, repr=False, compare=False)

    def key(self) -> str:
        """Equal for equal captures (same settings, formats, lines and processes)."""
        return self.fingerprint or repr(self)

    def with_fingerprint(self, fingerprint: str) -> Capture:
        """This capture, just made and known to equal the one ``fingerprint`` is the repr
        of (the only change a capture ever sees, before anyone else holds it)."""
        object.__setattr__(self, "fingerprint", fingerprint)
        return self

    def describe(self) -> str:
        """``vLLM 0.11.0: non-default args, V1 engine config (truncated after seed)``."""
        name = SERVER_NAMES.get(self.server, self.server)
        version = f" {self.version}" if self.version else ""
        cut = dict(self.truncated)
        formats = [
            f"{kind} (truncated after {cut[kind]})" if kind in cut else kind
            for kind in self.formats
        ]
        return f"{name}{version}: {', '.join(formats)}"


SERVER_NAMES = {"vllm": "vLLM", "tgi": "TGI", "sglang": "SGLang", "triton": "Triton"}


def assemble(
    server: str,
    version: str,
    records: Sequence[Printed],
    ignored_keys: frozenset[str],
    model_key: str,
    partial: bool = False,
) -> Capture:
    groups: dict[str, list[Printed]] = {}
    for record in records:
        groups.setdefault(record.kind, []).append(record)
    disagreements: list[Disagreement] = []
    chosen: list[Printed] = []
    for kind, group in groups.items():
        disagreements.extend(_disagreements(kind, group, ignored_keys))
        # A process's copy cut before its end reports less than a complete one.
        chosen.append(next((r for r in group if not r.truncated_after), group[0]))
    merged: dict[str, Any] = {}
    none: set[str] = set()
    ignored: set[str] = set()
    lists_all: list[Printed] = []
    for record in sorted(chosen, key=lambda r: r.rank):
        for key, value in record.values.items():
            if key in ignored_keys:
                ignored.add(key)
                continue
            if value is None:
                if key not in merged:
                    none.add(key)
                continue
            merged[key] = value
            none.discard(key)
        if record.lists_all_set:
            lists_all.append(record)
    unset = set(none)
    if lists_all:
        unset |= _not_listed(server, merged, lists_all)
    given = [r for r in chosen if r.rank >= FULL_DUMP]
    listed = {key for record in given for key, value in record.values.items() if value is not None}
    # Without a record of the arguments (an engine line alone), every value shown may be
    # the server's choice: one the committed side leaves out is not evidence.
    resolved = {key for key in merged if key not in listed} if given else set(merged)
    model = merged.get(model_key)
    reported = _reported(server, version, chosen, model_key)
    return Capture(
        server,
        version,
        tuple(dict.fromkeys(r.kind for r in sorted(chosen, key=lambda r: r.line))),
        merged,
        frozenset(unset),
        frozenset(resolved),
        frozenset(k for r in lists_all for k in r.values if k in merged),
        tuple(disagreements),
        tuple(sorted(ignored)),
        model if isinstance(model, str) else "",
        partial,
        frozenset(reported),
        model_key,
        tuple((r.kind, r.truncated_after) for r in chosen if r.truncated_after),
    )


def _reported(server: str, version: str, records: Sequence[Printed], model_key: str) -> set[str]:
    """What the records report: the keys they printed and, for a record that lists every
    setting that was set, every setting of the server (its registry's and its flag
    table's) but the model when it is not there (some vLLM releases leave the positional
    model out of the non-default args)."""
    from linter.drift.flagsettings import table_settings
    from linter.model.engine import registry

    reported: set[str] = set()
    for record in records:
        reported.update(record.values)
        if record.lists_all_set:
            every = {s.name for s in registry.REGISTRIES.get(server, ())}
            every |= table_settings(server, version)
            if model_key not in record.values:
                every.discard(model_key)
            reported |= every
    return reported


def _not_listed(server: str, merged: dict[str, Any], records: list[Printed]) -> set[str]:
    """Settings a record that lists every set setting leaves out: not set (the server's
    default, or a value it derives)."""
    from linter.model.engine import registry

    listed = {key for record in records for key in record.values}
    server_settings = {s.name for s in registry.REGISTRIES.get(server, ())}
    return {name for name in server_settings if name not in listed and name not in merged}


def _disagreements(
    kind: str, group: list[Printed], ignored_keys: frozenset[str]
) -> list[Disagreement]:
    if len(group) < 2:
        return []
    keys = [
        key
        for key in dict.fromkeys(k for record in group for k in record.values)
        if key not in ignored_keys
    ]
    out = []
    for key in keys:
        # A copy cut before ``key`` says nothing about it.
        printed = [r for r in group if key in r.values or not r.truncated_after]
        seen = tuple((r.process or f"line {r.line}", r.line, r.values.get(key)) for r in printed)
        if len({repr(value) for _, _, value in seen}) > 1:
            out.append(Disagreement(key, kind, seen))
    return out
