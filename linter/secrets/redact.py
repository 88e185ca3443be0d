"""Keep secret values out of every report.

The literal values of secret-looking settings in the inputs (``HF_TOKEN``, ``*_API_KEY``,
``--api-key VALUE``, passwords, Secret data) are collected once per run, and every finding
message and extra field is scrubbed of them before any reporter sees it. This works for
any policy: a rule that quotes a value in its message cannot leak a token either.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from linter.findings import Finding
from linter.lazyregex import lazy_compile
from linter.parsing.documents import Document, ParsedFile
from linter.positions import PathT
from linter.secrets import patterns as secrets
from linter.secrets import weak

# Shorter values are not scrubbed from text: replacing "true" or "1" everywhere would
# garble messages without protecting anything.
MIN_LENGTH = 4
_ASSIGNMENT = lazy_compile(r"^(?P<name>-{0,2}[A-Za-z_][\w.-]*)=(?P<value>.+)$")


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
    return frozenset(v for v in unique if maskable(v))


def maskable(value: str) -> bool:
    """A secret value worth masking wherever it occurs in text: not a number, a boolean,
    a placeholder, a reference, nor a weak value (``weak.py``: masking ``test`` would
    garble ``latest``; such a value is a ``secrets/weak-secret`` finding instead)."""
    return len(value) >= MIN_LENGTH and not _harmless(value) and not weak.is_weak(value)


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
# The whole value must be a placeholder: a real token may contain "your", "todo" or
# "sample" (``x7yourQ...``), and substrings must not excuse it.
_PLACEHOLDER_FORM = lazy_compile(
    r"<[^<>]*>|\$\{[^{}]*\}|\$\([^()]*\)|\$[A-Za-z_]\w*|\{\{.*\}\}|(.)\1*|\*+|x+",
    re.IGNORECASE | re.DOTALL,
)
# A value made only of these words (``your-token-here``, ``CHANGE_ME``, ``sk-xxxx``) is a
# placeholder when one of them says so (``_PLACEHOLDER_MARKERS``).
_PLACEHOLDER_WORDS = frozenset(
    {
        "your",
        "my",
        "the",
        "a",
        "an",
        "here",
        "goes",
        "put",
        "insert",
        "enter",
        "set",
        "to",
        "with",
        "for",
        "of",
        "real",
        "actual",
        "own",
        "me",
        "change",
        "changeme",
        "replace",
        "replaceme",
        "placeholder",
        "dummy",
        "redacted",
        "fake",
        "sample",
        "example",
        "todo",
        "fixme",
        "tbd",
        "not",
        "used",
        "unused",
        "none",
        "null",
        "secret",
        "token",
        "password",
        "pass",
        "key",
        "api",
        "access",
        "value",
        "hf",
        "sk",
        "ghp",
        "xxx",
        "xxxx",
        "xxxxx",
        "xxxxxx",
        "xxxxxxxx",
        "test",
    }
)
_PLACEHOLDER_MARKERS = frozenset(
    {
        "your",
        "my",
        "here",
        "insert",
        "enter",
        "change",
        "changeme",
        "replace",
        "replaceme",
        "placeholder",
        "dummy",
        "redacted",
        "fake",
        "sample",
        "example",
        "todo",
        "fixme",
        "tbd",
        "unused",
        "xxx",
        "xxxx",
        "xxxxx",
        "xxxxxx",
        "xxxxxxxx",
    }
)
_PLACEHOLDER_ALONE = frozenset({"none", "null", "secret", "token", "password", "notused"})


def is_placeholder(value: str) -> bool:
    """A whole placeholder: ``<your-token>``, ``${HF_TOKEN}``, ``$(HF_TOKEN)``,
    ``{{ .Values.token }}``, ``xxxx``, ``your-token-here``, ``CHANGE_ME``, ``none``."""
    value = value.strip()
    if not value or _PLACEHOLDER_FORM.fullmatch(value):
        return True
    # a run of x's of any length (``hf_xxxxxxxxxxxx``) is one placeholder word
    parts = ["xxx" if set(w) == {"x"} else w for w in secrets.words(value)]
    if not parts:
        return True
    if "".join(parts) in _PLACEHOLDER_ALONE:
        return True
    # Words only, one of which says "placeholder": made of known words, or a phrase of
    # three or more words ("insert-your-huggingface-token-here"). A digit anywhere
    # ("sample-7f8a9b", "Xyour9sampleTodo8f") is what real tokens have.
    if not any(w in _PLACEHOLDER_MARKERS for w in parts) or not all(w.isalpha() for w in parts):
        return False
    return len(parts) >= 3 or all(w in _PLACEHOLDER_WORDS for w in parts)


def secret_values(data: Any, path: PathT = ()) -> Iterator[tuple[PathT, str]]:
    """(path, value) of every string that is a secret by its key, flag or format.

    A text's own secrets (in its words, URLs, headers) depend on the text alone, so they
    are found once per distinct text: YAML aliases repeat one long string many times
    without costing the parser anything, and must not multiply the scan either.
    """
    if not path and isinstance(data, dict) and data.get("kind") == "Secret":
        yield from _secret_data(data)
    in_text: dict[str, list[tuple[PathT, str]]] = {}

    def text_secrets(where: PathT, text: str) -> Iterator[tuple[PathT, str]]:
        found = in_text.get(text)
        if found is None:
            # flags and variables first: they name the secret better than its shape
            found = list(_from_args((), text.split())) if " " in text or "=" in text else []
            found += [((), p) for p in secrets.embedded_credentials(text)]
            if ":" in text or "=" in text:  # JSON or YAML in a string: {"api_key": "..."}
                found += [((), p) for _, p in secrets.keyed_pairs(text)]
            in_text[text] = found
        return (((*where, *relative), value) for relative, value in found)

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
                    yield from text_secrets((*where, index), item)
            if secrets.is_secret_path(where):
                yield from ((((*where, i)), v) for i, v in enumerate(value) if isinstance(v, str))
            stack.extend(((*where, i), v) for i, v in enumerate(value) if not isinstance(v, str))
        elif isinstance(value, str) and value.strip():
            if secrets.is_secret_path(where) or secrets.is_secret_value(value):
                yield where, value.strip()
                continue
            yield from text_secrets(where, value)
    return


def _secret_data(secret: dict[str, Any]) -> Iterator[tuple[PathT, str]]:
    """Every value of a Secret manifest, whatever its key (``data.config``), and the
    decoded text of ``data`` (base64): a policy that quotes either must not show it."""
    for field in ("data", "stringData"):
        entries = secret.get(field)
        if not isinstance(entries, dict):
            continue
        for key, value in entries.items():
            if not isinstance(value, str) or not value.strip():
                continue
            yield (field, key), value.strip()
            if field == "data":
                try:
                    decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
                except (binascii.Error, ValueError):
                    continue
                if decoded.strip():
                    yield (field, key), decoded.strip()


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
    """``text`` with every value (longest first), in the escaped forms a message may quote
    it in, and every secret recognisable by its shape masked. A value is masked as a whole
    token only: never where letters or digits continue it (``latest`` keeps ``test``)."""
    prepared = _prepared(values if isinstance(values, frozenset) else frozenset(values))
    for value in prepared:
        if value in text:
            text = _whole(value).sub(secrets.MASK, text)
    return secrets.mask_shapes(text)


@functools.lru_cache(maxsize=4096)
def _whole(value: str) -> re.Pattern[str]:
    """``value`` where no letter or digit continues it on a side that is one itself."""
    before = r"(?<![A-Za-z0-9])" if value[0].isalnum() else ""
    after = r"(?![A-Za-z0-9])" if value[-1].isalnum() else ""
    return re.compile(before + re.escape(value) + after)


@functools.lru_cache(maxsize=8)
def _prepared(values: frozenset[str]) -> tuple[str, ...]:
    """The values and their escaped forms, longest first: computed once per run, not
    once per message."""
    return tuple(sorted(_with_escaped_forms(values), key=len, reverse=True))


def _with_escaped_forms(values: Iterable[str]) -> set[str]:
    """Each value as written, and as JSON, Python and CEL quote it (``\\"``, ``\\'``,
    ``\\\\``, ``\\n``), and with YAML's doubled single quote."""
    out: set[str] = set()
    for value in values:
        out.add(value)
        if any(c in value for c in "\\'\"\n\t") or not value.isascii():
            out.update(_escaped(value))
    return {v for v in out if len(v) >= MIN_LENGTH}


@functools.lru_cache(maxsize=4096)
def _escaped(value: str) -> tuple[str, ...]:
    return (
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        repr(value)[1:-1],
        value.replace("\\", "\\\\").replace("'", "\\'"),
        value.replace("'", "''"),
    )


def environment_values(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The runner's secrets to mask in every report and message (``environment.py``)."""
    from linter.secrets.environment import environment_values as secret_values_of

    return secret_values_of(environ)


def message(text: str, values: Iterable[str] = ()) -> str:
    """An error message or note for the terminal, scrubbed of ``values``, of the runner's
    environment and of every secret shape."""
    from linter.secrets.masking import masker

    return masker(values).text(text)


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
