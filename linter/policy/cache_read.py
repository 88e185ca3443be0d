"""A policy cache entry read back: every value checked for its type (anything else is a
malformed entry, rebuilt by ``cache.py``), serialised forms checked against their digest
when first used, expressions' texts parsed when first read."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linter import digests
from linter.findings import Severity
from linter.policy.expr import CompiledExpr, Form
from linter.policy.fused import FusedCheck
from linter.policy.model import NamedExpr, Policy, Rule, StoredRules
from linter.policy.template import MessageTemplate

_FORM_DIGEST = 16  # hexadecimal digits of each serialised form's digest kept in the JSON


def form_digest(form: bytes) -> str:
    """The digest of a serialised form kept in the entry's JSON (``cache_write.py``
    stores it, a run checks a form against it when first used)."""
    return digests.hexdigest(form)[:_FORM_DIGEST]


class Malformed(Exception):
    """An entry that is not what this version writes."""


class Blob:
    """The serialised forms of an entry (a view of the bytes read), the entry's path, the
    texts of its expressions and its policies' rules as JSON texts (``rules``, read when a
    run first needs a policy's rules)."""

    __slots__ = ("data", "entry", "rules", "texts")

    def __init__(
        self, data: memoryview, entry: Path, texts: Texts, rules: memoryview | None = None
    ) -> None:
        self.data = data
        self.entry = entry
        self.texts = texts
        self.rules = memoryview(b"") if rules is None else rules


class Texts:
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


def as_list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise Malformed
    return value


def as_dict(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise Malformed
    return value


def _optional_str(value: object) -> str | None:
    return None if value is None else _str(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise Malformed
    return value


def as_int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Malformed
    return value


_MARKERS = {"": b"", "=": b"="}


def _form(value: object, blob: Blob) -> Form:
    # Exact types (JSON makes no subclasses): about 2,500 forms are read on every run and
    # a run deserialises a few hundred, so a stored form is checked when it is used.
    if value is None:
        return None
    if value.__class__ is str:
        marker = _MARKERS.get(value)
        if marker is None:
            raise Malformed
        return marker
    if value.__class__ is not list:
        raise Malformed
    return _StoredForm(value, blob)


class _StoredForm:
    """A serialised form in the entry, as ``[start, length, digest]``: its bytes when they
    are what was stored, else None (the expression is compiled again from its text, and
    the damaged entry removed, so that the next run stores the policies again)."""

    __slots__ = ("blob", "value")

    def __init__(self, value: list[Any], blob: Blob) -> None:
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
        return data if form_digest(data) == digest else None


def _expr(value: object, blob: Blob) -> CompiledExpr:
    data = as_dict(value)
    forms = data["forms"]
    number = data["text"]
    if (
        forms.__class__ is not list
        or len(forms) != 3
        or number.__class__ is not int
        or not 0 <= number < blob.texts.count
    ):
        raise Malformed
    return CompiledExpr.stored(
        functools.partial(blob.texts.text, number),  # read on first use
        (_form(forms[0], blob), _form(forms[1], blob), _form(forms[2], blob)),
    )


def _optional_expr(value: object, blob: Blob) -> CompiledExpr | None:
    return None if value is None else _expr(value, blob)


def _named(value: object, blob: Blob) -> NamedExpr:
    pair = as_list(value)
    if len(pair) != 2:
        raise Malformed
    return NamedExpr(_str(pair[0]), _expr(pair[1], blob))


def _rule(value: object, blob: Blob) -> Rule:
    data = as_dict(value)
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
        references=tuple(_str(r) for r in as_list(data["references"])),
        source=_str(data["source"]),
        line=as_int(data["line"]),
        needs=tuple(_str(n) for n in as_list(data["needs"])),
        check_needs=None
        if data["check_needs"] is None
        else tuple(_str(n) for n in as_list(data["check_needs"])),
        message_template=_template(data["message_template"], blob),
        autofix=_optional_expr(data["autofix"], blob),
        autofix_description=_str(data["autofix_description"]),
    )


def _template(value: object, blob: Blob) -> MessageTemplate | None:
    """Text parts as strings, placeholders as stored expressions."""
    if value is None:
        return None
    return MessageTemplate(
        tuple(part if isinstance(part, str) else _expr(part, blob) for part in as_list(value))
    )


def read_policy(
    value: object, blob: Blob, recover: Callable[[str, str, bool], tuple[Rule, ...]]
) -> Policy:
    """A policy of the entry; its rules are read when first used. ``recover`` gives a
    policy's rules from its file when the entry's rules cannot be read."""
    data = as_dict(value)
    name = _str(data["name"])
    ids = tuple(_str(i) for i in as_list(data["rule_ids"]))
    rules_at = as_list(data["rules"])
    source, builtin = _str(data["source"]), _bool(data["builtin"])
    reread = functools.partial(recover, name, source, builtin)
    fused: FusedCheck | None = None
    if data["fused"] is not None:
        stored = as_dict(data["fused"])
        fused = FusedCheck.stored(_expr(stored["expr"], blob), _bool(stored["usable"]))
    return Policy(
        name=name,
        description=_str(data["description"]),
        target=_str(data["target"]),
        match_conditions=tuple(_named(c, blob) for c in as_list(data["match_conditions"])),
        rules=StoredRules(ids, functools.partial(_rules, rules_at, ids, blob, reread)),
        source=source,
        builtin=builtin,
        variables=tuple(_named(v, blob) for v in as_list(data["variables"])),
        fused=fused,
    )


def _rules(
    at: list[Any],
    ids: tuple[str, ...],
    blob: Blob,
    reread: Callable[[], tuple[Rule, ...]],
) -> tuple[Rule, ...]:
    try:
        start, length = at
        if not (isinstance(start, int) and isinstance(length, int) and start >= 0):
            raise Malformed
        if start + length > len(blob.rules):
            raise Malformed
        text = bytes(blob.rules[start : start + length]).decode("utf-8", "surrogatepass")
        rules = tuple(_rule(r, blob) for r in as_list(json.loads(text)))
        if tuple(r.id for r in rules) != ids:
            raise Malformed
        return rules
    except (ValueError, RecursionError, Malformed, KeyError, TypeError):
        # The checksum covers this text and this code wrote it (the key covers the
        # code): only a bug brings a run here, when the rest of the entry is in use.
        return reread()
