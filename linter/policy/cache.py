"""Loaded policies kept in the user's cache folder, keyed by their files.

Parsing the policy files and compiling their CEL costs more than linting a values file,
and a pre-commit hook pays it on every commit although the policies rarely change. So a
loaded policy set is stored, with every expression compiled and serialised by
cel-expr-python (deserialising is several times faster than compiling, and happens only
for the expressions a run evaluates), in ``$XDG_CACHE_HOME/servelint`` (default
``~/.cache/servelint``).

An entry is data only: JSON for the policies' names, texts, severities and messages,
followed by the serialised CEL of every expression (protocol buffers the CEL runtime
parses, never code), which the JSON points into by offset and length. Whoever can write
the folder can therefore change what a cached policy checks, but cannot run anything.
So the folder, and each entry, is used only when it belongs to the user running
servelint and nobody else may write it (``docs/security.md``).

The key covers everything the stored objects depend on: the name of every policy file,
whether it is built in, the text of a user's file, servelint's own files (installed
from a wheel, by the wheel's record of every file's digest: a file of the wheel edited
in place is therefore not seen; in a checkout, each module and built-in policy file by
its size and modification time: ``_resources.stamp``), the
declarations of the helper functions policies call (a compiled expression is only valid
with the declarations it was checked against), and the versions of Python and
cel-expr-python. Entries are written to a temporary file and renamed into place, so
concurrent runs never read half a file; an entry whose checksum does not match (a
truncated or corrupted file) or that does not have the expected shape is ignored and
rewritten; only the newest entries are kept. The checksum covers the JSON, which holds
a digest of every serialised expression, checked when that expression is first read: a
run reads a few hundred kilobytes of the megabytes stored, and a damaged expression is
compiled again from its text. Only policy sets that loaded without error are stored.
``SERVELINT_NO_CACHE=1`` switches the cache off.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from linter import digests
from linter._resources import schema_file, stamp, wheel_record
from linter.cachefolder import HEAD_LENGTH, cache_dir, read_checked, write_checked
from linter.findings import Severity
from linter.policy.expr import CompiledExpr, Form, runtime_fingerprint
from linter.policy.fused import FusedCheck
from linter.policy.helpers import declarations
from linter.policy.model import NamedExpr, Policy, Rule
from linter.policy.template import MessageTemplate

# (source, text or, for a built-in file, its stamp (``_resources.stamp``), built in)
PolicyFile = tuple[str, str, bool]
_MAGIC = b"servelint-policies-json-6\n"
_LENGTH = HEAD_LENGTH  # bytes of the JSON part's length, after the checksum
_FORM_DIGEST = 16  # hexadecimal digits of each serialised form's digest kept in the JSON
_SUFFIX = ".entry"
KEEP = 8  # entries kept: a few policy sets (repositories, --policy-dir) and versions
# A user's policy file is stored only once it validated against this schema.
_SCHEMA = "policy.schema.json"


class _Malformed(Exception):
    """An entry that is not what this version writes."""


def load(files: Sequence[PolicyFile]) -> list[Policy] | None:
    """The stored policies of ``files``, or None when there is no usable entry."""
    path = _entry(files)
    if path is None:
        return None
    # The checksum covers the JSON; each serialised form is checked when it is first
    # read (its digest is in the JSON), so a run hashes only the few it evaluates.
    body = read_checked(path, _MAGIC, head_only=True)
    if body is None:
        return None
    size = int.from_bytes(body[:_LENGTH], "big")
    header = body[_LENGTH : _LENGTH + size]
    first = int.from_bytes(header[:_LENGTH], "big")
    try:
        data = _dict(json.loads(bytes(header[_LENGTH : _LENGTH + first])))
        texts = _Texts(header[_LENGTH + first :], _int(data["texts"]))
        blob = _Blob(body[_LENGTH + size :], path, texts)
        if _int(data["forms_length"]) != len(blob.data):
            return None  # a truncated entry: rebuilt below
        return [_policy(p, blob) for p in _list(data["policies"])]
    except (ValueError, RecursionError, _Malformed, KeyError, TypeError):
        return None  # written by code the key did not capture: rebuilt below


def store(files: Sequence[PolicyFile], policies: Sequence[Policy]) -> None:
    """Compile every expression of ``policies`` and store them; a cache folder that
    cannot be written, or that others may write, only means the next run loads the
    policies again."""
    path = _entry(files)
    if path is None:
        return
    for policy in policies:
        _compile_all(policy)
    blob = _Written()
    stored = [_policy_data(p, blob) for p in policies]
    policies_json = _json({"forms_length": len(blob), "texts": len(blob.texts), "policies": stored})
    # The texts after the policies, in the part the checksum covers: parsed only when a
    # run first reads one (``_Texts``).
    header = len(policies_json).to_bytes(_LENGTH, "big") + policies_json + _json(blob.texts)
    write_checked(path, _MAGIC, header, KEEP, rest=bytes(blob))


def _json(value: object) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def _entry(files: Sequence[PolicyFile]) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    try:
        code = _code_key()
    except OSError:  # a folder of the package that cannot be listed: no cache, no failure
        return None
    digest = digests.new(code)
    for source, text, builtin in files:
        digest.update(f"{len(source)}:{source}:{builtin}:{len(text)}:".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return directory / f"policies-{digest.hexdigest()[:40]}{_SUFFIX}"


@functools.cache
def _code_key() -> bytes:
    digest = digests.new(sys.version.encode())
    digest.update(runtime_fingerprint().encode())
    digest.update(declarations().encode())
    digest.update(stamp(schema_file(_SCHEMA)).encode())
    # Every module of the package, not only those that build the stored objects: a module
    # split or moved (where the line of a rule is computed, say) must not leave stale
    # entries behind either. Installed from a wheel, by the wheel's record of every
    # file's digest; in a checkout, by each module's size and time, without importing it.
    record = wheel_record()
    if record is not None:
        digest.update(record)
    else:
        digest.update(_module_stamps(Path(__file__).resolve().parent.parent).encode())
    return digest.digest()


def _module_stamps(package: Path) -> str:
    stamps = []
    folders = [str(package)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    found = entry.stat()
                    stamps.append(f"{entry.path}:{found.st_size}:{found.st_mtime_ns};")
                elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
    return "".join(sorted(stamps))


def _compile_all(policy: Policy) -> None:
    expressions = [c.expr for c in policy.match_conditions]
    expressions += [v.expr for v in policy.variables]
    for rule in policy.rules:
        expressions += [
            e
            for e in (
                rule.expression,
                rule.message_expression,
                rule.field_path_expression,
                rule.for_each,
            )
            if e is not None
        ]
        if rule.message_template is not None:
            expressions += rule.message_template.expressions
    for expression in expressions:
        expression.prepare()
    if policy.fused is not None:
        policy.fused.prepare()


# Writing: plain JSON values only.


class _Written(bytearray):
    """The serialised forms of an entry being written, and the texts of its expressions
    (each once), which the JSON names by number."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._numbers: dict[str, int] = {}

    def text_number(self, text: str) -> int:
        number = self._numbers.get(text)
        if number is None:
            number = self._numbers[text] = len(self.texts)
            self.texts.append(text)
        return number


