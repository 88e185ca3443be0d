"""Keep secret values out of every report.

The literal values of secret-looking settings in the inputs (``HF_TOKEN``, ``*_API_KEY``,
``--api-key VALUE``, passwords, Secret data) are collected once per run, and every finding
message and extra field is scrubbed of them before any reporter sees it. This works for
any policy: a rule that quotes a value in its message cannot leak a token either.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.findings import Finding
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT
from linter.secrets import patterns as secrets

if TYPE_CHECKING:
    from linter.run.runner import RunResult

# Shorter values are not scrubbed from text: replacing "true" or "1" everywhere would
# garble messages without protecting anything.
MIN_LENGTH = 4
# Token formats that are secret wherever they appear, even in text no input declared.
_TOKEN = re.compile(
    r"\b(?:hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,})"
)
_ASSIGNMENT = re.compile(r"^(?P<name>-{0,2}[A-Za-z_][\w.-]*)=(?P<value>.+)$")


SecretsFound = list[tuple[Document, list[tuple[PathT, str]]]]


def scan(parsed: Iterable[ParsedFile]) -> SecretsFound:
    """Each document with the (path, value) of every secret in it: one walk per document,
    shared by the literal-secret check and by redaction."""
    return [
        (document, list(secret_values(document.data)))
        for parsed_file in parsed
        for document in parsed_file.documents
    ]


def collect(parsed: Iterable[ParsedFile]) -> frozenset[str]:
    """Every literal secret value in the documents of ``parsed``."""
    return values(scan(parsed))


def values(found: SecretsFound) -> frozenset[str]:
    """The secret values of a scan that are worth scrubbing from text."""
    unique = {value for _, pairs in found for _, value in pairs}
    return frozenset(v for v in unique if len(v) >= MIN_LENGTH and not _harmless(v))


def _harmless(value: str) -> bool:
    """Numbers, booleans and placeholders: masking them would only garble messages (a
    ``--max-num-batched-token`` value is a count, not a token)."""
    from linter.secrets.literal import names_a_reference

    return (
        value.replace(".", "", 1).isdigit()
        or value.lower() in ("true", "false")
        or is_placeholder(value)
        or names_a_reference(value)
    )


# What an example or template writes where the real secret goes: never a secret itself.
_PLACEHOLDER = re.compile(
    r"<[^>]*>|\$\{[^}]*\}|\$\([^)]*\)|^\$[A-Za-z_]\w*$|\{\{.*\}\}|^(.)\1*$|"
    r"your|example|change[-_]?me|replace|placeholder|dummy|redacted|fake|sample|todo|"
    r"not[-_]?used|unused|^none$|^null$|^secret$|^token$|^password$",
    re.IGNORECASE,
)


def is_placeholder(value: str) -> bool:
    return _PLACEHOLDER.search(value.strip()) is not None


def secret_values(data: Any, path: PathT = ()) -> Iterator[tuple[PathT, str]]:
    """(path, value) of every string that is a secret by its key, flag or format."""
    stack: list[tuple[PathT, Any]] = [(path, data)]
    while stack:  # iterative: documents may be as deep as the depth limit allows
        where, value = stack.pop()
        if isinstance(value, dict):
            name, literal = value.get("name"), value.get("value")
            if (
                isinstance(name, str)
                and isinstance(literal, str)
                and literal.strip()
                and secrets.is_secret_name(name)
            ):  # an env entry: {name: HF_TOKEN, value: ...}
                yield (*where, "value"), literal.strip()
            stack.extend(((*where, k), v) for k, v in value.items())
        elif isinstance(value, list):
            if all(isinstance(v, str) for v in value):
                yield from _from_args(where, value)
                for index, item in enumerate(value):  # sh -c "vllm serve --api-key ..."
                    if " " in item:
                        yield from _from_args((*where, index), item.split())
            if secrets.is_secret_path(where):
                yield from ((((*where, i)), v) for i, v in enumerate(value) if isinstance(v, str))
            stack.extend(((*where, i), v) for i, v in enumerate(value) if not isinstance(v, str))
        elif isinstance(value, str) and value.strip():
            if secrets.is_secret_path(where) or secrets.is_secret_value(value):
                yield where, value.strip()
            elif " " in value or "=" in value:
                yield from _from_args(where, value.split())
    return


def _from_args(path: PathT, args: Sequence[str]) -> Iterator[tuple[PathT, str]]:
    """Values of secret flags and variables: ``--api-key V``, ``--api-key=V``, ``X_TOKEN=V``."""
    for index, arg in enumerate(args):
        match = _ASSIGNMENT.match(arg)
        if match and secrets.is_secret_name(match["name"]):
            yield (*path, index), match["value"].strip("'\"")
        elif (
            arg.startswith("-")
            and secrets.is_secret_name(arg)
            and index + 1 < len(args)
            and not args[index + 1].startswith("-")
        ):
            yield (*path, index + 1), args[index + 1].strip("'\"")


def scrub(text: str, values: Iterable[str]) -> str:
    """``text`` with every value (longest first) and every known token format masked."""
    for value in sorted(values, key=len, reverse=True):
        if value in text:
            text = text.replace(value, secrets.mask(value))
    return _TOKEN.sub(lambda match: secrets.mask(match.group(0)), text)


def _scrub_any(value: Any, values: frozenset[str]) -> Any:
    if isinstance(value, str):
        return scrub(value, values)
    if isinstance(value, Mapping):
        return {k: _scrub_any(v, values) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub_any(v, values) for v in value]
    return value


def findings(items: Iterable[Finding], values: frozenset[str]) -> list[Finding]:
    out: list[Finding] = []
    for finding in items:
        message = scrub(finding.message, values)
        extra = _scrub_any(finding.extra, values) if finding.extra else finding.extra
        if message != finding.message or extra != finding.extra:
            finding = dataclasses.replace(finding, message=message, extra=extra)
        out.append(finding)
    return out


def result(run: RunResult) -> RunResult:
    """The last pass before reporters: findings, notes and coverage scrubbed of the run's
    secrets."""
    values: frozenset[str] = getattr(run, "secrets", frozenset())
    return dataclasses.replace(
        run,
        findings=findings(run.findings, values),
        notes=[scrub(note, values) for note in run.notes],
        coverage=run.coverage.map_text(lambda text: scrub(text, values)),
    )
