"""The two sides of a comparison: the desired values and one live document.

Desired side: values files merged with Helm's semantics (read by ``linter.drift.desired``
with lint's front ends), each value keeping its file and line; optionally a subtree (``--values-path server.config``), the
common pattern of a chart writing ``{{ .Values.server.config | toJson }}`` into the file the
server loads. Live side: the document a pod loaded, optionally a subtree (``--live-path``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from linter.drift.normalize import EMPTY, Normalized, Options, get, normalize
from linter.errors import SourceError
from linter.evaluate.parsers import parse
from linter.helm.values import MergedValues
from linter.lightclass import frozen
from linter.parsing.documents import ADVISORY_PROBLEMS
from linter.parsing.yaml_events import NUMBER_AS_TEXT
from linter.positions import Origin, PathT, format_path

# What a live pod spec can say about a container (the podspec source).
PODSPEC_KEYS = ("image", "command", "args", "env", "resources")


class LiveError(Exception):
    """A live document that cannot be compared (not JSON/YAML, no such subtree)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@frozen
class Pairing:
    """How the sides are paired: which subtrees, what to ignore, which server's defaults."""

    values_path: PathT | None = None
    live_path: PathT | None = None
    ignore: tuple[str, ...] = ()
    unordered: tuple[str, ...] = ()
    server: str = "auto"  # auto | none | vllm | tgi | sglang | triton
    # --fail-on-unchecked: a committed setting the live source does not report fails.
    fail_on_unchecked: bool = False
    # --disable: rule ids or patterns (drift/port, drift/*-live) whose findings are dropped.
    disable: tuple[str, ...] = ()

    @property
    def options(self) -> Options:
        return Options(unordered=self.unordered)


@frozen
class DesiredSide:
    values: MergedValues
    root: PathT
    normalized: Normalized
    embedded: bool = False  # the subtree was a string holding JSON/YAML

    def values_path(self, original: PathT) -> PathT:
        return self.root if self.embedded else (*self.root, *original)

    def locate(self, original: PathT) -> Origin:
        return self.values.locate(self.values_path(original))

    def field(self, relative: PathT) -> str:
        return format_path((*self.root, *relative))


def desired_side(
    values: MergedValues, pairing: Pairing, only_keys: Collection[str] | None = None
) -> DesiredSide:
    root = pairing.values_path or ()
    data = get(values.data, root)
    if data is EMPTY:
        raise SourceError(_no_such_path(values.data, root))
    embedded = False
    if isinstance(data, str):
        data, embedded = _embedded(data, values.locate(root)), True
    if only_keys is not None and isinstance(data, dict):
        data = {k: v for k, v in data.items() if k in only_keys}
    return DesiredSide(values, root, normalize(data, pairing.options), embedded)


def _no_such_path(data: Any, root: PathT) -> str:
    """What is there instead, and how to write a key that holds dots."""
    found = 0
    node = data
    while found < len(root) and isinstance(node, dict) and root[found] in node:
        node = node[root[found]]
        found += 1
    where = format_path(root[:found]) or "the top level"
    keys = sorted(map(str, node)) if isinstance(node, dict) else []
    message = (
        f"--values-path {format_path(root)}: no such key in the merged values "
        f"(keys at {where}: {', '.join(keys) or 'none'})"
    )
    rest = [str(part) for part in root[found:]]
    for end in range(len(rest), 1, -1):
        dotted = ".".join(rest[:end])
        if dotted in keys:
            spelled = format_path((*root[:found], dotted, *root[found + end :]))
            return f"{message}; a key with dots is written in brackets: {spelled}"
    return f'{message}; accepted forms: server.config, containers[0], configs["vllm-config.yaml"]'


def _embedded(text: str, origin: Origin) -> Any:
    """A values string that holds the config file itself (``config.json: |``)."""
    parsed = parse("embedded.json" if text.lstrip().startswith("{") else "embedded.yaml", text)
    if parsed.problems or not parsed.documents:
        detail = parsed.problems[0].message if parsed.problems else "empty"
        raise SourceError(
            f"{origin.source}:{origin.line}: the value at --values-path is a "
            f"string that is not JSON or YAML ({detail})"
        )
    return parsed.documents[0].data


def live_document(name: str, text: str) -> Any:
    """Parse a live file or answer; ``LiveError`` when it is not JSON or YAML."""
    parsed = parse(name, text)
    # A number kept as its text cannot be compared as a number: the file is refused at
    # its line rather than compared wrongly (issue 31).
    errors = [
        p
        for p in parsed.problems
        if p.rule_id not in ADVISORY_PROBLEMS or p.message.endswith(NUMBER_AS_TEXT)
    ]
    if errors:
        first = errors[0]
        raise LiveError(
            "invalid",
            f"the live config is not valid JSON or YAML: line "
            f"{first.line}, column {first.column}: {first.message}",
        )
    if not parsed.documents:
        raise LiveError("invalid", "the live config is empty")
    return parsed.documents[0].data


def live_subtree(data: Any, pairing: Pairing) -> Any:
    """The ``--live-path`` subtree of a live document (a string in it is parsed)."""
    root = pairing.live_path or ()
    subtree = get(data, root)
    if subtree is EMPTY:
        keys = ", ".join(sorted(map(str, data))) if isinstance(data, dict) else "none"
        raise LiveError(
            "no-live-path",
            f"--live-path {format_path(root)}: no such key in the "
            f"live config (top-level keys: {keys})",
        )
    if isinstance(subtree, str):
        subtree = live_document("embedded", subtree)
    return subtree


def live_side(data: Any, pairing: Pairing) -> Normalized:
    return normalize(live_subtree(data, pairing), pairing.options)