def _form_data(form: bytes | None, blob: _Written) -> str | list[int | str] | None:
    # b"" means "the plain form" and b"=" "the form with variables" (CompiledExpr).
    if form is None or form in (b"", b"="):
        return None if form is None else form.decode()
    blob += form
    return [len(blob) - len(form), len(form), _digest(form)]


def _digest(form: bytes) -> str:
    return digests.hexdigest(form)[:_FORM_DIGEST]


def _expr_data(expr: CompiledExpr, blob: _Written) -> dict[str, Any]:
    text, forms = expr.__getstate__()
    return {"text": blob.text_number(text), "forms": [_form_data(f, blob) for f in forms]}


def _optional_expr_data(expr: CompiledExpr | None, blob: _Written) -> dict[str, Any] | None:
    return None if expr is None else _expr_data(expr, blob)


def _policy_data(policy: Policy, blob: _Written) -> dict[str, Any]:
    return {
        "name": policy.name,
        "description": policy.description,
        "target": policy.target,
        "source": policy.source,
        "builtin": policy.builtin,
        "match_conditions": [[c.name, _expr_data(c.expr, blob)] for c in policy.match_conditions],
        "variables": [[v.name, _expr_data(v.expr, blob)] for v in policy.variables],
        "rules": [_rule_data(r, blob) for r in policy.rules],
        "fused": None
        if policy.fused is None
        else {"expr": _expr_data(policy.fused.expr, blob), "usable": policy.fused.usable},
    }


def _rule_data(rule: Rule, blob: _Written) -> dict[str, Any]:
    return {
        "id": rule.id,
        "severity": rule.severity.name,
        "expression": _expr_data(rule.expression, blob),
        "message": rule.message,
        "message_expression": _optional_expr_data(rule.message_expression, blob),
        "field_path": rule.field_path,
        "field_path_expression": _optional_expr_data(rule.field_path_expression, blob),
        "for_each": _optional_expr_data(rule.for_each, blob),
        "title": rule.title,
        "description": rule.description,
        "fix": rule.fix,
        "references": list(rule.references),
        "source": rule.source,
        "line": rule.line,
        "needs": list(rule.needs),
        "message_template": None
        if rule.message_template is None
        else [
            part if isinstance(part, str) else _expr_data(part, blob)
            for part in rule.message_template.parts
        ],
    }


# Reading: every value checked for its type; anything else is a malformed entry.


class _Blob:
    """The serialised forms of an entry (a view of the bytes read), the entry's path and
    the texts of its expressions."""

    __slots__ = ("data", "entry", "texts")

    def __init__(self, data: memoryview, entry: Path, texts: _Texts) -> None:
        self.data = data
        self.entry = entry
        self.texts = texts


class _Texts:
    """The texts of an entry's expressions, a JSON list after the policies' JSON, parsed
    when a run first reads one: a run reads few (an expression is compiled from its text
    only when its stored forms are damaged; coverage reads the texts of the policies when
    a workload lacks a fact, ``coverage/gaps.py``). The entry's checksum covers them."""

    __slots__ = ("_data", "_texts", "count")

    def __init__(self, data: memoryview, count: int) -> None:
        self._data: memoryview | None = data
        self._texts: list[str] = []
        self.count = count  # checked against every number when the entry is read

    def text(self, number: int) -> str:
        if self._data is not None:
            texts = json.loads(bytes(self._data))
            # Checksummed and written by this code (the key covers it): only a bug makes
            # this false, and then nothing can be read from the entry.
            if not (
                isinstance(texts, list)
                and len(texts) == self.count
                and all(isinstance(t, str) for t in texts)
            ):
                raise ValueError("the policy cache entry's texts are not what it counts")
            self._texts, self._data = texts, None
        return self._texts[number]


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise _Malformed
    return value


def _dict(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Malformed
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise _Malformed
    return value


def _optional_str(value: object) -> str | None:
    return None if value is None else _str(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Malformed
    return value


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Malformed
    return value


_MARKERS = {"": b"", "=": b"="}


def _form(value: object, blob: _Blob) -> Form:
    # Exact types (JSON makes no subclasses): about 2,500 forms are read on every run and
    # a run deserialises a few hundred, so a stored form is checked when it is used.
    if value is None:
        return None
    if value.__class__ is str:
        marker = _MARKERS.get(value)
        if marker is None:
            raise _Malformed
        return marker
    if value.__class__ is not list:
        raise _Malformed
    return _StoredForm(value, blob)


class _StoredForm:
    """A serialised form in the entry, as ``[start, length, digest]``: its bytes when they
    are what was stored, else None (the expression is compiled again from its text, and
    the damaged entry removed, so that the next run stores the policies again)."""

    __slots__ = ("blob", "value")

    def __init__(self, value: list[Any], blob: _Blob) -> None:
        self.value = value
        self.blob = blob

    def __call__(self) -> bytes | None:
        data = self._bytes()
        if data is not None:
            return data
        with contextlib.suppress(OSError):
            self.blob.entry.unlink()
        return None

    def _bytes(self) -> bytes | None:
        if len(self.value) != 3:
            return None
        start, length, digest = self.value
        if (
            start.__class__ is not int
            or length.__class__ is not int
            or digest.__class__ is not str
            or start < 0
            or length <= 0
            or start + length > len(self.blob.data)
        ):
            return None
        data = bytes(self.blob.data[start : start + length])
        return data if _digest(data) == digest else None


def _expr(value: object, blob: _Blob) -> CompiledExpr:
    data = _dict(value)
    forms = data["forms"]
    number = data["text"]
    if (
        forms.__class__ is not list
        or len(forms) != 3
        or number.__class__ is not int
        or not 0 <= number < blob.texts.count
    ):
        raise _Malformed
    return CompiledExpr.stored(
        functools.partial(blob.texts.text, number),  # read on first use
        (_form(forms[0], blob), _form(forms[1], blob), _form(forms[2], blob)),
    )


def _optional_expr(value: object, blob: _Blob) -> CompiledExpr | None:
    return None if value is None else _expr(value, blob)


def _named(value: object, blob: _Blob) -> NamedExpr:
    pair = _list(value)
    if len(pair) != 2:
        raise _Malformed
    return NamedExpr(_str(pair[0]), _expr(pair[1], blob))


def _rule(value: object, blob: _Blob) -> Rule:
    data = _dict(value)
    return Rule(
        id=_str(data["id"]),
        severity=Severity[_str(data["severity"])],
        expression=_expr(data["expression"], blob),
        message=_optional_str(data["message"]),
        message_expression=_optional_expr(data["message_expression"], blob),
        field_path=_optional_str(data["field_path"]),
        field_path_expression=_optional_expr(data["field_path_expression"], blob),
        for_each=_optional_expr(data["for_each"], blob),
        title=_str(data["title"]),
        description=_str(data["description"]),
        fix=_str(data["fix"]),
        references=tuple(_str(r) for r in _list(data["references"])),
        source=_str(data["source"]),
        line=_int(data["line"]),
        needs=tuple(_str(n) for n in _list(data["needs"])),
        message_template=_template(data["message_template"], blob),
    )


def _template(value: object, blob: _Blob) -> MessageTemplate | None:
    """Text parts as strings, placeholders as stored expressions."""
    if value is None:
        return None
    return MessageTemplate(
        tuple(part if isinstance(part, str) else _expr(part, blob) for part in _list(value))
    )


def _policy(value: object, blob: _Blob) -> Policy:
    data = _dict(value)
    fused: FusedCheck | None = None
    if data["fused"] is not None:
        stored = _dict(data["fused"])
        fused = FusedCheck.stored(_expr(stored["expr"], blob), _bool(stored["usable"]))
    return Policy(
        name=_str(data["name"]),
        description=_str(data["description"]),
        target=_str(data["target"]),
        match_conditions=tuple(_named(c, blob) for c in _list(data["match_conditions"])),
        rules=tuple(_rule(r, blob) for r in _list(data["rules"])),
        source=_str(data["source"]),
        builtin=_bool(data["builtin"]),
        variables=tuple(_named(v, blob) for v in _list(data["variables"])),
        fused=fused,
    )
